/* tcp_output's rules one at a time, on one stack whose peer the test plays by hand: every
 * segment the stack sends is captured, every segment it receives is built here. */
#include <stdio.h>

#include "nrtest.h"
#include "socketvar.h"
#include "testnet.h"
#include "tcp_debug.h"

#define PEER_PORT 7000
#define MY_PORT 80
#define PEER_ISS 5000u

struct conn {
    struct tn_net net;
    struct tahoe_stack *st;
    int s;
    uint32_t my_iss;
    uint32_t peer_nxt; /* the peer's next sequence number */
};

static uint32_t peer_ip(void) { return tn_ip(10, 0, 0, 2); }
static uint32_t my_ip(void) { return tn_ip(10, 0, 0, 1); }

static void peer_send(struct conn *c, int flags, uint32_t ack, uint16_t win, const uint8_t *opt,
                      size_t optlen, const uint8_t *data, size_t dlen)
{
    static uint8_t buf[70000];
    size_t n = tn_build_tcp(buf, peer_ip(), my_ip(), PEER_PORT, MY_PORT, c->peer_nxt, ack, flags,
                            win, opt, optlen, data, dlen);
    c->peer_nxt += (uint32_t)dlen + ((flags & TH_SYN) ? 1 : 0) + ((flags & TH_FIN) ? 1 : 0);
    tahoe_ip_input(c->st, buf, n);
}

static void mss_opt(uint8_t *opt, uint16_t mss)
{
    opt[0] = TCPOPT_MAXSEG;
    opt[1] = 4;
    put16(opt + 2, mss);
}

static const struct tn_rec *last(const struct conn *c) { return &c->net.log[c->net.nlog - 1]; }

static void setup(struct conn *c, int mtu, struct tahoe_config *cfg)
{
    tn_init(&c->net, mtu, 100000000LL, 0);
    struct tahoe_config d;
    if (!cfg) {
        tahoe_config_defaults(&d);
        cfg = &d;
    }
    c->st = tn_host(&c->net, 0, cfg);
    c->net.h[1] = NULL;
    c->peer_nxt = PEER_ISS;
}

/* We connect to the peer; it answers with window win and MSS option mss (0: none). */
static void active_open(struct conn *c, int mtu, struct tahoe_config *cfg, int sndbuf, uint16_t win,
                        uint16_t mss)
{
    setup(c, mtu, cfg);
    c->s = tahoe_socket(c->st, TAHOE_SOCK_STREAM);
    struct tahoe_addr me = { 0, MY_PORT }, peer = { peer_ip(), PEER_PORT };
    NRT_EQ_INT(tahoe_setsockopt(c->st, c->s, TAHOE_SO_SNDBUF, sndbuf), 0);
    NRT_EQ_INT(tahoe_bind(c->st, c->s, &me), 0);
    NRT_EQ_INT(tahoe_connect(c->st, c->s, &peer), -EINPROGRESS);
    NRT_EQ_INT(c->net.nlog, 1);
    c->my_iss = c->net.log[0].seq;
    uint8_t opt[4];
    mss_opt(opt, mss);
    peer_send(c, TH_SYN | TH_ACK, c->my_iss + 1, win, opt, mss ? 4 : 0, NULL, 0);
    NRT_CHECK(tahoe_poll(c->st, c->s) & TAHOE_CONNECTED);
}

/* The peer connects to our listener (receive buffer rcvbuf) offering MSS mss. */
static void passive_open(struct conn *c, int mtu, int rcvbuf, uint16_t mss)
{
    setup(c, mtu, NULL);
    int ls = tahoe_socket(c->st, TAHOE_SOCK_STREAM);
    struct tahoe_addr me = { my_ip(), MY_PORT };
    NRT_EQ_INT(tahoe_setsockopt(c->st, ls, TAHOE_SO_RCVBUF, rcvbuf), 0);
    NRT_EQ_INT(tahoe_bind(c->st, ls, &me), 0);
    NRT_EQ_INT(tahoe_listen(c->st, ls, 5), 0);
    uint8_t opt[4];
    mss_opt(opt, mss);
    peer_send(c, TH_SYN, 0, 65535, opt, 4, NULL, 0);
    NRT_EQ_INT(c->net.nlog, 1);
    NRT_EQ_INT(last(c)->flags, TH_SYN | TH_ACK);
    c->my_iss = last(c)->seq;
    peer_send(c, TH_ACK, c->my_iss + 1, 65535, NULL, 0, NULL, 0);
    struct tahoe_addr who;
    c->s = tahoe_accept(c->st, ls, &who);
    NRT_CHECK(c->s >= 0);
    NRT_EQ_INT(who.port, PEER_PORT);
}

/* The MSS option in the SYN. */
static int syn_mss(const struct tn_rec *r)
{
    int mss, wscale;
    tn_tcp_options(r->data, r->size, &mss, &wscale);
    return mss;
}

static void test_mss_option(void)
{
    struct conn c;
    active_open(&c, 9188, NULL, 16384, 24576, 9148);
    NRT_EQ_INT(syn_mss(&c.net.log[0]), 9148);
    NRT_EQ_INT(tahoe_tcpcb(c.st, c.s)->t_maxseg, 9148);
    tn_free(&c.net);

    active_open(&c, 9188, NULL, 16384, 24576, 1460);
    NRT_EQ_INT(tahoe_tcpcb(c.st, c.s)->t_maxseg, 1460); /* the smaller offer wins */
    tn_free(&c.net);

    active_open(&c, 1500, NULL, 16384, 24576, 0);
    NRT_EQ_INT(syn_mss(&c.net.log[0]), 1460);
    NRT_EQ_INT(tahoe_tcpcb(c.st, c.s)->t_maxseg, 512); /* no option: 4.3BSD's TCP_MSS */
    tn_free(&c.net);

    /* A peer beyond the local net gets 512 (4.3BSD in_localaddr), so the SYN offers no MSS:
     * Tahoe sends the option only above 536. */
    struct tahoe_config cfg;
    tahoe_config_defaults(&cfg);
    cfg.netmask = tn_ip(255, 255, 255, 255);
    active_open(&c, 1500, &cfg, 16384, 24576, 1460);
    NRT_EQ_INT(syn_mss(&c.net.log[0]), -1);
    NRT_EQ_INT(tahoe_tcpcb(c.st, c.s)->t_maxseg, 512);
    tn_free(&c.net);
}

static void test_checksums_on_the_wire(void)
{
    struct conn c;
    active_open(&c, 1500, NULL, 16384, 16384, 1460);
    static uint8_t buf[5000];
    NRT_EQ_INT(tahoe_send(c.st, c.s, buf, 3001), 3001);
    NRT_CHECK(c.net.nlog >= 3);
    for (size_t i = 0; i < c.net.nlog; i++)
        NRT_CHECK(tn_checksums_ok(c.net.log[i].data, c.net.log[i].size));
    /* A segment with a bad checksum is dropped and counted. */
    uint8_t pkt[100];
    size_t n = tn_build_tcp(pkt, peer_ip(), my_ip(), PEER_PORT, MY_PORT, c.peer_nxt,
                            c.my_iss + 1, TH_ACK, 1000, NULL, 0, (const uint8_t *)"xy", 2);
    pkt[n - 1] ^= 1;
    tahoe_ip_input(c.st, pkt, n);
    NRT_EQ_INT(tahoe_tcpstat(c.st)->tcps_rcvbadsum, 1);
    tn_free(&c.net);
}

/* Nagle: a small write goes at once only while nothing is outstanding (S2); later small
 * writes wait for a full MSS (S1) or for the ACK of everything. */
static void test_nagle(void)
{
    struct conn c;
    active_open(&c, 1500, NULL, 16384, 16384, 1460);
    static uint8_t buf[4000];
    size_t n0 = c.net.nlog;
    NRT_EQ_INT(tahoe_send(c.st, c.s, buf, 100), 100);
    NRT_EQ_INT(c.net.nlog, n0 + 1);
    NRT_EQ_INT(last(&c)->len, 100);
    NRT_EQ_INT(last(&c)->reason, TCPO_S2);
    NRT_EQ_INT(tahoe_send(c.st, c.s, buf, 100), 100);
    NRT_EQ_INT(c.net.nlog, n0 + 1); /* held: 100 octets are unacknowledged */
    NRT_EQ_INT(tahoe_send(c.st, c.s, buf, 1400), 1400);
    NRT_EQ_INT(c.net.nlog, n0 + 2);
    NRT_EQ_INT(last(&c)->len, 1460);
    NRT_EQ_INT(last(&c)->reason, TCPO_S1);
    /* The ACK of all outstanding data releases the 40-octet rest. */
    peer_send(&c, TH_ACK, c.my_iss + 1 + 1560, 16384, NULL, 0, NULL, 0);
    NRT_EQ_INT(c.net.nlog, n0 + 3);
    NRT_EQ_INT(last(&c)->len, 40);
    NRT_EQ_INT(last(&c)->reason, TCPO_S2);
    NRT_EQ_INT(tahoe_tcpstat(c.st)->tcps_out_s2, 2);
    tn_free(&c.net);
}

static void test_nodelay(void)
{
    struct conn c;
    active_open(&c, 1500, NULL, 16384, 16384, 1460);
    NRT_EQ_INT(tahoe_setsockopt(c.st, c.s, TAHOE_TCP_NODELAY, 1), 0);
    static uint8_t buf[200];
    size_t n0 = c.net.nlog;
    tahoe_send(c.st, c.s, buf, 100);
    tahoe_send(c.st, c.s, buf, 100);
    NRT_EQ_INT(c.net.nlog, n0 + 2); /* the second goes although the first is unacked */
    NRT_EQ_INT(last(&c)->len, 100);
    NRT_EQ_INT(last(&c)->reason, TCPO_NODELAY);
    NRT_EQ_INT(tahoe_tcpstat(c.st)->tcps_out_nodelay, 1);
    tn_free(&c.net);
}

/* S3: less than an MSS goes when it is at least half the largest window the peer offered. */
static void test_s3(void)
{
    static uint8_t buf[16384];
    struct tahoe_config cfg;
    tahoe_config_defaults(&cfg);
    cfg.tcp_sendspace = 16384; /* cwnd starts at the default send space */
    struct conn c;
    active_open(&c, 9188, &cfg, 16384, 16384, 9148);
    tahoe_send(c.st, c.s, buf, 4096); /* idle: S2 */
    size_t n0 = c.net.nlog;
    NRT_EQ_INT(tahoe_send(c.st, c.s, buf, 4095), 4095);
    NRT_EQ_INT(c.net.nlog, n0); /* 4095 < 16384 / 2 */
    NRT_EQ_INT(tahoe_send(c.st, c.s, buf, 4097), 4097);
    NRT_EQ_INT(c.net.nlog, n0 + 1);
    NRT_EQ_INT(last(&c)->len, 8192);
    NRT_EQ_INT(last(&c)->reason, TCPO_S3);
    tn_free(&c.net);

    /* Against a 20K window the same 8192 is below half the window and waits. */
    active_open(&c, 9188, &cfg, 16384, 20480, 9148);
    tahoe_send(c.st, c.s, buf, 4096);
    n0 = c.net.nlog;
    tahoe_send(c.st, c.s, buf, 8192);
    NRT_EQ_INT(c.net.nlog, n0);
    NRT_EQ_INT(tahoe_tcpstat(c.st)->tcps_out_s3, 0);
    tn_free(&c.net);
}

/* sosend: 4K blocks while more than 4K is left and free, then whole 1K blocks; TCP output runs
 * after each block. */
static void test_sosend_blocks(void)
{
    NRT_EQ_INT(sosend_chunk(8192, 16384), 4096);
    NRT_EQ_INT(sosend_chunk(4096, 16384), 4096);
    NRT_EQ_INT(sosend_chunk(3000, 16384), 3000);
    NRT_EQ_INT(sosend_chunk(8192, 3500), 3072);
    NRT_EQ_INT(sosend_chunk(8192, 956), 0);
    NRT_EQ_INT(sosend_chunk(700, 956), 700);
    NRT_EQ_INT(sosend_chunk(700, 500), 500);
    /* Through the socket: a 16K buffer takes 10000 octets in blocks of 4096, 4096, 1808. */
    struct conn c;
    active_open(&c, 9188, NULL, 16384, 0, 9148); /* window 0: nothing leaves */
    static uint8_t buf[20000];
    NRT_EQ_INT(tahoe_send(c.st, c.s, buf, 10000), 10000);
    NRT_EQ_INT(tahoe_send(c.st, c.s, buf, 8000), 6144); /* 6384 free: 4096, then 2 x 1K */
    NRT_EQ_INT(tahoe_send(c.st, c.s, buf, 8000), -EAGAIN); /* 240 free: no whole 1K */
    NRT_CHECK(!(tahoe_poll(c.st, c.s) & TAHOE_POLLOUT));
    tn_free(&c.net);
}

/* R1: the window advanced by 2*MSS with the receive buffer empty; not while data remains. */
static void test_r1(void)
{
    struct conn c;
    passive_open(&c, 1500, 49152, 1460);
    static uint8_t buf[8192];
    size_t n0 = c.net.nlog;
    for (int i = 0; i < 3; i++)
        peer_send(&c, TH_ACK, c.my_iss + 1, 65535, NULL, 0, buf, 1460);
    NRT_EQ_INT(c.net.nlog, n0); /* in-order data: the ACK is delayed */
    NRT_EQ_INT(tahoe_recv(c.st, c.s, buf, 2920), 2920);
    NRT_EQ_INT(c.net.nlog, n0); /* 2*MSS freed but 1460 still buffered */
    NRT_EQ_INT(tahoe_recv(c.st, c.s, buf, 8192), 1460);
    NRT_EQ_INT(c.net.nlog, n0 + 1);
    NRT_EQ_INT(last(&c)->reason, TCPO_R1);
    NRT_EQ_INT(last(&c)->ack, PEER_ISS + 1 + 3 * 1460);
    tn_free(&c.net);
}

/* R2: the window advanced by 35% of the buffer, under 2*MSS (24K buffer, MSS 9148). BSD tests
 * 100 * adv / hiwat >= 35 in integers, so 8601 (34.997%) is not enough and 8602 is. */
static void test_r2(void)
{
    struct conn c;
    passive_open(&c, 9188, 24576, 9148);
    static uint8_t buf[9148];
    size_t n0 = c.net.nlog;
    peer_send(&c, TH_ACK, c.my_iss + 1, 65535, NULL, 0, buf, 8601);
    NRT_EQ_INT(tahoe_recv(c.st, c.s, buf, 9148), 8601);
    NRT_EQ_INT(c.net.nlog, n0);
    peer_send(&c, TH_ACK, c.my_iss + 1, 65535, NULL, 0, buf, 1);
    NRT_EQ_INT(tahoe_recv(c.st, c.s, buf, 9148), 1);
    NRT_EQ_INT(c.net.nlog, n0 + 1);
    NRT_EQ_INT(last(&c)->reason, TCPO_R2);
    tn_free(&c.net);
}

/* Neither rule: comer94's 7236 waits for the 200 ms tick, which runs from the stack's boot. */
static void test_delayed_ack_tick(void)
{
    struct conn c;
    passive_open(&c, 9188, 24576, 9148);
    static uint8_t buf[9148];
    tn_clock(&c.net, 250 * TN_MS);
    size_t n0 = c.net.nlog;
    peer_send(&c, TH_ACK, c.my_iss + 1, 65535, NULL, 0, buf, 7236);
    NRT_EQ_INT(tahoe_recv(c.st, c.s, buf, 9148), 7236);
    NRT_EQ_INT(c.net.nlog, n0);
    NRT_EQ_INT(tahoe_next_deadline(c.st), 400 * TN_MS);
    tn_clock(&c.net, 399 * TN_MS);
    NRT_EQ_INT(c.net.nlog, n0);
    tn_clock(&c.net, 400 * TN_MS);
    NRT_EQ_INT(c.net.nlog, n0 + 1);
    NRT_EQ_INT(last(&c)->at_ns, 400 * TN_MS);
    NRT_EQ_INT(last(&c)->reason, TCPO_ACKNOW);
    NRT_EQ_INT(last(&c)->ack, PEER_ISS + 1 + 7236);
    NRT_EQ_INT(tahoe_tcpstat(c.st)->tcps_delack, 1);
    tn_free(&c.net);
}

/* An out-of-order segment is answered at once with a duplicate ACK. */
static void test_out_of_order_acks_now(void)
{
    struct conn c;
    passive_open(&c, 1500, 16384, 1460);
    static uint8_t buf[1460];
    size_t n0 = c.net.nlog;
    c.peer_nxt += 1460; /* the first segment is lost */
    peer_send(&c, TH_ACK, c.my_iss + 1, 65535, NULL, 0, buf, 1460);
    NRT_EQ_INT(c.net.nlog, n0 + 1);
    NRT_EQ_INT(last(&c)->ack, PEER_ISS + 1);
    NRT_EQ_INT(tahoe_tcpstat(c.st)->tcps_rcvoopack, 1);
    /* The hole filled, both segments reach the user in order. */
    c.peer_nxt = PEER_ISS + 1;
    peer_send(&c, TH_ACK, c.my_iss + 1, 65535, NULL, 0, buf, 1460);
    static uint8_t got[4000];
    NRT_EQ_INT(tahoe_recv(c.st, c.s, got, sizeof got), 2920);
    tn_free(&c.net);
}

static uint32_t data_segments(const struct conn *c, uint32_t *seqs, uint32_t max)
{
    uint32_t n = 0;
    for (size_t i = 0; i < c->net.nlog && n < max; i++)
        if (c->net.log[i].len > 0)
            seqs[n++] = c->net.log[i].seq;
    return n;
}

/* Three duplicate ACKs: resend the missing segment at once and drop cwnd to one segment, with
 * ssthresh at half the window (Tahoe; no fast recovery). */
static void test_fast_retransmit(void)
{
    struct tahoe_config cfg;
    tahoe_config_defaults(&cfg);
    cfg.tcp_sendspace = 32768; /* cwnd starts at the default send space */
    struct conn c;
    active_open(&c, 1500, &cfg, 32768, 32768, 1460);
    static uint8_t buf[8 * 1460];
    NRT_EQ_INT(tahoe_send(c.st, c.s, buf, sizeof buf), (long)sizeof buf);
    uint32_t seqs[32];
    uint32_t n = data_segments(&c, seqs, 32);
    NRT_CHECK(n >= 6);
    uint32_t una = c.my_iss + 1;
    /* The first segment arrives, the second is lost: every later one brings a dup ACK. */
    peer_send(&c, TH_ACK, seqs[1], 32768, NULL, 0, NULL, 0);
    size_t before = c.net.nlog;
    peer_send(&c, TH_ACK, seqs[1], 32768, NULL, 0, NULL, 0);
    peer_send(&c, TH_ACK, seqs[1], 32768, NULL, 0, NULL, 0);
    NRT_EQ_INT(c.net.nlog, before);
    const struct tcpcb *tp = tahoe_tcpcb(c.st, c.s);
    uint32_t cwnd_before = tp->snd_cwnd;
    peer_send(&c, TH_ACK, seqs[1], 32768, NULL, 0, NULL, 0);
    NRT_EQ_INT(c.net.nlog, before + 1);
    NRT_EQ_INT(last(&c)->seq, seqs[1]);
    NRT_EQ_INT(last(&c)->reason, TCPO_REXMT);
    NRT_EQ_INT(tp->snd_cwnd, 1460);
    uint32_t half = (cwnd_before < 32768 ? cwnd_before : 32768) / 2 / 1460;
    NRT_EQ_INT(tp->snd_ssthresh, (half < 2 ? 2 : half) * 1460);
    NRT_EQ_INT(tahoe_tcpstat(c.st)->tcps_fastrexmt, 1);
    NRT_CHECK(una != seqs[1]);
    /* The next ACK opens cwnd by one segment (slow start), sending from where it left off. */
    before = c.net.nlog;
    peer_send(&c, TH_ACK, seqs[1] + 1460, 32768, NULL, 0, NULL, 0);
    NRT_EQ_INT(tp->snd_cwnd, 2 * 1460);
    tn_free(&c.net);
}

/* Retransmission timeout from the RTT estimator, in 500 ms ticks, backing off exponentially. */
static void test_rto(void)
{
    struct conn c;
    active_open(&c, 1500, NULL, 16384, 16384, 1460);
    /* The SYN came back within the first tick: srtt 1 tick, rttvar 1/2 -> timeout 2 ticks. */
    const struct tcpcb *tp = tahoe_tcpcb(c.st, c.s);
    NRT_EQ_INT(tp->t_rxtcur, 2);
    tn_clock(&c.net, 10 * TN_MS);
    static uint8_t buf[1000];
    tahoe_send(c.st, c.s, buf, 1000);
    uint32_t seq = last(&c)->seq;
    size_t n0 = c.net.nlog;
    tn_clock(&c.net, 999 * TN_MS);
    NRT_EQ_INT(c.net.nlog, n0);
    tn_clock(&c.net, 1000 * TN_MS); /* the second slow tick after sending */
    NRT_EQ_INT(c.net.nlog, n0 + 1);
    NRT_EQ_INT(last(&c)->seq, seq);
    NRT_EQ_INT(last(&c)->at_ns, 1000 * TN_MS);
    NRT_EQ_INT(last(&c)->reason, TCPO_REXMT);
    NRT_EQ_INT(tp->snd_cwnd, 1460);
    NRT_EQ_INT(tahoe_tcpstat(c.st)->tcps_rexmttimeo, 1);
    /* Backoff x2: 4 ticks later; then x4: 8 ticks. */
    NRT_EQ_INT(tahoe_next_deadline(c.st), 3000 * TN_MS);
    tn_clock(&c.net, 3000 * TN_MS);
    NRT_EQ_INT(c.net.nlog, n0 + 2);
    tn_clock(&c.net, 6999 * TN_MS);
    NRT_EQ_INT(c.net.nlog, n0 + 2);
    tn_clock(&c.net, 7000 * TN_MS);
    NRT_EQ_INT(c.net.nlog, n0 + 3);
    NRT_EQ_INT(tahoe_tcpstat(c.st)->tcps_rexmttimeo, 3);
    tn_free(&c.net);
}

/* TCP_DEBUG records (tcp_debug.c) follow cwnd: a retransmission timeout is told as TA_USER
 * with the timer, cwnd back at one segment and ssthresh at half the window; each ACK after it
 * as TA_INPUT with snd_una moved and cwnd one segment larger (slow start). */
#define DEBUG_RECORDS 16
struct debug_log {
    struct tahoe_tcp_debug td[DEBUG_RECORDS];
    int n;
};

static void keep_debug(void *ctx, const struct tahoe_tcp_debug *td)
{
    struct debug_log *log = ctx;
    if (log->n < DEBUG_RECORDS)
        log->td[log->n++] = *td;
}

static void test_tcp_debug(void)
{
    struct debug_log log = {0};
    struct tahoe_config cfg;
    tahoe_config_defaults(&cfg);
    cfg.tcp_sendspace = 8 * 1460; /* cwnd starts at the send space: four segments go at once */
    cfg.debug = keep_debug;
    cfg.debug_ctx = &log;
    struct conn c;
    active_open(&c, 1500, &cfg, 8 * 1460, 8 * 1460, 1460);
    /* The SYN-ACK was taken in: one record, the connection established. */
    NRT_EQ_INT(log.n, 1);
    NRT_EQ_INT(log.td[0].act, TA_INPUT);
    NRT_EQ_INT(log.td[0].ostate, TCPS_SYN_SENT);
    NRT_EQ_INT(log.td[0].state, TCPS_ESTABLISHED);
    NRT_EQ_INT(log.td[0].sport, MY_PORT);
    NRT_EQ_INT(log.td[0].dport, PEER_PORT);
    tn_clock(&c.net, 10 * TN_MS);
    static uint8_t buf[4 * 1460];
    NRT_EQ_INT(tahoe_send(c.st, c.s, buf, sizeof buf), (long)sizeof buf);
    /* Nothing comes back: the timer runs out on the second slow tick (test_rto). */
    tn_clock(&c.net, 1000 * TN_MS);
    NRT_EQ_INT(log.n, 2);
    const struct tahoe_tcp_debug *rexmt = &log.td[1];
    NRT_EQ_INT(rexmt->act, TA_USER);
    NRT_EQ_INT(rexmt->req, TCPT_REXMT);
    NRT_EQ_INT(rexmt->at_ns, 1000 * TN_MS);
    NRT_EQ_INT(rexmt->snd_cwnd, 1460);
    NRT_EQ_INT(rexmt->snd_ssthresh, 4 * 1460);
    NRT_EQ_INT(rexmt->maxseg, 1460);
    NRT_EQ_INT(rexmt->snd_una, c.my_iss + 1);
    /* The resent first segment is acked 50 ms later: cwnd two segments. */
    tn_clock(&c.net, 1050 * TN_MS);
    peer_send(&c, TH_ACK, c.my_iss + 1 + 1460, 8 * 1460, NULL, 0, NULL, 0);
    NRT_EQ_INT(log.n, 3);
    NRT_EQ_INT(log.td[2].act, TA_INPUT);
    NRT_EQ_INT(log.td[2].at_ns, 1050 * TN_MS);
    NRT_EQ_INT(log.td[2].snd_una, c.my_iss + 1 + 1460);
    NRT_EQ_INT(log.td[2].snd_cwnd, 2 * 1460);
    NRT_EQ_INT(log.td[2].snd_wnd, 8 * 1460);
    tn_free(&c.net);
}

/* A closed window is probed with one octet when the persist timer (>= 5 s) runs out. */
static void test_persist(void)
{
    struct conn c;
    active_open(&c, 1500, NULL, 16384, 16384, 1460);
    static uint8_t buf[3000];
    tahoe_send(c.st, c.s, buf, 1000);
    /* The peer takes the 1000 octets but its window is now shut. */
    peer_send(&c, TH_ACK, c.my_iss + 1 + 1000, 0, NULL, 0, NULL, 0);
    tahoe_send(c.st, c.s, buf, 500);
    size_t n0 = c.net.nlog;
    NRT_EQ_INT(tahoe_tcpcb(c.st, c.s)->t_timer[TCPT_PERSIST], TCPTV_PERSMIN);
    tn_clock(&c.net, 5 * TN_SEC);
    NRT_EQ_INT(c.net.nlog, n0 + 1);
    NRT_EQ_INT(last(&c)->len, 1);
    NRT_EQ_INT(last(&c)->reason, TCPO_PERSIST);
    NRT_EQ_INT(tahoe_tcpstat(c.st)->tcps_persisttimeo, 1);
    NRT_EQ_INT(tahoe_tcpstat(c.st)->tcps_sndprobe, 1);
    /* The window opens: the rest follows. */
    peer_send(&c, TH_ACK, c.my_iss + 1 + 1001, 4096, NULL, 0, NULL, 0);
    NRT_EQ_INT(last(&c)->len, 499);
    tn_free(&c.net);
}

/* RFC 1323 window scaling: off by default, negotiated in the SYNs when enabled. */
static void test_window_scale(void)
{
    struct conn c;
    active_open(&c, 1500, NULL, 16384, 16384, 1460);
    NRT_EQ_INT(c.net.log[0].size, IP_HDRLEN + TCP_HDRLEN + 4); /* MSS only */
    tn_free(&c.net);

    struct tahoe_config cfg;
    tahoe_config_defaults(&cfg);
    cfg.window_scale = 1;
    cfg.sb_max = 1 << 20;
    cfg.tcp_recvspace = 200000;
    setup(&c, 1500, &cfg);
    c.s = tahoe_socket(c.st, TAHOE_SOCK_STREAM);
    struct tahoe_addr me = { 0, MY_PORT }, peer = { peer_ip(), PEER_PORT };
    tahoe_bind(c.st, c.s, &me);
    tahoe_connect(c.st, c.s, &peer);
    const uint8_t *opt = c.net.log[0].data + IP_HDRLEN + TCP_HDRLEN;
    NRT_EQ_INT(opt[5], TCPOPT_WINDOW);
    NRT_EQ_INT(opt[7], 2); /* 65535 << 2 covers 200000 */
    c.my_iss = c.net.log[0].seq;
    uint8_t synopt[8] = { TCPOPT_MAXSEG, 4, 0x05, 0xb4, TCPOPT_NOP, TCPOPT_WINDOW, 3, 3 };
    peer_send(&c, TH_SYN | TH_ACK, c.my_iss + 1, 1000, synopt, 8, NULL, 0);
    const struct tcpcb *tp = tahoe_tcpcb(c.st, c.s);
    NRT_EQ_INT(tp->snd_scale, 3);
    NRT_EQ_INT(tp->rcv_scale, 2);
    peer_send(&c, TH_ACK, c.my_iss + 1, 1000, NULL, 0, NULL, 0);
    NRT_EQ_INT(tp->snd_wnd, 8000);
    tn_free(&c.net);
}

/* A SYN for a port nobody listens on is refused with RST. */
static void test_rst_for_closed_port(void)
{
    struct conn c;
    setup(&c, 1500, NULL);
    peer_send(&c, TH_SYN, 0, 65535, NULL, 0, NULL, 0);
    NRT_EQ_INT(c.net.nlog, 1);
    NRT_EQ_INT(last(&c)->flags, TH_RST | TH_ACK);
    NRT_EQ_INT(last(&c)->ack, PEER_ISS + 1);
    tn_free(&c.net);
}

/* Two stacks: connect, send, both sides close; the active closer sits in TIME_WAIT for 2*MSL. */
static void test_close_handshake(void)
{
    struct tn_net net;
    tn_init(&net, 1500, 10000000LL, 1 * TN_MS);
    tn_host(&net, 0, NULL);
    tn_host(&net, 1, NULL);
    struct tahoe_addr addr = { tn_ip(10, 0, 0, 2), 9 };
    int ls = tahoe_socket(net.h[1], TAHOE_SOCK_STREAM);
    tahoe_bind(net.h[1], ls, &addr);
    tahoe_listen(net.h[1], ls, 1);
    int s = tahoe_socket(net.h[0], TAHOE_SOCK_STREAM);
    tahoe_connect(net.h[0], s, &addr);
    tn_run(&net, 100 * TN_MS, NULL, NULL);
    int a = tahoe_accept(net.h[1], ls, NULL);
    NRT_CHECK(a >= 0);
    NRT_EQ_INT(tahoe_send(net.h[0], s, "hello", 5), 5);
    NRT_EQ_INT(tahoe_close(net.h[0], s), 0);
    tn_run(&net, 200 * TN_MS, NULL, NULL);
    char got[16];
    NRT_EQ_INT(tahoe_recv(net.h[1], a, got, sizeof got), 5);
    NRT_EQ_INT(tahoe_recv(net.h[1], a, got, sizeof got), 0); /* end of stream */
    NRT_CHECK(tahoe_poll(net.h[1], a) & TAHOE_POLLHUP);
    NRT_EQ_INT(tahoe_close(net.h[1], a), 0);
    tn_run(&net, 1 * TN_SEC, NULL, NULL);
    NRT_EQ_INT(tahoe_tcpstat(net.h[1])->tcps_closed, 1);
    NRT_EQ_INT(tahoe_tcpstat(net.h[0])->tcps_closed, 0); /* TIME_WAIT */
    tn_run(&net, 1 * TN_SEC + 2 * TCPTV_MSL * 500 * TN_MS, NULL, NULL);
    NRT_EQ_INT(tahoe_tcpstat(net.h[0])->tcps_closed, 1);
    NRT_EQ_INT(tahoe_next_deadline(net.h[0]), INT64_MAX);
    tn_free(&net);
}

/* The rule names of segment traces, and "?" for a code that names no rule. */
static void test_reason_names(void)
{
    NRT_EQ_STR(tcp_out_reason_name(TCPO_S3), "S3");
    NRT_EQ_STR(tcp_out_reason_name(TCPO_FIN), "fin");
    NRT_EQ_STR(tcp_out_reason_name(TCPO_FIN + 1), "?");
    NRT_EQ_STR(tcp_out_reason_name(-1), "?");
}

int main(void)
{
    NRT_RUN(test_mss_option);
    NRT_RUN(test_checksums_on_the_wire);
    NRT_RUN(test_nagle);
    NRT_RUN(test_nodelay);
    NRT_RUN(test_s3);
    NRT_RUN(test_sosend_blocks);
    NRT_RUN(test_r1);
    NRT_RUN(test_r2);
    NRT_RUN(test_delayed_ack_tick);
    NRT_RUN(test_out_of_order_acks_now);
    NRT_RUN(test_fast_retransmit);
    NRT_RUN(test_rto);
    NRT_RUN(test_tcp_debug);
    NRT_RUN(test_persist);
    NRT_RUN(test_window_scale);
    NRT_RUN(test_rst_for_closed_port);
    NRT_RUN(test_close_handshake);
    NRT_RUN(test_reason_names);
    return nrt_summary("tahoe/test_tcp_rules");
}
