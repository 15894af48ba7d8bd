/* milliner's Sun RPC over TCP, here ONC RPC from libtirpc: one call per message carrying it as
 * opaque bytes, no result, timed around the call as the paper did. The call returns on the
 * server's reply, which it sends once it decoded the whole message, so that end point proves
 * delivery (timing_end "rpc_return"). libtirpc drives its own blocking sockets
 * and poll(), so this transport runs on the kernel stack only, never on Tahoe or in virtual
 * time. The program is not registered with rpcbind: the client is told the port. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <rpc/rpc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ack.h"
#include "bench.h"
#include "nrcounts.h"

#define IPC_PROG 0x20005f01 /* in the range RFC 5531 leaves to local use */
#define IPC_VERS 1
#define IPC_PROC_SEND 1
#define CONNECT_RETRY_NS 100000000LL

struct blob {
    u_int len;
    char *val;
};

static bool_t xdr_blob(XDR *x, struct blob *b) { return xdr_bytes(x, &b->val, &b->len, ~0u); }

/* xdr_void with the argument list xdrproc_t expects, which -Wcast-function-type checks. */
static bool_t xdr_nothing(XDR *x, void *p)
{
    (void)x;
    (void)p;
    return TRUE;
}

/* The server's state, for the dispatch function libtirpc calls. */
static struct {
    nrio *io;
    const struct ipc_args *a;
    FILE *out;
    int served;
    int64_t progress_ns;
} srv;

static void dispatch(struct svc_req *rq, SVCXPRT *x)
{
    srv.progress_ns = nrio_now_ns(srv.io);
    if (rq->rq_proc == NULLPROC) {
        svc_sendreply(x, (xdrproc_t)xdr_nothing, NULL);
        return;
    }
    if (rq->rq_proc != IPC_PROC_SEND) {
        svcerr_noproc(x);
        return;
    }
    struct blob b = {0, NULL};
    if (!svc_getargs(x, (xdrproc_t)xdr_blob, (caddr_t)&b)) {
        svcerr_decode(x);
        return;
    }
    /* The reply first: the client's clock runs until it arrives, and the paper's server only
     * took the message. */
    if (!svc_sendreply(x, (xdrproc_t)xdr_nothing, NULL))
        ipc_error(srv.out, srv.a, srv.served, "sending the RPC reply failed");
    int intact = 1;
    for (u_int i = 0; i < b.len && intact; i++)
        intact = (uint8_t)b.val[i] == ipc_pattern((uint32_t)srv.served, i);
    struct nr_json j;
    ipc_record_begin(&j, srv.a, srv.served);
    nr_json_int(&j, "size", b.len);
    nr_json_int(&j, "buf_requested", srv.a->buf);
    nr_json_bool(&j, "intact", intact);
    nr_json_counts(&j, srv.io);
    nr_json_null(&j, "elapsed_ns");
    nr_json_null(&j, "timing_end");
    nr_json_null(&j, "throughput_bps");
    int rc = nr_json_emit(&j, srv.out);
    if (rc < 0)
        fprintf(stderr, "ipcbench: writing a record failed: %s\n", strerror(-rc));
    svc_freeargs(x, (xdrproc_t)xdr_blob, (caddr_t)&b);
    srv.served++;
}

static int rpc_server(nrio *io, const struct ipc_args *a, FILE *out)
{
    srv.io = io;
    srv.a = a;
    srv.out = out;
    srv.served = 0;
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)a->port)};
    inet_pton(AF_INET, a->bind_ip, &sin.sin_addr);
    int one = 1;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, (struct sockaddr *)&sin, sizeof sin) != 0 || listen(fd, 4) != 0) {
        ipc_error(out, a, 0, "listening on %s:%d failed: %s; is the port taken? pick another "
                  "with -p", a->bind_ip, a->port, strerror(errno));
        if (fd >= 0)
            close(fd);
        return IPC_EXIT_FAIL;
    }
    SVCXPRT *x = svctcp_create(fd, (u_int)a->buf, (u_int)a->buf);
    /* Protocol 0: no rpcbind registration, which the loopback tests could not count on. */
    if (!x || !svc_register(x, IPC_PROG, IPC_VERS, dispatch, 0)) {
        ipc_error(out, a, 0, "creating the RPC service failed (svctcp_create/svc_register)");
        close(fd);
        return IPC_EXIT_FAIL;
    }
    ipc_announce(a); /* listening: a runner may start the client now */
    int status = IPC_EXIT_FAIL;
    srv.progress_ns = nrio_now_ns(io);
    for (;;) {
        if (a->count && srv.served >= a->count) {
            status = IPC_EXIT_OK;
            break;
        }
        int64_t left = srv.progress_ns + a->timeout_ns - nrio_now_ns(io);
        if (left <= 0) {
            if (srv.served > 0 && !a->count) {
                status = IPC_EXIT_OK;
            } else {
                ipc_error(out, a, srv.served, "timeout: no call for %.3f s; check that the "
                          "client runs, or raise --timeout", a->timeout_ns / 1e9);
            }
            break;
        }
        int n = poll(svc_pollfd, (nfds_t)svc_max_pollfd, (int)((left + 999999) / 1000000));
        if (n < 0 && errno != EINTR) {
            ipc_error(out, a, srv.served, "poll on the RPC sockets failed: %s", strerror(errno));
            break;
        }
        if (n > 0) {
            srv.progress_ns = nrio_now_ns(io);
            svc_getreq_poll(svc_pollfd, n);
        }
    }
    svc_unregister(IPC_PROG, IPC_VERS);
    svc_destroy(x);
    return status;
}

/* A TCP connection to the server within the timeout, retried while it is refused. */
static int connect_within(nrio *io, const struct sockaddr_in *sin, int64_t timeout_ns)
{
    int64_t deadline = nrio_now_ns(io) + timeout_ns;
    for (;;) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return -errno;
        int err = 0;
        if (connect(fd, (const struct sockaddr *)sin, sizeof *sin) != 0) {
            err = errno;
            if (err == EINPROGRESS) {
                int64_t left = deadline - nrio_now_ns(io);
                struct pollfd p = {.fd = fd, .events = POLLOUT};
                int n = left > 0 ? poll(&p, 1, (int)((left + 999999) / 1000000)) : 0;
                socklen_t len = sizeof err;
                if (n <= 0)
                    err = n == 0 ? ETIMEDOUT : errno;
                else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
                    err = errno;
            }
        }
        if (err == 0) {
            int fl = fcntl(fd, F_GETFL);
            if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
                err = errno;
                close(fd);
                return -err;
            }
            return fd;
        }
        close(fd);
        if (err != ECONNREFUSED || nrio_now_ns(io) + CONNECT_RETRY_NS >= deadline)
            return -err;
        struct timespec ts = {0, CONNECT_RETRY_NS};
        nanosleep(&ts, NULL);
    }
}

static int rpc_client(nrio *io, const struct ipc_args *a, FILE *out)
{
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)a->port)};
    inet_pton(AF_INET, a->host, &sin.sin_addr);
    char *msg = malloc((size_t)a->size);
    if (!msg) {
        ipc_error(out, a, 0, "out of memory for a %lld-octet message", a->size);
        return IPC_EXIT_FAIL;
    }
    int fd = connect_within(io, &sin, a->timeout_ns);
    if (fd < 0) {
        ipc_error(out, a, 0, "connecting to %s:%d failed: %s; is ipcbench --server --api rpc "
                  "running there?", a->host, a->port, strerror(-fd));
        free(msg);
        return IPC_EXIT_FAIL;
    }
    CLIENT *cl = clnttcp_create(&sin, IPC_PROG, IPC_VERS, &fd, (u_int)a->buf, (u_int)a->buf);
    if (!cl) {
        ipc_error(out, a, 0, "creating the RPC client failed: %s", clnt_spcreateerror("clnttcp"));
        close(fd);
        free(msg);
        return IPC_EXIT_FAIL;
    }
    struct timeval tv = {(time_t)(a->timeout_ns / 1000000000),
                         (suseconds_t)(a->timeout_ns % 1000000000 / 1000)};
    int status = IPC_EXIT_OK;
    for (int i = 0; i < a->repeat; i++) {
        if (i > 0) {
            struct timespec ts = {(time_t)(a->pause_ns / 1000000000), a->pause_ns % 1000000000};
            nanosleep(&ts, NULL);
        }
        for (long long k = 0; k < a->size; k++)
            msg[k] = (char)ipc_pattern((uint32_t)i, k);
        struct blob b = {(u_int)a->size, msg};
        int64_t t0 = nrio_now_ns(io);
        enum clnt_stat st = clnt_call(cl, IPC_PROC_SEND, (xdrproc_t)xdr_blob, (caddr_t)&b,
                                      (xdrproc_t)xdr_nothing, NULL, tv);
        int64_t t1 = nrio_now_ns(io);
        if (st != RPC_SUCCESS) {
            ipc_error(out, a, i, "the RPC call failed: %s%s", clnt_sperrno(st),
                      st == RPC_TIMEDOUT ? "; the server did not answer within --timeout" : "");
            status = IPC_EXIT_FAIL;
            break;
        }
        struct nr_json j;
        ipc_record_begin(&j, a, i);
        nr_json_int(&j, "size", a->size);
        nr_json_int(&j, "buf_requested", a->buf);
        nr_json_counts(&j, io);
        ipc_record_finish(&j, out, a->size, t1 - t0, IPC_END_RPC_RETURN);
    }
    clnt_destroy(cl);
    close(fd);
    free(msg);
    return status;
}

int ipc_run_rpc(nrio *io, const struct ipc_args *a, FILE *out)
{
    return a->server ? rpc_server(io, a, out) : rpc_client(io, a, out);
}
