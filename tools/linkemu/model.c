#include "model.h"

#include <math.h>
#include <stdlib.h>

#include "ring.h"

/* Framing constants; they must agree with netrepro/linkspec.py. */
#define ETH_OVERHEAD 38 /* header 14, FCS 4, preamble and delimiter 8, inter-frame gap 12 */
#define ETH_MIN_PAYLOAD 46
#define ETH_FCS_COVERED 18 /* header and FCS: the bits a bit error spoils */
#define ATM_CELL 53
#define ATM_CELL_PAYLOAD 48
#define AAL5_TRAILER 8
#define LLC_SNAP 8

uint32_t le_cells(enum le_framing framing, uint32_t ip_octets)
{
    uint32_t encap;
    switch (framing) {
    case LE_FRAMING_AAL5_LLC_SNAP:
        encap = LLC_SNAP;
        break;
    case LE_FRAMING_AAL5_VC_MUX:
        encap = 0;
        break;
    default:
        return 0;
    }
    return (ip_octets + encap + AAL5_TRAILER + ATM_CELL_PAYLOAD - 1) / ATM_CELL_PAYLOAD;
}

uint32_t le_wire_octets(enum le_framing framing, uint32_t ip_octets)
{
    switch (framing) {
    case LE_FRAMING_ETHERNET:
        return (ip_octets < ETH_MIN_PAYLOAD ? ETH_MIN_PAYLOAD : ip_octets) + ETH_OVERHEAD;
    case LE_FRAMING_AAL5_LLC_SNAP:
    case LE_FRAMING_AAL5_VC_MUX:
        return le_cells(framing, ip_octets) * ATM_CELL;
    case LE_FRAMING_NONE:
        break;
    }
    return ip_octets;
}

/* On ATM the emulator of the era spoiled cell payload bits (ishikura: 72 kbit in a 9 KB packet,
 * i.e. 192 cells of 384 bits); on Ethernet an error anywhere the FCS covers loses the frame. */
uint64_t le_error_bits(enum le_framing framing, uint32_t ip_octets)
{
    switch (framing) {
    case LE_FRAMING_ETHERNET:
        return 8ULL * ((ip_octets < ETH_MIN_PAYLOAD ? ETH_MIN_PAYLOAD : ip_octets) + ETH_FCS_COVERED);
    case LE_FRAMING_AAL5_LLC_SNAP:
    case LE_FRAMING_AAL5_VC_MUX:
        return 8ULL * ATM_CELL_PAYLOAD * le_cells(framing, ip_octets);
    case LE_FRAMING_NONE:
        break;
    }
    return 8ULL * ip_octets;
}

double le_unit_loss_prob(double ratio, uint64_t units)
{
    if (ratio <= 0.0 || units == 0)
        return 0.0;
    if (ratio >= 1.0)
        return 1.0;
    /* expm1/log1p keep precision for ratios like 1e-8 where 1-(1-r)^n would round to 0. */
    return -expm1((double)units * log1p(-ratio));
}

static int wait_grow(struct le_wait *w)
{
    size_t cap = w->cap ? 2 * w->cap : 64;
    struct le_waiting *q = ring_move(w->q, sizeof *q, w->head, w->len, w->cap, cap);
    if (!q)
        return -1;
    w->q = q;
    w->cap = cap;
    w->head = 0;
    return 0;
}

/* Forgets the packets whose serialization has begun by now: they have left the queue. */
static void wait_expire(struct le_wait *w, int64_t now_ns)
{
    while (w->len > 0 && w->q[w->head].start_ns <= now_ns) {
        w->bytes -= w->q[w->head].octets;
        w->head = (w->head + 1) % w->cap;
        w->len--;
    }
}

int le_dir_init(struct le_dir *d, const struct le_dir_cfg *cfg, enum le_framing framing, uint32_t mtu,
                uint64_t seed, uint64_t stream)
{
    *d = (struct le_dir){.cfg = *cfg, .framing = framing, .mtu = mtu};
    nr_rng_seed(&d->rng, seed, stream);
    return wait_grow(&d->wait);
}

void le_dir_free(struct le_dir *d)
{
    free(d->wait.q);
    d->wait = (struct le_wait){0};
}

static bool draw(struct nr_rng *rng, double prob)
{
    return prob > 0.0 && nr_rng_unit(rng) < prob;
}

enum le_verdict le_admit(struct le_dir *d, int64_t now_ns, uint32_t frame_octets, int64_t *release_ns)
{
    struct le_counters *c = &d->count;
    c->rx_packets++;
    c->rx_bytes += frame_octets;
    uint32_t ip = frame_octets > LE_ETH_HEADER ? frame_octets - LE_ETH_HEADER : 0;
    if (ip > d->mtu) {
        c->drop_oversize++;
        return LE_DROP_OVERSIZE;
    }
    /* Random loss happens before the queue, as netem's does: the packet costs no line time. */
    if (draw(&d->rng, d->cfg.loss_pct / 100.0)) {
        c->drop_loss++;
        return LE_DROP_LOSS;
    }
    struct le_wait *w = &d->wait;
    wait_expire(w, now_ns);
    if ((d->cfg.queue_packets && w->len >= d->cfg.queue_packets) ||
        (d->cfg.queue_bytes && w->bytes + ip > d->cfg.queue_bytes)) {
        c->drop_queue++;
        return LE_DROP_QUEUE;
    }
    double start = d->line_free_ns > (double)now_ns ? d->line_free_ns : (double)now_ns;
    if ((int64_t)start > now_ns) {
        if (w->len == w->cap && wait_grow(w) < 0) {
            c->drop_nomem++;
            return LE_DROP_QUEUE;
        }
        w->q[(w->head + w->len) % w->cap] = (struct le_waiting){(int64_t)start, ip};
        w->len++;
        w->bytes += ip;
        if (w->len > c->queue_max_packets)
            c->queue_max_packets = w->len;
    }
    c->queued_packets++;
    c->queued_bytes += frame_octets;
    d->line_free_ns = start + le_wire_octets(d->framing, ip) * 8e9 / d->cfg.rate_bps;

    /* Cell loss and bit errors strike on the line, after the packet has used its share of it. */
    if (draw(&d->rng, le_unit_loss_prob(d->cfg.cell_loss_ratio, le_cells(d->framing, ip)))) {
        c->drop_cell_loss++;
        return LE_DROP_CELL_LOSS;
    }
    if (draw(&d->rng, le_unit_loss_prob(d->cfg.bit_error_ratio, le_error_bits(d->framing, ip)))) {
        c->drop_bit_error++;
        return LE_DROP_BIT_ERROR;
    }

    int64_t release = (int64_t)ceil(d->line_free_ns) + d->cfg.delay_ns;
    if (d->cfg.jitter_ns > 0) {
        double offset = (2.0 * nr_rng_unit(&d->rng) - 1.0) * (double)d->cfg.jitter_ns;
        release += (int64_t)offset;
        if (release < (int64_t)ceil(d->line_free_ns))
            release = (int64_t)ceil(d->line_free_ns);
    }
    if (!d->cfg.reorder && release < d->last_release_ns)
        release = d->last_release_ns;
    d->last_release_ns = release;
    *release_ns = release;
    return LE_PASS;
}

void le_sent(struct le_dir *d, uint32_t frame_octets)
{
    d->count.tx_packets++;
    d->count.tx_bytes += frame_octets;
}
