/* The Internet checksum (RFC 1071): ones' complement sum of 16-bit big-endian words. */
#include "ip.h"

#include <string.h>

static uint64_t fold16(uint64_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return sum;
}

static uint64_t swap16(uint64_t v) { return (v >> 8 | v << 8) & 0xffff; }

/* Eight octets at a time in the machine's byte order (it was a tenth of netsim's time): as
 * 2^16 is 1 modulo 0xffff, a 64-bit word's sum folds to that of its four 16-bit words, and
 * the folded sum of byte-swapped words is the byte-swapped sum (RFC 1071 Sec 2(B)). The fold
 * of a sum of words is 0 only when every word is 0, so the result, zero too, is the one the
 * word-by-word sum gives. */
uint32_t in_cksum_add(uint32_t sum, const uint8_t *p, size_t len)
{
    int little = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
    uint64_t acc = fold16(sum);
    if (little)
        acc = swap16(acc);
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        acc += (w & 0xffffffff) + (w >> 32);
    }
    for (; len >= 2; p += 2, len -= 2) {
        uint16_t w;
        memcpy(&w, p, 2);
        acc += w;
    }
    if (len)
        acc += little ? p[0] : (uint64_t)p[0] << 8;
    acc = fold16(acc);
    return (uint32_t)(little ? swap16(acc) : acc);
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
