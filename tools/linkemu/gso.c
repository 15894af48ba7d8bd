#include "gso.h"

#include <linux/virtio_net.h>
#include <netinet/in.h>
#include <string.h>

#include "csum.h"

/* Linux >= 6.2 hands UDP segmentation offload frames to packet sockets with this type; older
 * userspace headers lack the name. */
#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5
#endif

#define ETH_TYPE_OFFSET 12
#define VLAN_TAG 4
#define IPV4_MIN 20
#define IPV6_HDR 40
#define TCP_MIN 20
#define UDP_HDR 8
#define TCP_FIN 0x01
#define TCP_PSH 0x08
#define TCP_CWR 0x80

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v >> 16);
    put16(p + 2, v);
}

/* Where the IP header starts, past one or two VLAN tags; 0 if the frame is too short. */
static uint32_t l3_offset(const uint8_t *frame, size_t len, uint16_t *ethertype)
{
    uint32_t off = ETH_TYPE_OFFSET;
    for (int tags = 0; tags <= 2; tags++) {
        if (off + 2 > len)
            return 0;
        *ethertype = get16(frame + off);
        if (*ethertype != 0x8100 && *ethertype != 0x88a8)
            return off + 2;
        off += VLAN_TAG;
    }
    return 0;
}

/* Finds the IP header and checks it leads to the transport header at g->l4. want_v6 is 0 or 1
 * when the GSO type names the IP version, -1 when it does not (UDP). */
static int parse_ip(const uint8_t *frame, size_t len, int want_v6, struct le_gso *g)
{
    uint16_t ethertype = 0;
    g->l3 = l3_offset(frame, len, &ethertype);
    if (g->l3 == 0)
        return -1;
    const uint8_t *ip = frame + g->l3;
    g->v6 = ethertype == 0x86dd;
    if (want_v6 >= 0 && want_v6 != g->v6)
        return -1;
    if (ethertype == 0x0800 && g->l3 + IPV4_MIN <= len && ip[0] >> 4 == 4)
        return g->l4 == g->l3 + 4u * (ip[0] & 0x0f) && ip[9] == g->proto ? 0 : -1;
    /* Extension headers would need walking; the kernel's TCP never puts any in front of TSO. */
    if (g->v6 && g->l3 + IPV6_HDR <= len && ip[0] >> 4 == 6)
        return g->l4 == g->l3 + IPV6_HDR && ip[6] == g->proto ? 0 : -1;
    return -1;
}

int le_gso_parse(const uint8_t *frame, size_t len, uint8_t gso_type, uint16_t gso_size, uint16_t csum_start,
                 struct le_gso *g)
{
    *g = (struct le_gso){.l4 = csum_start, .mss = gso_size};
    int want_v6;
    switch (gso_type & ~VIRTIO_NET_HDR_GSO_ECN) {
    case VIRTIO_NET_HDR_GSO_TCPV4:
        g->proto = IPPROTO_TCP;
        want_v6 = 0;
        break;
    case VIRTIO_NET_HDR_GSO_TCPV6:
        g->proto = IPPROTO_TCP;
        want_v6 = 1;
        break;
    case VIRTIO_NET_HDR_GSO_UDP_L4:
        /* The type does not name the IP version; the Ethernet type does. */
        g->proto = IPPROTO_UDP;
        want_v6 = -1;
        break;
    default:
        return -1;
    }
    if (g->mss == 0 || g->l4 >= len || parse_ip(frame, len, want_v6, g) < 0)
        return -1;
    if (g->proto == IPPROTO_TCP) {
        if (g->l4 + TCP_MIN > len)
            return -1;
        uint32_t doff = 4u * (frame[g->l4 + 12] >> 4);
        if (doff < TCP_MIN)
            return -1;
        g->hdr = g->l4 + doff;
    } else {
        g->hdr = g->l4 + UDP_HDR;
    }
    if (g->hdr >= len)
        return -1;
    g->payload = (uint32_t)(len - g->hdr);
    g->segments = (g->payload + g->mss - 1) / g->mss;
    return 0;
}

uint32_t le_gso_segment_len(const struct le_gso *g, uint32_t i)
{
    uint32_t left = g->payload - i * g->mss;
    return g->hdr + (left < g->mss ? left : g->mss);
}

/* The one's complement sum of the pseudo-header (RFC 793, RFC 8200 Sec 8.1), unfolded. */
static uint32_t pseudo_sum(const uint8_t *seg, const struct le_gso *g, uint32_t l4_len)
{
    const uint8_t *addrs = seg + g->l3 + (g->v6 ? 8 : 12);
    uint32_t octets = g->v6 ? 32 : 8, sum = 0;
    for (uint32_t k = 0; k < octets; k += 2)
        sum += get16(addrs + k);
    return sum + g->proto + (l4_len >> 16) + (l4_len & 0xffff);
}

void le_gso_segment(const uint8_t *frame, const struct le_gso *g, uint32_t i, uint8_t *out)
{
    uint32_t len = le_gso_segment_len(g, i), data = len - g->hdr, l4_len = len - g->l4;
    memcpy(out, frame, g->hdr);
    memcpy(out + g->hdr, frame + g->hdr + (size_t)i * g->mss, data);
    uint8_t *ip = out + g->l3, *l4 = out + g->l4;
    if (g->v6) {
        put16(ip + 4, l4_len);
    } else {
        /* Each segment is its own datagram: its length, the next ID, as the kernel's GSO does. */
        put16(ip + 2, len - g->l3);
        put16(ip + 4, get16(ip + 4) + i);
        put16(ip + 10, 0);
        put16(ip + 10, le_inet_csum(ip, g->l4 - g->l3, 0));
    }
    uint32_t csum_at;
    if (g->proto == IPPROTO_TCP) {
        put32(l4 + 4, get32(l4 + 4) + i * g->mss);
        /* FIN and PSH belong to the last segment, CWR to the first (tcp_gso_segment()). */
        if (i + 1 < g->segments)
            l4[13] &= (uint8_t)~(TCP_FIN | TCP_PSH);
        if (i > 0)
            l4[13] &= (uint8_t)~TCP_CWR;
        csum_at = 16;
    } else {
        put16(l4 + 4, l4_len);
        csum_at = 6;
    }
    put16(l4 + csum_at, 0);
    uint16_t csum = le_inet_csum(l4, l4_len, pseudo_sum(out, g, l4_len));
    /* Zero means "no checksum" to UDP; all ones is the same sum, as le_csum_complete() stores. */
    put16(l4 + csum_at, csum ? csum : 0xffff);
}
