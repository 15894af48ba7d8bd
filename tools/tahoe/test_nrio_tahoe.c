/* The nrio backend on a tahoe stack, in virtual time: an nrio client talks TCP to a bare stack
 * across the test link; the test's wait() moves the clock and the packets. */
#include <stdlib.h>
#include <unistd.h>

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
    int r = tn_env_wait(&w->net, until);
    if (r < 0)
        return r;
    struct tahoe_stack *srv = w->net.h[1];
    if (w->conn < 0)
        w->conn = tahoe_accept(srv, w->ls, NULL);
    if (w->conn >= 0) {
        static uint8_t buf[16384];
        ssize_t n;
        while ((n = tahoe_recv(srv, w->conn, buf, sizeof buf)) > 0)
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
    struct nrio_tahoe_env env = { w_now, w_wait, &w, 40000, NULL };
    nrio *io = tn_nrio_host(&w.net, NULL, &env);
    NRT_CHECK(io != NULL);
    if (!io)
        return;
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
    tn_nrio_free(&w.net, io);
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
    int64_t env_now = 0;
    struct nrio_tahoe_env env = { fixed_now, no_wait, &env_now, 40000, NULL };
    nrio *io = tn_nrio_host(&net, NULL, &env);
    NRT_CHECK(io != NULL);
    if (!io)
        return;
    struct tahoe_stack *rx = net.h[0];
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
    tn_nrio_free(&net, io);
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

/* A clock that jumps to each instant waited for, up to a limit of waits. */
struct tick_clock {
    int64_t now;
    int nwaits;
};

static int64_t tick_now(void *ctx) { return ((struct tick_clock *)ctx)->now; }

static int tick_wait(void *ctx, int64_t until)
{
    struct tick_clock *c = ctx;
    if (++c->nwaits > 100 || until == INT64_MAX)
        return -ELOOP;
    if (until > c->now)
        c->now = until;
    return 0;
}

/* An application whose callbacks note when they ran; it stops after `want` of them. When
 * rearm_ns is set, each callback sets an alarm that long after it ran, as alarm(1) set again
 * in a SIGALRM handler does. */
struct alarm_app {
    nrio *io;
    int64_t ran[8];
    int n, want;
    int64_t rearm_ns;
};

static void note_run(void *arg)
{
    struct alarm_app *a = arg;
    a->ran[a->n++] = nrio_now_ns(a->io);
    if (a->n == a->want)
        nrio_stop(a->io);
    else if (a->rearm_ns)
        NRT_CHECK(nrio_alarm_at(a->io, nrio_now_ns(a->io) + a->rearm_ns, note_run, a) > 0);
}

/* A host whose clock interrupts hz times a second, booted at boot_ns, with the test clock. */
static nrio *clock_host(int64_t hz, int64_t boot_ns, struct tick_clock *clock)
{
    struct tahoe_config cfg;
    tahoe_config_defaults(&cfg);
    cfg.addr = tn_ip(10, 0, 0, 1);
    cfg.if_output = drop_output;
    cfg.boot_ns = boot_ns;
    cfg.cost.clock_hz = hz;
    clock->now = boot_ns;
    clock->nwaits = 0;
    struct nrio_tahoe_env env = { tick_now, tick_wait, clock, 40000, NULL };
    return nrio_tahoe_new(&cfg, &env);
}

/* Arms three timers on a host booted at 3 ms, alarms but for the third when `plain`, and
 * checks the instants their callbacks ran, in order. */
static void check_alarms(int64_t hz, int plain, const int64_t due[3], const int64_t want[3])
{
    struct tick_clock clock;
    nrio *io = clock_host(hz, 3 * TN_MS, &clock);
    NRT_CHECK(io != NULL);
    if (!io)
        return;
    struct alarm_app a = { io, { 0 }, 0, 3, 0 };
    for (int i = 0; i < 3; i++)
        NRT_CHECK((i == 2 && plain ? nrio_timer_at : nrio_alarm_at)(io, due[i], note_run, &a) > 0);
    NRT_EQ_INT(nrio_run(io), 0);
    NRT_EQ_INT(a.n, 3);
    for (int i = 0; i < 3; i++)
        NRT_EQ_INT(a.ran[i], want[i]);
    nrio_destroy(io);
}

/* At hz = 100 from a boot at 3 ms the clock ticks at 3, 13, 23, 33 ... ms: an alarm due between
 * two ticks fires on the next, one due on a tick fires on the tick after; a plain timer fires
 * when asked. A host model without clock_hz fires its alarms when asked too. */
static void test_an_alarm_fires_on_the_first_clock_tick_after_its_time(void)
{
    const int64_t ms = TN_MS;
    check_alarms(100, 1, (const int64_t[3]){ 25 * ms, 33 * ms, 25 * ms },
                 (const int64_t[3]){ 25 * ms, 33 * ms, 43 * ms });
    check_alarms(0, 0, (const int64_t[3]){ 33 * ms, 25 * ms, 40 * ms },
                 (const int64_t[3]){ 25 * ms, 33 * ms, 40 * ms });
}

/* alarm(1) set again in its handler comes back 1 s and one tick later each time, so at hz = 100
 * it drifts 10 ms a second against the 200 ms delayed-ACK tick (liu95db Sec 3.2.2); without a
 * clock it keeps to the second. */
static void test_an_alarm_set_in_its_handler_drifts_a_tick_each_time(void)
{
    const int64_t hz[2] = { 100, 0 }, period[2] = { 1010 * TN_MS, 1000 * TN_MS };
    for (int k = 0; k < 2; k++) {
        struct tick_clock clock;
        nrio *io = clock_host(hz[k], -7 * TN_MS, &clock);
        NRT_CHECK(io != NULL);
        if (!io)
            return;
        struct alarm_app a = { io, { 0 }, 0, 6, 1000 * TN_MS };
        NRT_CHECK(nrio_timer_at(io, 0, note_run, &a) > 0);
        NRT_EQ_INT(nrio_run(io), 0);
        NRT_EQ_INT(a.n, 6);
        /* The first alarm, set at 0 between ticks at -7 and 3 ms, fires on the tick at 1003. */
        NRT_EQ_INT(a.ran[1], hz[k] ? 1003 * TN_MS : 1000 * TN_MS);
        for (int i = 2; i < a.n; i++)
            NRT_EQ_INT(a.ran[i] - a.ran[i - 1], period[k]);
        nrio_destroy(io);
    }
}

/* clock_hz comes from the host model; a tick must be a whole number of nanoseconds. */
static void test_host_model_clock_hz(void)
{
    struct tahoe_hostcost c;
    NRT_EQ_INT(tahoe_hostcost_load("../configs/hosts/sparcstation-ipc.yaml", &c), 0);
    NRT_EQ_INT(c.clock_hz, 100);
    NRT_EQ_INT(tahoe_hostcost_load("../configs/hosts/modern.yaml", &c), 0);
    NRT_EQ_INT(c.clock_hz, 0);
    char path[] = "/tmp/test_nrio_tahoe_hostXXXXXX";
    int fd = mkstemp(path);
    NRT_CHECK(fd >= 0);
    if (fd < 0)
        return;
    static const char model[] = "per_packet_ns: 1\nper_byte_ps: 1\nper_call_ns: 1\nclock_hz: 7\n";
    NRT_EQ_INT(write(fd, model, sizeof model - 1), (long)sizeof model - 1);
    NRT_EQ_INT(close(fd), 0);
    NRT_EQ_INT(tahoe_hostcost_load(path, &c), -EINVAL);
    NRT_EQ_INT(unlink(path), 0);
}

int main(void)
{
    NRT_RUN(test_nrio_tcp_transfer);
    NRT_RUN(test_a_packet_read_after_a_tick_is_processed_before_it);
    NRT_RUN(test_a_timer_due_while_the_cpu_is_busy_waits_for_it);
    NRT_RUN(test_an_alarm_fires_on_the_first_clock_tick_after_its_time);
    NRT_RUN(test_an_alarm_set_in_its_handler_drifts_a_tick_each_time);
    NRT_RUN(test_host_model_clock_hz);
    return nrt_summary("tahoe/test_nrio_tahoe");
}
