#include "blocks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void mftp_hdr_encode(uint8_t *p, long long offset, long len)
{
    put32(p, MFTP_BLOCK_MAGIC);
    put32(p + 4, (uint32_t)len);
    put32(p + 8, (uint32_t)((uint64_t)offset >> 32));
    put32(p + 12, (uint32_t)offset);
}

int mftp_hdr_decode(const uint8_t *p, long long *offset, long *len)
{
    if (get32(p) != MFTP_BLOCK_MAGIC)
        return -1;
    uint32_t l = get32(p + 4);
    uint64_t off = (uint64_t)get32(p + 8) << 32 | get32(p + 12);
    if (l == 0 || l > MFTP_MAX_BLOCK || off > (uint64_t)INT64_MAX - l)
        return -1;
    *offset = (long long)off;
    *len = (long)l;
    return 0;
}

void mftp_sched_init(struct mftp_sched *s, long long size, long block)
{
    s->size = size;
    s->next = 0;
    s->block = block;
}

int mftp_sched_next(struct mftp_sched *s, long long *offset, long *len)
{
    if (s->next >= s->size)
        return 0;
    *offset = s->next;
    *len = s->size - s->next < s->block ? (long)(s->size - s->next) : s->block;
    s->next += *len;
    return 1;
}

void mftp_ranges_init(struct mftp_ranges *s) { memset(s, 0, sizeof *s); }

void mftp_ranges_free(struct mftp_ranges *s)
{
    free(s->r);
    memset(s, 0, sizeof *s);
}

long long mftp_ranges_add(struct mftp_ranges *s, long long offset, long long len)
{
    if (len <= 0)
        return 0;
    long long start = offset, end = offset + len;
    /* First range that ends at or after start: it and the ones after it that begin at or
     * before end merge with the new range. */
    int i = 0;
    while (i < s->n && s->r[i].end < start)
        i++;
    int j = i;
    long long covered = 0;
    while (j < s->n && s->r[j].start <= end) {
        long long lo = s->r[j].start > start ? s->r[j].start : start;
        long long hi = s->r[j].end < end ? s->r[j].end : end;
        if (hi > lo)
            covered += hi - lo;
        if (s->r[j].start < start)
            start = s->r[j].start;
        if (s->r[j].end > end)
            end = s->r[j].end;
        j++;
    }
    long long added = len - covered;
    if (j == i) {
        if (s->n == s->cap) {
            int cap = s->cap ? s->cap * 2 : 16;
            struct mftp_range *r = realloc(s->r, (size_t)cap * sizeof *r);
            if (!r)
                return -1;
            s->r = r;
            s->cap = cap;
        }
        memmove(s->r + i + 1, s->r + i, (size_t)(s->n - i) * sizeof *s->r);
        s->n++;
    } else if (j > i + 1) {
        memmove(s->r + i + 1, s->r + j, (size_t)(s->n - j) * sizeof *s->r);
        s->n -= j - i - 1;
    }
    s->r[i].start = start;
    s->r[i].end = end;
    s->total += added;
    return added;
}

int mftp_ranges_complete(const struct mftp_ranges *s, long long size)
{
    if (size == 0)
        return s->n == 0;
    return s->n == 1 && s->r[0].start == 0 && s->r[0].end == size;
}

int mftp_ranges_first_gap(const struct mftp_ranges *s, long long size, long long *off,
                          long long *len)
{
    long long at = 0;
    for (int i = 0; i < s->n && at < size; i++) {
        if (s->r[i].start > at) {
            *off = at;
            *len = (s->r[i].start < size ? s->r[i].start : size) - at;
            return 1;
        }
        at = s->r[i].end;
    }
    if (at < size) {
        *off = at;
        *len = size - at;
        return 1;
    }
    return 0;
}

void mftp_rx_init(struct mftp_rx *rx) { memset(rx, 0, sizeof *rx); }

int mftp_rx_feed(struct mftp_rx *rx, const uint8_t *buf, size_t n, mftp_sink_fn sink, void *arg)
{
    while (n > 0) {
        if (rx->left == 0) {
            size_t take = MFTP_HDR_LEN - (size_t)rx->hdr_have;
            if (take > n)
                take = n;
            memcpy(rx->hdr + rx->hdr_have, buf, take);
            rx->hdr_have += (int)take;
            buf += take;
            n -= take;
            if (rx->hdr_have < MFTP_HDR_LEN)
                return 0;
            rx->hdr_have = 0;
            if (mftp_hdr_decode(rx->hdr, &rx->offset, &rx->left) < 0)
                return -EPROTO;
            continue;
        }
        long take = (size_t)rx->left < n ? rx->left : (long)n;
        int rc = sink(arg, rx->offset, buf, take);
        if (rc < 0)
            return rc;
        rx->offset += take;
        rx->left -= take;
        buf += take;
        n -= (size_t)take;
        if (rx->left == 0)
            rx->blocks++;
    }
    return 0;
}

int mftp_rx_at_boundary(const struct mftp_rx *rx) { return rx->left == 0 && rx->hdr_have == 0; }
