#include "reasm.h"

#include <stdlib.h>
#include <string.h>

#include "pingwire.h"

void reasm_init(struct reasm *r, int64_t quiet_ns, size_t max_message, int max_pending)
{
    memset(r, 0, sizeof *r);
    r->quiet_ns = quiet_ns;
    r->max_message = max_message;
    r->max_pending = max_pending;
}

static int same_peer(const struct nrio_addr *a, const struct nrio_addr *b)
{
    return a->ip == b->ip && a->port == b->port;
}

static int was_done(const struct reasm *r, const struct nrio_addr *peer, uint32_t id)
{
    for (int i = 0; i < REASM_DONE_MEMORY; i++)
        if (r->done[i].used && r->done[i].msg_id == id && same_peer(&r->done[i].peer, peer))
            return 1;
    return 0;
}

static struct reasm_msg *find(struct reasm *r, const struct nrio_addr *peer, uint32_t id)
{
    for (struct reasm_msg *m = r->pending; m; m = m->next)
        if (m->msg_id == id && same_peer(&m->peer, peer))
            return m;
    return NULL;
}

enum reasm_status reasm_add(struct reasm *r, const struct nrio_addr *peer, const uint8_t *buf,
                            size_t len, int64_t now, struct reasm_msg **msg)
{
    struct pw_udp_hdr h;
    *msg = NULL;
    if (pw_udp_decode(buf, len, &h) != 0 || len > r->max_message)
        return REASM_BAD;
    struct reasm_msg *m = find(r, peer, h.msg_id);
    if (!m) {
        if (was_done(r, peer, h.msg_id))
            return REASM_LATE;
        if (r->npending >= r->max_pending)
            return REASM_FULL;
        m = calloc(1, sizeof *m);
        if (!m)
            return REASM_NOMEM;
        m->slots = calloc(h.count, sizeof *m->slots);
        if (!m->slots) {
            free(m);
            return REASM_NOMEM;
        }
        m->peer = *peer;
        m->msg_id = h.msg_id;
        m->count = h.count;
        m->next = r->pending;
        r->pending = m;
        r->npending++;
    }
    if (h.count != m->count || m->bytes + len > r->max_message)
        return REASM_BAD;
    if (m->slots[h.index])
        return REASM_DUPLICATE;
    struct reasm_dgram *d = malloc(sizeof *d + len);
    if (!d)
        return REASM_NOMEM;
    d->next = NULL;
    d->peer = *peer;
    d->len = len;
    memcpy(d->data, buf, len);
    m->slots[h.index] = d;
    m->received++;
    m->bytes += len;
    m->last_ns = now;
    *msg = m;
    return m->received == m->count ? REASM_COMPLETE : REASM_STORED;
}

struct reasm_msg *reasm_expired(struct reasm *r, int64_t now)
{
    for (struct reasm_msg *m = r->pending; m; m = m->next)
        if (m->received > 0 && now - m->last_ns >= r->quiet_ns)
            return m;
    return NULL;
}

int64_t reasm_next_deadline(const struct reasm *r)
{
    int64_t at = -1;
    for (const struct reasm_msg *m = r->pending; m; m = m->next)
        if (m->received > 0 && (at < 0 || m->last_ns + r->quiet_ns < at))
            at = m->last_ns + r->quiet_ns;
    return at;
}

static void unlink_msg(struct reasm *r, struct reasm_msg *m)
{
    for (struct reasm_msg **p = &r->pending; *p; p = &(*p)->next) {
        if (*p == m) {
            *p = m->next;
            r->npending--;
            return;
        }
    }
}

int reasm_take(struct reasm *r, struct reasm_msg *m, struct reasm_dgram **head,
               struct reasm_dgram **tail)
{
    int n = 0;
    unlink_msg(r, m);
    for (int i = 0; i < m->count; i++) {
        struct reasm_dgram *d = m->slots[i];
        if (!d)
            continue;
        if (*tail)
            (*tail)->next = d;
        else
            *head = d;
        *tail = d;
        n++;
    }
    r->done[r->done_next].peer = m->peer;
    r->done[r->done_next].msg_id = m->msg_id;
    r->done[r->done_next].used = 1;
    r->done_next = (r->done_next + 1) % REASM_DONE_MEMORY;
    free(m->slots);
    free(m);
    return n;
}

void reasm_free(struct reasm *r)
{
    while (r->pending) {
        struct reasm_msg *m = r->pending;
        r->pending = m->next;
        for (int i = 0; i < m->count; i++)
            free(m->slots[i]);
        free(m->slots);
        free(m);
    }
    r->npending = 0;
}
