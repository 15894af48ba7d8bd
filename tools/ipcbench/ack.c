#include "ack.h"

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

void ipc_seg_encode(const struct ipc_seg *s, uint8_t *p)
{
    p[0] = IPC_MAGIC >> 8;
    p[1] = IPC_MAGIC & 0xff;
    p[2] = (uint8_t)s->phase;
    p[3] = (uint8_t)s->k;
    put32(p + 4, s->msg_id);
    put32(p + 8, s->seq);
    put32(p + 12, s->msg_len);
    put32(p + 16, s->payload);
}

int ipc_seg_decode(const uint8_t *p, size_t len, struct ipc_seg *s)
{
    if (len < IPC_HDR_LEN || (p[0] << 8 | p[1]) != IPC_MAGIC || p[2] > IPC_ECHO || p[3] == 0)
        return -1;
    s->phase = p[2];
    s->k = p[3];
    s->msg_id = get32(p + 4);
    s->seq = get32(p + 8);
    s->msg_len = get32(p + 12);
    s->payload = get32(p + 16);
    if (s->payload == 0 || s->msg_len == 0)
        return -1;
    return 0;
}

long ipc_segments(long long msg_len, long payload)
{
    return payload > 0 ? (long)((msg_len + payload - 1) / payload) : 0;
}

long ipc_groups(long nseg, int k) { return k > 0 ? (nseg + k - 1) / k : 0; }

long ipc_group_of(long seq, int k) { return seq / k; }

void ipc_group_range(long g, int k, long nseg, long *first, long *end)
{
    *first = g * k;
    *end = *first + k < nseg ? *first + k : nseg;
}

uint16_t ipc_ack_encode(uint32_t msg_id, int phase, long group)
{
    return (uint16_t)(((msg_id * 2 + (uint32_t)phase) & 3) << 14 | (group & 0x3fff));
}

int ipc_ack_matches(uint16_t ack, uint32_t msg_id, int phase, long group)
{
    return ack == ipc_ack_encode(msg_id, phase, group);
}

int ipc_rx_init(struct ipc_rx *rx, uint32_t msg_id, int phase, int k, long long msg_len,
                long payload)
{
    memset(rx, 0, sizeof *rx);
    rx->msg_id = msg_id;
    rx->phase = phase;
    rx->k = k;
    rx->msg_len = msg_len;
    rx->payload = payload;
    rx->nseg = ipc_segments(msg_len, payload);
    rx->ngroups = ipc_groups(rx->nseg, k);
    rx->msg = malloc(msg_len > 0 ? (size_t)msg_len : 1);
    rx->have = calloc((size_t)rx->nseg + 1, 1);
    rx->group_have = calloc((size_t)rx->ngroups + 1, sizeof *rx->group_have);
    if (!rx->msg || !rx->have || !rx->group_have) {
        ipc_rx_free(rx);
        return -1;
    }
    return 0;
}

void ipc_rx_free(struct ipc_rx *rx)
{
    free(rx->msg);
    free(rx->have);
    free(rx->group_have);
    rx->msg = rx->have = NULL;
    rx->group_have = NULL;
}

long ipc_rx_segment(struct ipc_rx *rx, long seq, const uint8_t *data, size_t len)
{
    if (seq < 0 || seq >= rx->nseg)
        return -1;
    long long off = (long long)seq * rx->payload;
    size_t want = (size_t)(rx->msg_len - off < rx->payload ? rx->msg_len - off : rx->payload);
    if (len != want)
        return -1; /* a truncated or foreign datagram */
    long g = ipc_group_of(seq, rx->k), first, end;
    ipc_group_range(g, rx->k, rx->nseg, &first, &end);
    if (!rx->have[seq]) {
        memcpy(rx->msg + off, data, len);
        rx->have[seq] = 1;
        rx->have_segs++;
        rx->group_have[g]++;
    }
    return rx->group_have[g] == end - first ? g : -1;
}

int ipc_rx_complete(const struct ipc_rx *rx) { return rx->have_segs == rx->nseg; }

uint8_t ipc_pattern(uint32_t msg_id, long long i)
{
    return (uint8_t)(i * 131 + (i >> 9) + msg_id * 7);
}
