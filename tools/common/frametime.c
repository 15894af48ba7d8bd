#include "frametime.h"

#include <string.h>

#define ETHERTYPE_IPV4 0x0800
#define IP_HDR_MIN 20

static const uint8_t mark[4] = {'N', 'R', 'f', 't'};

/* The octets of the frame up to the end of its IPv4 packet, or 0 for any other frame. */
static size_t ip_end(const uint8_t *frame, size_t flen)
{
    if (flen < NR_FRAMETIME_ETHER_HDR + IP_HDR_MIN)
        return 0;
    if (((size_t)frame[12] << 8 | frame[13]) != ETHERTYPE_IPV4 || frame[14] >> 4 != 4)
        return 0;
    size_t end = NR_FRAMETIME_ETHER_HDR + ((size_t)frame[16] << 8 | frame[17]);
    return end <= flen ? end : 0;
}

size_t nr_frametime_put(uint8_t *frame, size_t flen, int64_t t_ns)
{
    if (!ip_end(frame, flen))
        return flen;
    uint8_t *p = frame + flen;
    memcpy(p, mark, sizeof mark);
    uint64_t t = (uint64_t)t_ns;
    for (int i = 0; i < 8; i++)
        p[4 + i] = (uint8_t)(t >> (56 - 8 * i));
    return flen + NR_FRAMETIME_LEN;
}

size_t nr_frametime_take(const uint8_t *frame, size_t flen, int64_t *t_ns)
{
    size_t end = ip_end(frame, flen);
    if (!end || flen - end < NR_FRAMETIME_LEN)
        return flen;
    const uint8_t *p = frame + flen - NR_FRAMETIME_LEN;
    if (memcmp(p, mark, sizeof mark) != 0)
        return flen;
    uint64_t t = 0;
    for (int i = 0; i < 8; i++)
        t = t << 8 | p[4 + i];
    *t_ns = (int64_t)t;
    return flen - NR_FRAMETIME_LEN;
}
