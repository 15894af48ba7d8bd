/* Test support: one or two tahoe stacks joined by a tiny link (rate, delay, MTU) in virtual
 * time, host 0 optionally an nrio application's, a log of every packet put on the wire with
 * the rule that sent it, and helpers that build and parse real IPv4/TCP packets for tests that
 * play the peer by hand. */
#ifndef TAHOE_TESTNET_H
#define TAHOE_TESTNET_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ip.h"
#include "nrio_tahoe.h"
#include "tahoe.h"
#include "tcp.h"
#include "tcp_var.h"

#define TN_MS 1000000LL
#define TN_SEC 1000000000LL

/* One packet a host handed to the link. */
struct tn_rec {
    int64_t at_ns;     /* when the host's CPU was done with it */
    int64_t arrive_ns; /* when it reaches the other end (0 if dropped or captured) */
    int from;
    int proto;
    int frag; /* an IP fragment */
    int flags;
    uint32_t seq, ack, win, len; /* TCP fields; len = data octets */
    int reason;                  /* tcp_output's rule, TCPO_* */
    int dropped;
    uint8_t *data; /* the whole packet, kept only when the other end is played by the test */
    size_t size;
};

struct tn_pkt {
    struct tn_pkt *next;
    int64_t arrive;
    int to;
    size_t len;
    uint8_t data[];
};

struct tn_net;
struct tn_port {
    struct tn_net *net;
    int idx;
};

struct tn_net {
    struct tahoe_stack *h[2]; /* h[1] NULL: packets from h[0] are captured for the test */
    struct tn_port port[2];
    int64_t rate_bps, delay_ns;
    int mtu;
    int64_t busy[2]; /* each direction's line is busy until */
    struct tn_pkt *q; /* in flight, by arrival time */
    struct tn_rec *log;
    size_t nlog, caplog;
    /* Return 1 to lose the packet. */
    int (*drop)(void *ctx, int from, const uint8_t *pkt, size_t len);
    void *drop_ctx;
    int refuse; /* the interface refuses this many more packets with -ENOBUFS (queue full) */
    int64_t now;
};

static inline uint32_t tn_ip(int a, int b, int c, int d)
{
    uint8_t p[4] = { (uint8_t)a, (uint8_t)b, (uint8_t)c, (uint8_t)d };
    return getaddr(p);
}

/* Fills r with what the packet says. */
static inline void tn_parse(const uint8_t *pkt, size_t len, struct tn_rec *r)
{
    size_t hl = (size_t)(pkt[0] & 0x0f) << 2;
    r->proto = pkt[IPO_PROTO];
    r->frag = (get16(pkt + IPO_OFF) & (IP_MF | IP_OFFMASK)) != 0;
    if (r->proto == IPPROTO_TCP && !r->frag && len >= hl + TCP_HDRLEN) {
        const uint8_t *th = pkt + hl;
        size_t off = (size_t)(th[THO_OFF] >> 4) << 2;
        r->flags = th[THO_FLAGS];
        r->seq = get32(th + THO_SEQ);
        r->ack = get32(th + THO_ACK);
        r->win = get16(th + THO_WIN);
        r->len = (uint32_t)(len - hl - off);
    }
}

static int tn_if_output(void *ctx, const uint8_t *pkt, size_t len, int64_t at)
{
    struct tn_port *port = ctx;
    struct tn_net *net = port->net;
    if (net->nlog == net->caplog) {
        net->caplog = net->caplog ? net->caplog * 2 : 1024;
        net->log = realloc(net->log, net->caplog * sizeof *net->log);
    }
    struct tn_rec *r = &net->log[net->nlog++];
    memset(r, 0, sizeof *r);
    r->at_ns = at;
    r->from = port->idx;
    r->reason = TCPO_NONE;
    tn_parse(pkt, len, r);
    int to = 1 - port->idx;
    if (!net->h[to]) {
        r->data = malloc(len);
        memcpy(r->data, pkt, len);
        r->size = len;
    }
    if (net->refuse > 0) {
        net->refuse--;
        r->dropped = 1;
        return -ENOBUFS;
    }
    if (!net->h[to])
        return 0;
    if ((int)len > net->mtu || (net->drop && net->drop(net->drop_ctx, port->idx, pkt, len))) {
        r->dropped = 1;
        return 0;
    }
    int64_t start = at > net->busy[port->idx] ? at : net->busy[port->idx];
    int64_t tx = (int64_t)len * 8 * TN_SEC / net->rate_bps;
    net->busy[port->idx] = start + tx;
    struct tn_pkt *p = malloc(sizeof *p + len);
    p->arrive = start + tx + net->delay_ns;
    p->to = to;
    p->len = len;
    memcpy(p->data, pkt, len);
    r->arrive_ns = p->arrive;
    struct tn_pkt **pp = &net->q;
    while (*pp && (*pp)->arrive <= p->arrive)
        pp = &(*pp)->next;
    p->next = *pp;
    *pp = p;
    return 0;
}

/* Tags the packet just logged from this host with the rule that sent it. */
static void tn_trace(void *ctx, const struct tahoe_seg_trace *ev)
{
    struct tn_port *port = ctx;
    struct tn_net *net = port->net;
    for (size_t i = net->nlog; i-- > 0;) {
        if (net->log[i].from == port->idx) {
            if (net->log[i].proto == IPPROTO_TCP && net->log[i].seq == ev->seq)
                net->log[i].reason = ev->reason;
            return;
        }
    }
}

/* cfg (NULL: the defaults) for host idx on the net: address 10.0.0.idx+1, the net's MTU, its
 * packets to the link and their rules to the log. */
static inline struct tahoe_config tn_config(struct tn_net *net, int idx, const struct tahoe_config *cfg)
{
    struct tahoe_config c;
    if (cfg)
        c = *cfg;
    else
        tahoe_config_defaults(&c);
    c.addr = tn_ip(10, 0, 0, idx + 1);
    c.mtu = net->mtu;
    net->port[idx].net = net;
    net->port[idx].idx = idx;
    c.if_output = tn_if_output;
    c.ctx = &net->port[idx];
    c.trace = tn_trace;
    c.trace_ctx = &net->port[idx];
    return c;
}

/* A stack on the net as host idx (address 10.0.0.idx+1). cfg may be NULL for defaults. */
static inline struct tahoe_stack *tn_host(struct tn_net *net, int idx, struct tahoe_config *cfg)
{
    struct tahoe_config c = tn_config(net, idx, cfg);
    net->h[idx] = tahoe_new(&c);
    return net->h[idx];
}

/* Host 0 as the stack of an nrio application whose clock and waits are env's, typically
 * tn_env_wait; cfg as tn_host takes it. NULL when nrio_tahoe_new fails. */
static inline nrio *tn_nrio_host(struct tn_net *net, const struct tahoe_config *cfg,
                                 const struct nrio_tahoe_env *env)
{
    struct tahoe_config c = tn_config(net, 0, cfg);
    nrio *io = nrio_tahoe_new(&c, env);
    if (io)
        net->h[0] = nrio_tahoe_stack(io);
    return io;
}

static inline void tn_init(struct tn_net *net, int mtu, int64_t rate_bps, int64_t delay_ns)
{
    memset(net, 0, sizeof *net);
    net->mtu = mtu;
    net->rate_bps = rate_bps;
    net->delay_ns = delay_ns;
}

static inline void tn_free(struct tn_net *net)
{
    for (int i = 0; i < 2; i++)
        tahoe_free(net->h[i]);
    while (net->q) {
        struct tn_pkt *p = net->q;
        net->q = p->next;
        free(p);
    }
    for (size_t i = 0; i < net->nlog; i++)
        free(net->log[i].data);
    free(net->log);
}

/* Frees a net whose host 0 is io's stack, which nrio_destroy frees. */
static inline void tn_nrio_free(struct tn_net *net, nrio *io)
{
    net->h[0] = NULL;
    nrio_destroy(io);
    tn_free(net);
}

/* Hands each packet that has arrived by t to its host. */
static inline void tn_deliver(struct tn_net *net, int64_t t)
{
    while (net->q && net->q->arrive <= t) {
        struct tn_pkt *p = net->q;
        net->q = p->next;
        tahoe_ip_input(net->h[p->to], p->data, p->len);
        free(p);
    }
}

typedef void (*tn_app_fn)(struct tn_net *net, void *arg);

/* Runs the network up to until_ns: the application gets a turn after every event. */
static inline void tn_run(struct tn_net *net, int64_t until_ns, tn_app_fn app, void *arg)
{
    for (;;) {
        if (app)
            app(net, arg);
        int64_t next = net->q ? net->q->arrive : INT64_MAX;
        for (int i = 0; i < 2; i++) {
            if (net->h[i]) {
                int64_t d = tahoe_next_deadline(net->h[i]);
                if (d < next)
                    next = d;
            }
        }
        if (next > until_ns)
            next = until_ns;
        net->now = next;
        for (int i = 0; i < 2; i++)
            if (net->h[i])
                tahoe_clock(net->h[i], next);
        tn_deliver(net, next);
        if (next >= until_ns) {
            if (app)
                app(net, arg);
            return;
        }
    }
}

/* Sets both stacks to time t (single-host tests drive the clock directly). */
static inline void tn_clock(struct tn_net *net, int64_t t)
{
    net->now = t;
    for (int i = 0; i < 2; i++)
        if (net->h[i])
            tahoe_clock(net->h[i], t);
}

/* The clock and wait of an nrio application on host 0 (struct nrio_tahoe_env), whose ctx is the
 * net. The wait moves the net to its next event, a packet's arrival, host 1's timers or
 * until_ns, whichever comes first; host 0's own timers are nrio's to wait for. */
static inline int64_t tn_env_now(void *ctx) { return ((struct tn_net *)ctx)->now; }

static inline int tn_env_wait(void *ctx, int64_t until_ns)
{
    struct tn_net *net = ctx;
    int64_t next = until_ns;
    if (net->q && net->q->arrive < next)
        next = net->q->arrive;
    int64_t d = tahoe_next_deadline(net->h[1]);
    if (d < next)
        next = d;
    if (next == INT64_MAX)
        return -ETIMEDOUT;
    tn_clock(net, next);
    tn_deliver(net, next);
    return 0;
}

/* Builds an IPv4/TCP packet (checksums filled) into buf; returns its length. */
static inline size_t tn_build_tcp(uint8_t *buf, uint32_t src, uint32_t dst, uint16_t sport,
                                  uint16_t dport, uint32_t seq, uint32_t ack, int flags,
                                  uint16_t win, const uint8_t *opt, size_t optlen,
                                  const uint8_t *data, size_t dlen)
{
    size_t tlen = TCP_HDRLEN + optlen + dlen;
    memset(buf, 0, IP_HDRLEN + TCP_HDRLEN);
    buf[IPO_VHL] = 0x45;
    put16(buf + IPO_LEN, (uint16_t)(IP_HDRLEN + tlen));
    buf[IPO_TTL] = 64;
    buf[IPO_PROTO] = IPPROTO_TCP;
    putaddr(buf + IPO_SRC, src);
    putaddr(buf + IPO_DST, dst);
    put16(buf + IPO_SUM, in_cksum(buf, IP_HDRLEN));
    uint8_t *th = buf + IP_HDRLEN;
    put16(th + THO_SPORT, sport);
    put16(th + THO_DPORT, dport);
    put32(th + THO_SEQ, seq);
    put32(th + THO_ACK, ack);
    th[THO_OFF] = (uint8_t)(((TCP_HDRLEN + optlen) / 4) << 4);
    th[THO_FLAGS] = (uint8_t)flags;
    put16(th + THO_WIN, win);
    if (optlen)
        memcpy(th + TCP_HDRLEN, opt, optlen);
    if (dlen)
        memcpy(th + TCP_HDRLEN + optlen, data, dlen);
    put16(th + THO_SUM, in_pseudo_cksum(src, dst, IPPROTO_TCP, th, tlen));
    return IP_HDRLEN + tlen;
}

/* The MSS and window-scale options of an IPv4/TCP packet, -1 where absent. Returns how many
 * other options it carries (NOP and EOL not counted), or -1 if the option list is malformed. */
static inline int tn_tcp_options(const uint8_t *pkt, size_t len, int *mss, int *wscale)
{
    size_t hl = (size_t)(pkt[0] & 0x0f) << 2;
    const uint8_t *th = pkt + hl;
    size_t off = (size_t)(th[THO_OFF] >> 4) << 2;
    *mss = *wscale = -1;
    if (len < hl + TCP_HDRLEN || off < TCP_HDRLEN || hl + off > len)
        return -1;
    const uint8_t *cp = th + TCP_HDRLEN;
    size_t cnt = off - TCP_HDRLEN;
    int other = 0;
    while (cnt > 0 && cp[0] != TCPOPT_EOL) {
        if (cp[0] == TCPOPT_NOP) {
            cp++;
            cnt--;
            continue;
        }
        if (cnt < 2 || cp[1] < 2 || cp[1] > cnt)
            return -1;
        if (cp[0] == TCPOPT_MAXSEG && cp[1] == 4)
            *mss = get16(cp + 2);
        else if (cp[0] == TCPOPT_WINDOW && cp[1] == 3)
            *wscale = cp[2];
        else
            other++;
        cnt -= cp[1];
        cp += cp[1];
    }
    return other;
}

/* 1 when the IP header checksum and the TCP/UDP/ICMP checksum of a packet verify. */
static inline int tn_checksums_ok(const uint8_t *pkt, size_t len)
{
    size_t hl = (size_t)(pkt[0] & 0x0f) << 2;
    if (in_cksum(pkt, hl) != 0)
        return 0;
    if (get16(pkt + IPO_OFF) & (IP_MF | IP_OFFMASK))
        return 1; /* a fragment: the transport checksum covers the whole datagram */
    uint32_t src = getaddr(pkt + IPO_SRC), dst = getaddr(pkt + IPO_DST);
    switch (pkt[IPO_PROTO]) {
    case IPPROTO_TCP:
        return in_pseudo_cksum(src, dst, IPPROTO_TCP, pkt + hl, len - hl) == 0;
    case IPPROTO_UDP:
        return get16(pkt + hl + 6) == 0 ||
               in_pseudo_cksum(src, dst, IPPROTO_UDP, pkt + hl, len - hl) == 0;
    case IPPROTO_ICMP:
        return in_cksum(pkt + hl, len - hl) == 0;
    default:
        return 1;
    }
}

#endif
