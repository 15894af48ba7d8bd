/* The Internet checksum (RFC 1071): ones' complement sum of 16-bit big-endian words. */
#include "ip.h"

uint32_t in_cksum_add(uint32_t sum, const uint8_t *p, size_t len)
{
    while (len > 1) {
        sum += (uint32_t)(p[0] << 8 | p[1]);
        p += 2;
        len -= 2;
    }
    if (len)
        sum += (uint32_t)(p[0] << 8);
    /* Fold early so that long inputs cannot overflow 32 bits. */
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return sum;
}

uint16_t in_cksum_fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

uint16_t in_cksum(const uint8_t *p, size_t len) { return in_cksum_fold(in_cksum_add(0, p, len)); }

uint16_t in_pseudo_cksum(uint32_t src, uint32_t dst, uint8_t proto, const uint8_t *seg,
                         size_t len)
{
    uint8_t ph[12];
    putaddr(ph, src);
    putaddr(ph + 4, dst);
    ph[8] = 0;
    ph[9] = proto;
    put16(ph + 10, (uint16_t)len);
    return in_cksum_fold(in_cksum_add(in_cksum_add(0, ph, sizeof ph), seg, len));
}
