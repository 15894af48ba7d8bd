/* Splitting a GSO frame gives the frames the sender's stack would have put on the wire. */
#include <linux/virtio_net.h>
#include <stdint.h>
#include <string.h>

#include "csum.h"
#include "gso.h"
#include "nrtest.h"

#define MSS 1000
#define PAYLOAD 2500 /* three segments: 1000, 1000, 500 */

/* Ethernet, IPv4 (ID 0x1234, DF) and a 32-octet TCP header (seq 1000, ACK|PSH|FIN|CWR) over
 * PAYLOAD octets counting up; the checksums hold what a GSO frame carries: IP none, TCP the
 * pseudo-header seed, which splitting must overwrite anyway. */
static size_t build_tcp4(uint8_t *f)
{
    static const uint8_t head[] = {
        0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 6, 0x08, 0x00,
        0x45, 0, 0, 0, 0x12, 0x34, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
        0x04, 0xd2, 0x16, 0x2e, 0, 0, 0x03, 0xe8, 0, 0, 0, 1, 0x80, 0x80 | 0x10 | 0x08 | 0x01, 0xff, 0xff,
        0xab, 0xcd, 0, 0,
        1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
    memcpy(f, head, sizeof head);
    for (size_t i = 0; i < PAYLOAD; i++)
        f[sizeof head + i] = (uint8_t)i;
    return sizeof head + PAYLOAD;
}

/* The checksum a receiver computes over a segment: zero when it is right. */
static uint16_t tcp4_verify(const uint8_t *s, size_t len)
{
    uint8_t buf[2048];
    size_t l4 = len - 34;
    memcpy(buf, s + 26, 8);
    buf[8] = 0;
    buf[9] = 6;
    buf[10] = (uint8_t)(l4 >> 8);
    buf[11] = (uint8_t)l4;
    memcpy(buf + 12, s + 34, l4);
    return le_inet_csum(buf, 12 + l4, 0);
}

static void test_splits_tcp4(void)
{
    static uint8_t f[4096], seg[3][2048];
    size_t len = build_tcp4(f);
    struct le_gso g;
    NRT_EQ_INT(le_gso_parse(f, len, VIRTIO_NET_HDR_GSO_TCPV4 | VIRTIO_NET_HDR_GSO_ECN, MSS, 34, &g), 0);
    NRT_EQ_INT(g.segments, 3);
    NRT_EQ_INT(g.hdr, 66);
    const uint32_t sizes[3] = {66 + MSS, 66 + MSS, 66 + 500};
    for (uint32_t i = 0; i < 3; i++) {
        uint32_t n = le_gso_segment_len(&g, i);
        NRT_EQ_INT(n, sizes[i]);
        le_gso_segment(f, &g, i, seg[i]);
        NRT_EQ_INT(seg[i][16] << 8 | seg[i][17], n - 14);            /* IP total length */
        NRT_EQ_INT(seg[i][18] << 8 | seg[i][19], 0x1234 + i);        /* IP ID */
        NRT_EQ_INT(le_inet_csum(seg[i] + 14, 20, 0), 0);              /* IP header checksum */
        NRT_EQ_INT(seg[i][40] << 8 | seg[i][41], 1000 + i * MSS); /* low half of seq */
        NRT_EQ_INT(tcp4_verify(seg[i], n), 0);
        NRT_CHECK(memcmp(seg[i] + 66, f + 66 + i * MSS, n - 66) == 0);
    }
    /* CWR only on the first, PSH and FIN only on the last; ACK on all. */
    NRT_EQ_INT(seg[0][47], 0x80 | 0x10);
    NRT_EQ_INT(seg[1][47], 0x10);
    NRT_EQ_INT(seg[2][47], 0x10 | 0x08 | 0x01);
}

static void test_splits_udp4(void)
{
    static uint8_t f[4096], seg[2048];
    static const uint8_t head[] = {
        0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 6, 0x08, 0x00,
        0x45, 0, 0, 0, 0, 7, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
        0x04, 0xd2, 0x16, 0x2e, 0, 0, 0, 0};
    memcpy(f, head, sizeof head);
    memset(f + sizeof head, 0x5a, 1500);
    struct le_gso g;
    NRT_EQ_INT(le_gso_parse(f, sizeof head + 1500, 5 /* VIRTIO_NET_HDR_GSO_UDP_L4 */, 1200, 34, &g), 0);
    NRT_EQ_INT(g.segments, 2);
    le_gso_segment(f, &g, 1, seg);
    uint32_t n = le_gso_segment_len(&g, 1);
    NRT_EQ_INT(n, 42 + 300);
    NRT_EQ_INT(seg[38] << 8 | seg[39], 8 + 300); /* UDP length */
    uint8_t buf[512];
    memcpy(buf, seg + 26, 8);
    buf[8] = 0;
    buf[9] = 17;
    buf[10] = (8 + 300) >> 8;
    buf[11] = (8 + 300) & 0xff;
    memcpy(buf + 12, seg + 34, 308);
    NRT_EQ_INT(le_inet_csum(buf, 12 + 308, 0), 0);
}

static void test_refuses_what_it_cannot_split(void)
{
    static uint8_t f[4096];
    size_t len = build_tcp4(f);
    struct le_gso g;
    /* Legacy UDP fragmentation offload, a wrong transport offset, an IPv6 type on IPv4, no size. */
    NRT_EQ_INT(le_gso_parse(f, len, VIRTIO_NET_HDR_GSO_UDP, MSS, 34, &g), -1);
    NRT_EQ_INT(le_gso_parse(f, len, VIRTIO_NET_HDR_GSO_TCPV4, MSS, 38, &g), -1);
    NRT_EQ_INT(le_gso_parse(f, len, VIRTIO_NET_HDR_GSO_TCPV6, MSS, 34, &g), -1);
    NRT_EQ_INT(le_gso_parse(f, len, VIRTIO_NET_HDR_GSO_TCPV4, 0, 34, &g), -1);
    NRT_EQ_INT(le_gso_parse(f, 60, VIRTIO_NET_HDR_GSO_TCPV4, MSS, 34, &g), -1);
}

int main(void)
{
    NRT_RUN(test_splits_tcp4);
    NRT_RUN(test_splits_udp4);
    NRT_RUN(test_refuses_what_it_cannot_split);
    return nrt_summary("linkemu/test_gso");
}
