#include "client.h"

#include "nrcounts.h"
#include "mftpcore/flags.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "mftpcore/conncount.h"
#include "mftpcore/crc32.h"
#include "mftpcore/errors.h"
#include "mftpcore/ftp.h"
#include "mftpcore/xfer.h"
#include "rtt_icmp.h"
#include "safeopen.h"

/* What the client waits for next. */
enum phase {
    P_RTT, P_CONNECT, P_GREETING, P_USER, P_PASS, P_TYPE, P_SIZE, P_ALLO, P_MCON, P_PASV,
    P_DATA, P_CMD, P_XFER, P_PAUSE, P_QUIT,
};
static const char *const phase_names[] = {
    "measuring the RTT", "connecting", "the greeting", "the USER reply", "the PASS reply",
    "the TYPE reply", "the SIZE reply", "the ALLO reply", "the MCON reply", "the PASV reply",
    "data connections", "the RETR/STOR reply", "the transfer", "the pause", "the QUIT reply",
};

struct client {
    nrio *io;
    const struct mftp_args *a;
    FILE *out;
    struct nrio_addr server;
    enum phase phase;
    int status, failed;
    int64_t progress_ns;
    int watchdog, timer;
    int index;
    /* RTT */
    const char *rtt_method;
    int64_t rtt_ns;
    int probe_sock, probes_done;
    int64_t probe_t0;
    /* connection count */
    int nconns;
    const char *chosen_by;
    double n_exact;
    /* control connection */
    int ctl;
    struct mftp_lines in;
    char out_buf[2048];
    size_t out_len;
    /* the current transfer */
    int data[MFTP_MAX_CONNS];
    int ndata, nconnected;
    uint16_t data_port;
    int64_t t_connected; /* the first data connection up */
    int fd;
    long long size;
    long long peer_window, peer_window_max;
    /* The first data connection's options once all are connected, and when the transfer ended
     * (the kernel may have moved the window meanwhile). */
    struct nrio_sockopts in_force, in_force_end;
    int64_t t_setup, t_cmd, t_226;
    int got_226, xfer_ok;
    struct mftp_xfer x;
};

static void failf(struct client *c, const char *fmt, ...)
{
    if (c->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    mftp_verror(c->out, "mftp", c->a->stack, c->index, fmt, ap);
    va_end(ap);
    c->failed = 1;
    c->status = 1;
    nrio_stop(c->io);
}

static void progress(struct client *c) { c->progress_ns = nrio_now_ns(c->io); }

static void on_watchdog(void *arg)
{
    struct client *c = arg;
    c->watchdog = 0;
    int64_t last = c->progress_ns;
    if (c->phase == P_XFER && c->x.t_last > last)
        last = c->x.t_last;
    if (c->phase == P_PAUSE)
        last = nrio_now_ns(c->io);
    if (nrio_now_ns(c->io) - last >= c->a->timeout_ns) {
        failf(c, "timeout: nothing happened for %.3f s (waiting for %s, transfer %d); "
              "check that mftpd runs on %s:%d, or raise --timeout",
              c->a->timeout_ns / 1e9, phase_names[c->phase], c->index, c->a->host, c->a->port);
        return;
    }
    c->watchdog = nrio_timer_at(c->io, last + c->a->timeout_ns, on_watchdog, c);
}

/* ---- control connection ---- */

static void on_ctl(void *arg, int sock, int events);

static void ctl_rewatch(struct client *c)
{
    int rc = nrio_watch(c->io, c->ctl, NRIO_IN | (c->out_len ? NRIO_OUT : 0), on_ctl, c);
    if (rc < 0)
        failf(c, "watching the control connection failed: %s", strerror(-rc));
}

static void flush(struct client *c)
{
    while (c->out_len) {
        ssize_t n = nrio_send(c->io, c->ctl, c->out_buf, c->out_len);
        if (n == -EAGAIN)
            break;
        if (n < 0) {
            failf(c, "sending on the control connection failed: %s", strerror((int)-n));
            return;
        }
        memmove(c->out_buf, c->out_buf + n, c->out_len - (size_t)n);
        c->out_len -= (size_t)n;
    }
    ctl_rewatch(c);
}

static void send_cmd(struct client *c, enum phase next, const char *fmt, ...)
{
    char line[MFTP_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 2, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n > sizeof line - 3 || c->out_len + (size_t)n + 2 > sizeof c->out_buf) {
        failf(c, "a command is too long for the control connection");
        return;
    }
    memcpy(c->out_buf + c->out_len, line, (size_t)n);
    memcpy(c->out_buf + c->out_len + n, "\r\n", 2);
    c->out_len += (size_t)n + 2;
    c->phase = next;
    flush(c);
}

/* ---- the transfer ---- */

static void close_data(struct client *c)
{
    mftp_xfer_cleanup(&c->x);
    for (int i = 0; i < c->ndata; i++)
        nrio_close(c->io, c->data[i]);
    c->ndata = c->nconnected = 0;
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

static struct nrio_sockopts data_opts(const struct client *c)
{
    return mftp_window_opts(c->io, c->a->window);
}

static void begin_transfer(struct client *c);

static void pause_over(void *arg)
{
    struct client *c = arg;
    c->timer = 0;
    progress(c);
    begin_transfer(c);
}

static void emit_transfer(struct client *c)
{
    const struct mftp_args *a = c->a;
    struct mftp_xfer *x = &c->x;
    const struct nrio_sockopts o = c->in_force_end;
    int64_t bytes[MFTP_MAX_CONNS], blocks[MFTP_MAX_CONNS];
    for (int i = 0; i < x->n; i++) {
        bytes[i] = x->c[i].bytes;
        blocks[i] = x->c[i].blocks;
    }
    struct nr_json j;
    nr_json_begin(&j, "transfer");
    nr_json_str(&j, "tool", "mftp");
    nr_json_str(&j, "stack", a->stack);
    nr_json_str(&j, "role", "client");
    nr_json_int(&j, "index", c->index);
    nr_json_str(&j, "command", a->get ? "RETR" : "STOR");
    nr_json_str(&j, "name", a->get ? a->get : a->remote_name);
    nr_json_str(&j, "mode", a->plain ? "stream" : "block");
    nr_json_counts(&j, c->io);
    nr_json_int(&j, "connections", x->n);
    nr_json_str(&j, "connections_chosen_by", c->chosen_by);
    if (a->target_bps > 0)
        nr_json_double(&j, "target_rate_bps", a->target_bps);
    else
        nr_json_null(&j, "target_rate_bps");
    if (c->n_exact >= 0)
        nr_json_double(&j, "formula_connections", c->n_exact);
    else
        nr_json_null(&j, "formula_connections");
    nr_json_str(&j, "rtt_method", c->rtt_method);
    if (c->rtt_ns > 0)
        nr_json_int(&j, "rtt_ns", c->rtt_ns);
    else
        nr_json_null(&j, "rtt_ns");
    nr_json_int(&j, "rtt_samples", a->rtt_samples);
    /* The kernel may move the clamp during a transfer (see mftp_xfer.reclamp), so one value
     * cannot say which window was in force: the record gives where it started, where it
     * ended, the largest it was found at, and how often it was set back. */
    const int window_start = mftp_window_in_force(c->io, &c->in_force);
    const int window_end = mftp_window_in_force(c->io, &o);
    int window_max = window_start;
    if (x->window_max > window_max)
        window_max = x->window_max;
    if (window_end > window_max)
        window_max = window_end;
    nr_json_int(&j, "window_requested", a->window);
    nr_json_int(&j, "window_start", window_start);
    nr_json_int(&j, "window_end", window_end);
    nr_json_int(&j, "window_max", window_max);
    nr_json_int(&j, "window_reasserts", x->reasserts);
    if (c->peer_window >= 0)
        nr_json_int(&j, "window_peer", c->peer_window);
    else
        nr_json_null(&j, "window_peer");
    if (c->peer_window_max >= 0)
        nr_json_int(&j, "window_peer_max", c->peer_window_max);
    else
        nr_json_null(&j, "window_peer_max");
    nr_json_int(&j, "sndbuf", o.sndbuf);
    nr_json_int(&j, "rcvbuf", o.rcvbuf);
    nr_json_int(&j, "block_size", a->plain ? 0 : a->block);
    nr_json_int(&j, "reorder_max", x->reorder_max);
    nr_json_int(&j, "reorder_stalls", x->stalls);
    nr_json_int(&j, "blocking_writes", a->blocking_writes);
    nr_json_int(&j, "write_holds", x->holds);
    nr_json_int(&j, "held_ahead_max", x->held_ahead_max);
    nr_json_int(&j, "bytes", x->bytes);
    nr_json_int(&j, "duplicate_bytes", x->dup_bytes);
    nr_json_int_array(&j, "conn_bytes", bytes, (size_t)x->n);
    nr_json_int_array(&j, "conn_blocks", blocks, (size_t)x->n);
    /* From the first data octet (--setup serial: the first data connection up) to every
     * connection having ended: for RETR the last octet arrived, for STOR the server has all
     * and closed. */
    int64_t start = a->setup == MFTP_SETUP_SERIAL ? c->t_connected : x->t_first;
    int64_t ns = x->t_first ? x->t_done - start : 0;
    nr_json_str(&j, "setup", a->setup == MFTP_SETUP_SERIAL ? "serial" : "parallel");
    nr_json_int(&j, "elapsed_ns", ns);
    if (ns > 0)
        nr_json_double(&j, "throughput_bps", (double)x->bytes * 8e9 / (double)ns);
    else
        nr_json_null(&j, "throughput_bps");
    nr_json_int(&j, "setup_ns", c->t_cmd - c->t_setup);
    nr_json_int(&j, "command_ns", c->t_226 - c->t_cmd);
    const char *file = a->get ? a->dest : a->put;
    uint32_t crc;
    struct stat st;
    nr_json_str(&j, "file", file);
    if (stat(file, &st) == 0 && S_ISREG(st.st_mode) && mftp_crc32_file(file, &crc) == 0) {
        char hex[16];
        snprintf(hex, sizeof hex, "%08x", crc);
        nr_json_str(&j, "crc32", hex);
    } else {
        nr_json_null(&j, "crc32");
    }
    int rc = nr_json_emit(&j, c->out);
    if (rc < 0)
        fprintf(stderr, "mftp: writing a record failed: %s\n", strerror(-rc));
}

static void transfer_complete(struct client *c)
{
    emit_transfer(c);
    close_data(c);
    c->index++;
    if (c->index == c->a->repeat) {
        send_cmd(c, P_QUIT, "QUIT");
        return;
    }
    c->phase = P_PAUSE;
    c->timer = nrio_timer_at(c->io, nrio_now_ns(c->io) + c->a->pause_ns, pause_over, c);
    if (c->timer < 0)
        failf(c, "arming the pause timer failed: %s", strerror(-c->timer));
}

static void xfer_done(void *arg, struct mftp_xfer *x, int ok)
{
    struct client *c = arg;
    progress(c);
    if (!ok) {
        failf(c, "transfer %d failed: %s", c->index, x->error);
        return;
    }
    c->xfer_ok = 1;
    int rc = c->ndata > 0 ? nrio_getopts(c->io, c->data[0], &c->in_force_end) : -EBADF;
    if (rc < 0) {
        failf(c, "reading the data connection's options failed: %s", strerror(-rc));
        return;
    }
    /* Receiving, closing is what tells the server that everything arrived. */
    for (int i = 0; i < c->ndata; i++)
        nrio_close(c->io, c->data[i]);
    c->ndata = 0;
    if (c->got_226)
        transfer_complete(c);
}

static void start_xfer(struct client *c)
{
    const struct mftp_args *a = c->a;
    int sending = a->put != NULL;
    long long size = sending ? c->size : (a->plain ? -1 : c->size);
    if (mftp_xfer_start(&c->x, c->io, sending, !a->plain, c->data, c->ndata, c->fd, size,
                        a->block, xfer_done, c) < 0)
        failf(c, "starting the transfer failed: %s", c->x.error);
    c->x.reclamp = data_opts(c).window_clamp; /* 0 where the buffers are the window */
    c->x.reorder_max = a->reorder_max;
    c->x.blocking_writes = a->blocking_writes;
}

static int open_one(struct client *c);

static void on_data_connected(void *arg, int sock, int events)
{
    struct client *c = arg;
    (void)events;
    int rc = nrio_connect_result(c->io, sock);
    if (rc < 0) {
        failf(c, "a data connection to the server failed: %s", strerror(-rc));
        return;
    }
    nrio_watch(c->io, sock, 0, NULL, NULL);
    progress(c);
    if (++c->nconnected == 1)
        c->t_connected = nrio_now_ns(c->io);
    if (c->a->setup == MFTP_SETUP_SERIAL && c->ndata < c->nconns) {
        open_one(c);
        return;
    }
    if (c->nconnected < c->ndata)
        return;
    rc = nrio_getopts(c->io, c->data[0], &c->in_force);
    if (rc < 0) {
        failf(c, "reading the data connection's options failed: %s", strerror(-rc));
        return;
    }
    c->t_cmd = nrio_now_ns(c->io);
    if (c->a->get)
        send_cmd(c, P_CMD, "RETR %s", c->a->get);
    else
        send_cmd(c, P_CMD, "STOR %s", c->a->remote_name);
}

/* Opens the next data connection and starts its connect; returns 0, or -1 after failing. */
static int open_one(struct client *c)
{
    struct nrio_addr to = {.ip = c->server.ip, .port = c->data_port};
    struct nrio_sockopts o = data_opts(c);
    int i = c->ndata;
    int s = nrio_open(c->io, NRIO_TCP, &o);
    if (s < 0) {
        failf(c, "opening data connection %d failed: %s%s", i, strerror(-s),
              s == -ENOBUFS && c->a->window > 0 ? "; the buffers --window asks for exceed "
              "what this stack allows: give a smaller --window" : "");
        return -1;
    }
    c->data[c->ndata++] = s;
    int rc = nrio_connect(c->io, s, &to);
    if (rc < 0 && rc != -EINPROGRESS) {
        failf(c, "connecting data connection %d failed: %s", i, strerror(-rc));
        return -1;
    }
    rc = nrio_watch(c->io, s, NRIO_OUT, on_data_connected, c);
    if (rc < 0) {
        failf(c, "watching data connection %d failed: %s", i, strerror(-rc));
        return -1;
    }
    return 0;
}

static void open_data(struct client *c, uint16_t port)
{
    c->phase = P_DATA;
    c->data_port = port;
    int n = c->a->setup == MFTP_SETUP_SERIAL ? 1 : c->nconns;
    for (int i = 0; i < n; i++)
        if (open_one(c) < 0)
            return;
}

static void begin_transfer(struct client *c)
{
    const struct mftp_args *a = c->a;
    c->got_226 = c->xfer_ok = 0;
    c->peer_window = c->peer_window_max = -1;
    c->size = -1;
    memset(&c->x, 0, sizeof c->x);
    c->t_setup = nrio_now_ns(c->io);
    c->t_connected = 0;
    if (a->get) {
        c->fd = nr_open_write(a->dest);
        if (c->fd < 0) {
            failf(c, "opening %s for writing failed: %s", a->dest, nr_open_write_error(c->fd));
            return;
        }
        if (a->plain)
            send_cmd(c, P_PASV, "PASV");
        else
            send_cmd(c, P_SIZE, "SIZE %s", a->get);
    } else {
        struct stat st;
        c->fd = open(a->put, O_RDONLY | O_CLOEXEC);
        if (c->fd < 0 || fstat(c->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            failf(c, "%s: %s; --put needs a readable plain file", a->put,
                  c->fd < 0 ? strerror(errno) : "not a plain file");
            return;
        }
        c->size = st.st_size;
        if (a->plain)
            send_cmd(c, P_PASV, "PASV");
        else
            send_cmd(c, P_ALLO, "ALLO %lld", c->size);
    }
}

/* One complete reply (the last line of a multi-line one) in the current phase. */
static void on_reply(struct client *c, int code, const char *line)
{
    const struct mftp_args *a = c->a;
    long long v;
    switch (c->phase) {
    case P_GREETING:
        if (code == 220) {
            send_cmd(c, P_USER, "USER %s", a->user);
            return;
        }
        break;
    case P_USER:
        if (code == 230) {
            send_cmd(c, P_TYPE, "TYPE I");
            return;
        }
        if (code == 331) {
            send_cmd(c, P_PASS, "PASS %s", a->pass);
            return;
        }
        break;
    case P_PASS:
        if (code == 230 || code == 202) {
            send_cmd(c, P_TYPE, "TYPE I");
            return;
        }
        break;
    case P_TYPE:
        if (code == 200) {
            begin_transfer(c);
            return;
        }
        break;
    case P_SIZE:
        if (code == 213 && sscanf(line + 4, "%lld", &v) == 1 && v >= 0) {
            c->size = v;
            send_cmd(c, P_MCON, "MCON %d %ld", c->nconns, a->window);
            return;
        }
        break;
    case P_ALLO:
        if (code == 200 || code == 202) {
            send_cmd(c, P_MCON, "MCON %d %ld", c->nconns, a->window);
            return;
        }
        break;
    case P_MCON:
        if (code == 200) {
            send_cmd(c, P_PASV, "PASV");
            return;
        }
        failf(c, "the server refused MCON (%s); is it an mftpd? try --plain for a plain FTP "
              "server", line);
        return;
    case P_PASV:
        if (code == 227) {
            uint32_t ip;
            uint16_t port;
            if (mftp_parse_hostport(line + 4, &ip, &port) < 0) {
                failf(c, "cannot read the address in \"%s\"", line);
                return;
            }
            /* Like ftplib, trust the port but not the address: connect where the control
             * connection goes. */
            open_data(c, port);
            return;
        }
        break;
    case P_CMD:
        if (code == 150 || code == 125) {
            c->phase = P_XFER;
            start_xfer(c);
            return;
        }
        break;
    case P_XFER:
        if (code == 226 || code == 250) {
            c->got_226 = 1;
            c->t_226 = nrio_now_ns(c->io);
            if (mftp_find_kv(line, "window", &v) == 0)
                c->peer_window = v;
            if (mftp_find_kv(line, "window_max", &v) == 0)
                c->peer_window_max = v;
            if (c->xfer_ok)
                transfer_complete(c);
            return;
        }
        break;
    case P_QUIT:
        if (code == 221) {
            c->status = 0;
            nrio_stop(c->io);
            return;
        }
        break;
    default:
        break;
    }
    failf(c, "unexpected reply while waiting for %s: \"%s\"", phase_names[c->phase], line);
}

static void on_ctl(void *arg, int sock, int events)
{
    struct client *c = arg;
    if (events & NRIO_OUT) {
        flush(c);
        if (c->failed)
            return;
    }
    if (!(events & (NRIO_IN | NRIO_ERR)))
        return;
    ssize_t n;
    for (;;) {
        size_t room = mftp_lines_room(&c->in);
        n = room ? nrio_recv(c->io, sock, mftp_lines_tail(&c->in), room) : -EAGAIN;
        if (n <= 0)
            break;
        progress(c);
        mftp_lines_added(&c->in, (size_t)n);
    }
    char line[MFTP_LINE_MAX];
    int rc;
    while (!c->failed && (rc = mftp_lines_next(&c->in, line, sizeof line)) != 0) {
        int last;
        int code = rc < 0 ? -1 : mftp_reply_code(line, &last);
        if (code < 0) {
            if (rc > 0 && (line[0] == ' ' || c->phase == P_GREETING))
                continue; /* the inside of a multi-line reply */
            failf(c, "the server sent something that is not an FTP reply: \"%.80s\"", line);
            return;
        }
        if (!last)
            continue;
        on_reply(c, code, line);
    }
    /* Replies that came with the end of the stream (221 and the close) count first. */
    if (n != -EAGAIN && !c->failed && !(c->phase == P_QUIT && c->status == 0))
        failf(c, "the server closed the control connection%s%s", n < 0 ? ": " : "",
              n < 0 ? strerror((int)-n) : "");
}

static void on_ctl_connected(void *arg, int sock, int events)
{
    struct client *c = arg;
    (void)events;
    int rc = nrio_connect_result(c->io, sock);
    if (rc < 0) {
        failf(c, "connecting to %s:%d failed: %s; is mftpd running there?", c->a->host,
              c->a->port, strerror(-rc));
        return;
    }
    progress(c);
    c->phase = P_GREETING;
    ctl_rewatch(c);
}

static void connect_control(struct client *c)
{
    c->phase = P_CONNECT;
    c->ctl = nrio_open(c->io, NRIO_TCP, NULL);
    if (c->ctl < 0) {
        failf(c, "opening the control socket failed: %s", strerror(-c->ctl));
        return;
    }
    int rc = nrio_connect(c->io, c->ctl, &c->server);
    if (rc < 0 && rc != -EINPROGRESS) {
        failf(c, "connecting to %s:%d failed: %s", c->a->host, c->a->port, strerror(-rc));
        return;
    }
    rc = nrio_watch(c->io, c->ctl, NRIO_OUT, on_ctl_connected, c);
    if (rc < 0)
        failf(c, "watching the control socket failed: %s", strerror(-rc));
}

/* ---- RTT and the number of connections ---- */

static void choose_connections(struct client *c)
{
    const struct mftp_args *a = c->a;
    c->n_exact = -1;
    if (a->plain) {
        c->nconns = 1;
        c->chosen_by = "plain";
    } else if (a->connections) {
        c->nconns = a->connections;
        c->chosen_by = "override";
    } else if (a->target_bps > 0) {
        c->nconns = mftp_conn_count(a->target_bps, a->window, c->rtt_ns, &c->n_exact);
        c->chosen_by = "formula";
        if (c->nconns < 0) {
            failf(c, "the RTT measured as 0 ns; the formula cannot pick N: give -n");
            return;
        }
    } else {
        c->nconns = 1;
        c->chosen_by = "default";
    }
    connect_control(c);
}

static void probe_next(struct client *c);

static void on_probe(void *arg, int sock, int events)
{
    struct client *c = arg;
    (void)events;
    int64_t dt = nrio_now_ns(c->io) - c->probe_t0;
    int rc = nrio_connect_result(c->io, sock);
    nrio_watch(c->io, sock, 0, NULL, NULL);
    nrio_close(c->io, sock);
    c->probe_sock = -1;
    if (rc < 0) {
        failf(c, "connecting to %s:%d to measure the RTT failed: %s; is mftpd running there?",
              c->a->host, c->a->port, strerror(-rc));
        return;
    }
    progress(c);
    if (c->rtt_ns <= 0 || dt < c->rtt_ns)
        c->rtt_ns = dt;
    c->probes_done++;
    probe_next(c);
}

static void probe_next(struct client *c)
{
    if (c->probes_done == c->a->rtt_samples) {
        choose_connections(c);
        return;
    }
    c->probe_sock = nrio_open(c->io, NRIO_TCP, NULL);
    if (c->probe_sock < 0) {
        failf(c, "opening an RTT probe socket failed: %s", strerror(-c->probe_sock));
        return;
    }
    c->probe_t0 = nrio_now_ns(c->io);
    int rc = nrio_connect(c->io, c->probe_sock, &c->server);
    if (rc == 0) {
        on_probe(c, c->probe_sock, NRIO_OUT);
        return;
    }
    if (rc != -EINPROGRESS) {
        failf(c, "connecting to %s:%d to measure the RTT failed: %s", c->a->host, c->a->port,
              strerror(-rc));
        return;
    }
    rc = nrio_watch(c->io, c->probe_sock, NRIO_OUT, on_probe, c);
    if (rc < 0)
        failf(c, "watching the RTT probe failed: %s", strerror(-rc));
}

static void measure_rtt(struct client *c)
{
    const struct mftp_args *a = c->a;
    c->phase = P_RTT;
    c->rtt_ns = -1;
    if (a->rtt_samples == 0) {
        c->rtt_method = "none";
        choose_connections(c);
        return;
    }
    /* The backend, not the stack's name in the records, says whether a raw socket reaches the
     * network this run uses: on the Tahoe stack or in netsim it would not. */
    int kernel = strcmp(c->io->ops->name, "kernel") == 0;
    if (a->rtt_method == MFTP_RTT_ICMP && !kernel) {
        failf(c, "--rtt-method icmp needs the kernel stack's raw socket; on the %s stack give "
              "--rtt-method tcp", c->io->ops->name);
        return;
    }
    if (a->rtt_method != MFTP_RTT_TCP && kernel) {
        int rc = mftp_icmp_rtt(c->io, c->server.ip, a->rtt_samples, a->timeout_ns, &c->rtt_ns);
        if (rc == 0) {
            c->rtt_method = "icmp";
            progress(c);
            choose_connections(c);
            return;
        }
        if (a->rtt_method == MFTP_RTT_ICMP) {
            failf(c, "measuring the RTT by ICMP echo failed: %s; run as root (CAP_NET_RAW) or "
                  "use --rtt-method tcp", strerror(-rc));
            return;
        }
    }
    c->rtt_method = "tcp_connect";
    probe_next(c);
}

int mftp_run(nrio *io, const struct mftp_args *a, FILE *out)
{
    struct client c = {.io = io, .a = a, .out = out, .status = 1, .ctl = -1, .fd = -1,
                       .probe_sock = -1, .peer_window = -1, .peer_window_max = -1};
    nrio_parse_addr(a->host, (uint16_t)a->port, &c.server);
    progress(&c);
    c.watchdog = nrio_timer_at(io, c.progress_ns + a->timeout_ns, on_watchdog, &c);
    if (c.watchdog < 0) {
        failf(&c, "arming the watchdog timer failed: %s", strerror(-c.watchdog));
        return 1;
    }
    measure_rtt(&c);
    if (!c.failed) {
        int rc = nrio_run(io);
        if (rc < 0)
            failf(&c, "the event loop failed: %s", strerror(-rc));
    }
    close_data(&c);
    if (c.probe_sock >= 0)
        nrio_close(io, c.probe_sock);
    if (c.ctl >= 0)
        nrio_close(io, c.ctl);
    return c.status;
}
