/* milliner's TCP transfer: equal send and receive buffers at both ends, the message written
 * in one go.
 *
 * Wire protocol, per message on one connection: the client sends the message's length (8
 * octets, big-endian) and then the message; the server, once it has read the last octet,
 * answers with one octet (1).
 *
 * Timing: the paper started the clock at the write and stopped it when the write returned.
 * The write returns once the last octets are in the send buffer, so up to a send buffer's worth
 * (and a receive buffer's more, if the receiver reads slowly) has not arrived: a 64K message
 * "ran" faster than the Ethernet. The paper's messages (1 to 24 million bytes) made that small;
 * Fig 5's start at 64K. So the clock stops when the server's octet arrives, which proves the
 * server read the whole message: the end point of the paper's UDP timing (the receiver's final
 * acknowledgement), named in the record (timing_end). write_ns keeps the paper's own end point,
 * the return of the last write, for comparison. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ack.h"
#include "bench.h"
#include "nrcounts.h"

#define HDR_LEN 8 /* the message length, big-endian, sent before the timed write */
#define CONNECT_RETRY_NS 100000000LL
#define MAX_MSG (1LL << 31) /* the largest --size */

struct tcpb {
    nrio *io;
    const struct ipc_args *a;
    FILE *out;
    struct nrio_addr addr;
    int lsock, sock;
    int status, failed;
    int64_t progress_ns;
    int watchdog, timer;
    int index;             /* messages done (client) or received (server) */
    uint8_t *msg;
    long long cap;         /* server: octets msg holds */
    uint8_t hdr[HDR_LEN];
    long long off;         /* octets of header and message moved so far */
    long long len;         /* the current message's length */
    int64_t t0, t1, t2;    /* client: before the first write, after the last, the server's octet */
    int intact;
    struct nrio_sockopts in_force;
};

static void failf(struct tcpb *t, const char *fmt, const char *what, int err)
{
    if (t->failed)
        return;
    char m[256];
    snprintf(m, sizeof m, fmt, what, strerror(err));
    ipc_error(t->out, t->a, t->index, "%s", m);
    t->failed = 1;
    t->status = IPC_EXIT_FAIL;
    nrio_stop(t->io);
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

static void record_opts(struct tcpb *t)
{
    if (nrio_getopts(t->io, t->sock, &t->in_force) < 0)
        memset(&t->in_force, 0, sizeof t->in_force);
}

static void add_bufs(struct tcpb *t, struct nr_json *j)
{
    nr_json_int(j, "buf_requested", t->a->buf);
    nr_json_int(j, "sndbuf", t->in_force.sndbuf);
    nr_json_int(j, "rcvbuf", t->in_force.rcvbuf);
}

/* ---- client ---- */

static void client_next(void *arg);

static void client_io(void *arg, int sock, int events)
{
    struct tcpb *t = arg;
    (void)events;
    long long total = HDR_LEN + t->a->size;
    while (t->off < total) {
        const uint8_t *p = t->off < HDR_LEN ? t->hdr + t->off : t->msg + (t->off - HDR_LEN);
        size_t n = t->off < HDR_LEN ? (size_t)(HDR_LEN - t->off) : (size_t)(total - t->off);
        if (t->off == HDR_LEN && t->t0 == 0)
            t->t0 = nrio_now_ns(t->io); /* just before the first write of the message */
        ssize_t r = nrio_send(t->io, sock, p, n);
        if (r == -EAGAIN)
            return;
        if (r < 0) {
            failf(t, "%s failed: %s; did the server exit?", "send", (int)-r);
            return;
        }
        t->progress_ns = nrio_now_ns(t->io);
        t->off += r;
        if (t->off == total)
            t->t1 = t->progress_ns;
    }
    uint8_t ack;
    ssize_t r = nrio_recv(t->io, sock, &ack, 1);
    if (r == -EAGAIN) {
        if (nrio_watch(t->io, sock, NRIO_IN, client_io, t) < 0)
            failf(t, "%s failed: %s", "watching for the server's acknowledgement", EIO);
        return;
    }
    if (r <= 0) {
        failf(t, "%s: %s; is the peer an ipcbench --server --proto tcp?",
              "the server closed before acknowledging the message", r < 0 ? (int)-r : EPIPE);
        return;
    }
    t->t2 = nrio_now_ns(t->io);
    t->progress_ns = t->t2;
    struct nr_json j;
    ipc_record_begin(&j, t->a, t->index);
    nr_json_int(&j, "size", t->a->size);
    add_bufs(t, &j);
    nr_json_int(&j, "write_ns", t->t1 - t->t0);
    nr_json_counts(&j, t->io);
    ipc_record_finish(&j, t->out, t->a->size, t->t2 - t->t0, IPC_END_RECEIVER_ACK);
    t->index++;
    nrio_watch(t->io, sock, 0, NULL, NULL);
    if (t->index == t->a->repeat) {
        t->status = IPC_EXIT_OK;
        nrio_stop(t->io);
        return;
    }
    t->timer = nrio_timer_at(t->io, nrio_now_ns(t->io) + t->a->pause_ns, client_next, t);
}

static void client_next(void *arg)
{
    struct tcpb *t = arg;
    t->timer = 0;
    t->progress_ns = nrio_now_ns(t->io);
    for (long long i = 0; i < t->a->size; i++)
        t->msg[i] = ipc_pattern((uint32_t)t->index, i);
    nrio_touch(t->io, t->msg, (size_t)t->a->size, 1);
    put64(t->hdr, (uint64_t)t->a->size);
    t->off = 0;
    t->t0 = t->t1 = t->t2 = 0;
    if (nrio_watch(t->io, t->sock, NRIO_OUT, client_io, t) < 0)
        failf(t, "%s failed: %s", "watching the connection", EIO);
}

static void client_connect(void *arg);

static void client_connected(void *arg, int sock, int events)
{
    struct tcpb *t = arg;
    (void)events;
    int rc = nrio_connect_result(t->io, sock);
    nrio_watch(t->io, sock, 0, NULL, NULL);
    if (rc == -ECONNREFUSED) {
        nrio_close(t->io, sock);
        t->sock = -1;
        t->timer = nrio_timer_at(t->io, nrio_now_ns(t->io) + CONNECT_RETRY_NS, client_connect, t);
        return;
    }
    if (rc < 0) {
        failf(t, "%s failed: %s; check the address", "connecting to the server", -rc);
        return;
    }
    record_opts(t);
    client_next(t);
}

static void client_connect(void *arg)
{
    struct tcpb *t = arg;
    struct nrio_sockopts o = {.sndbuf = t->a->buf, .rcvbuf = t->a->buf};
    t->timer = 0;
    t->sock = nrio_open(t->io, NRIO_TCP, &o);
    if (t->sock < 0) {
        failf(t, "%s failed: %s", "opening a TCP socket", -t->sock);
        return;
    }
    int rc = nrio_connect(t->io, t->sock, &t->addr);
    if (rc < 0 && rc != -EINPROGRESS) {
        failf(t, "%s failed: %s", "connecting to the server", -rc);
        return;
    }
    if (nrio_watch(t->io, t->sock, NRIO_OUT, client_connected, t) < 0)
        failf(t, "%s failed: %s", "watching the connecting socket", EIO);
}

/* ---- server ---- */

static void on_accept(void *arg, int sock, int events);

static void server_io(void *arg, int sock, int events)
{
    struct tcpb *t = arg;
    (void)events;
    for (int burst = 0; burst < 64; burst++) {
        uint8_t *p;
        size_t n;
        if (t->off < HDR_LEN) {
            p = t->hdr + t->off;
            n = (size_t)(HDR_LEN - t->off);
        } else {
            /* The whole message is kept, as milliner's receiver held it (and paged it). */
            p = t->msg + (t->off - HDR_LEN);
            n = (size_t)(HDR_LEN + t->len - t->off < (1 << 16) ? HDR_LEN + t->len - t->off
                                                               : (1 << 16));
        }
        ssize_t r = nrio_recv(t->io, sock, p, n);
        if (r == -EAGAIN)
            return;
        if (r < 0) {
            failf(t, "%s failed: %s", "recv", (int)-r);
            return;
        }
        int64_t now = nrio_now_ns(t->io);
        t->progress_ns = now;
        if (r == 0) {
            if (t->off != 0) {
                failf(t, "%s: %s", "the client closed inside a message", EPIPE);
                return;
            }
            nrio_close(t->io, sock);
            t->sock = -1;
            if (nrio_watch(t->io, t->lsock, NRIO_IN, on_accept, t) < 0)
                failf(t, "%s failed: %s", "watching the listening socket", EIO);
            return;
        }
        long long at = t->off; /* where these r octets begin */
        if (at < HDR_LEN && at + r == HDR_LEN) {
            t->len = (long long)get64(t->hdr);
            t->t0 = now;
            t->intact = 1;
            if (t->len > t->cap) {
                uint8_t *m = t->len <= MAX_MSG ? realloc(t->msg, (size_t)t->len) : NULL;
                if (!m) {
                    failf(t, "%s: %s", "no memory for the client's message", ENOMEM);
                    return;
                }
                t->msg = m;
                t->cap = t->len;
            }
        }
        t->off += r;
        int whole = t->off >= HDR_LEN && t->off == HDR_LEN + t->len;
        /* The octet goes before the last check: the client's clock runs until it arrives. */
        uint8_t ack = 1;
        if (whole && nrio_send(t->io, sock, &ack, 1) != 1) {
            failf(t, "%s failed: %s", "acknowledging the message", EIO);
            return;
        }
        if (at >= HDR_LEN) {
            for (ssize_t i = 0; i < r && t->intact; i++)
                t->intact = p[i] == ipc_pattern((uint32_t)t->index, at - HDR_LEN + i);
        }
        if (!whole)
            continue;
        struct nr_json j;
        ipc_record_begin(&j, t->a, t->index);
        nr_json_int(&j, "size", t->len);
        add_bufs(t, &j);
        nr_json_bool(&j, "intact", t->intact);
        nr_json_counts(&j, t->io);
        ipc_record_finish(&j, t->out, t->len, now - t->t0, IPC_END_LAST_OCTET);
        t->index++;
        t->off = 0;
        if (t->a->count && t->index >= t->a->count) {
            t->status = IPC_EXIT_OK;
            nrio_stop(t->io);
            return;
        }
    }
}

static void on_accept(void *arg, int sock, int events)
{
    struct tcpb *t = arg;
    (void)events;
    int s = nrio_accept(t->io, sock, NULL);
    if (s == -EAGAIN)
        return;
    if (s < 0) {
        failf(t, "%s failed: %s", "accept", -s);
        return;
    }
    t->progress_ns = nrio_now_ns(t->io);
    nrio_watch(t->io, sock, 0, NULL, NULL);
    t->sock = s;
    t->off = 0;
    record_opts(t);
    if (nrio_watch(t->io, s, NRIO_IN, server_io, t) < 0)
        failf(t, "%s failed: %s", "watching the connection", EIO);
}

static void on_watchdog(void *arg)
{
    struct tcpb *t = arg;
    int64_t now = nrio_now_ns(t->io);
    t->watchdog = 0;
    if (t->timer > 0)
        t->progress_ns = now;
    if (now - t->progress_ns >= t->a->timeout_ns) {
        if (t->a->server && t->index > 0 && !t->a->count && t->off == 0) {
            t->status = IPC_EXIT_OK; /* served, and idle since */
            nrio_stop(t->io);
            return;
        }
        ipc_error(t->out, t->a, t->index, "timeout: nothing happened for %.3f s; check that "
                  "the %s runs and is reachable, or raise --timeout", t->a->timeout_ns / 1e9,
                  t->a->server ? "client" : "server (ipcbench --server --proto tcp)");
        t->failed = 1;
        t->status = IPC_EXIT_FAIL;
        nrio_stop(t->io);
        return;
    }
    t->watchdog = nrio_timer_at(t->io, t->progress_ns + t->a->timeout_ns, on_watchdog, t);
}

int ipc_run_tcp(nrio *io, const struct ipc_args *a, FILE *out)
{
    struct tcpb t = {.io = io, .a = a, .out = out, .lsock = -1, .sock = -1,
                     .status = IPC_EXIT_FAIL};
    t.cap = a->server ? 1 << 16 : a->size;
    t.msg = malloc((size_t)t.cap);
    if (!t.msg) {
        ipc_error(out, a, 0, "out of memory for a %lld-octet message", a->size);
        return IPC_EXIT_FAIL;
    }
    nrio_parse_addr(a->server ? a->bind_ip : a->host, (uint16_t)a->port, &t.addr);
    t.progress_ns = nrio_now_ns(io);
    t.watchdog = nrio_timer_at(io, t.progress_ns + a->timeout_ns, on_watchdog, &t);
    if (a->server) {
        struct nrio_sockopts o = {.sndbuf = a->buf, .rcvbuf = a->buf, .reuseaddr = 1};
        int rc = t.lsock = nrio_open(io, NRIO_TCP, &o);
        if (rc >= 0)
            rc = nrio_bind(io, t.lsock, &t.addr);
        if (rc >= 0)
            rc = nrio_listen(io, t.lsock, 4);
        if (rc >= 0)
            rc = nrio_watch(io, t.lsock, NRIO_IN, on_accept, &t);
        if (rc < 0)
            failf(&t, "%s failed: %s; is the port taken? pick another with -p",
                  "listening", -rc);
        else
            ipc_announce(a);
    } else {
        client_connect(&t);
    }
    if (!t.failed) {
        int rc = nrio_run(io);
        if (rc < 0)
            ipc_error(out, a, t.index, "the event loop failed: %s", strerror(-rc));
    }
    if (t.sock >= 0)
        nrio_close(io, t.sock);
    if (t.lsock >= 0)
        nrio_close(io, t.lsock);
    free(t.msg);
    return t.status;
}
