#include "medium.h"

#include <math.h>
#include <stdlib.h>

#include "ring.h"

static int64_t bits_ns(const struct le_medium *m, double bits)
{
    return (int64_t)ceil(bits * 1e9 / m->rate_bps);
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* The frame's carrier: le_wire_octets is its share of the line, the gap that follows included. */
int64_t le_medium_frame_ns(const struct le_medium *m, uint32_t ip_octets)
{
    return bits_ns(m, 8.0 * le_wire_octets(m->framing, ip_octets) - LE_IFG_BITS);
}

static int station_init(struct le_station *s, uint64_t seed, uint64_t stream, int64_t rx_gap_ns)
{
    s->rx_gap_ns = rx_gap_ns;
    s->cap = 64;
    s->q = malloc(s->cap * sizeof *s->q);
    if (!s->q)
        return -1;
    s->try_ns = INT64_MAX;
    /* Silent since long before the start: the first frame waits for no gap. */
    s->quiet_ns = INT64_MIN / 2;
    nr_rng_seed(&s->rng, seed, stream);
    return 0;
}

int le_medium_init(struct le_medium *m, double rate_bps, int64_t prop_ns, enum le_framing framing,
                   uint64_t queue_packets, uint64_t seed, uint64_t stream)
{
    *m = (struct le_medium){.rate_bps = rate_bps, .prop_ns = prop_ns, .framing = framing,
                            .queue_packets = queue_packets, .nst = 2, .tx = -1,
                            .bg_next_ns = INT64_MAX};
    for (int i = 0; i < 2; i++)
        if (station_init(&m->st[i], seed, stream + (uint64_t)i, bits_ns(m, LE_LANCE_RX_GAP_BITS)) < 0) {
            le_medium_free(m, NULL);
            return -1;
        }
    return 0;
}

/* An exponential interval of mean 1/fps seconds, at least 1 ns. */
static int64_t bg_interval(struct le_medium *m)
{
    double ns = -log(1.0 - nr_rng_unit(&m->bg_arrivals)) * 1e9 / m->bg_fps;
    return ns < 1.0 ? 1 : (int64_t)ns;
}

int le_medium_background(struct le_medium *m, double frames_per_s, uint32_t ip_octets,
                         int64_t start_ns, uint64_t seed)
{
    if (!(frames_per_s > 0) || m->nst > LE_BACKGROUND)
        return -1;
    if (station_init(&m->st[LE_BACKGROUND], seed, LE_BACKGROUND_STREAM, 0) < 0)
        return -1;
    m->nst = LE_STATIONS;
    m->bg_fps = frames_per_s;
    m->bg_octets = ip_octets;
    nr_rng_seed(&m->bg_arrivals, seed, LE_BACKGROUND_STREAM + 1);
    m->bg_next_ns = start_ns + bg_interval(m);
    return 0;
}

void le_medium_free(struct le_medium *m, void (*free_pkt)(void *))
{
    for (int i = 0; i < LE_STATIONS; i++) {
        struct le_station *s = &m->st[i];
        for (size_t k = 0; free_pkt && i != LE_BACKGROUND && s->q && k < s->len; k++)
            free_pkt(s->q[(s->head + k) % s->cap].pkt);
        free(m->st[i].q);
        m->st[i].q = NULL;
    }
}

static struct le_frame *head(struct le_station *s)
{
    return &s->q[s->head];
}

/* The end of the station's gap since the medium fell silent at it: a LANCE that received the
 * last frame waits longer, in the gap's first part (a carrier then still makes it defer). */
static int64_t gap_end(const struct le_medium *m, const struct le_station *s)
{
    return s->quiet_ns + bits_ns(m, LE_IFG_BITS) + (s->received ? s->rx_gap_ns : 0);
}

/* When the head frame tries the medium: once it may start and the station's gap has passed.
 * A station that heard the other's carrier waits until it drops (set again then). */
static void schedule(const struct le_medium *m, struct le_station *s)
{
    s->try_ns = INT64_MAX;
    if (s->len > 0 && !s->deferring)
        s->try_ns = max64(s->earliest_ns, gap_end(m, s));
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
        struct le_frame *q = ring_move(s->q, sizeof *q, s->head, s->len, s->cap, 2 * s->cap);
        if (!q) {
            s->count.drop_queue++;
            return LE_DROP_QUEUE;
        }
        s->q = q;
        s->head = 0;
        s->cap *= 2;
    }
    s->q[(s->head + s->len) % s->cap] = (struct le_frame){ready_ns, ip_octets, pkt};
    if (s->len++ == 0) {
        s->earliest_ns = ready_ns;
        schedule(m, s);
    }
    if (s->len > s->count.queue_max_packets)
        s->count.queue_max_packets = s->len;
    return LE_PASS;
}

int64_t le_medium_next_ns(const struct le_medium *m)
{
    int64_t next = m->tx >= 0 ? m->tx_end_ns : INT64_MAX;
    if (m->bg_next_ns < next)
        next = m->bg_next_ns;
    for (int i = 0; i < m->nst; i++)
        if (m->st[i].try_ns < next)
            next = m->st[i].try_ns;
    return next;
}

/* Whether station s, trying at t, must defer to a carrier that reached it at heard_ns: it
 * heard it before t, unless it reached it in the last part of a gap at whose end the frame was
 * waiting, which it then ignores (802.3's two-part deference). */
static int defers(const struct le_medium *m, const struct le_station *s, int64_t t, int64_t heard_ns)
{
    if (heard_ns >= t)
        return 0;
    int64_t end = gap_end(m, s);
    return !(t == end && heard_ns > end - bits_ns(m, LE_IFG_BITS - LE_IFS1_BITS));
}

int64_t le_medium_contested_ns(const struct le_medium *m)
{
    if (m->tx < 0)
        return INT64_MAX;
    int64_t heard = m->tx_start_ns + m->prop_ns;
    int64_t last = INT64_MIN;
    for (int i = 0; i < m->nst; i++) {
        const struct le_station *other = &m->st[i];
        /* A background frame that arrives once the carrier has reached its station defers. */
        if (i == m->tx || (i == LE_BACKGROUND && other->len == 0 && m->bg_next_ns > heard))
            continue;
        int64_t end = gap_end(m, other);
        last = max64(last, defers(m, other, end, heard) ? heard : max64(heard, end));
    }
    return last;
}

/* The head frame is done with (sent or given up): the next one may start when it is ready,
 * but not before now. */
static void *pop(const struct le_medium *m, struct le_station *s, int64_t now_ns)
{
    void *pkt = head(s)->pkt;
    s->head = (s->head + 1) % s->cap;
    s->len--;
    s->attempts = 0;
    if (s->len > 0)
        s->earliest_ns = max64(head(s)->ready_ns, now_ns);
    schedule(m, s);
    return pkt;
}

/* After its collision, whose jam it ended at end_ns: the station waits r slots from there,
 * r uniform in 0..2^k - 1 with k = min(attempts, 10); at the 16th attempt the frame is given
 * up. Returns 1 and fills out when a host's frame was (a background frame is no outcome). */
static int back_off(struct le_medium *m, int st, int64_t end_ns, struct le_outcome *out)
{
    struct le_station *s = &m->st[st];
    s->count.collisions++;
    if (++s->attempts >= LE_ATTEMPT_LIMIT) {
        s->count.excessive++;
        *out = (struct le_outcome){.kind = LE_EXCESSIVE, .station = st};
        out->pkt = pop(m, s, end_ns);
        return st != LE_BACKGROUND;
    }
    int k = s->attempts < LE_BACKOFF_LIMIT ? s->attempts : LE_BACKOFF_LIMIT;
    uint64_t r = nr_rng_next(&s->rng) % (1ULL << k);
    s->earliest_ns = end_ns + (int64_t)r * bits_ns(m, LE_SLOT_BITS);
    schedule(m, s);
    return 0;
}

/* Station st starts at t into the frame the other started at tx_start_ns, and so does a third
 * station that tries at the same instant. Each detects the collision when another's signal
 * reaches it, completes its preamble, jams and stops; the medium is silent at each once every
 * fragment has passed it, and a station that took no part hears it as a carrier. */
static int collide(struct le_medium *m, int st, int64_t t, struct le_outcome out[LE_MAX_OUTCOMES])
{
    int other = m->tx;
    int64_t start = m->tx_start_ns;
    int64_t pre = bits_ns(m, LE_PREAMBLE_BITS), jam = bits_ns(m, LE_JAM_BITS);
    int64_t end[LE_STATIONS];
    int in[LE_STATIONS] = {0};
    in[other] = in[st] = 1;
    end[other] = max64(start + pre, t + m->prop_ns) + jam;
    for (int i = 0; i < m->nst; i++) {
        if (i != other && (i == st || (m->st[i].try_ns == t && !m->st[i].deferring))) {
            in[i] = 1;
            end[i] = max64(t + pre, max64(t, start + m->prop_ns)) + jam;
        }
    }
    int64_t last = INT64_MIN;
    for (int i = 0; i < m->nst; i++)
        if (in[i])
            last = max64(last, end[i]);
    m->tx = -1;
    int n = 0;
    for (int i = 0; i < m->nst; i++) {
        struct le_station *s = &m->st[i];
        int64_t others = INT64_MIN;
        for (int k = 0; k < m->nst; k++)
            if (in[k] && k != i)
                others = max64(others, end[k]);
        s->quiet_ns = in[i] ? max64(end[i], others + m->prop_ns) : max64(s->quiet_ns, last + m->prop_ns);
        s->received = 0;
        s->deferring = 0;
        if (in[i])
            n += back_off(m, i, end[i], &out[n]);
        else
            schedule(m, s);
    }
    return n;
}

/* Station st tries the medium at t: it defers to a carrier it must heed, collides with a frame
 * whose carrier has not reached it (or that it ignores at the end of its gap), or starts. */
static int attempt(struct le_medium *m, int st, int64_t t, struct le_outcome out[LE_MAX_OUTCOMES])
{
    struct le_station *s = &m->st[st];
    if (m->tx < 0) {
        m->tx = st;
        m->tx_start_ns = t;
        m->tx_end_ns = t + le_medium_frame_ns(m, head(s)->ip_octets);
        s->try_ns = INT64_MAX;
        return 0;
    }
    if (defers(m, s, t, m->tx_start_ns + m->prop_ns)) {
        s->count.deferrals++;
        s->deferring = 1;
        schedule(m, s);
        return 0;
    }
    return collide(m, st, t, out);
}

int le_medium_step(struct le_medium *m, int64_t now_ns, struct le_outcome out[LE_MAX_OUTCOMES])
{
    if (m->tx >= 0 && m->tx_end_ns <= now_ns) {
        int st = m->tx;
        struct le_station *s = &m->st[st];
        m->tx = -1;
        s->quiet_ns = m->tx_end_ns;
        s->received = 0;
        for (int i = 0; i < m->nst; i++) {
            if (i == st)
                continue;
            m->st[i].quiet_ns = m->tx_end_ns + m->prop_ns;
            /* Only the other host receives a host's frame; a background frame is addressed to
             * neither, so it is heard but not received. */
            m->st[i].received = st != LE_BACKGROUND && i != LE_BACKGROUND;
            m->st[i].deferring = 0;
            schedule(m, &m->st[i]);
        }
        s->count.tx_frames++;
        out[0] = (struct le_outcome){.kind = LE_DELIVERED, .station = st,
                                     .arrive_ns = m->tx_end_ns + m->prop_ns};
        out[0].pkt = pop(m, s, m->tx_end_ns);
        return st != LE_BACKGROUND;
    }
    if (m->bg_next_ns <= now_ns) {
        le_medium_offer(m, LE_BACKGROUND, m->bg_next_ns, m->bg_octets, NULL);
        m->bg_next_ns += bg_interval(m);
        return 0;
    }
    /* Each attempt at its own time: the two-part gap tells a frame that waited for its end. */
    for (int i = 0; i < m->nst; i++)
        if (m->st[i].try_ns <= now_ns)
            return attempt(m, i, m->st[i].try_ns, out);
    return 0;
}

double le_medium_collision_pct(const struct le_medium *m)
{
    uint64_t sent = m->st[0].count.tx_frames + m->st[1].count.tx_frames;
    uint64_t coll = m->st[0].count.collisions + m->st[1].count.collisions;
    return sent ? 100.0 * (double)coll / (double)sent : 0.0;
}
