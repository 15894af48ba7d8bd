#include "server.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "pingwire.h"

/* How often the stop flag set by the signal handler is looked at; a handler cannot safely do
 * more than set a flag, and a wake-up this rare costs nothing measurable. */
#define STOP_POLL_NS 100000000LL
#define MAX_PENDING_MESSAGES 1024
/* Datagrams taken per readiness callback, so TCP connections and timers are not starved. */
#define UDP_BATCH 64
#define BACKEND_BUG "this should not happen; report it with the nrio backend's name"

struct echod_conn {
    struct echod_conn *next, **prevp;
    struct echod *e;
    int sock;
    uint8_t *buf;
    size_t cap;
    size_t have; /* octets of the current message received */
    size_t need; /* its length, known once the header is in; 0 before */
    size_t sent; /* octets echoed so far; the echo is under way while need != 0 && have == need */
    int nodelay_set;
    int events; /* what sock is watched for */
};

static void fatal(struct echod *e, const char *hint, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->err, sizeof e->err, fmt, ap);
    va_end(ap);
    snprintf(e->hint, sizeof e->hint, "%s", hint);
    e->failed = 1;
    nrio_stop(e->io);
}

static void conn_close(struct echod_conn *c)
{
    int rc = nrio_close(c->e->io, c->sock);
    if (rc < 0)
        fprintf(stderr, "echod: closing a TCP connection failed: %s\n", strerror(-rc));
    *c->prevp = c->next;
    if (c->next)
        c->next->prevp = c->prevp;
    free(c->buf);
    free(c);
}

static void conn_io(void *arg, int sock, int events);

/* Watches the connection for events, sparing the system call when nothing changes. Returns 0,
 * or -1 when it failed and the connection was closed. */
static int conn_watch(struct echod_conn *c, int events)
{
    if (events == c->events)
        return 0;
    int rc = nrio_watch(c->e->io, c->sock, events, conn_io, c);
    c->events = events;
    if (rc < 0) {
        fprintf(stderr, "echod: watching a TCP connection failed: %s; closing it\n",
                strerror(-rc));
        c->e->st.tcp_errors++;
        conn_close(c);
    }
    return rc;
}

/* Sends the rest of the echo; returns 0 while the connection lives, -1 once it was closed. */
static int conn_send(struct echod_conn *c)
{
    while (c->sent < c->need) {
        ssize_t n = nrio_send(c->e->io, c->sock, c->buf + c->sent, c->need - c->sent);
        if (n == -EAGAIN)
            return conn_watch(c, NRIO_OUT) < 0 ? -1 : 0;
        if (n < 0) {
            c->e->st.tcp_errors++;
            conn_close(c);
            return -1;
        }
        c->sent += (size_t)n;
    }
    c->e->st.tcp_messages_echoed++;
    c->have = c->need = c->sent = 0;
    return conn_watch(c, NRIO_IN) < 0 ? -1 : 0;
}

/* Reads what is there of the current message; starts the echo once all of it arrived. */
static void conn_read(struct echod_conn *c)
{
    struct echod *e = c->e;
    for (;;) {
        /* Never read past the current message: the next one is not this echo's business. */
        size_t want = c->need ? c->need - c->have : PW_HDR_LEN - c->have;
        ssize_t n = nrio_recv(e->io, c->sock, c->buf + c->have, want);
        if (n == -EAGAIN)
            return;
        if (n <= 0) {
            if (n < 0)
                e->st.tcp_errors++;
            else if (c->have > 0)
                e->st.tcp_messages_truncated++;
            conn_close(c);
            return;
        }
        c->have += (size_t)n;
        if (!c->need && c->have == PW_HDR_LEN) {
            struct pw_tcp_hdr h;
            if (pw_tcp_decode(c->buf, &h) != 0 || h.length > (uint32_t)e->args.max_message) {
                e->st.tcp_bad_messages++;
                conn_close(c);
                return;
            }
            if (h.length > c->cap) {
                uint8_t *b = realloc(c->buf, h.length);
                if (!b) {
                    fprintf(stderr, "echod: no memory for a %u-octet message; closing its "
                            "connection\n", (unsigned)h.length);
                    e->st.tcp_errors++;
                    conn_close(c);
                    return;
                }
                c->buf = b;
                c->cap = h.length;
            }
            c->need = h.length;
            if ((h.flags & PW_FLAG_NODELAY) && !c->nodelay_set) {
                struct nrio_sockopts o = {.nodelay = 1};
                int rc = nrio_setopts(e->io, c->sock, &o);
                if (rc < 0) {
                    fprintf(stderr, "echod: the client asked for TCP_NODELAY and setting it "
                            "failed: %s; closing the connection\n", strerror(-rc));
                    e->st.tcp_errors++;
                    conn_close(c);
                    return;
                }
                c->nodelay_set = 1;
            }
        }
        if (c->need && c->have == c->need) {
            c->sent = 0;
            conn_send(c);
            return;
        }
    }
}

static void conn_io(void *arg, int sock, int events)
{
    struct echod_conn *c = arg;
    (void)sock;
    if (c->need && c->have == c->need)
        conn_send(c);
    else if (events & (NRIO_IN | NRIO_ERR))
        conn_read(c);
}

static void on_accept(void *arg, int sock, int events)
{
    struct echod *e = arg;
    (void)events;
    for (;;) {
        struct nrio_addr peer;
        int s = nrio_accept(e->io, sock, &peer);
        if (s == -EAGAIN || s == -ECONNABORTED)
            return;
        if (s < 0) {
            fatal(e, "if it says too many open files, raise the limit (ulimit -n)",
                  "accepting a TCP connection failed: %s", strerror(-s));
            return;
        }
        struct echod_conn *c = calloc(1, sizeof *c);
        if (c)
            c->buf = malloc(PW_HDR_LEN);
        if (!c || !c->buf) {
            free(c);
            nrio_close(e->io, s);
            fatal(e, "free some memory", "no memory for a new TCP connection");
            return;
        }
        c->e = e;
        c->sock = s;
        c->cap = PW_HDR_LEN;
        c->next = e->conns;
        if (e->conns)
            e->conns->prevp = &c->next;
        c->prevp = &e->conns;
        e->conns = c;
        e->st.tcp_connections++;
        conn_watch(c, NRIO_IN);
    }
}

static void on_udp(void *arg, int sock, int events);
static void on_quiet(void *arg);

/* Watches the UDP socket for events, sparing the system call when nothing changes. */
static void udp_watch(struct echod *e, int events)
{
    if (events == e->udp_events)
        return;
    int rc = nrio_watch(e->io, e->usock, events, on_udp, e);
    if (rc < 0)
        fatal(e, BACKEND_BUG, "watching the UDP socket failed: %s", strerror(-rc));
    else
        e->udp_events = events;
}

static void udp_flush(struct echod *e);

static void on_echo_gap(void *arg)
{
    struct echod *e = arg;
    e->gap_timer = 0;
    udp_flush(e);
}

/* Sends queued UDP echoes, --echo-gap apart; when the socket is full, waits for it to drain. */
static void udp_flush(struct echod *e)
{
    if (e->gap_timer > 0)
        return;
    while (e->outq) {
        struct reasm_dgram *d = e->outq;
        ssize_t n = nrio_sendto(e->io, e->usock, d->data, d->len, &d->peer);
        if (n == -EAGAIN) {
            udp_watch(e, NRIO_IN | NRIO_OUT);
            return;
        }
        /* Any other error loses this echo like a drop in the network: the client counts it. */
        if (n < 0)
            e->st.datagrams_dropped++;
        else
            e->st.datagrams_echoed++;
        e->outq = d->next;
        if (!e->outq)
            e->outq_tail = NULL;
        free(d);
        if (e->outq && e->args.echo_gap_ns > 0) {
            int id = nrio_timer_at(e->io, nrio_now_ns(e->io) + e->args.echo_gap_ns, on_echo_gap, e);
            if (id < 0) {
                fatal(e, BACKEND_BUG, "arming the echo gap timer failed: %s", strerror(-id));
                return;
            }
            e->gap_timer = id;
            break;
        }
    }
    udp_watch(e, NRIO_IN);
}

static void rearm_quiet(struct echod *e)
{
    int64_t at = reasm_next_deadline(&e->reasm);
    if (at == e->quiet_at)
        return;
    if (e->quiet_timer > 0)
        nrio_timer_cancel(e->io, e->quiet_timer);
    e->quiet_timer = 0;
    e->quiet_at = at;
    if (at < 0)
        return;
    int id = nrio_timer_at(e->io, at, on_quiet, e);
    if (id < 0)
        fatal(e, BACKEND_BUG, "arming the UDP quiet timer failed: %s", strerror(-id));
    else
        e->quiet_timer = id;
}

static void on_quiet(void *arg)
{
    struct echod *e = arg;
    int64_t now = nrio_now_ns(e->io);
    struct reasm_msg *m;
    e->quiet_timer = 0;
    e->quiet_at = -1;
    while ((m = reasm_expired(&e->reasm, now)) != NULL) {
        e->st.udp_messages_incomplete++;
        reasm_take(&e->reasm, m, &e->outq, &e->outq_tail);
    }
    udp_flush(e);
    rearm_quiet(e);
}

static void on_udp(void *arg, int sock, int events)
{
    struct echod *e = arg;
    (void)events;
    for (int i = 0; i < UDP_BATCH; i++) {
        struct nrio_addr from;
        ssize_t n = nrio_recvfrom(e->io, sock, e->ubuf, PW_MAX_DGRAM + 1, &from);
        if (n == -EAGAIN)
            break;
        if (n < 0) {
            /* ICMP errors from earlier echoes surface here; they concern the peer, not us. */
            if (n == -ECONNREFUSED || n == -EHOSTUNREACH || n == -ENETUNREACH)
                continue;
            fatal(e, BACKEND_BUG, "receiving on the UDP socket failed: %s", strerror((int)-n));
            return;
        }
        e->st.datagrams_received++;
        struct reasm_msg *m;
        switch (reasm_add(&e->reasm, &from, e->ubuf, (size_t)n, nrio_now_ns(e->io), &m)) {
        case REASM_STORED: break;
        case REASM_COMPLETE:
            e->st.udp_messages_echoed++;
            reasm_take(&e->reasm, m, &e->outq, &e->outq_tail);
            break;
        case REASM_DUPLICATE: e->st.datagrams_duplicate++; break;
        case REASM_BAD: e->st.datagrams_bad++; break;
        case REASM_LATE: e->st.datagrams_late++; break;
        case REASM_FULL:
        case REASM_NOMEM: e->st.datagrams_dropped++; break;
        }
    }
    udp_flush(e);
    rearm_quiet(e);
}

static void on_stop_poll(void *arg)
{
    struct echod *e = arg;
    if (*e->stop_flag) {
        nrio_stop(e->io);
        return;
    }
    int id = nrio_timer_at(e->io, nrio_now_ns(e->io) + STOP_POLL_NS, on_stop_poll, e);
    if (id < 0)
        fatal(e, BACKEND_BUG, "arming the stop poll timer failed: %s", strerror(-id));
}

static int start_fail(struct echod *e, const char *what, int rc, const char *hint)
{
    snprintf(e->err, sizeof e->err, "%s failed: %s", what, strerror(-rc));
    snprintf(e->hint, sizeof e->hint, "%s", hint);
    return -1;
}

static int open_bound(struct echod *e, int proto, struct nrio_sockopts *in_force)
{
    struct nrio_sockopts o = {.sndbuf = e->args.sndbuf, .rcvbuf = e->args.rcvbuf,
                              .reuseaddr = proto == NRIO_TCP};
    struct nrio_addr a;
    const char *name = proto == NRIO_TCP ? "TCP" : "UDP";
    char what[64];
    int rc = nrio_parse_addr(e->args.bind_ip, (uint16_t)e->args.port, &a);
    if (rc < 0)
        return start_fail(e, "parsing --bind", rc, "give a dotted IPv4 address");
    int s = nrio_open(e->io, proto, &o);
    snprintf(what, sizeof what, "opening the %s socket", name);
    if (s < 0)
        return start_fail(e, what, s, "check --sndbuf/--rcvbuf and the open-files limit");
    rc = nrio_bind(e->io, s, &a);
    snprintf(what, sizeof what, "binding %s port %d", name, e->args.port);
    if (rc < 0)
        return start_fail(e, what, rc, "is another echod running? choose another --port");
    if (proto == NRIO_TCP && (rc = nrio_listen(e->io, s, 128)) < 0)
        return start_fail(e, "listen", rc, "check the system's socket limits");
    rc = nrio_getopts(e->io, s, in_force);
    if (rc < 0)
        return start_fail(e, "reading socket options", rc, BACKEND_BUG);
    return s;
}

int echod_start(struct echod *e, nrio *io, const struct echod_args *a,
                const volatile sig_atomic_t *stop_flag)
{
    int rc;
    memset(e, 0, sizeof *e);
    e->io = io;
    e->args = *a;
    e->stop_flag = stop_flag;
    e->lsock = e->usock = -1;
    e->quiet_at = -1;
    reasm_init(&e->reasm, a->udp_quiet_ns, (size_t)a->max_message, MAX_PENDING_MESSAGES);
    if (a->tcp) {
        e->lsock = open_bound(e, NRIO_TCP, &e->tcp_opts);
        if (e->lsock < 0)
            return -1;
        if ((rc = nrio_watch(io, e->lsock, NRIO_IN, on_accept, e)) < 0)
            return start_fail(e, "watching the TCP listener", rc, BACKEND_BUG);
    }
    if (a->udp) {
        e->ubuf = malloc(PW_MAX_DGRAM + 1);
        if (!e->ubuf)
            return start_fail(e, "allocating the UDP buffer", -ENOMEM, "free some memory");
        e->usock = open_bound(e, NRIO_UDP, &e->udp_opts);
        if (e->usock < 0)
            return -1;
        udp_watch(e, NRIO_IN);
        if (e->failed)
            return -1;
    }
    rc = nrio_timer_at(io, nrio_now_ns(io) + STOP_POLL_NS, on_stop_poll, e);
    if (rc < 0)
        return start_fail(e, "arming the stop poll timer", rc, BACKEND_BUG);
    return 0;
}

int echod_summary(const struct echod *e, FILE *out)
{
    const struct echod_stats *s = &e->st;
    struct nr_json j;
    nr_json_begin(&j, "summary");
    nr_json_str(&j, "tool", "echod");
    nr_json_str(&j, "version", ECHOD_VERSION);
    nr_json_str(&j, "stack", e->args.stack);
    nr_json_int(&j, "port", e->args.port);
    nr_json_bool(&j, "tcp", e->args.tcp);
    nr_json_bool(&j, "udp", e->args.udp);
    nr_json_int(&j, "udp_quiet_ns", e->args.udp_quiet_ns);
    nr_json_int(&j, "echo_gap_ns", e->args.echo_gap_ns);
    nr_json_int(&j, "max_message", e->args.max_message);
    nr_json_int(&j, "sndbuf_requested", e->args.sndbuf);
    nr_json_int(&j, "rcvbuf_requested", e->args.rcvbuf);
    if (e->args.tcp) {
        nr_json_int(&j, "tcp_so_sndbuf", e->tcp_opts.sndbuf);
        nr_json_int(&j, "tcp_so_rcvbuf", e->tcp_opts.rcvbuf);
    } else {
        nr_json_null(&j, "tcp_so_sndbuf");
        nr_json_null(&j, "tcp_so_rcvbuf");
    }
    if (e->args.udp) {
        nr_json_int(&j, "udp_so_sndbuf", e->udp_opts.sndbuf);
        nr_json_int(&j, "udp_so_rcvbuf", e->udp_opts.rcvbuf);
    } else {
        nr_json_null(&j, "udp_so_sndbuf");
        nr_json_null(&j, "udp_so_rcvbuf");
    }
    nr_json_int(&j, "messages_echoed", s->tcp_messages_echoed + s->udp_messages_echoed);
    nr_json_int(&j, "incomplete_messages", s->udp_messages_incomplete);
    nr_json_int(&j, "tcp_connections", s->tcp_connections);
    nr_json_int(&j, "tcp_messages_echoed", s->tcp_messages_echoed);
    nr_json_int(&j, "tcp_messages_truncated", s->tcp_messages_truncated);
    nr_json_int(&j, "tcp_bad_messages", s->tcp_bad_messages);
    nr_json_int(&j, "tcp_errors", s->tcp_errors);
    nr_json_int(&j, "udp_messages_echoed", s->udp_messages_echoed);
    nr_json_int(&j, "udp_messages_incomplete", s->udp_messages_incomplete);
    nr_json_int(&j, "udp_messages_pending", e->reasm.npending);
    nr_json_int(&j, "datagrams_received", s->datagrams_received);
    nr_json_int(&j, "datagrams_echoed", s->datagrams_echoed);
    nr_json_int(&j, "datagrams_duplicate", s->datagrams_duplicate);
    nr_json_int(&j, "datagrams_bad", s->datagrams_bad);
    nr_json_int(&j, "datagrams_late", s->datagrams_late);
    nr_json_int(&j, "datagrams_dropped", s->datagrams_dropped);
    return nr_json_emit(&j, out);
}

void echod_free(struct echod *e)
{
    while (e->conns)
        conn_close(e->conns);
    while (e->outq) {
        struct reasm_dgram *d = e->outq;
        e->outq = d->next;
        free(d);
    }
    reasm_free(&e->reasm);
    free(e->ubuf);
}

int echod_run(nrio *io, const struct echod_args *a, const volatile sig_atomic_t *stop_flag,
              FILE *out, FILE *err, int announce)
{
    struct echod e;
    if (echod_start(&e, io, a, stop_flag) == 0) {
        if (announce)
            fprintf(err, "echod: serving%s%s on %s port %d\n", a->tcp ? " tcp" : "",
                    a->udp ? " udp" : "", a->bind_ip, a->port);
        int rc = nrio_run(io);
        if (rc < 0 && !e.failed) {
            snprintf(e.err, sizeof e.err, "the event loop failed: %s", strerror(-rc));
            snprintf(e.hint, sizeof e.hint, "this should not happen; report it");
            e.failed = 1;
        }
        if (!e.failed && echod_summary(&e, out) < 0)
            fprintf(err, "echod: writing the summary failed; is stdout closed or the disk "
                    "full?\n");
    } else {
        e.failed = 1;
    }
    if (e.failed) {
        fprintf(err, "echod: %s; %s\n", e.err, e.hint);
        nr_json_error(out, "echod", e.err, e.hint);
    }
    echod_free(&e);
    return e.failed ? 1 : 0;
}
