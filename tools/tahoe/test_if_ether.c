/* Ethernet framing and ARP without a network: the test plays the wire and the peer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "if_ether.h"
#include "ip.h"
#include "nrtest.h"
#include "testnet.h"

static const uint8_t MAC_US[6] = { 0x02, 0, 0, 0, 0, 1 };
static const uint8_t MAC_PEER[6] = { 0x02, 0, 0, 0, 0, 2 };
static const uint8_t BCAST[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

struct wire {
    uint8_t frames[8][128];
    size_t lens[8];
    int n;
    int fail; /* errno the next xmit returns, 0: none */
};

static int capture(void *ctx, const uint8_t *f, size_t len)
{
    struct wire *w = ctx;
    if (w->fail) {
        int e = w->fail;
        w->fail = 0;
        return -e;
    }
    if (w->n < 8) {
        memcpy(w->frames[w->n], f, len < 128 ? len : 128);
        w->lens[w->n] = len;
    }
    w->n++;
    return 0;
}

/* A 28-octet IPv4 packet (header + 8 octets) to dst. */
static void ip_packet(uint8_t *p, uint32_t dst, uint8_t tag)
{
    memset(p, 0, 28);
    p[IPO_VHL] = 0x45;
    put16(p + IPO_LEN, 28);
    putaddr(p + IPO_SRC, tn_ip(10, 0, 0, 1));
    putaddr(p + IPO_DST, dst);
    p[20] = tag;
}

static size_t arp_frame(uint8_t *f, int op, const uint8_t *dst_mac, const uint8_t *sha,
                        uint32_t spa, uint32_t tpa)
{
    memcpy(f, dst_mac, 6);
    memcpy(f + 6, sha, 6);
    put16(f + 12, ETHERTYPE_ARP);
    uint8_t *a = f + 14;
    put16(a, 1);
    put16(a + 2, ETHERTYPE_IP);
    a[4] = 6;
    a[5] = 4;
    put16(a + 6, (uint16_t)op);
    memcpy(a + 8, sha, 6);
    putaddr(a + 14, spa);
    memset(a + 18, 0, 6);
    putaddr(a + 24, tpa);
    return 14 + 28;
}

static void init(struct ether_if *ifp, struct wire *w)
{
    memset(w, 0, sizeof *w);
    ether_if_init(ifp, MAC_US, tn_ip(10, 0, 0, 1), tn_ip(255, 255, 255, 0), capture, w);
}

/* Output to an unknown peer asks for it once, holds the packets, and sends them in order
 * with the peer's MAC once the reply comes. */
static void test_resolve_then_send_held(void)
{
    struct ether_if ifp;
    struct wire w;
    init(&ifp, &w);
    uint8_t p[28];
    ip_packet(p, tn_ip(10, 0, 0, 2), 1);
    NRT_EQ_INT(ether_output(&ifp, p, sizeof p, 1000), 0);
    ip_packet(p, tn_ip(10, 0, 0, 2), 2);
    NRT_EQ_INT(ether_output(&ifp, p, sizeof p, 2000), 0);
    NRT_EQ_INT(w.n, 1); /* one request within the retry interval */
    NRT_CHECK(memcmp(w.frames[0], BCAST, 6) == 0);
    NRT_EQ_INT(get16(w.frames[0] + 12), ETHERTYPE_ARP);
    NRT_EQ_INT(get16(w.frames[0] + 14 + 6), 1);
    NRT_EQ_INT(getaddr(w.frames[0] + 14 + 24), tn_ip(10, 0, 0, 2));

    uint8_t f[64];
    size_t n = arp_frame(f, 2, MAC_US, MAC_PEER, tn_ip(10, 0, 0, 2), tn_ip(10, 0, 0, 1));
    const uint8_t *pkt;
    size_t len;
    NRT_EQ_INT(ether_input(&ifp, f, n, &pkt, &len), 0);
    NRT_EQ_INT(w.n, 3);
    for (int i = 1; i <= 2; i++) {
        NRT_CHECK(memcmp(w.frames[i], MAC_PEER, 6) == 0);
        NRT_CHECK(memcmp(w.frames[i] + 6, MAC_US, 6) == 0);
        NRT_EQ_INT(get16(w.frames[i] + 12), ETHERTYPE_IP);
        NRT_EQ_INT(w.lens[i], 14 + 28);
        NRT_EQ_INT(w.frames[i][14 + 20], i);
    }
    ip_packet(p, tn_ip(10, 0, 0, 2), 3);
    NRT_EQ_INT(ether_output(&ifp, p, sizeof p, 3000), 0);
    NRT_EQ_INT(w.n, 4);
    NRT_EQ_INT(ifp.stats.out_ip, 3);
    /* A second second without an answer brings another request. */
    ip_packet(p, tn_ip(10, 0, 0, 3), 4);
    ether_output(&ifp, p, sizeof p, 4000);
    ether_output(&ifp, p, sizeof p, 4000 + ARP_RETRY_NS);
    NRT_EQ_INT(ifp.stats.out_arp, 3);
    ether_if_free(&ifp);
}

/* A static entry sends at once, without a request, and outlives a full table's recycling;
 * only on-link peers other than ourselves may have one. */
static void test_static_entry(void)
{
    struct ether_if ifp;
    struct wire w;
    init(&ifp, &w);
    NRT_EQ_INT(ether_if_add_static(&ifp, tn_ip(10, 0, 0, 2), MAC_PEER), 0);
    NRT_EQ_INT(ether_if_add_static(&ifp, tn_ip(10, 0, 1, 2), MAC_PEER), -EINVAL);
    NRT_EQ_INT(ether_if_add_static(&ifp, tn_ip(10, 0, 0, 1), MAC_PEER), -EINVAL);
    uint8_t p[28];
    for (int host = 3; host < 3 + 2 * ARPTAB_SIZE; host++) {
        ip_packet(p, tn_ip(10, 0, 0, host), 0);
        ether_output(&ifp, p, sizeof p, 1000);
    }
    w.n = 0;
    ip_packet(p, tn_ip(10, 0, 0, 2), 7);
    NRT_EQ_INT(ether_output(&ifp, p, sizeof p, 2000), 0);
    NRT_EQ_INT(w.n, 1);
    NRT_CHECK(memcmp(w.frames[0], MAC_PEER, 6) == 0);
    NRT_EQ_INT(get16(w.frames[0] + 12), ETHERTYPE_IP);
    NRT_EQ_INT(ifp.stats.out_ip, 1);
    for (int host = 100; host < 100 + ARPTAB_SIZE / 2; host++)
        ether_if_add_static(&ifp, tn_ip(10, 0, 0, host), MAC_PEER);
    NRT_EQ_INT(ether_if_add_static(&ifp, tn_ip(10, 0, 0, 200), MAC_PEER), -ENOSPC);
    ether_if_free(&ifp);
}

/* A request for our address is answered to the asker, who is learned on the way. */
static void test_answer_request(void)
{
    struct ether_if ifp;
    struct wire w;
    init(&ifp, &w);
    uint8_t f[64];
    size_t n = arp_frame(f, 1, BCAST, MAC_PEER, tn_ip(10, 0, 0, 2), tn_ip(10, 0, 0, 1));
    const uint8_t *pkt;
    size_t len;
    NRT_EQ_INT(ether_input(&ifp, f, n, &pkt, &len), 0);
    NRT_EQ_INT(w.n, 1);
    NRT_CHECK(memcmp(w.frames[0], MAC_PEER, 6) == 0);
    NRT_EQ_INT(get16(w.frames[0] + 14 + 6), 2);
    NRT_CHECK(memcmp(w.frames[0] + 14 + 8, MAC_US, 6) == 0);
    NRT_EQ_INT(getaddr(w.frames[0] + 14 + 14), tn_ip(10, 0, 0, 1));
    NRT_CHECK(memcmp(w.frames[0] + 14 + 18, MAC_PEER, 6) == 0);
    /* Learned: output goes straight out. */
    uint8_t p[28];
    ip_packet(p, tn_ip(10, 0, 0, 2), 7);
    NRT_EQ_INT(ether_output(&ifp, p, sizeof p, 0), 0);
    NRT_EQ_INT(w.n, 2);
    NRT_CHECK(memcmp(w.frames[1], MAC_PEER, 6) == 0);
    /* A request for someone else is not answered. */
    n = arp_frame(f, 1, BCAST, MAC_PEER, tn_ip(10, 0, 0, 2), tn_ip(10, 0, 0, 9));
    NRT_EQ_INT(ether_input(&ifp, f, n, &pkt, &len), 0);
    NRT_EQ_INT(w.n, 2);
    ether_if_free(&ifp);
}

/* IPv4 frames for us or broadcast reach the stack; others, and other types, do not. */
static void test_input_filter(void)
{
    struct ether_if ifp;
    struct wire w;
    init(&ifp, &w);
    uint8_t f[64];
    memcpy(f, MAC_US, 6);
    memcpy(f + 6, MAC_PEER, 6);
    put16(f + 12, ETHERTYPE_IP);
    ip_packet(f + 14, tn_ip(10, 0, 0, 1), 5);
    const uint8_t *pkt = NULL;
    size_t len = 0;
    NRT_EQ_INT(ether_input(&ifp, f, 14 + 28, &pkt, &len), 1);
    NRT_CHECK(pkt == f + 14);
    NRT_EQ_INT(len, 28);
    memcpy(f, MAC_PEER, 6);
    NRT_EQ_INT(ether_input(&ifp, f, 14 + 28, &pkt, &len), 0);
    memcpy(f, BCAST, 6);
    put16(f + 12, 0x86dd);
    NRT_EQ_INT(ether_input(&ifp, f, 14 + 28, &pkt, &len), 0);
    NRT_EQ_INT(ether_input(&ifp, f, 10, &pkt, &len), 0);
    NRT_EQ_INT(ifp.stats.in_ignored, 3);
    ether_if_free(&ifp);
}

/* Off-subnet and own-address packets have nowhere to go; a broadcast goes to everyone; a full
 * interface queue drops, any other xmit error ends the run. */
static void test_output_edges(void)
{
    struct ether_if ifp;
    struct wire w;
    init(&ifp, &w);
    uint8_t p[28];
    ip_packet(p, tn_ip(192, 168, 1, 1), 0);
    NRT_EQ_INT(ether_output(&ifp, p, sizeof p, 0), 0);
    ip_packet(p, tn_ip(10, 0, 0, 1), 0);
    NRT_EQ_INT(ether_output(&ifp, p, sizeof p, 0), 0);
    NRT_EQ_INT(ifp.stats.unreachable, 2);
    NRT_EQ_INT(w.n, 0);
    ip_packet(p, tn_ip(10, 0, 0, 255), 0);
    NRT_EQ_INT(ether_output(&ifp, p, sizeof p, 0), 0);
    NRT_EQ_INT(w.n, 1);
    NRT_CHECK(memcmp(w.frames[0], BCAST, 6) == 0);
    w.fail = ENOBUFS;
    NRT_EQ_INT(ether_output(&ifp, p, sizeof p, 0), 0);
    NRT_EQ_INT(ifp.stats.xmit_drops, 1);
    w.fail = ENETDOWN;
    NRT_EQ_INT(ether_output(&ifp, p, sizeof p, 0), -ENETDOWN);
    ether_if_free(&ifp);
}

int main(void)
{
    NRT_RUN(test_resolve_then_send_held);
    NRT_RUN(test_answer_request);
    NRT_RUN(test_static_entry);
    NRT_RUN(test_input_filter);
    NRT_RUN(test_output_edges);
    return nrt_summary("tahoe/test_if_ether");
}
