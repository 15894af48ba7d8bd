/* Splits a frame that a host's segmentation offload handed over whole (a GSO frame: one TCP or
 * UDP header over up to 64 KB of payload, as a veth passes it on) into the frames a NIC would
 * have put on the wire: each with the IP and TCP/UDP headers of its own share, and complete
 * checksums. The link model then charges, queues and loses each of them on its own. */
#ifndef LINKEMU_GSO_H
#define LINKEMU_GSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The layout of one GSO frame. */
struct le_gso {
    uint32_t l3;       /* offset of the IP header */
    uint32_t l4;       /* offset of the TCP or UDP header */
    uint32_t hdr;      /* octets of headers every segment repeats */
    uint32_t mss;      /* payload octets of every segment but the last */
    uint32_t payload;  /* payload octets of the whole frame */
    uint32_t segments;
    uint8_t proto;     /* IPPROTO_TCP or IPPROTO_UDP */
    bool v6;
};

/* Reads frame (len octets from the Ethernet header on) as the GSO frame the virtio header
 * describes: gso_type (VIRTIO_NET_HDR_GSO_TCPV4, _TCPV6 or _UDP_L4, the ECN bit allowed),
 * gso_size payload octets per segment, the transport header at csum_start.
 * Returns 0, or -1 for a frame it cannot split (another protocol, IPv6 extension headers,
 * lengths that do not add up). */
int le_gso_parse(const uint8_t *frame, size_t len, uint8_t gso_type, uint16_t gso_size, uint16_t csum_start,
                 struct le_gso *g);

/* Octets of segment i (0 <= i < g->segments), headers included. */
uint32_t le_gso_segment_len(const struct le_gso *g, uint32_t i);

/* Writes segment i of frame into out, which has room for le_gso_segment_len(g, i) octets. */
void le_gso_segment(const uint8_t *frame, const struct le_gso *g, uint32_t i, uint8_t *out);

#endif
