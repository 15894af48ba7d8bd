#include "ttcp.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "calc.h"
#include "calib.h"
#include "rng.h"
#include "wire.h"

/* Sends per callback are bounded so that timers (the watchdog, cooling gaps) still run. */
#define BURST 256
/* A refused connect is retried at this interval, so the transmitter may start first. */
#define CONNECT_RETRY_NS 100000000LL
/* The UDP transmitter re-sends its end markers at this interval until a report arrives. */
#define END_RETRY_NS 100000000LL
/* The UDP receiver keeps answering end markers this long after its last transfer, in case
 * its report was lost. */
#define LINGER_NS 500000000LL
/* The spin calibration: rounds of this many iterations, the median counts. */
#define CALIBRATE_ITERS 1000000L
#define CALIBRATE_ROUNDS 5
/* The rng stream of the pause draws, apart from the streams netsim draws from its own seed. */
#define STREAM_PAUSE 0x7474637070ULL

struct ttcp {
    nrio *io;
    const struct ttcp_args *a;
    FILE *out;
    struct nrio_addr addr;  /* -t: the receiver; -r: the local address */
    struct nrio_addr peer;  /* UDP receiver: where the current transfer came from */
    int lsock, sock;
    int index;              /* current transfer */
    int status;             /* exit status once stopped */
    int64_t progress_ns;    /* last time anything happened; the watchdog measures from it */
    int watchdog, timer;    /* timer ids, 0 when not armed */
    int pausing;
    int64_t pause_ns;       /* the pause before the next transfer */
    struct nr_rng rng;      /* the --pause-spread draws */
    int failed;
    uint8_t *buf;
    size_t buflen;
    double spin_ns_per_iter;
    struct ttcp_result res;
    /* transmitter */
    long long nwrites, wr_index;
    long wr_off;
    /* receiver */
    int64_t t_first, t_last; /* first and latest byte of the current transfer */
    uint8_t report[TTCP_REPORT_LEN];
    size_t report_off;
    int have_last_report;   /* UDP: report[] holds transfer index - 1 */
};

static void start_transfer(struct ttcp *t);
static void pause_over(void *arg) { start_transfer(arg); }
static void on_tcp_rx(void *arg, int sock, int events);
static void on_udp_rx(void *arg, int sock, int events);

static void finish(struct ttcp *t, int status)
{
    t->status = status;
    nrio_stop(t->io);
}

static void failf(struct ttcp *t, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ttcp_emit_error(t->out, t->a, t->index, msg);
    t->failed = 1;
    finish(t, 1);
}

static void progress(struct ttcp *t) { t->progress_ns = nrio_now_ns(t->io); }

static void on_watchdog(void *arg)
{
    struct ttcp *t = arg;
    int64_t now = nrio_now_ns(t->io);
    t->watchdog = 0;
    if (t->pausing)
        t->progress_ns = now;
    if (now - t->progress_ns >= t->a->timeout_ns) {
        failf(t, "timeout: nothing happened for %.3f s in transfer %d (%s); check that the %s "
              "is running and reachable, or raise --timeout",
              t->a->timeout_ns / 1e9, t->index,
              t->a->transmit ? "transmitting" : "receiving",
              t->a->transmit ? "receiver (ttcp -r)" : "transmitter (ttcp -t)");
        return;
    }
    t->watchdog = nrio_timer_at(t->io, t->progress_ns + t->a->timeout_ns, on_watchdog, t);
    if (t->watchdog < 0)
        failf(t, "arming the watchdog timer failed: %s", strerror(-t->watchdog));
}

static void reset_result(struct ttcp *t)
{
    memset(&t->res, 0, sizeof t->res);
    t->res.index = t->index;
    t->res.send_ns = t->res.recv_ns = -1;
    t->res.recv_bytes = -1;
    t->res.dgrams_sent = t->res.dgrams_received = -1;
    t->res.peer_rcvbuf = t->res.peer_rcvbuf_requested = -1;
    t->res.spin_ns_per_iter = t->spin_ns_per_iter;
    t->res.pause_ns = t->index > 0 && t->a->transmit ? t->pause_ns : -1;
}

static int record_opts(struct ttcp *t, int sock)
{
    struct nrio_sockopts o;
    int rc = nrio_getopts(t->io, sock, &o);
    if (rc < 0) {
        failf(t, "reading the socket options in force failed: %s", strerror(-rc));
        return -1;
    }
    t->res.sndbuf = o.sndbuf;
    t->res.rcvbuf = o.rcvbuf;
    t->res.nodelay = o.nodelay;
    return 0;
}

static void close_sock(struct ttcp *t)
{
    if (t->sock >= 0) {
        nrio_watch(t->io, t->sock, 0, NULL, NULL);
        nrio_close(t->io, t->sock);
        t->sock = -1;
    }
}

static void linger_over(void *arg)
{
    struct ttcp *t = arg;
    nrio_stop(t->io);
}

/* One transfer is over: write its record and go on to the next, or stop. */
static void transfer_done(struct ttcp *t)
{
    ttcp_emit_transfer(t->out, t->a, &t->res);
    t->index++;
    if (t->index == t->a->repeat) {
        if (t->a->proto == NRIO_UDP && !t->a->transmit) {
            t->timer = nrio_timer_at(t->io, nrio_now_ns(t->io) + LINGER_NS, linger_over, t);
            t->status = 0;
            t->pausing = 1;
            if (t->timer < 0)
                failf(t, "arming the linger timer failed: %s", strerror(-t->timer));
            return;
        }
        finish(t, 0);
        return;
    }
    if (t->a->transmit) {
        t->pausing = 1;
        t->pause_ns = t->a->pause_ns +
                      (int64_t)(nr_rng_unit(&t->rng) * (double)t->a->pause_spread_ns);
        t->timer = nrio_timer_at(t->io, nrio_now_ns(t->io) + t->pause_ns, pause_over, t);
        if (t->timer < 0)
            failf(t, "arming the pause timer failed: %s", strerror(-t->timer));
    } else {
        start_transfer(t);
    }
}

/* ---- TCP transmitter ---- */

static void tcp_report_rx(void *arg, int sock, int events)
{
    struct ttcp *t = arg;
    (void)events;
    for (;;) {
        ssize_t n = nrio_recv(t->io, sock, t->report + t->report_off,
                              sizeof t->report - t->report_off);
        if (n == -EAGAIN)
            return;
        if (n < 0) {
            failf(t, "reading the receiver's report failed: %s", strerror((int)-n));
            return;
        }
        progress(t);
        if (n == 0)
            break;
        t->report_off += (size_t)n;
        if (t->report_off == sizeof t->report)
            break;
    }
    struct ttcp_msg m;
    if (t->report_off != sizeof t->report ||
        ttcp_decode(t->report, t->report_off, &m) != TTCP_REPORT) {
        failf(t, "the receiver closed without a valid report (%zu octets); is the peer a "
              "netrepro ttcp -r?", t->report_off);
        return;
    }
    t->res.recv_bytes = (long long)m.bytes;
    t->res.recv_ns = (int64_t)m.ns;
    t->res.peer_rcvbuf = (int)m.rcvbuf;
    t->res.peer_rcvbuf_requested = (int)m.rcvbuf_requested;
    close_sock(t);
    transfer_done(t);
}

static void tcp_tx(void *arg, int sock, int events)
{
    struct ttcp *t = arg;
    (void)events;
    for (int burst = 0; burst < BURST && t->wr_index < t->nwrites; burst++) {
        long len = ttcp_write_len(t->a->bytes, t->a->write_size, t->wr_index);
        ssize_t n = nrio_send(t->io, sock, t->buf + t->wr_off, (size_t)(len - t->wr_off));
        if (n == -EAGAIN)
            return;
        if (n < 0) {
            failf(t, "send failed after %lld bytes: %s; did the receiver exit?",
                  t->res.bytes, strerror((int)-n));
            return;
        }
        progress(t);
        t->res.bytes += n;
        t->wr_off += (long)n;
        if (t->wr_off == len) {
            t->wr_off = 0;
            t->wr_index++;
            t->res.writes++;
        }
    }
    if (t->wr_index < t->nwrites)
        return;
    t->res.send_ns = nrio_now_ns(t->io) - t->res.send_ns;
    int rc = nrio_shutdown_write(t->io, sock);
    if (rc < 0) {
        failf(t, "shutdown after the last write failed: %s", strerror(-rc));
        return;
    }
    t->report_off = 0;
    rc = nrio_watch(t->io, sock, NRIO_IN, tcp_report_rx, t);
    if (rc < 0)
        failf(t, "watching for the receiver's report failed: %s", strerror(-rc));
}

static void tcp_connected(void *arg, int sock, int events);
static void connect_retry(void *arg);

static void tcp_connect(struct ttcp *t)
{
    struct nrio_sockopts o = {.sndbuf = t->a->sndbuf, .rcvbuf = t->a->rcvbuf,
                              .nodelay = t->a->nodelay};
    t->timer = 0;
    t->sock = nrio_open(t->io, NRIO_TCP, &o);
    if (t->sock < 0) {
        failf(t, "opening a TCP socket failed: %s", strerror(-t->sock));
        return;
    }
    int rc = nrio_connect(t->io, t->sock, &t->addr);
    if (rc < 0 && rc != -EINPROGRESS) {
        failf(t, "connect to %s:%d failed: %s", t->a->host, t->a->port, strerror(-rc));
        return;
    }
    rc = nrio_watch(t->io, t->sock, NRIO_OUT, tcp_connected, t);
    if (rc < 0)
        failf(t, "watching the connecting socket failed: %s", strerror(-rc));
}

static void connect_retry(void *arg) { tcp_connect(arg); }

static void tcp_connected(void *arg, int sock, int events)
{
    struct ttcp *t = arg;
    (void)events;
    int rc = nrio_connect_result(t->io, sock);
    if (rc == -ECONNREFUSED) {
        close_sock(t);
        t->timer = nrio_timer_at(t->io, nrio_now_ns(t->io) + CONNECT_RETRY_NS,
                                 connect_retry, t);
        if (t->timer < 0)
            failf(t, "arming the connect retry timer failed: %s", strerror(-t->timer));
        return;
    }
    if (rc < 0) {
        failf(t, "connect to %s:%d failed: %s; check the address and that ttcp -r runs there",
              t->a->host, t->a->port, strerror(-rc));
        return;
    }
    progress(t);
    if (record_opts(t, sock) < 0)
        return;
    t->wr_index = 0;
    t->wr_off = 0;
    t->res.send_ns = nrio_now_ns(t->io); /* start: just before the first write */
    rc = nrio_watch(t->io, sock, NRIO_OUT, tcp_tx, t);
    if (rc < 0)
        failf(t, "watching the socket for writing failed: %s", strerror(-rc));
}

/* ---- TCP receiver ---- */

static void tcp_report_tx(void *arg, int sock, int events)
{
    struct ttcp *t = arg;
    (void)events;
    while (t->report_off < sizeof t->report) {
        ssize_t n = nrio_send(t->io, sock, t->report + t->report_off,
                              sizeof t->report - t->report_off);
        if (n == -EAGAIN)
            return;
        if (n < 0) {
            failf(t, "sending the report to the transmitter failed: %s", strerror((int)-n));
            return;
        }
        t->report_off += (size_t)n;
    }
    close_sock(t);
    transfer_done(t);
}

static void make_report(struct ttcp *t, uint32_t id)
{
    struct ttcp_msg m = {
        .type = TTCP_REPORT, .id = id,
        .count = t->res.dgrams_received > 0 ? (uint64_t)t->res.dgrams_received : 0,
        .bytes = (uint64_t)t->res.recv_bytes,
        .ns = t->res.recv_ns > 0 ? (uint64_t)t->res.recv_ns : 0,
        .rcvbuf = (uint32_t)t->res.rcvbuf, .rcvbuf_requested = (uint32_t)t->a->rcvbuf,
    };
    ttcp_encode(&m, t->report, sizeof t->report);
    t->report_off = 0;
}

static void on_tcp_rx(void *arg, int sock, int events)
{
    struct ttcp *t = arg;
    (void)events;
    for (int burst = 0; burst < BURST; burst++) {
        ssize_t n = nrio_recv(t->io, sock, t->buf, t->buflen);
        if (n == -EAGAIN)
            return;
        if (n < 0) {
            failf(t, "recv failed after %lld bytes: %s", t->res.recv_bytes, strerror((int)-n));
            return;
        }
        int64_t now = nrio_now_ns(t->io);
        t->progress_ns = now;
        if (n == 0) {
            t->res.bytes = t->res.recv_bytes;
            t->res.recv_ns = t->res.recv_bytes > 0 ? t->t_last - t->t_first : -1;
            make_report(t, (uint32_t)t->index);
            int rc = nrio_watch(t->io, sock, NRIO_OUT, tcp_report_tx, t);
            if (rc < 0)
                failf(t, "watching the socket to send the report failed: %s", strerror(-rc));
            return;
        }
        if (t->res.recv_bytes == 0)
            t->t_first = now;
        t->t_last = now;
        t->res.recv_bytes += n;
        t->res.reads++;
    }
}

static void on_accept(void *arg, int lsock, int events)
{
    struct ttcp *t = arg;
    (void)events;
    struct nrio_addr from;
    int s = nrio_accept(t->io, lsock, &from);
    if (s == -EAGAIN)
        return;
    if (s < 0) {
        failf(t, "accept failed: %s", strerror(-s));
        return;
    }
    progress(t);
    nrio_watch(t->io, lsock, 0, NULL, NULL);
    t->sock = s;
    if (record_opts(t, s) < 0)
        return;
    int rc = nrio_watch(t->io, s, NRIO_IN, on_tcp_rx, t);
    if (rc < 0)
        failf(t, "watching the accepted connection failed: %s", strerror(-rc));
}

/* ---- UDP transmitter ---- */

static void udp_send_end(struct ttcp *t);

static void udp_end_retry(void *arg)
{
    struct ttcp *t = arg;
    t->timer = 0;
    udp_send_end(t);
}

static void udp_send_end(struct ttcp *t)
{
    struct ttcp_msg m = {.type = TTCP_END, .id = (uint32_t)t->index,
                         .count = (uint64_t)t->res.dgrams_sent, .bytes = (uint64_t)t->res.bytes};
    uint8_t b[TTCP_END_LEN];
    ttcp_encode(&m, b, sizeof b);
    for (int i = 0; i < t->a->end_markers; i++) {
        ssize_t n = nrio_sendto(t->io, t->sock, b, sizeof b, &t->addr);
        /* A full buffer only delays the marker: the retry timer sends it again. */
        if (n < 0 && n != -EAGAIN && n != -ENOBUFS && n != -ECONNREFUSED) {
            failf(t, "sending the end marker failed: %s", strerror((int)-n));
            return;
        }
    }
    t->timer = nrio_timer_at(t->io, nrio_now_ns(t->io) + END_RETRY_NS, udp_end_retry, t);
    if (t->timer < 0)
        failf(t, "arming the end-marker retry timer failed: %s", strerror(-t->timer));
}

static void udp_report_rx(void *arg, int sock, int events)
{
    struct ttcp *t = arg;
    (void)events;
    for (;;) {
        struct nrio_addr from;
        ssize_t n = nrio_recvfrom(t->io, sock, t->report, sizeof t->report, &from);
        if (n == -EAGAIN)
            return;
        if (n == -ECONNREFUSED)
            continue; /* an ICMP error from an earlier datagram; the receiver may start late */
        if (n < 0) {
            failf(t, "reading the receiver's report failed: %s", strerror((int)-n));
            return;
        }
        struct ttcp_msg m;
        if (ttcp_decode(t->report, (size_t)n, &m) != TTCP_REPORT || m.id != (uint32_t)t->index)
            continue;
        progress(t);
        if (t->timer > 0)
            nrio_timer_cancel(t->io, t->timer);
        t->timer = 0;
        nrio_watch(t->io, sock, 0, NULL, NULL);
        t->res.recv_bytes = (long long)m.bytes;
        t->res.dgrams_received = (long long)m.count;
        t->res.recv_ns = m.count > 1 ? (int64_t)m.ns : -1;
        t->res.peer_rcvbuf = (int)m.rcvbuf;
        t->res.peer_rcvbuf_requested = (int)m.rcvbuf_requested;
        transfer_done(t);
        return;
    }
}

static void udp_tx(void *arg, int sock, int events);

static void udp_gap_over(void *arg)
{
    struct ttcp *t = arg;
    t->timer = 0;
    int rc = nrio_watch(t->io, t->sock, NRIO_OUT, udp_tx, t);
    if (rc < 0)
        failf(t, "watching the UDP socket failed: %s", strerror(-rc));
}

static void udp_tx(void *arg, int sock, int events)
{
    struct ttcp *t = arg;
    (void)events;
    for (int burst = 0; burst < BURST && t->wr_index < t->nwrites; burst++) {
        long len = ttcp_write_len(t->a->bytes, t->a->write_size, t->wr_index);
        struct ttcp_msg m = {.type = TTCP_DATA, .id = (uint32_t)t->index,
                             .seq = (uint32_t)t->wr_index};
        ttcp_encode(&m, t->buf, t->buflen);
        ssize_t n = nrio_sendto(t->io, sock, t->buf, (size_t)len, &t->addr);
        if (n == -EAGAIN || n == -ENOBUFS)
            return;
        if (n < 0 && n != -ECONNREFUSED) {
            failf(t, "sendto failed after %lld datagrams: %s", t->res.dgrams_sent,
                  strerror((int)-n));
            return;
        }
        progress(t);
        t->wr_index++;
        t->res.writes++;
        t->res.dgrams_sent++;
        t->res.bytes += len;
        if (t->a->cool_spin)
            nrio_spin(t->io, t->a->cool_spin);
        if (t->a->cool_gap_ns && t->wr_index < t->nwrites) {
            nrio_watch(t->io, sock, 0, NULL, NULL);
            t->timer = nrio_timer_at(t->io, nrio_now_ns(t->io) + t->a->cool_gap_ns,
                                     udp_gap_over, t);
            if (t->timer < 0)
                failf(t, "arming the cooling gap timer failed: %s", strerror(-t->timer));
            return;
        }
    }
    if (t->wr_index < t->nwrites)
        return;
    t->res.send_ns = nrio_now_ns(t->io) - t->res.send_ns;
    int rc = nrio_watch(t->io, sock, NRIO_IN, udp_report_rx, t);
    if (rc < 0) {
        failf(t, "watching for the receiver's report failed: %s", strerror(-rc));
        return;
    }
    udp_send_end(t);
}

/* ---- UDP receiver ---- */

static void udp_reply_report(struct ttcp *t, const struct nrio_addr *to)
{
    ssize_t n = nrio_sendto(t->io, t->sock, t->report, sizeof t->report, to);
    /* A lost report is repaired by the transmitter's next end marker. */
    if (n < 0 && n != -EAGAIN && n != -ENOBUFS && n != -ECONNREFUSED)
        failf(t, "sending the report failed: %s", strerror((int)-n));
}

static void on_udp_rx(void *arg, int sock, int events)
{
    struct ttcp *t = arg;
    (void)events;
    for (int burst = 0; burst < BURST; burst++) {
        struct nrio_addr from;
        ssize_t n = nrio_recvfrom(t->io, sock, t->buf, t->buflen, &from);
        if (n == -EAGAIN)
            return;
        if (n == -ECONNREFUSED)
            continue;
        if (n < 0) {
            failf(t, "recvfrom failed: %s", strerror((int)-n));
            return;
        }
        int64_t now = nrio_now_ns(t->io);
        struct ttcp_msg m;
        int type = ttcp_decode(t->buf, (size_t)n, &m);
        if (type == TTCP_END && t->have_last_report && m.id + 1 == (uint32_t)t->index) {
            udp_reply_report(t, &from);
            continue;
        }
        if (t->index == t->a->repeat || m.id != (uint32_t)t->index)
            continue; /* stray or late datagrams of an earlier transfer */
        t->progress_ns = now;
        t->res.reads++;
        if (type == TTCP_DATA) {
            if (t->res.dgrams_received == 0)
                t->t_first = now;
            t->t_last = now;
            t->res.dgrams_received++;
            t->res.recv_bytes += n;
        } else if (type == TTCP_END) {
            t->res.bytes = t->res.recv_bytes;
            t->res.recv_ns = t->res.dgrams_received > 1 ? t->t_last - t->t_first : -1;
            t->res.dgrams_sent = (long long)m.count;
            make_report(t, m.id);
            t->have_last_report = 1;
            udp_reply_report(t, &from);
            if (t->failed)
                return;
            transfer_done(t);
            if (t->failed)
                return;
        }
    }
}

/* ---- set-up ---- */

static void start_transfer(struct ttcp *t)
{
    t->timer = 0;
    t->pausing = 0;
    /* Each transfer stands for one of the papers' separate ttcp runs, a process of its own. */
    if (t->index > 0)
        nrio_process_begins(t->io);
    progress(t);
    reset_result(t);
    t->nwrites = ttcp_write_count(t->a->bytes, t->a->write_size);
    t->wr_index = 0;
    t->wr_off = 0;
    if (t->a->proto == NRIO_TCP) {
        if (t->a->transmit) {
            tcp_connect(t);
        } else {
            t->res.recv_bytes = 0;
            int rc = nrio_watch(t->io, t->lsock, NRIO_IN, on_accept, t);
            if (rc < 0)
                failf(t, "watching the listening socket failed: %s", strerror(-rc));
        }
        return;
    }
    if (record_opts(t, t->sock) < 0)
        return;
    if (t->a->transmit) {
        t->res.dgrams_sent = 0;
        t->res.send_ns = nrio_now_ns(t->io); /* start: just before the first datagram */
        int rc = nrio_watch(t->io, t->sock, NRIO_OUT, udp_tx, t);
        if (rc < 0)
            failf(t, "watching the UDP socket failed: %s", strerror(-rc));
    } else {
        t->res.recv_bytes = 0;
        t->res.dgrams_received = 0;
    }
}

static int setup(struct ttcp *t)
{
    const struct ttcp_args *a = t->a;
    int rc = nrio_parse_addr(a->transmit ? a->host : a->bind_ip, (uint16_t)a->port, &t->addr);
    if (rc < 0) {
        failf(t, "%s: not a dotted IPv4 address", a->transmit ? a->host : a->bind_ip);
        return -1;
    }
    t->buflen = (size_t)(a->write_size > TTCP_REPORT_LEN ? a->write_size : TTCP_REPORT_LEN);
    if (!a->transmit && a->proto == NRIO_UDP)
        t->buflen = TTCP_MAX_UDP_WRITE; /* whatever the transmitter's -l, read whole datagrams */
    t->buf = calloc(1, t->buflen);
    if (!t->buf) {
        failf(t, "allocating a %zu-octet buffer failed; give a smaller -l", t->buflen);
        return -1;
    }
    for (size_t i = TTCP_HDR_LEN; i < t->buflen; i++)
        t->buf[i] = (uint8_t)i; /* a pattern rather than zeros, so no layer can compress it */
    t->spin_ns_per_iter = -1.0;
    if (a->cool_spin) {
        struct nr_calib cal;
        rc = nr_calibrate_spin(t->io, CALIBRATE_ITERS, CALIBRATE_ROUNDS, &cal);
        if (rc < 0) {
            failf(t, "calibrating --cool-spin failed: %s", strerror(-rc));
            return -1;
        }
        t->spin_ns_per_iter = cal.ns_per_iter;
    }
    struct nrio_sockopts o = {.sndbuf = a->sndbuf, .rcvbuf = a->rcvbuf, .reuseaddr = 1};
    if (a->proto == NRIO_UDP || !a->transmit) {
        int s = nrio_open(t->io, a->proto, &o);
        if (s < 0) {
            failf(t, "opening a %s socket failed: %s", a->proto == NRIO_UDP ? "UDP" : "TCP",
                  strerror(-s));
            return -1;
        }
        if (!a->transmit) {
            rc = nrio_bind(t->io, s, &t->addr);
            if (rc < 0) {
                failf(t, "binding %s:%d failed: %s; is another receiver using the port? "
                      "pick another with -p", a->bind_ip, a->port, strerror(-rc));
                return -1;
            }
        }
        if (a->proto == NRIO_TCP) {
            rc = nrio_listen(t->io, s, 4);
            if (rc < 0) {
                failf(t, "listen failed: %s", strerror(-rc));
                return -1;
            }
            t->lsock = s;
        } else {
            t->sock = s;
            if (!a->transmit) {
                rc = nrio_watch(t->io, s, NRIO_IN, on_udp_rx, t);
                if (rc < 0) {
                    failf(t, "watching the UDP socket failed: %s", strerror(-rc));
                    return -1;
                }
            }
        }
    }
    t->watchdog = nrio_timer_at(t->io, nrio_now_ns(t->io) + a->timeout_ns, on_watchdog, t);
    if (t->watchdog < 0) {
        failf(t, "arming the watchdog timer failed: %s", strerror(-t->watchdog));
        return -1;
    }
    return 0;
}

int ttcp_run(nrio *io, const struct ttcp_args *a, FILE *out, FILE *announce)
{
    struct ttcp t = {.io = io, .a = a, .out = out, .lsock = -1, .sock = -1, .status = 1};
    nr_rng_seed(&t.rng, a->seed, STREAM_PAUSE);
    if (setup(&t) == 0) {
        if (announce && !a->transmit) {
            fprintf(announce, "ttcp: receiving %s on %s port %d\n",
                    a->proto == NRIO_TCP ? "tcp" : "udp", a->bind_ip, a->port);
            fflush(announce);
        }
        start_transfer(&t);
        int rc = nrio_run(io);
        if (rc < 0 && t.status == 0) {
            ttcp_emit_error(out, a, t.index, "the event loop failed");
            t.status = 1;
        }
    }
    close_sock(&t);
    if (t.lsock >= 0)
        nrio_close(io, t.lsock);
    free(t.buf);
    return t.status;
}
