/* milliner's UDP transfer: the client sends a message k segments per acknowledgement, the
 * server echoes it back the same way once it has all of it, and the client compares the echo
 * with what it sent. The client's time runs from its first segment to the final
 * acknowledgement of the forward transfer, as the paper timed it. That proves delivery: the
 * server acknowledges a group only once it holds all of it, and the client sends a group only
 * after the one before was acknowledged. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ack.h"
#include "bench.h"
#include "nrcounts.h"

/* The server keeps answering retransmissions this long after its last message; the client,
 * until none has come for this long, since the acknowledgement of the echo's last group may
 * be lost (the server's --rto must be shorter). */
#define LINGER_NS 300000000LL
#define DGRAM_MAX 65536

/* One message being sent. */
struct tx {
    const uint8_t *msg;
    long long len;
    uint32_t msg_id;
    int phase, active;
    int k; /* segments per acknowledgement: the client's, in both directions */
    long nseg, ngroups, group, next_seq, group_end;
    int timer;
    long retransmissions, acks;
    int64_t t_first, t_done;
};

struct udp {
    nrio *io;
    const struct ipc_args *a;
    FILE *out;
    int sock;
    struct nrio_addr peer;
    int status, failed, stopping;
    int64_t progress_ns;
    int watchdog, timer;
    long payload;
    uint8_t *dgram;
    int blocked;      /* waiting for NRIO_OUT */
    struct tx tx;     /* client: forward; server: echo */
    struct ipc_rx rx; /* client: echo; server: forward */
    int rx_on;
    /* client */
    int index;
    uint8_t *msg;
    int64_t t_echo;
    /* server */
    int served;
    int echo_started;
    int64_t t_rx_first;
};

static void on_sock(void *arg, int sock, int events);
static void tx_send(struct udp *u);

static void fail(struct udp *u, const char *msg)
{
    if (u->failed)
        return;
    ipc_error(u->out, u->a, u->a->server ? u->served : u->index, "%s", msg);
    u->failed = 1;
    u->status = IPC_EXIT_FAIL;
    nrio_stop(u->io);
}

static void rewatch(struct udp *u)
{
    int rc = nrio_watch(u->io, u->sock, NRIO_IN | (u->blocked ? NRIO_OUT : 0), on_sock, u);
    if (rc < 0) {
        char m[128];
        snprintf(m, sizeof m, "watching the UDP socket failed: %s", strerror(-rc));
        fail(u, m);
    }
}

static void send_ack(struct udp *u, const struct nrio_addr *to, uint32_t msg_id, int phase,
                     long group)
{
    uint16_t ack = ipc_ack_encode(msg_id, phase, group);
    uint8_t b[IPC_ACK_LEN] = {(uint8_t)(ack >> 8), (uint8_t)ack};
    /* A lost acknowledgement is repaired by the sender's retransmission. */
    nrio_sendto(u->io, u->sock, b, sizeof b, to);
}

/* ipc_rx_segment, telling the host which part of the message it wrote. */
static long rx_take(struct udp *u, long seq, const uint8_t *data, size_t len)
{
    long g = ipc_rx_segment(&u->rx, seq, data, len);
    long long off = (long long)seq * u->rx.payload;
    if (seq >= 0 && seq < u->rx.nseg)
        nrio_touch(u->io, u->rx.msg + off,
                   (size_t)(u->rx.msg_len - off < (long long)len ? u->rx.msg_len - off : (long long)len), 1);
    return g;
}

/* ---- sending ---- */

static void tx_rto(void *arg)
{
    struct udp *u = arg;
    u->tx.timer = 0;
    if (!u->tx.active)
        return;
    u->tx.retransmissions++;
    long end;
    ipc_group_range(u->tx.group, u->tx.k, u->tx.nseg, &u->tx.next_seq, &end);
    tx_send(u);
}

static void tx_group(struct tx *t)
{
    ipc_group_range(t->group, t->k, t->nseg, &t->next_seq, &t->group_end);
}

static void tx_start(struct udp *u, const uint8_t *msg, long long len, uint32_t msg_id, int phase,
                     int k)
{
    struct tx *t = &u->tx;
    memset(t, 0, sizeof *t);
    t->msg = msg;
    t->len = len;
    t->msg_id = msg_id;
    t->phase = phase;
    t->active = 1;
    t->k = k;
    t->nseg = ipc_segments(len, u->payload);
    t->ngroups = ipc_groups(t->nseg, k);
    tx_group(t);
    t->t_first = nrio_now_ns(u->io);
    tx_send(u);
}

static void tx_send(struct udp *u)
{
    struct tx *t = &u->tx;
    while (t->active && t->next_seq < t->group_end) {
        long long off = (long long)t->next_seq * u->payload;
        size_t n = (size_t)(t->len - off < u->payload ? t->len - off : u->payload);
        struct ipc_seg s = {.phase = t->phase, .k = t->k, .msg_id = t->msg_id,
                            .seq = (uint32_t)t->next_seq, .msg_len = (uint32_t)t->len,
                            .payload = (uint32_t)u->payload};
        ipc_seg_encode(&s, u->dgram);
        memcpy(u->dgram + IPC_HDR_LEN, t->msg + off, n);
        nrio_touch(u->io, t->msg + off, n, 0);
        ssize_t r = nrio_sendto(u->io, u->sock, u->dgram, IPC_HDR_LEN + n, &u->peer);
        if (r == -EAGAIN || r == -ENOBUFS) {
            u->blocked = 1;
            rewatch(u);
            return;
        }
        if (r < 0 && r != -ECONNREFUSED) {
            char m[128];
            snprintf(m, sizeof m, "sendto failed: %s", strerror((int)-r));
            fail(u, m);
            return;
        }
        t->next_seq++;
    }
    if (u->blocked) {
        u->blocked = 0;
        rewatch(u);
    }
    if (t->active && t->timer == 0) {
        t->timer = nrio_timer_at(u->io, nrio_now_ns(u->io) + u->a->rto_ns, tx_rto, u);
        if (t->timer < 0)
            fail(u, "arming the retransmission timer failed");
    }
}

static void client_check_done(struct udp *u);
static void server_echo_done(struct udp *u);

static void tx_ack(struct udp *u, uint16_t ack)
{
    struct tx *t = &u->tx;
    if (!t->active || !ipc_ack_matches(ack, t->msg_id, t->phase, t->group))
        return;
    if (t->timer > 0)
        nrio_timer_cancel(u->io, t->timer);
    t->timer = 0;
    t->acks++;
    t->group++;
    if (t->group == t->ngroups) {
        t->active = 0;
        t->t_done = nrio_now_ns(u->io);
        if (u->a->server)
            server_echo_done(u);
        else
            client_check_done(u);
        return;
    }
    tx_group(t);
    tx_send(u);
}

/* ---- client ---- */

static void client_start(void *arg);

/* After the last echo: answers the server's retransmissions until it has been quiet for
 * LINGER_NS (on_sock acknowledges echo segments of earlier messages). */
static void client_linger(void *arg)
{
    struct udp *u = arg;
    int64_t quiet_until = u->progress_ns + LINGER_NS;
    u->timer = 0;
    if (nrio_now_ns(u->io) >= quiet_until) {
        nrio_stop(u->io);
        return;
    }
    u->timer = nrio_timer_at(u->io, quiet_until, client_linger, u);
    if (u->timer < 0)
        fail(u, "arming the linger timer failed");
}

static void client_check_done(struct udp *u)
{
    if (u->tx.active || !u->rx_on || !ipc_rx_complete(&u->rx))
        return;
    int equal = u->rx.msg_len == u->tx.len && memcmp(u->rx.msg, u->msg, (size_t)u->tx.len) == 0;
    nrio_touch(u->io, u->rx.msg, (size_t)u->rx.msg_len, 0);
    nrio_touch(u->io, u->msg, (size_t)u->tx.len, 0);
    struct nr_json j;
    ipc_record_begin(&j, u->a, u->index);
    nr_json_int(&j, "size", u->a->size);
    nr_json_int(&j, "segment", u->a->segment);
    nr_json_int(&j, "segment_payload", u->payload);
    nr_json_int(&j, "unack", u->a->unack);
    nr_json_int(&j, "segments", u->tx.nseg);
    nr_json_int(&j, "acks", u->tx.acks);
    nr_json_int(&j, "retransmissions", u->tx.retransmissions);
    nr_json_int(&j, "rto_ns", u->a->rto_ns);
    nr_json_int(&j, "echo_ns", u->t_echo - u->tx.t_first);
    nr_json_bool(&j, "echo_equal", equal);
    nr_json_counts(&j, u->io);
    ipc_record_finish(&j, u->out, u->a->size, u->tx.t_done - u->tx.t_first,
                      IPC_END_RECEIVER_ACK);
    ipc_rx_free(&u->rx);
    u->rx_on = 0;
    if (!equal) {
        fail(u, "the echoed message differs from the one sent");
        return;
    }
    u->index++;
    if (u->index == u->a->repeat) {
        u->status = IPC_EXIT_OK;
        client_linger(u);
        return;
    }
    u->timer = nrio_timer_at(u->io, nrio_now_ns(u->io) + u->a->pause_ns, client_start, u);
    if (u->timer < 0)
        fail(u, "arming the pause timer failed");
}

static void client_start(void *arg)
{
    struct udp *u = arg;
    u->timer = 0;
    u->progress_ns = nrio_now_ns(u->io);
    u->t_echo = 0;
    for (long long i = 0; i < u->a->size; i++)
        u->msg[i] = ipc_pattern((uint32_t)u->index, i);
    nrio_touch(u->io, u->msg, (size_t)u->a->size, 1);
    if (ipc_rx_init(&u->rx, (uint32_t)u->index, IPC_ECHO, u->a->unack, u->a->size,
                    u->payload) < 0) {
        fail(u, "out of memory for the echo");
        return;
    }
    u->rx_on = 1;
    tx_start(u, u->msg, u->a->size, (uint32_t)u->index, IPC_FORWARD, u->a->unack);
}

/* ---- server ---- */

static void linger_over(void *arg)
{
    struct udp *u = arg;
    nrio_stop(u->io);
}

static void server_echo_done(struct udp *u)
{
    struct nr_json j;
    ipc_record_begin(&j, u->a, u->served);
    nr_json_int(&j, "size", u->rx.msg_len);
    /* The client's segment size rules (server_segment), not this end's --segment. */
    nr_json_int(&j, "segment", u->payload + IPC_HDR_LEN);
    nr_json_int(&j, "unack", u->rx.k);
    nr_json_int(&j, "segments", u->rx.nseg);
    nr_json_int(&j, "echo_retransmissions", u->tx.retransmissions);
    int intact = 1;
    for (long long i = 0; i < u->rx.msg_len && intact; i++)
        intact = u->rx.msg[i] == ipc_pattern(u->rx.msg_id, i);
    nr_json_bool(&j, "intact", intact);
    nr_json_counts(&j, u->io);
    ipc_record_finish(&j, u->out, u->rx.msg_len, u->tx.t_first - u->t_rx_first,
                      IPC_END_LAST_OCTET);
    u->served++;
    if (u->a->count && u->served >= u->a->count && !u->stopping) {
        u->stopping = 1;
        u->status = IPC_EXIT_OK;
        u->timer = nrio_timer_at(u->io, nrio_now_ns(u->io) + LINGER_NS, linger_over, u);
        if (u->timer < 0)
            fail(u, "arming the linger timer failed");
    }
}

static void server_segment(struct udp *u, const struct ipc_seg *s, const uint8_t *data,
                           size_t len, const struct nrio_addr *from)
{
    if (s->phase != IPC_FORWARD)
        return;
    if (u->rx_on && s->msg_id < u->rx.msg_id) {
        send_ack(u, from, s->msg_id, s->phase, ipc_group_of((long)s->seq, s->k));
        return;
    }
    if (!u->rx_on || s->msg_id > u->rx.msg_id) {
        if (u->rx_on) {
            /* The client has moved on, so it has the echo of the message before. */
            if (u->tx.active) {
                u->tx.active = 0;
                if (u->tx.timer > 0)
                    nrio_timer_cancel(u->io, u->tx.timer);
                u->tx.timer = 0;
                server_echo_done(u);
            }
            ipc_rx_free(&u->rx);
        }
        /* The client's segment size rules: the echo goes back in the same segments. */
        u->payload = (long)s->payload;
        u->echo_started = 0;
        if (ipc_rx_init(&u->rx, s->msg_id, IPC_FORWARD, s->k, s->msg_len, u->payload) < 0) {
            fail(u, "out of memory for a message");
            return;
        }
        u->rx_on = 1;
        u->peer = *from;
        u->t_rx_first = nrio_now_ns(u->io);
    }
    long g = rx_take(u, (long)s->seq, data, len);
    if (g >= 0)
        send_ack(u, from, s->msg_id, s->phase, g);
    if (ipc_rx_complete(&u->rx) && !u->echo_started) {
        u->echo_started = 1;
        tx_start(u, u->rx.msg, u->rx.msg_len, u->rx.msg_id, IPC_ECHO, u->rx.k);
    }
}

/* ---- both ---- */

static void on_sock(void *arg, int sock, int events)
{
    struct udp *u = arg;
    if (events & NRIO_OUT)
        tx_send(u);
    for (int burst = 0; burst < 256 && !u->failed; burst++) {
        struct nrio_addr from;
        ssize_t n = nrio_recvfrom(u->io, sock, u->dgram, DGRAM_MAX, &from);
        if (n == -EAGAIN)
            return;
        if (n == -ECONNREFUSED)
            continue;
        if (n < 0) {
            char m[128];
            snprintf(m, sizeof m, "recvfrom failed: %s", strerror((int)-n));
            fail(u, m);
            return;
        }
        u->progress_ns = nrio_now_ns(u->io);
        if (n == IPC_ACK_LEN) {
            tx_ack(u, (uint16_t)(u->dgram[0] << 8 | u->dgram[1]));
            continue;
        }
        struct ipc_seg s;
        if (ipc_seg_decode(u->dgram, (size_t)n, &s) < 0)
            continue;
        const uint8_t *data = u->dgram + IPC_HDR_LEN;
        size_t len = (size_t)n - IPC_HDR_LEN;
        if (u->a->server) {
            server_segment(u, &s, data, len, &from);
        } else if (s.phase == IPC_ECHO) {
            if (u->rx_on && s.msg_id == u->rx.msg_id) {
                long g = rx_take(u, (long)s.seq, data, len);
                if (g >= 0)
                    send_ack(u, &from, s.msg_id, s.phase, g);
                if (ipc_rx_complete(&u->rx) && !u->t_echo)
                    u->t_echo = u->progress_ns;
                client_check_done(u);
            } else if (s.msg_id < (uint32_t)u->index) {
                send_ack(u, &from, s.msg_id, s.phase, ipc_group_of((long)s.seq, s.k));
            }
        }
    }
}

static void on_watchdog(void *arg)
{
    struct udp *u = arg;
    u->watchdog = 0;
    int64_t now = nrio_now_ns(u->io);
    if (u->timer > 0 && !u->a->server)
        u->progress_ns = now; /* pausing between messages */
    if (now - u->progress_ns >= u->a->timeout_ns) {
        if (u->a->server && u->served > 0 && !u->a->count && !(u->rx_on && !ipc_rx_complete(&u->rx))) {
            u->status = IPC_EXIT_OK; /* served, and idle since */
            nrio_stop(u->io);
            return;
        }
        char m[256];
        snprintf(m, sizeof m, "timeout: nothing arrived for %.3f s (%s); check that the %s runs "
                 "and is reachable, or raise --timeout", u->a->timeout_ns / 1e9,
                 u->a->server ? "serving" : "sending", u->a->server ? "client" : "server "
                 "(ipcbench --server)");
        fail(u, m);
        return;
    }
    u->watchdog = nrio_timer_at(u->io, u->progress_ns + u->a->timeout_ns, on_watchdog, u);
}

int ipc_run_udp(nrio *io, const struct ipc_args *a, FILE *out)
{
    struct udp u = {.io = io, .a = a, .out = out, .status = IPC_EXIT_FAIL, .sock = -1};
    u.payload = a->segment - IPC_HDR_LEN;
    u.dgram = malloc(DGRAM_MAX);
    if (!a->server)
        u.msg = malloc((size_t)a->size);
    if (!u.dgram || (!a->server && !u.msg)) {
        ipc_error(out, a, 0, "out of memory for a %lld-octet message; give a smaller --size",
                  a->size);
        free(u.dgram);
        free(u.msg);
        return IPC_EXIT_FAIL;
    }
    struct nrio_addr addr;
    nrio_parse_addr(a->server ? a->bind_ip : a->host, (uint16_t)a->port, &addr);
    u.sock = nrio_open(io, NRIO_UDP, NULL);
    int rc = u.sock;
    if (rc >= 0 && a->server)
        rc = nrio_bind(io, u.sock, &addr);
    if (rc < 0) {
        ipc_error(out, a, 0, "opening the UDP socket on port %d failed: %s", a->port,
                  strerror(-rc));
    } else {
        u.peer = addr;
        if (a->server)
            ipc_announce(a);
        u.progress_ns = nrio_now_ns(io);
        u.watchdog = nrio_timer_at(io, u.progress_ns + a->timeout_ns, on_watchdog, &u);
        rewatch(&u);
        if (!a->server)
            client_start(&u);
        if (!u.failed) {
            rc = nrio_run(io);
            if (rc < 0)
                ipc_error(out, a, 0, "the event loop failed: %s", strerror(-rc));
        }
    }
    if (u.rx_on)
        ipc_rx_free(&u.rx);
    if (u.sock >= 0)
        nrio_close(io, u.sock);
    free(u.dgram);
    free(u.msg);
    return u.status;
}
