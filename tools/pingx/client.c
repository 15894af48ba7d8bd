#include "client.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "pingwire.h"

/* Calibration of the busy loop: rounds long enough (about a millisecond here) for the clock's
 * resolution not to matter, and an odd number for a plain median. */
#define CALIB_ITERATIONS 1000000L
#define CALIB_ROUNDS 11
/* Datagrams read per readiness callback, so timers are not starved during a burst. */
#define UDP_BATCH 64

static void px_fail(struct px_client *c, const char *hint, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->what, sizeof c->what, fmt, ap);
    va_end(ap);
    snprintf(c->hint, sizeof c->hint, "%s", hint);
    c->failed = 1;
    nrio_stop(c->io);
}

static const char *peer_hint(struct px_client *c)
{
    static char hint[160];
    char ip[16];
    snprintf(hint, sizeof hint, "is echod running on %s port %d, and reachable? (--host, --port)",
             nrio_format_ip(c->peer.ip, ip, sizeof ip), c->a.port);
    return hint;
}

static int uses_udp(const struct px_client *c) { return pingx_is_udp(c->a.mode); }

static struct nrio_sockopts wanted_opts(const struct px_client *c)
{
    struct nrio_sockopts o = {.sndbuf = c->a.sndbuf, .rcvbuf = c->a.rcvbuf};
    o.nodelay = c->a.mode == PX_TCP_NODELAY;
    return o;
}

static void on_timer_start(void *arg);
static void on_sock(void *arg, int sock, int events);
static void on_timeout(void *arg);
static void on_quiet(void *arg);
static int arm_timeout(struct px_client *c, int64_t from);

/* Watches the socket for events; skips the system call when they are already watched, which
 * keeps it out of most timed intervals. */
static int watch(struct px_client *c, int events)
{
    if (events == c->watched)
        return 0;
    int rc = nrio_watch(c->io, c->sock, events, on_sock, c);
    if (rc < 0)
        px_fail(c, "this should not happen; report it", "watching the socket failed: %s",
                strerror(-rc));
    else
        c->watched = events;
    return rc;
}

static void emit_record(struct px_client *c)
{
    struct px_msg *m = &c->m;
    int complete = m->t_end != 0;
    struct nr_json j;
    nr_json_begin(&j, "message");
    nr_json_str(&j, "tool", "pingx");
    nr_json_str(&j, "mode", pingx_mode_name(c->a.mode));
    nr_json_str(&j, "stack", c->a.stack);
    nr_json_int(&j, "index", m->index);
    nr_json_int(&j, "size", m->size);
    nr_json_int(&j, "seq", m->seq);
    if (complete)
        nr_json_int(&j, "rtt_ns", m->t_end - m->t_start);
    else
        nr_json_null(&j, "rtt_ns");
    nr_json_bool(&j, "complete", complete);
    nr_json_int(&j, "datagrams", m->dg_sent);
    nr_json_int(&j, "datagrams_returned", m->dg_returned);
    nr_json_int(&j, "datagrams_stale", m->dg_stale);
    nr_json_int(&j, "datagrams_duplicate", m->dg_duplicate);
    nr_json_int(&j, "datagrams_misordered", m->dg_misordered);
    nr_json_int(&j, "interval_ns", m->interval_ns);
    nr_json_int(&j, "timeout_ns", m->timeout_ns);
    if (m->cool_gap_ns >= 0)
        nr_json_int(&j, "cool_gap_ns", m->cool_gap_ns);
    else
        nr_json_null(&j, "cool_gap_ns");
    nr_json_int(&j, "t_start_ns", m->t_start - c->t0);
    int rc = nr_json_emit(&j, c->out);
    if (rc < 0)
        px_fail(c, "is stdout closed or the disk full?", "writing a record failed: %s",
                strerror(-rc));
}

static void cancel_timers(struct px_client *c)
{
    if (c->m.timeout_timer > 0)
        nrio_timer_cancel(c->io, c->m.timeout_timer);
    if (c->m.quiet_timer > 0)
        nrio_timer_cancel(c->io, c->m.quiet_timer);
    c->m.timeout_timer = c->m.quiet_timer = 0;
}

static void close_sock(struct px_client *c)
{
    int rc = nrio_close(c->io, c->sock);
    c->sock = -1;
    c->watched = 0;
    if (rc < 0)
        px_fail(c, "this should not happen; report it", "closing the connection failed: %s",
                strerror(-rc));
}

/* The measurement of the current message is over: write its record (now, outside any timed
 * interval) and schedule the next message. */
static void finish_message(struct px_client *c)
{
    struct px_msg *m = &c->m;
    cancel_timers(c);
    m->phase = PX_IDLE;
    if (c->a.mode == PX_TCP_PER_MESSAGE && c->sock >= 0)
        close_sock(c);
    else if (uses_udp(c) && watch(c, NRIO_IN) < 0)
        return;
    if (c->failed)
        return;
    c->prev_measurement = nrio_now_ns(c->io) - m->t_start;
    emit_record(c);
    if (c->failed)
        return;
    if (uses_udp(c)) {
        c->silent_run = m->dg_returned ? 0 : c->silent_run + 1;
        if (c->silent_run >= c->a.max_silent) {
            px_fail(c, peer_hint(c), "no datagram came back for %ld messages in a row",
                    c->silent_run);
            return;
        }
    }
    if (++c->next == c->nplan) {
        nrio_stop(c->io);
        return;
    }
    /* Grid: from when the previous message was due, not from when its timer fired, so wake-up
     * delays do not add up and shift each message against the peer's 200 ms ticks. Alarm:
     * they do, as they did for liu95db's ping (on_timer_start set due when the alarm fired). */
    c->due += px_interval(c->a.interval_ns, c->prev_measurement);
    int id = nrio_alarm_at(c->io, c->due, on_timer_start, c);
    if (id < 0)
        px_fail(c, "this should not happen; report it", "arming a timer failed: %s",
                strerror(-id));
}

static void tcp_send(struct px_client *c)
{
    struct px_msg *m = &c->m;
    while (m->sent < (size_t)m->size) {
        ssize_t n = nrio_send(c->io, c->sock, c->msg + m->sent, (size_t)m->size - m->sent);
        if (n == -EAGAIN) {
            watch(c, NRIO_IN | NRIO_OUT);
            return;
        }
        if (n < 0) {
            px_fail(c, peer_hint(c), "sending a %ld-octet message failed: %s", m->size,
                    strerror((int)-n));
            return;
        }
        m->sent += (size_t)n;
    }
    m->phase = PX_RECEIVING;
    watch(c, NRIO_IN);
}

/* The original ping's line per returned packet: it costs the sender its print time, which a
 * simulated host charges (nrio_printed). Written after the clock was read. */
static void print_returned(struct px_client *c, long datagram)
{
    char ip[16];
    fprintf(stderr, "%ld octets from %s: message %ld datagram %ld time=%.3f ms\n", c->m.size,
            nrio_format_ip(c->peer.ip, ip, sizeof ip), c->m.index, datagram,
            (double)(nrio_now_ns(c->io) - c->m.t_start) / 1e6);
    nrio_printed(c->io);
}

static void tcp_receive(struct px_client *c)
{
    struct px_msg *m = &c->m;
    while (m->got < (size_t)m->size) {
        ssize_t n = nrio_recv(c->io, c->sock, c->echo + m->got, (size_t)m->size - m->got);
        if (n == -EAGAIN)
            return;
        if (n <= 0) {
            px_fail(c, "see echod's summary (tcp_bad_messages counts refused messages; check "
                    "its --max-message)",
                    n == 0 ? "echod closed the connection after %zu of the %ld octets of an echo"
                           : "receiving an echo failed after %zu of %ld octets",
                    m->got, m->size);
            return;
        }
        m->got += (size_t)n;
    }
    m->t_end = nrio_now_ns(c->io);
    /* The check costs time, so it comes after the clock was read. */
    if (memcmp(c->msg, c->echo, (size_t)m->size) != 0) {
        px_fail(c, "is the peer really echod? a TCP echo must match octet for octet",
                "the echo of a %ld-octet message differs from what was sent", m->size);
        return;
    }
    if (c->a.print_each)
        print_returned(c, 0);
    finish_message(c);
}

static void udp_send(struct px_client *c)
{
    struct px_msg *m = &c->m;
    while (m->dg_sent < m->dg_count) {
        long off, len;
        pw_udp_slice(m->size, c->a.datagram, m->dg_sent, &off, &len);
        struct pw_udp_hdr h = {m->msg_id, (uint16_t)m->dg_sent, (uint16_t)m->dg_count};
        pw_udp_encode(c->msg + off, &h);
        ssize_t n = nrio_send(c->io, c->sock, c->msg + off, (size_t)len);
        if (n == -EAGAIN) {
            watch(c, NRIO_IN | NRIO_OUT);
            return;
        }
        if (n == -ECONNREFUSED) {
            px_fail(c, peer_hint(c), "nothing listens on the UDP port (ICMP port unreachable)");
            return;
        }
        /* The stack may drop a datagram it has no buffer for (ENOBUFS): that is a loss like
         * any other, and it is counted as one by the echo that never comes. */
        if (n < 0 && n != -ENOBUFS) {
            px_fail(c, peer_hint(c), "sending a datagram failed: %s", strerror((int)-n));
            return;
        }
        m->dg_sent++;
        if (m->dg_sent < m->dg_count) {
            if (c->a.cool_iterations > 0)
                nrio_spin(c->io, c->a.cool_iterations);
            else if (c->a.cool_gap_ns > 0)
                nr_busy_wait_ns(c->io, c->a.cool_gap_ns);
        }
    }
    m->phase = PX_RECEIVING;
    if (watch(c, NRIO_IN) < 0)
        return;
    /* The wait for the echo starts once the last datagram left: cooling or a full socket
     * buffer may have made sending itself long. */
    if (m->timeout_timer > 0)
        nrio_timer_cancel(c->io, m->timeout_timer);
    arm_timeout(c, nrio_now_ns(c->io));
}

static void arm_quiet(struct px_client *c, int64_t at)
{
    int id = nrio_timer_at(c->io, at, on_quiet, c);
    if (id < 0)
        px_fail(c, "this should not happen; report it", "arming a timer failed: %s",
                strerror(-id));
    else
        c->m.quiet_timer = id;
}

static void udp_receive(struct px_client *c)
{
    struct px_msg *m = &c->m;
    for (int i = 0; i < UDP_BATCH; i++) {
        ssize_t n = nrio_recv(c->io, c->sock, c->echo, PW_MAX_DGRAM + 1);
        if (n == -EAGAIN)
            return;
        if (n == -ECONNREFUSED) {
            px_fail(c, peer_hint(c), "nothing listens on the UDP port (ICMP port unreachable)");
            return;
        }
        if (n < 0) {
            px_fail(c, peer_hint(c), "receiving an echo failed: %s", strerror((int)-n));
            return;
        }
        int64_t now = nrio_now_ns(c->io);
        struct pw_udp_hdr h;
        long off, len = -1;
        int ours = m->phase != PX_IDLE && pw_udp_decode(c->echo, (size_t)n, &h) == 0 &&
                   h.msg_id == m->msg_id && h.count == m->dg_count;
        if (ours)
            pw_udp_slice(m->size, c->a.datagram, h.index, &off, &len);
        if (!ours || n != len) {
            if (m->phase == PX_IDLE)
                c->stale_idle++;
            else
                m->dg_stale++;
            continue;
        }
        if (c->seen[h.index]) {
            m->dg_duplicate++;
            continue;
        }
        c->seen[h.index] = 1;
        px_note_returned(m, h.index);
        m->t_last_return = now;
        if (c->a.print_each)
            print_returned(c, h.index);
        if (m->dg_returned == m->dg_count) {
            m->t_end = now;
            finish_message(c);
            return;
        }
        if (!m->quiet_timer)
            arm_quiet(c, now + c->a.udp_quiet_ns);
    }
}

static void on_quiet(void *arg)
{
    struct px_client *c = arg;
    c->m.quiet_timer = 0;
    int64_t due = c->m.t_last_return + c->a.udp_quiet_ns;
    if (nrio_now_ns(c->io) >= due)
        finish_message(c); /* incomplete: the rest of the echo is not coming */
    else
        arm_quiet(c, due);
}

static void on_timeout(void *arg)
{
    struct px_client *c = arg;
    struct px_msg *m = &c->m;
    m->timeout_timer = 0;
    if (uses_udp(c)) {
        finish_message(c);
        return;
    }
    if (m->size == 0)
        px_fail(c, peer_hint(c), "no connection to echod within %.3f s (--timeout)",
                (double)m->timeout_ns / 1e9);
    else
        px_fail(c, peer_hint(c), "no %s for the %ld-octet message within %.3f s (--timeout)",
                m->phase == PX_CONNECTING ? "connection" : "complete echo", m->size,
                (double)m->timeout_ns / 1e9);
}

static void tcp_connected(struct px_client *c)
{
    if (c->a.mode == PX_TCP_PER_MESSAGE) {
        c->m.phase = PX_SENDING;
        tcp_send(c);
        return;
    }
    /* The one connection of tcp and tcp-nodelay is up: the first message may start. */
    cancel_timers(c);
    c->m.phase = PX_IDLE;
    on_timer_start(c);
}

static void on_sock(void *arg, int sock, int events)
{
    struct px_client *c = arg;
    (void)sock;
    switch (c->m.phase) {
    case PX_CONNECTING: {
        int rc = nrio_connect_result(c->io, c->sock);
        if (rc < 0) {
            px_fail(c, peer_hint(c), "connecting failed: %s", strerror(-rc));
            return;
        }
        tcp_connected(c);
        return;
    }
    case PX_SENDING:
        if (uses_udp(c)) {
            if (events & NRIO_OUT)
                udp_send(c);
            if (!c->failed && (events & NRIO_IN))
                udp_receive(c);
        } else {
            if (events & NRIO_OUT)
                tcp_send(c);
            /* echod never echoes early, so input now is its close or an error: surface it */
            if (!c->failed && (events & (NRIO_IN | NRIO_ERR)))
                tcp_receive(c);
        }
        return;
    case PX_RECEIVING:
        if (uses_udp(c))
            udp_receive(c);
        else
            tcp_receive(c);
        return;
    default:
        if (uses_udp(c)) {
            udp_receive(c); /* late echoes between messages are read and counted as stale */
        } else {
            px_fail(c, "see echod's summary and stderr", "echod closed the connection or "
                    "sent unasked data between messages");
        }
    }
}

/* Starts a non-blocking connect; the timeout timer covers it. */
static void tcp_connect(struct px_client *c)
{
    struct nrio_sockopts o = wanted_opts(c);
    c->sock = nrio_open(c->io, NRIO_TCP, &o);
    if (c->sock < 0) {
        int err = -c->sock;
        c->sock = -1;
        px_fail(c, "check --sndbuf/--rcvbuf and the open-files limit (ulimit -n)",
                "opening a TCP socket failed: %s", strerror(err));
        return;
    }
    c->watched = 0;
    c->m.phase = PX_CONNECTING;
    if (c->a.mode == PX_TCP_PER_MESSAGE)
        c->m.t_start = nrio_now_ns(c->io);
    int rc = nrio_connect(c->io, c->sock, &c->peer);
    if (rc == 0)
        tcp_connected(c);
    else if (rc == -EINPROGRESS)
        watch(c, NRIO_OUT);
    else
        px_fail(c, peer_hint(c), "connecting failed: %s", strerror(-rc));
}

static int arm_timeout(struct px_client *c, int64_t from)
{
    int id = nrio_timer_at(c->io, from + c->m.timeout_ns, on_timeout, c);
    if (id < 0) {
        px_fail(c, "this should not happen; report it", "arming a timer failed: %s",
                strerror(-id));
        return -1;
    }
    c->m.timeout_timer = id;
    return 0;
}

static void on_timer_start(void *arg)
{
    struct px_client *c = arg;
    struct px_msg *m = &c->m;
    const struct px_item *it = &c->plan[c->next];
    memset(m, 0, sizeof *m);
    if (c->next == 0 || c->a.pacing == PX_PACING_ALARM)
        c->due = nrio_now_ns(c->io);
    /* Late echoes read between two messages are reported with the next one. */
    m->dg_stale = c->stale_idle;
    c->stale_idle = 0;
    m->index = c->next;
    m->size = it->size;
    m->seq = it->seq;
    m->interval_ns = px_interval(c->a.interval_ns, c->next ? c->prev_measurement : 0);
    m->timeout_ns = px_timeout(c->a.timeout_ns, m->size);
    m->cool_gap_ns = c->cool_gap_ns;
    m->msg_id = (uint32_t)(c->next + 1);
    if (uses_udp(c)) {
        m->dg_count = pw_udp_count(m->size, c->a.datagram);
        memset(c->seen, 0, (size_t)m->dg_count);
        m->phase = PX_SENDING;
        m->t_start = nrio_now_ns(c->io);
        if (arm_timeout(c, m->t_start) == 0)
            udp_send(c);
        return;
    }
    struct pw_tcp_hdr h = {c->a.mode == PX_TCP_NODELAY ? PW_FLAG_NODELAY : 0,
                           (uint8_t)m->seq, (uint32_t)m->size};
    pw_tcp_encode(c->msg, &h);
    if (c->a.mode == PX_TCP_PER_MESSAGE) {
        /* t_start is taken just before the connect: set-up is part of this mode's RTT. */
        if (arm_timeout(c, nrio_now_ns(c->io)) == 0)
            tcp_connect(c);
        return;
    }
    m->phase = PX_SENDING;
    m->t_start = nrio_now_ns(c->io);
    if (arm_timeout(c, m->t_start) == 0)
        tcp_send(c);
}

static void write_meta(struct px_client *c)
{
    const struct pingx_args *a = &c->a;
    int udp = uses_udp(c), iter = a->cool_iterations > 0;
    int64_t sizes[PX_MAX_SIZES];
    for (int i = 0; i < a->nsizes; i++)
        sizes[i] = a->sizes[i];
    struct nr_json j;
    nr_json_begin(&j, "meta");
    nr_json_str(&j, "tool", "pingx");
    nr_json_str(&j, "version", PINGX_VERSION);
    nr_json_str(&j, "mode", pingx_mode_name(a->mode));
    nr_json_str(&j, "stack", c->a.stack);
    nr_json_str(&j, "host", a->host);
    nr_json_int(&j, "port", a->port);
    nr_json_int_array(&j, "sizes", sizes, (size_t)a->nsizes);
    nr_json_int(&j, "count", a->count);
    nr_json_int(&j, "messages", c->nplan);
    nr_json_str(&j, "order", a->shuffled ? "shuffled" : "sequential");
    nr_json_int(&j, "seed", (int64_t)a->seed);
    nr_json_int(&j, "interval_ns", a->interval_ns);
    nr_json_str(&j, "pacing", pingx_pacing_name(a->pacing));
    nr_json_str(&j, "interval_rule",
                a->pacing == PX_PACING_ALARM
                    ? "start-to-start interval = max(interval_ns, previous message's "
                      "measurement), counted from when the previous message's alarm went off"
                    : "start-to-start interval = max(interval_ns, previous message's "
                      "measurement), counted from when the previous message was due");
    nr_json_int(&j, "timeout_ns", a->timeout_ns);
    nr_json_str(&j, "timeout_rule", "timeout = max(timeout_ns, size x 16000 ns)");
    nr_json_int(&j, "header_octets", PW_HDR_LEN);
    nr_json_int(&j, "sndbuf_requested", a->sndbuf);
    nr_json_int(&j, "rcvbuf_requested", a->rcvbuf);
    nr_json_int(&j, "so_sndbuf", c->opts_in_force.sndbuf);
    nr_json_int(&j, "so_rcvbuf", c->opts_in_force.rcvbuf);
    if (udp) {
        nr_json_null(&j, "tcp_nodelay");
        nr_json_int(&j, "datagram", a->datagram);
        nr_json_int(&j, "udp_quiet_ns", a->udp_quiet_ns);
        nr_json_int(&j, "max_silent", a->max_silent);
    } else {
        nr_json_bool(&j, "tcp_nodelay", c->opts_in_force.nodelay);
        nr_json_null(&j, "datagram");
        nr_json_null(&j, "udp_quiet_ns");
        nr_json_null(&j, "max_silent");
    }
    if (c->cool_gap_ns >= 0)
        nr_json_int(&j, "cool_gap_ns", c->cool_gap_ns);
    else
        nr_json_null(&j, "cool_gap_ns");
    nr_json_str(&j, "cool_by", iter ? "iterations" : a->cool_gap_ns > 0 ? "clock" : NULL);
    nr_json_bool(&j, "print_each", a->print_each);
    if (iter) {
        nr_json_int(&j, "cool_iterations", a->cool_iterations);
        nr_json_double(&j, "calib_ns_per_iteration", c->calib.ns_per_iter);
        nr_json_double(&j, "calib_min_ns_per_iteration", c->calib.min_ns_per_iter);
        nr_json_double(&j, "calib_max_ns_per_iteration", c->calib.max_ns_per_iter);
        nr_json_int(&j, "calib_iterations", c->calib.iterations);
        nr_json_int(&j, "calib_rounds", c->calib.rounds);
    } else {
        nr_json_null(&j, "cool_iterations");
        nr_json_null(&j, "calib_ns_per_iteration");
        nr_json_null(&j, "calib_min_ns_per_iteration");
        nr_json_null(&j, "calib_max_ns_per_iteration");
        nr_json_null(&j, "calib_iterations");
        nr_json_null(&j, "calib_rounds");
    }
    nr_json_str(&j, "clock", a->clock);
    nr_json_int(&j, "t0_ns", c->t0);
    int rc = nr_json_emit(&j, c->out);
    if (rc < 0)
        px_fail(c, "is stdout closed or the disk full?", "writing the meta record failed: %s",
                strerror(-rc));
}

/* The socket options in force, read from a socket opened as the run's sockets are. For
 * tcp-per-message that is a probe socket closed again; the others keep theirs. */
static int read_opts(struct px_client *c)
{
    struct nrio_sockopts o = wanted_opts(c);
    int s = nrio_open(c->io, uses_udp(c) ? NRIO_UDP : NRIO_TCP, &o);
    if (s < 0) {
        px_fail(c, "check --sndbuf/--rcvbuf and the open-files limit (ulimit -n)",
                "opening a socket failed: %s", strerror(-s));
        return -1;
    }
    int rc = nrio_getopts(c->io, s, &c->opts_in_force);
    if (rc < 0) {
        px_fail(c, "this should not happen; report it", "reading socket options failed: %s",
                strerror(-rc));
        nrio_close(c->io, s);
        return -1;
    }
    if (uses_udp(c)) {
        /* Connected, so the kernel reports an ICMP port unreachable as ECONNREFUSED and drops
         * datagrams from anyone but echod. */
        c->sock = s;
        rc = nrio_connect(c->io, s, &c->peer);
        if (rc < 0) {
            px_fail(c, peer_hint(c), "connecting the UDP socket failed: %s", strerror(-rc));
            return -1;
        }
        return watch(c, NRIO_IN);
    }
    rc = nrio_close(c->io, s);
    if (rc < 0)
        px_fail(c, "this should not happen; report it", "closing a socket failed: %s",
                strerror(-rc));
    return rc;
}

int px_start(struct px_client *c, nrio *io, const struct pingx_args *a, FILE *out)
{
    memset(c, 0, sizeof *c);
    c->io = io;
    c->a = *a;
    c->out = out;
    c->sock = -1;
    c->cool_gap_ns = -1;
    long max = 0;
    for (int i = 0; i < a->nsizes; i++)
        if (a->sizes[i] > max)
            max = a->sizes[i];
    c->plan = px_plan(a, &c->nplan);
    c->msg = malloc((size_t)max);
    c->echo = malloc((size_t)(max > PW_MAX_DGRAM + 1 ? max : PW_MAX_DGRAM + 1));
    c->seen = malloc(PW_MAX_COUNT);
    if (!c->plan || !c->msg || !c->echo || !c->seen) {
        px_fail(c, "give fewer or smaller --sizes, or a smaller --count", "out of memory");
        return -1;
    }
    pw_fill(c->msg, (size_t)max, (uint32_t)a->seed);
    if (nrio_parse_addr(a->host, (uint16_t)a->port, &c->peer) < 0) {
        px_fail(c, "give a dotted IPv4 address", "--host %s is not an IPv4 address", a->host);
        return -1;
    }
    if (a->cool_iterations > 0) {
        int rc = nr_calibrate_spin(io, CALIB_ITERATIONS, CALIB_ROUNDS, &c->calib);
        if (rc < 0) {
            px_fail(c, "this should not happen; report it", "calibrating the busy loop "
                    "failed: %s", strerror(-rc));
            return -1;
        }
        c->cool_gap_ns = llround(c->calib.ns_per_iter * (double)a->cool_iterations);
    } else if (a->cool_gap_ns > 0) {
        c->cool_gap_ns = a->cool_gap_ns;
    }
    if (read_opts(c) < 0)
        return -1;
    c->t0 = nrio_now_ns(io);
    write_meta(c);
    if (c->failed)
        return -1;
    if (a->mode == PX_TCP || a->mode == PX_TCP_NODELAY) {
        /* Connection set-up is not part of these modes' RTT; it is bounded by the timeout. */
        c->m.timeout_ns = a->timeout_ns;
        if (arm_timeout(c, nrio_now_ns(io)) == 0)
            tcp_connect(c);
        return c->failed ? -1 : 0;
    }
    int id = nrio_timer_at(io, c->t0, on_timer_start, c);
    if (id < 0) {
        px_fail(c, "this should not happen; report it", "arming a timer failed: %s",
                strerror(-id));
        return -1;
    }
    return 0;
}

void px_note_returned(struct px_msg *m, long index)
{
    if (m->dg_returned > 0 && index < m->dg_top_index)
        m->dg_misordered++;
    else
        m->dg_top_index = index;
    m->dg_returned++;
}

void px_free(struct px_client *c)
{
    /* Teardown after the run: a failing close has no one left to tell. */
    if (c->sock >= 0)
        nrio_close(c->io, c->sock);
    c->sock = -1;
    free(c->plan);
    free(c->msg);
    free(c->echo);
    free(c->seen);
}

int pingx_run(nrio *io, const struct pingx_args *a, FILE *out, FILE *err)
{
    struct px_client c;
    if (px_start(&c, io, a, out) == 0) {
        int rc = nrio_run(io);
        if (rc < 0 && !c.failed) {
            snprintf(c.what, sizeof c.what, "the event loop failed: %s", strerror(-rc));
            snprintf(c.hint, sizeof c.hint, "this should not happen; report it");
            c.failed = 1;
        }
    }
    if (c.failed) {
        fprintf(err, "pingx: %s; %s\n", c.what, c.hint);
        nr_json_error(out, "pingx", c.what, c.hint);
    }
    px_free(&c);
    return c.failed ? 1 : 0;
}
