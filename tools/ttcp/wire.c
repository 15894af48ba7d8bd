#include "wire.h"

#include <string.h>

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)(v >> 32));
    put32(p + 4, (uint32_t)v);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p) { return (uint64_t)get32(p) << 32 | get32(p + 4); }

static size_t length_of(uint32_t type)
{
    switch (type) {
    case TTCP_DATA: return TTCP_HDR_LEN;
    case TTCP_END: return TTCP_END_LEN;
    case TTCP_REPORT: return TTCP_REPORT_LEN;
    default: return 0;
    }
}

size_t ttcp_encode(const struct ttcp_msg *m, uint8_t *buf, size_t len)
{
    size_t need = length_of(m->type);
    if (need == 0 || len < need)
        return 0;
    put32(buf, TTCP_MAGIC);
    put32(buf + 4, m->type);
    put32(buf + 8, m->id);
    put32(buf + 12, m->seq);
    if (m->type == TTCP_END || m->type == TTCP_REPORT) {
        put64(buf + 16, m->count);
        put64(buf + 24, m->bytes);
    }
    if (m->type == TTCP_REPORT) {
        put64(buf + 32, m->ns);
        put32(buf + 40, m->rcvbuf);
        put32(buf + 44, m->rcvbuf_requested);
    }
    return need;
}

int ttcp_decode(const uint8_t *buf, size_t len, struct ttcp_msg *m)
{
    memset(m, 0, sizeof *m);
    if (len < TTCP_HDR_LEN || get32(buf) != TTCP_MAGIC)
        return 0;
    uint32_t type = get32(buf + 4);
    size_t need = length_of(type);
    if (need == 0 || len < need)
        return 0;
    m->type = type;
    m->id = get32(buf + 8);
    m->seq = get32(buf + 12);
    if (type == TTCP_END || type == TTCP_REPORT) {
        m->count = get64(buf + 16);
        m->bytes = get64(buf + 24);
    }
    if (type == TTCP_REPORT) {
        m->ns = get64(buf + 32);
        m->rcvbuf = get32(buf + 40);
        m->rcvbuf_requested = get32(buf + 44);
    }
    return (int)type;
}
