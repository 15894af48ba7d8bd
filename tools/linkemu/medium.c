#include "medium.h"

#include <math.h>
#include <stdlib.h>

static int64_t bits_ns(const struct le_medium *m, double bits)
{
    return (int64_t)ceil(bits * 1e9 / m->rate_bps);
}

int le_medium_init(struct le_medium *m, double rate_bps, int64_t prop_ns, enum le_framing framing,
                   uint64_t queue_packets, uint64_t seed, uint64_t stream)
{
    *m = (struct le_medium){.rate_bps = rate_bps, .prop_ns = prop_ns, .framing = framing,
                            .queue_packets = queue_packets, .tx = -1};
    for (int i = 0; i < 2; i++) {
        struct le_station *s = &m->st[i];
        s->cap = 64;
        s->q = malloc(s->cap * sizeof *s->q);
        if (!s->q) {
            le_medium_free(m, NULL);
            return -1;
        }
        s->try_ns = INT64_MAX;
        nr_rng_seed(&s->rng, seed, stream + (uint64_t)i);
    }
    return 0;
}

void le_medium_free(struct le_medium *m, void (*free_pkt)(void *))
{
    for (int i = 0; i < 2; i++) {
        struct le_station *s = &m->st[i];
        for (size_t k = 0; free_pkt && s->q && k < s->len; k++)
            free_pkt(s->q[(s->head + k) % s->cap].pkt);
        free(m->st[i].q);
        m->st[i].q = NULL;
    }
}

static struct le_frame *head(struct le_station *s)
{
    return &s->q[s->head];
}

enum le_verdict le_medium_offer(struct le_medium *m, int st, int64_t ready_ns, uint32_t ip_octets,
                                void *pkt)
{
    struct le_station *s = &m->st[st];
    s->count.offered++;
    if (m->queue_packets && s->len >= m->queue_packets) {
        s->count.drop_queue++;
        return LE_DROP_QUEUE;
    }
    if (s->len == s->cap) {
        struct le_frame *q = malloc(2 * s->cap * sizeof *q);
        if (!q) {
            s->count.drop_queue++;
            return LE_DROP_QUEUE;
        }
        for (size_t i = 0; i < s->len; i++)
            q[i] = s->q[(s->head + i) % s->cap];
        free(s->q);
        s->q = q;
        s->head = 0;
        s->cap *= 2;
    }
    s->q[(s->head + s->len) % s->cap] = (struct le_frame){ready_ns, ip_octets, pkt};
    if (s->len++ == 0)
        s->try_ns = ready_ns;
    if (s->len > s->count.queue_max_packets)
        s->count.queue_max_packets = s->len;
    return LE_PASS;
}

int64_t le_medium_next_ns(const struct le_medium *m)
{
    int64_t next = m->tx >= 0 ? m->tx_end_ns : INT64_MAX;
    for (int i = 0; i < 2; i++)
        if (m->st[i].try_ns < next)
            next = m->st[i].try_ns;
    return next;
}

/* The head frame is done with (sent or given up): the next one senses the medium when it is
 * ready, but not before now. */
static void *pop(struct le_station *s, int64_t now_ns)
{
    void *pkt = head(s)->pkt;
    s->head = (s->head + 1) % s->cap;
    s->len--;
    s->attempts = 0;
    s->try_ns = INT64_MAX;
    if (s->len > 0)
        s->try_ns = head(s)->ready_ns > now_ns ? head(s)->ready_ns : now_ns;
    return pkt;
}

/* After its collision: the station waits r slots past the jam, r uniform in 0..2^k - 1 with
 * k = min(attempts, 10); at the 16th attempt the frame is given up. Returns 1 and fills out
 * when it was. */
static int back_off(struct le_medium *m, int st, struct le_outcome *out)
{
    struct le_station *s = &m->st[st];
    s->count.collisions++;
    if (++s->attempts >= LE_ATTEMPT_LIMIT) {
        s->count.excessive++;
        *out = (struct le_outcome){.kind = LE_EXCESSIVE, .station = st};
        out->pkt = pop(s, m->free_ns);
        return 1;
    }
    int k = s->attempts < LE_BACKOFF_LIMIT ? s->attempts : LE_BACKOFF_LIMIT;
    uint64_t r = nr_rng_next(&s->rng) % (1ULL << k);
    s->try_ns = m->free_ns + (int64_t)r * bits_ns(m, LE_SLOT_BITS);
    return 0;
}

/* Station st senses the medium at now_ns: it defers to a carrier it can hear, collides with a
 * frame started too recently for its carrier to have arrived, or starts its own. */
static int attempt(struct le_medium *m, int st, int64_t now_ns, struct le_outcome out[2])
{
    struct le_station *s = &m->st[st];
    if (m->tx >= 0 && now_ns - m->tx_start_ns > m->prop_ns) {
        s->count.deferrals++;
        s->try_ns = m->tx_end_ns;
        return 0;
    }
    if (m->tx >= 0) {
        int other = m->tx;
        m->tx = -1;
        m->free_ns = now_ns + m->prop_ns + bits_ns(m, LE_JAM_BITS);
        int n = back_off(m, other, &out[0]);
        return n + back_off(m, st, &out[n]);
    }
    if (now_ns < m->free_ns) {
        s->count.deferrals++;
        s->try_ns = m->free_ns;
        return 0;
    }
    m->tx = st;
    m->tx_start_ns = now_ns;
    m->tx_end_ns = now_ns + bits_ns(m, 8.0 * le_wire_octets(m->framing, head(s)->ip_octets));
    s->try_ns = INT64_MAX;
    return 0;
}

int le_medium_step(struct le_medium *m, int64_t now_ns, struct le_outcome out[2])
{
    if (m->tx >= 0 && m->tx_end_ns <= now_ns) {
        int st = m->tx;
        struct le_station *s = &m->st[st];
        m->tx = -1;
        m->free_ns = m->tx_end_ns;
        s->count.tx_frames++;
        out[0] = (struct le_outcome){.kind = LE_DELIVERED, .station = st,
                                     .arrive_ns = m->tx_end_ns + m->prop_ns};
        out[0].pkt = pop(s, now_ns);
        return 1;
    }
    for (int i = 0; i < 2; i++)
        if (m->st[i].try_ns <= now_ns)
            return attempt(m, i, now_ns, out);
    return 0;
}

double le_medium_collision_pct(const struct le_medium *m)
{
    uint64_t sent = m->st[0].count.tx_frames + m->st[1].count.tx_frames;
    uint64_t coll = m->st[0].count.collisions + m->st[1].count.collisions;
    return sent ? 100.0 * (double)coll / (double)sent : 0.0;
}
