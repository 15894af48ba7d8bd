/* comer94's buffer experiments on two stacks joined by a 100 Mb/s link with MTU 9188
 * (MSS 9148), hosts with zero processing cost: the segment sequence of Figs 5-6, the lockstep
 * rates the rules imply, and buffer pairs that must stream without timer stalls. */
#include <stdio.h>

#include "nrtest.h"
#include "testnet.h"

#define ATM_MTU 9188
#define MSS 9148
#define LINK_BPS 100000000LL
#define LINK_DELAY (100 * 1000LL) /* 100 us */
#define BOOT_B (37 * TN_MS)       /* host B's tick phase differs from A's */

/* A ttcp pair: host 0 writes wlen-octet blocking-style writes, host 1 reads rlen at a time. */
struct ttcp {
    int ls, snd, rcv;
    size_t total, sent, cur_left, wlen, rlen, rcvd;
    int corrupt;
    uint8_t buf[65536];
};

static uint8_t pattern(size_t i) { return (uint8_t)(i * 7 + (i >> 9)); }

static void ttcp_app(struct tn_net *net, void *arg)
{
    struct ttcp *t = arg;
    struct tahoe_stack *a = net->h[0], *b = net->h[1];
    if (t->rcv < 0) {
        int s = tahoe_accept(b, t->ls, NULL);
        if (s >= 0)
            t->rcv = s;
    }
    if (tahoe_poll(a, t->snd) & TAHOE_CONNECTED) {
        while (t->sent < t->total) {
            /* A blocking write of wlen octets, resumed where the buffer filled up. */
            if (t->cur_left == 0)
                t->cur_left = t->total - t->sent < t->wlen ? t->total - t->sent : t->wlen;
            for (size_t i = 0; i < t->cur_left; i++)
                t->buf[i] = pattern(t->sent + i);
            ssize_t n = tahoe_send(a, t->snd, t->buf, t->cur_left);
            if (n <= 0)
                break;
            t->sent += (size_t)n;
            t->cur_left -= (size_t)n;
        }
    }
    if (t->rcv >= 0) {
        ssize_t n;
        while ((n = tahoe_recv(b, t->rcv, t->buf, t->rlen)) > 0) {
            for (ssize_t i = 0; i < n; i++)
                if (t->buf[i] != pattern(t->rcvd + (size_t)i))
                    t->corrupt = 1;
            t->rcvd += (size_t)n;
        }
    }
}

/* Two SunOS-like hosts on the ATM link (16K default buffers, as SunOS set for the ATM
 * interface), a sndbuf/rcvbuf pair, and a connection from host 0 to host 1. */
static void ttcp_start(struct tn_net *net, struct ttcp *t, int sndbuf, int rcvbuf, size_t total)
{
    tn_init(net, ATM_MTU, LINK_BPS, LINK_DELAY);
    struct tahoe_config cfg;
    tahoe_config_defaults(&cfg);
    cfg.tcp_sendspace = cfg.tcp_recvspace = 16384;
    tn_host(net, 0, &cfg);
    cfg.boot_ns = BOOT_B;
    tn_host(net, 1, &cfg);
    memset(t, 0, offsetof(struct ttcp, buf));
    t->total = total;
    t->wlen = 8192; /* ttcp's default buffer */
    t->rlen = 8192;
    t->rcv = -1;
    struct tahoe_addr addr = { tn_ip(10, 0, 0, 2), 5001 };
    t->ls = tahoe_socket(net->h[1], TAHOE_SOCK_STREAM);
    NRT_EQ_INT(tahoe_setsockopt(net->h[1], t->ls, TAHOE_SO_RCVBUF, rcvbuf), 0);
    NRT_EQ_INT(tahoe_bind(net->h[1], t->ls, &addr), 0);
    NRT_EQ_INT(tahoe_listen(net->h[1], t->ls, 5), 0);
    t->snd = tahoe_socket(net->h[0], TAHOE_SOCK_STREAM);
    NRT_EQ_INT(tahoe_setsockopt(net->h[0], t->snd, TAHOE_SO_SNDBUF, sndbuf), 0);
    NRT_EQ_INT(tahoe_connect(net->h[0], t->snd, &addr), -EINPROGRESS);
}

static int is_data(const struct tn_rec *r, int from)
{
    return r->from == from && r->proto == IPPROTO_TCP && r->len > 0;
}

/* The first fast tick of host B at or after t (ticks run from 200 ms after boot). */
static int64_t next_tick_b(int64_t t)
{
    int64_t k = (t - BOOT_B + 200 * TN_MS - 1) / (200 * TN_MS);
    return BOOT_B + (k < 1 ? 1 : k) * 200 * TN_MS;
}

static int on_tick_b(int64_t t) { return (t - BOOT_B) % (200 * TN_MS) == 0; }

static void test_fig6_16k_24k_sequence(void)
{
    struct tn_net net;
    static struct ttcp t;
    ttcp_start(&net, &t, 16384, 24576, 4u << 20);
    tn_run(&net, 3 * TN_SEC, ttcp_app, &t);
    NRT_CHECK(!t.corrupt);

    /* Fig 5: 4096 while idle (S2); 9148 once three more 4K blocks are in (S1), leaving 3140;
     * 3140 when the ACK for everything arrives (S2). */
    size_t idx[64];
    size_t nd = 0;
    for (size_t i = 0; i < net.nlog && nd < 64; i++)
        if (is_data(&net.log[i], 0))
            idx[nd++] = i;
    NRT_CHECK(nd >= 3);
    if (nd < 3)
        return;
    NRT_EQ_INT(net.log[idx[0]].len, 4096);
    NRT_EQ_INT(net.log[idx[0]].reason, TCPO_S2);
    NRT_EQ_INT(net.log[idx[1]].len, MSS);
    NRT_EQ_INT(net.log[idx[1]].reason, TCPO_S1);
    NRT_EQ_INT(net.log[idx[2]].len, 3140);
    NRT_EQ_INT(net.log[idx[2]].reason, TCPO_S2);

    /* Fig 6: a delayed-ACK tick between a 3140 and its 9148 lets 4K more in; the ACK of the
     * 9148 then releases 7236 = 3140 + 4096 by S2, which is under 2*MSS and under 35% of 24K. */
    size_t i7236 = 0;
    for (size_t i = 0; i < net.nlog; i++) {
        if (is_data(&net.log[i], 0) && net.log[i].len == 7236) {
            i7236 = i;
            break;
        }
    }
    NRT_CHECK(i7236 > 0);
    if (!i7236)
        return;
    NRT_EQ_INT(net.log[i7236].reason, TCPO_S2);
    /* Circular wait: nothing moves until B's 200 ms tick sends the owed ACK. */
    size_t j = i7236 + 1;
    NRT_CHECK(j < net.nlog);
    if (j >= net.nlog)
        return;
    NRT_EQ_INT(net.log[j].from, 1);
    NRT_EQ_INT(net.log[j].len, 0);
    NRT_EQ_INT(net.log[j].reason, TCPO_ACKNOW);
    NRT_EQ_INT(net.log[j].at_ns, next_tick_b(net.log[i7236].arrive_ns));
    NRT_CHECK(net.log[j].at_ns - net.log[i7236].arrive_ns > 0);
    /* Then the lockstep: one 8192 segment (S2) per tick, each released by a tick ACK. */
    int64_t prev_ack = net.log[j].at_ns;
    int lock = 0;
    for (size_t i = j + 1; i < net.nlog && lock < 8; i++) {
        const struct tn_rec *r = &net.log[i];
        if (is_data(r, 0)) {
            NRT_EQ_INT(r->len, 8192);
            NRT_EQ_INT(r->reason, TCPO_S2);
            lock++;
        } else if (r->from == 1) {
            NRT_CHECK(on_tick_b(r->at_ns));
            NRT_EQ_INT(r->at_ns - prev_ack, 200 * TN_MS);
            prev_ack = r->at_ns;
        }
    }
    NRT_EQ_INT(lock, 8);
    tn_free(&net);
}

/* Octets that reach B's application in each of B's 200 ms tick intervals, from the interval
 * holding time `from` on, counted from the data segments' arrivals. */
static void per_tick_delivery(const struct tn_net *net, int64_t from, uint64_t *bins, int nbins)
{
    memset(bins, 0, (size_t)nbins * sizeof *bins);
    int64_t base = next_tick_b(from);
    for (size_t i = 0; i < net->nlog; i++) {
        const struct tn_rec *r = &net->log[i];
        if (!is_data(r, 0) || r->arrive_ns < base)
            continue;
        int64_t k = (r->arrive_ns - base) / (200 * TN_MS);
        if (k < nbins)
            bins[k] += r->len;
    }
}

static int64_t first_tick_ack(const struct tn_net *net)
{
    for (size_t i = 0; i < net->nlog; i++)
        if (net->log[i].from == 1 && net->log[i].reason == TCPO_ACKNOW && net->log[i].len == 0 &&
            on_tick_b(net->log[i].at_ns) && net->log[i].at_ns > 0)
            return net->log[i].at_ns;
    return -1;
}

/* Once in lockstep, 16K/24K moves exactly 8192 octets per delayed-ACK tick. */
static void test_lockstep_16k_24k_rate(void)
{
    struct tn_net net;
    static struct ttcp t;
    ttcp_start(&net, &t, 16384, 24576, 64u << 20);
    tn_run(&net, 10 * TN_SEC, ttcp_app, &t);
    int64_t t7236 = -1;
    for (size_t i = 0; i < net.nlog; i++)
        if (is_data(&net.log[i], 0) && net.log[i].len == 7236) {
            t7236 = net.log[i].arrive_ns;
            break;
        }
    NRT_CHECK(t7236 > 0 && t7236 < 3 * TN_SEC);
    uint64_t bins[30];
    per_tick_delivery(&net, t7236 + 200 * TN_MS, bins, 30);
    for (int k = 0; k < 30; k++)
        NRT_EQ_INT(bins[k], 8192);
    const struct tcpstat *sb = tahoe_tcpstat(net.h[1]);
    NRT_CHECK(sb->tcps_delack >= 30);
    NRT_CHECK(!t.corrupt);
    tn_free(&net);
}

/* 16K/36K: 3140 + 9148 = 12288 is under 2*MSS (18296) and 35% of 36K (12902), so the wait
 * starts right after the fourth segment, and each tick then moves 12288 octets. */
static void test_lockstep_16k_36k_rate(void)
{
    struct tn_net net;
    static struct ttcp t;
    ttcp_start(&net, &t, 16384, 36864, 64u << 20);
    tn_run(&net, 8 * TN_SEC, ttcp_app, &t);
    int64_t first = first_tick_ack(&net);
    NRT_EQ_INT(first, BOOT_B + 200 * TN_MS);
    uint32_t before[8];
    int n = 0;
    for (size_t i = 0; i < net.nlog && net.log[i].at_ns < first; i++)
        if (is_data(&net.log[i], 0) && n < 8)
            before[n++] = net.log[i].len;
    NRT_EQ_INT(n, 4);
    if (n == 4) {
        NRT_EQ_INT(before[0], 4096);
        NRT_EQ_INT(before[1], MSS);
        NRT_EQ_INT(before[2], 3140);
        NRT_EQ_INT(before[3], MSS);
    }
    uint64_t bins[30];
    per_tick_delivery(&net, first, bins, 30);
    for (int k = 0; k < 30; k++)
        NRT_EQ_INT(bins[k], 12288);
    NRT_CHECK(!t.corrupt);
    tn_free(&net);
}

/* 16K/20K: 35% of 20K is 7168. Once a delayed-ACK tick has split a 3140/9148 pair, the sender
 * holds 8192 at a time and every 8192 earns an immediate R2 window update (comer94 Fig 8 state
 * d): one segment per round trip, paced by the link, never by the timer. */
static void test_16k_20k_mss_then_wait(void)
{
    struct tn_net net;
    static struct ttcp t;
    ttcp_start(&net, &t, 16384, 20480, 256u << 20);
    tn_run(&net, 2 * TN_SEC, ttcp_app, &t);
    NRT_EQ_INT(tahoe_tcpstat(net.h[1])->tcps_delack, 1);
    /* Round trip: 8192 + 40 octets out, 40 back, 100 us each way. */
    int64_t cycle = (8192 + 40) * 8 * TN_SEC / LINK_BPS + 40 * 8 * TN_SEC / LINK_BPS + 2 * LINK_DELAY;
    int64_t prev = -1;
    int steady = 0;
    uint64_t opening = 0;
    for (size_t i = 0; i < net.nlog; i++) {
        const struct tn_rec *r = &net.log[i];
        if (r->from == 1 && r->at_ns > 300 * TN_MS)
            NRT_EQ_INT(r->reason, TCPO_R2);
        if (is_data(r, 0) && r->at_ns < 300 * TN_MS)
            opening++;
        if (!is_data(r, 0) || r->at_ns < 300 * TN_MS)
            continue;
        NRT_EQ_INT(r->len, 8192);
        NRT_EQ_INT(r->reason, TCPO_S2);
        if (prev >= 0)
            NRT_EQ_INT(r->at_ns - prev, cycle);
        prev = r->at_ns;
        steady++;
    }
    NRT_CHECK(steady > 1000);
    /* Only segments of the opening's 3140/9148 pairs follow another unacknowledged one. */
    const struct tcpstat *sa = tahoe_tcpstat(net.h[0]);
    NRT_CHECK(sa->tcps_sndbehind > 0);
    NRT_CHECK(sa->tcps_sndbehind <= opening);
    NRT_CHECK(!t.corrupt);
    tn_free(&net);
}

/* 16K/16K: max_sndwnd / 2 = 8192 < MSS, so S3 sends 8K segments (comer94 Fig 8 state b). */
static void test_16k_16k_s3_segments(void)
{
    struct tn_net net;
    static struct ttcp t;
    ttcp_start(&net, &t, 16384, 16384, 256u << 20);
    tn_run(&net, 2 * TN_SEC, ttcp_app, &t);
    const struct tcpstat *sa = tahoe_tcpstat(net.h[0]);
    NRT_CHECK(sa->tcps_out_s3 > 100);
    NRT_EQ_INT(sa->tcps_out_s1, 0); /* a full MSS never fits the 16K window with 8K out */
    for (size_t i = 0; i < net.nlog; i++)
        if (is_data(&net.log[i], 0) && net.log[i].reason == TCPO_S3)
            NRT_EQ_INT(net.log[i].len, 8192);
    NRT_CHECK(t.rcvd > 100 * 16384);
    NRT_CHECK(!t.corrupt);
    tn_free(&net);
}

/* Octets B's application got between t1 and t2. */
static size_t rcvd_between(struct tn_net *net, struct ttcp *t, int64_t t1, int64_t t2)
{
    tn_run(net, t1, ttcp_app, t);
    size_t before = t->rcvd;
    tn_run(net, t2, ttcp_app, t);
    return t->rcvd - before;
}

/* 48K/48K: the window holds several MSS segments and a window update answers about every two
 * (with 8K reads the 35% rule R2 usually fires before the buffer is empty for R1). After the
 * start, where cwnd is still the 16K default send space, the line never idles. */
static void test_48k_48k_streams(void)
{
    struct tn_net net;
    static struct ttcp t;
    ttcp_start(&net, &t, 49152, 49152, 1u << 30);
    size_t got = rcvd_between(&net, &t, 1 * TN_SEC, 3 * TN_SEC);
    const struct tcpstat *sa = tahoe_tcpstat(net.h[0]);
    const struct tcpstat *sb = tahoe_tcpstat(net.h[1]);
    NRT_CHECK(sb->tcps_out_r1 + sb->tcps_out_r2 > 1000);
    NRT_CHECK(sa->tcps_out_s1 > 10 * (sa->tcps_out_s2 + sa->tcps_out_s3));
    NRT_CHECK(sa->tcps_sndbehind * 100 > 99 * sa->tcps_sndpack); /* it streams */
    double line = (double)LINK_BPS / 8 * 2 * MSS / (MSS + 40);
    NRT_CHECK((double)got > 0.99 * line);
    NRT_CHECK((double)got <= 1.001 * line);
    NRT_CHECK(!t.corrupt);
    tn_free(&net);
}

/* The same pair over Ethernet (MTU 1500 gives MSS 1460, 10 Mb/s). */
static void test_48k_48k_ethernet(void)
{
    struct tn_net net;
    tn_init(&net, 1500, 10000000LL, 0);
    struct tahoe_config cfg;
    tahoe_config_defaults(&cfg);
    tn_host(&net, 0, &cfg);
    cfg.boot_ns = BOOT_B;
    tn_host(&net, 1, &cfg);
    static struct ttcp t;
    memset(&t, 0, offsetof(struct ttcp, buf));
    t.total = 1u << 30;
    t.wlen = t.rlen = 8192;
    t.rcv = -1;
    struct tahoe_addr addr = { tn_ip(10, 0, 0, 2), 5001 };
    t.ls = tahoe_socket(net.h[1], TAHOE_SOCK_STREAM);
    tahoe_setsockopt(net.h[1], t.ls, TAHOE_SO_RCVBUF, 49152);
    tahoe_bind(net.h[1], t.ls, &addr);
    tahoe_listen(net.h[1], t.ls, 5);
    t.snd = tahoe_socket(net.h[0], TAHOE_SOCK_STREAM);
    tahoe_setsockopt(net.h[0], t.snd, TAHOE_SO_SNDBUF, 49152);
    tahoe_connect(net.h[0], t.snd, &addr);
    size_t got = rcvd_between(&net, &t, 1 * TN_SEC, 3 * TN_SEC);
    int mss = 0;
    tahoe_getsockopt(net.h[0], t.snd, TAHOE_TCP_MAXSEG, &mss);
    NRT_EQ_INT(mss, 1460);
    double line = 10e6 / 8 * 2 * 1460 / 1500;
    NRT_CHECK((double)got > 0.99 * line);
    NRT_CHECK((double)got <= 1.001 * line);
    NRT_CHECK(!t.corrupt);
    tn_free(&net);
}

int main(void)
{
    NRT_RUN(test_fig6_16k_24k_sequence);
    NRT_RUN(test_lockstep_16k_24k_rate);
    NRT_RUN(test_lockstep_16k_36k_rate);
    NRT_RUN(test_16k_20k_mss_then_wait);
    NRT_RUN(test_16k_16k_s3_segments);
    NRT_RUN(test_48k_48k_streams);
    NRT_RUN(test_48k_48k_ethernet);
    return nrt_summary("tahoe/test_tcp_comer");
}
