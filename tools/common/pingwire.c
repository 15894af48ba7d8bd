#include "pingwire.h"

#include <errno.h>

static void put32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)(v >> 24);
    b[1] = (uint8_t)(v >> 16);
    b[2] = (uint8_t)(v >> 8);
    b[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

void pw_tcp_encode(uint8_t *buf, const struct pw_tcp_hdr *h)
{
    buf[0] = 'P';
    buf[1] = 'X';
    buf[2] = h->flags;
    buf[3] = h->seq8;
    put32(buf + 4, h->length);
}

int pw_tcp_decode(const uint8_t *buf, struct pw_tcp_hdr *h)
{
    if (buf[0] != 'P' || buf[1] != 'X' || (buf[2] & ~PW_FLAG_NODELAY))
        return -EPROTO;
    h->flags = buf[2];
    h->seq8 = buf[3];
    h->length = get32(buf + 4);
    return h->length < PW_HDR_LEN ? -EINVAL : 0;
}

void pw_udp_encode(uint8_t *buf, const struct pw_udp_hdr *h)
{
    put32(buf, h->msg_id);
    buf[4] = (uint8_t)(h->index >> 8);
    buf[5] = (uint8_t)h->index;
    buf[6] = (uint8_t)(h->count >> 8);
    buf[7] = (uint8_t)h->count;
}

int pw_udp_decode(const uint8_t *buf, size_t len, struct pw_udp_hdr *h)
{
    if (len < PW_HDR_LEN)
        return -EINVAL;
    h->msg_id = get32(buf);
    h->index = (uint16_t)(buf[4] << 8 | buf[5]);
    h->count = (uint16_t)(buf[6] << 8 | buf[7]);
    return h->count == 0 || h->index >= h->count ? -EINVAL : 0;
}

long pw_udp_count(long size, long dgram)
{
    if (size < PW_MIN_MESSAGE || dgram < PW_MIN_DGRAM || dgram > PW_MAX_DGRAM)
        return -EINVAL;
    long n = (size + dgram - 1) / dgram;
    return n > PW_MAX_COUNT ? -ERANGE : n;
}

void pw_udp_slice(long size, long dgram, long index, long *off, long *len)
{
    long n = (size + dgram - 1) / dgram;
    long last = size - (n - 1) * dgram;
    long short_by = n > 1 && last < PW_HDR_LEN ? PW_HDR_LEN - last : 0;
    *off = index * dgram;
    *len = dgram;
    if (index == n - 2)
        *len = dgram - short_by;
    if (index == n - 1) {
        *off -= short_by;
        *len = last + short_by;
    }
}

void pw_fill(uint8_t *buf, size_t len, uint32_t salt)
{
    /* A 32-bit LCG: cheap, and no two nearby salts give the same bytes. */
    uint32_t x = salt * 2654435761u + 1;
    for (size_t i = 0; i < len; i++) {
        x = x * 1664525u + 1013904223u;
        buf[i] = (uint8_t)(x >> 24);
    }
}
