/* The nrio backend on a tahoe stack, in virtual time: an nrio client talks TCP to a bare stack
 * across the test link; the test's wait() moves the clock and the packets. */
#include "nrio_tahoe.h"
#include "nrtest.h"
#include "testnet.h"

struct world {
    struct tn_net net;
    int ls, conn;
    size_t got;
    int eof;
};

static int64_t w_now(void *ctx) { return ((struct world *)ctx)->net.now; }

/* Advances to the next event (a packet, the server's timers, or until) and lets the server
 * read what arrived. */
static int w_wait(void *ctx, int64_t until)
{
    struct world *w = ctx;
    struct tn_net *net = &w->net;
    int64_t next = until;
    if (net->q && net->q->arrive < next)
        next = net->q->arrive;
    int64_t d = tahoe_next_deadline(net->h[1]);
    if (d < next)
        next = d;
    if (next == INT64_MAX)
        return -ETIMEDOUT;
    tn_clock(net, next);
    while (net->q && net->q->arrive <= next) {
        struct tn_pkt *p = net->q;
        net->q = p->next;
        tahoe_ip_input(net->h[p->to], p->data, p->len);
        free(p);
    }
    if (w->conn < 0)
        w->conn = tahoe_accept(net->h[1], w->ls, NULL);
    if (w->conn >= 0) {
        static uint8_t buf[16384];
        ssize_t n;
        while ((n = tahoe_recv(net->h[1], w->conn, buf, sizeof buf)) > 0)
            w->got += (size_t)n;
        if (n == 0)
            w->eof = 1;
    }
    return 0;
}

struct client {
    nrio *io;
    int s;
    size_t sent, total;
    int connected;
    int64_t stopped_at;
};

static void on_out(void *arg, int s, int ev)
{
    struct client *c = arg;
    (void)ev;
    if (!c->connected) {
        NRT_EQ_INT(nrio_connect_result(c->io, s), 0);
        c->connected = 1;
    }
    static uint8_t buf[8192];
    while (c->sent < c->total) {
        size_t n = c->total - c->sent < sizeof buf ? c->total - c->sent : sizeof buf;
        ssize_t r = nrio_send(c->io, s, buf, n);
        if (r <= 0)
            return;
        c->sent += (size_t)r;
    }
    nrio_shutdown_write(c->io, s);
    nrio_watch(c->io, s, 0, NULL, NULL);
}

static void on_timer(void *arg)
{
    struct client *c = arg;
    c->stopped_at = nrio_now_ns(c->io);
    nrio_stop(c->io);
}

static void test_nrio_tcp_transfer(void)
{
    static struct world w;
    memset(&w, 0, sizeof w);
    tn_init(&w.net, 9188, 100000000LL, 100000);
    tn_host(&w.net, 1, NULL);
    struct tahoe_config cfg;
    tahoe_config_defaults(&cfg);
    cfg.addr = tn_ip(10, 0, 0, 1);
    cfg.mtu = 9188;
    w.net.port[0] = (struct tn_port){ &w.net, 0 };
    cfg.if_output = tn_if_output;
    cfg.ctx = &w.net.port[0];
    struct nrio_tahoe_env env = { w_now, w_wait, &w, 40000, NULL };
    nrio *io = nrio_tahoe_new(&cfg, &env);
    NRT_CHECK(io != NULL);
    if (!io)
        return;
    w.net.h[0] = nrio_tahoe_stack(io);
    w.conn = -1;
    struct tahoe_addr srv = { tn_ip(10, 0, 0, 2), 5001 };
    w.ls = tahoe_socket(w.net.h[1], TAHOE_SOCK_STREAM);
    tahoe_bind(w.net.h[1], w.ls, &srv);
    tahoe_listen(w.net.h[1], w.ls, 5);

    struct client c = { io, -1, 0, 200000, 0, 0 };
    struct nrio_sockopts o = { .sndbuf = 16384, .rcvbuf = 16384, .nodelay = 1 };
    c.s = nrio_open(io, NRIO_TCP, &o);
    NRT_CHECK(c.s >= 0);
    struct nrio_sockopts got;
    NRT_EQ_INT(nrio_getopts(io, c.s, &got), 0);
    NRT_EQ_INT(got.sndbuf, 16384);
    NRT_EQ_INT(got.nodelay, 1);
    struct nrio_addr to = { srv.ip, srv.port };
    NRT_EQ_INT(nrio_connect(io, c.s, &to), -EINPROGRESS);
    NRT_EQ_INT(nrio_watch(io, c.s, NRIO_OUT, on_out, &c), 0);
    NRT_CHECK(nrio_timer_at(io, 3 * TN_SEC, on_timer, &c) > 0);
    /* A busy loop costs the host CPU: 1000 iterations at 40 ns. */
    int64_t before = nrio_now_ns(io);
    nrio_spin(io, 1000);
    NRT_EQ_INT(nrio_now_ns(io) - before, 40000);
    NRT_EQ_INT(nrio_run(io), 0);
    NRT_EQ_INT(c.stopped_at, 3 * TN_SEC);
    NRT_EQ_INT(c.sent, 200000);
    NRT_EQ_INT(w.got, 200000);
    NRT_CHECK(w.eof);
    w.net.h[0] = NULL;
    nrio_destroy(io);
    tn_free(&w.net);
}

static int64_t fixed_now(void *ctx) { return *(int64_t *)ctx; }
static int no_wait(void *ctx, int64_t until)
{
    (void)ctx;
    (void)until;
    return -ETIMEDOUT;
}

/* A packet read late, after a delayed-ACK tick, goes in at the time it arrived: the tick finds
 * it and acknowledges it, as it would have had the reader woken at once. */
static void test_a_packet_read_after_a_tick_is_processed_before_it(void)
{
    static struct tn_net net;
    tn_init(&net, 9188, 100000000LL, 100000);
    tn_host(&net, 1, NULL);
    struct tahoe_config cfg;
    tahoe_config_defaults(&cfg);
    cfg.addr = tn_ip(10, 0, 0, 1);
    cfg.mtu = 9188;
    net.port[0] = (struct tn_port){ &net, 0 };
    cfg.if_output = tn_if_output;
    cfg.ctx = &net.port[0];
    int64_t env_now = 0;
    struct nrio_tahoe_env env = { fixed_now, no_wait, &env_now, 40000, NULL };
    nrio *io = nrio_tahoe_new(&cfg, &env);
    NRT_CHECK(io != NULL);
    if (!io)
        return;
    struct tahoe_stack *rx = nrio_tahoe_stack(io);
    net.h[0] = rx;
    struct tahoe_addr srv = { tn_ip(10, 0, 0, 1), 5001 };
    int ls = tahoe_socket(rx, TAHOE_SOCK_STREAM);
    tahoe_bind(rx, ls, &srv);
    tahoe_listen(rx, ls, 5);
    int s = tahoe_socket(net.h[1], TAHOE_SOCK_STREAM);
    NRT_EQ_INT(tahoe_connect(net.h[1], s, &srv), -EINPROGRESS);
    tn_run(&net, 50 * TN_MS, NULL, NULL);
    static const uint8_t data[100];
    NRT_EQ_INT(tahoe_send(net.h[1], s, data, sizeof data), (long)sizeof data);
    NRT_CHECK(net.q != NULL && net.q->to == 0 && net.q->arrive < 200 * TN_MS);
    if (!net.q)
        return;
    struct tn_pkt *seg = net.q;
    net.q = seg->next;
    /* Read at 250 ms, 50 ms after the tick at 200 ms. */
    env_now = 250 * TN_MS;
    size_t before = net.nlog;
    nrio_tahoe_input(io, seg->data, seg->len, seg->arrive);
    tahoe_clock(rx, env_now);
    free(seg);
    int acked_at_tick = 0;
    for (size_t i = before; i < net.nlog; i++)
        if (net.log[i].from == 0 && (net.log[i].flags & TH_ACK) && net.log[i].at_ns >= 200 * TN_MS &&
            net.log[i].at_ns < 210 * TN_MS)
            acked_at_tick = 1;
    NRT_CHECK(acked_at_tick);
    net.h[0] = NULL;
    nrio_destroy(io);
    tn_free(&net);
}

/* A clock that jumps to each instant waited for, and the instants it was asked for. */
struct jump_clock {
    int64_t now;
    int64_t waits[8];
    int nwaits;
};

static int64_t jump_now(void *ctx) { return ((struct jump_clock *)ctx)->now; }

static int jump_wait(void *ctx, int64_t until)
{
    struct jump_clock *c = ctx;
    if (c->nwaits == 8)
        return -ELOOP;
    c->waits[c->nwaits++] = until;
    if (until > c->now)
        c->now = until;
    return 0;
}

static int drop_output(void *ctx, const uint8_t *pkt, size_t len, int64_t at)
{
    (void)ctx;
    (void)pkt;
    (void)len;
    (void)at;
    return 0;
}

static void stop_at(void *arg)
{
    struct client *c = arg;
    c->stopped_at = nrio_now_ns(c->io);
    nrio_stop(c->io);
}

/* A timer that falls due while the CPU is busy runs when the CPU is free, and the loop waits
 * for that instant rather than for the timer's, already past. */
static void test_a_timer_due_while_the_cpu_is_busy_waits_for_it(void)
{
    struct tahoe_config cfg;
    tahoe_config_defaults(&cfg);
    cfg.addr = tn_ip(10, 0, 0, 1);
    cfg.if_output = drop_output;
    struct jump_clock clock = { 0 };
    struct nrio_tahoe_env env = { jump_now, jump_wait, &clock, 40000, NULL };
    nrio *io = nrio_tahoe_new(&cfg, &env);
    NRT_CHECK(io != NULL);
    if (!io)
        return;
    struct client c = { io, -1, 0, 0, 0, 0 };
    NRT_CHECK(nrio_timer_at(io, 1000000, stop_at, &c) > 0);
    nrio_spin(io, 125000); /* 5 ms of CPU at 40 ns an iteration */
    NRT_EQ_INT(nrio_run(io), 0);
    NRT_EQ_INT(clock.nwaits, 2);
    NRT_EQ_INT(clock.waits[0], 1000000);
    NRT_EQ_INT(clock.waits[1], 5000000);
    NRT_EQ_INT(c.stopped_at, 5000000);
    nrio_destroy(io);
}

int main(void)
{
    NRT_RUN(test_nrio_tcp_transfer);
    NRT_RUN(test_a_packet_read_after_a_tick_is_processed_before_it);
    NRT_RUN(test_a_timer_due_while_the_cpu_is_busy_waits_for_it);
    return nrt_summary("tahoe/test_nrio_tahoe");
}
