#include "csum.h"

#include <string.h>

uint16_t le_inet_csum(const uint8_t *data, size_t len, uint32_t seed)
{
    uint64_t sum = seed;
    size_t i = 0;
    /* Big-endian 16-bit words summed in 64 bits; carries are folded once at the end. */
    for (; i + 1 < len; i += 2)
        sum += (uint32_t)data[i] << 8 | data[i + 1];
    if (i < len)
        sum += (uint32_t)data[i] << 8;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

int le_csum_complete(uint8_t *frame, size_t len, size_t start, size_t offset)
{
    if (start > len || offset + 2 > len - start)
        return -1;
    uint16_t csum = le_inet_csum(frame + start, len - start, 0);
    /* Zero means "no checksum" to UDP (RFC 768); all ones is the same sum in one's complement,
     * so skb_checksum_help() stores that for every protocol, and so do we. */
    if (csum == 0)
        csum = 0xffff;
    frame[start + offset] = (uint8_t)(csum >> 8);
    frame[start + offset + 1] = (uint8_t)csum;
    return 0;
}
