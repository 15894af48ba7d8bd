/* IPv4 wire format: field offsets and big-endian accessors. Packets are plain byte arrays. */
#ifndef TAHOE_IP_H
#define TAHOE_IP_H

#include <stddef.h>
#include <stdint.h>

#define IP_HDRLEN 20      /* we never send IP options */
#define IP_MAXPACKET 65535
#define IP_MSS 576        /* the datagram every host must accept (RFC 791) */
#define IP_DF 0x4000      /* don't fragment */
#define IP_MF 0x2000      /* more fragments */
#define IP_OFFMASK 0x1fff /* fragment offset in 8-octet units */
#define MAXTTL 255
#define IPFRAGTTL 15      /* slow ticks a fragment chain may wait for completion (4.3BSD) */

#define IPPROTO_ICMP 1
#define IPPROTO_TCP 6
#define IPPROTO_UDP 17

/* Offsets inside the IPv4 header. */
#define IPO_VHL 0
#define IPO_TOS 1
#define IPO_LEN 2
#define IPO_ID 4
#define IPO_OFF 6
#define IPO_TTL 8
#define IPO_PROTO 9
#define IPO_SUM 10
#define IPO_SRC 12
#define IPO_DST 16

static inline uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static inline void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
/* Addresses are kept in network byte order (as struct in_addr), so copy them verbatim. */
static inline uint32_t getaddr(const uint8_t *p)
{
    uint32_t a;
    __builtin_memcpy(&a, p, 4);
    return a;
}
static inline void putaddr(uint8_t *p, uint32_t a) { __builtin_memcpy(p, &a, 4); }

/* Internet checksum (RFC 1071). in_cksum_add accumulates; every chunk but the last must have
 * an even length. */
uint32_t in_cksum_add(uint32_t sum, const uint8_t *p, size_t len);
uint16_t in_cksum_fold(uint32_t sum);
uint16_t in_cksum(const uint8_t *p, size_t len);
/* Checksum of a TCP or UDP segment with its pseudo-header; seg points at the transport header. */
uint16_t in_pseudo_cksum(uint32_t src, uint32_t dst, uint8_t proto, const uint8_t *seg,
                         size_t len);

#endif
