#include "shared.h"

int le_shared_init(struct le_shared *sh, const struct le_dir_cfg *cfg, enum le_framing framing, uint32_t mtu,
                   uint64_t seed, uint64_t stream)
{
    *sh = (struct le_shared){.mtu = mtu, .now_ns = INT64_MIN, .ready_ns = {INT64_MIN, INT64_MIN}};
    return le_medium_init(&sh->medium, cfg->rate_bps, cfg->delay_ns, framing, cfg->queue_packets, seed, stream);
}

void le_shared_hold(struct le_shared *sh, int64_t hold_ns)
{
    sh->hold_ns = hold_ns;
}

int64_t le_shared_timed_ns(const struct le_shared *sh, int64_t stated_ns, int64_t arrived_ns)
{
    int64_t came = arrived_ns - sh->hold_ns;
    return stated_ns > came ? stated_ns : came;
}

void le_shared_free(struct le_shared *sh, void (*free_pkt)(void *ctx, int station, void *pkt), void *ctx)
{
    for (int st = 0; free_pkt && st < 2; st++) {
        const struct le_station *s = &sh->medium.st[st];
        for (size_t k = 0; s->q && k < s->len; k++)
            free_pkt(ctx, st, s->q[(s->head + k) % s->cap].pkt);
    }
    le_medium_free(&sh->medium, NULL);
}

static uint32_t ip_octets(uint32_t frame_octets)
{
    return frame_octets > LE_ETH_HEADER ? frame_octets - LE_ETH_HEADER : 0;
}

enum le_verdict le_shared_admit(const struct le_shared *sh, struct le_counters *c, uint32_t frame_octets)
{
    c->rx_packets++;
    c->rx_bytes += frame_octets;
    if (ip_octets(frame_octets) > sh->mtu) {
        c->drop_oversize++;
        return LE_DROP_OVERSIZE;
    }
    return LE_PASS;
}

enum le_verdict le_shared_offer(struct le_shared *sh, int st, struct le_counters *c, int64_t arrived_ns,
                                uint32_t frame_octets, void *pkt)
{
    int64_t ready = arrived_ns;
    if (ready < sh->now_ns)
        ready = sh->now_ns;
    if (ready < sh->ready_ns[st])
        ready = sh->ready_ns[st];
    enum le_verdict v = le_medium_offer(&sh->medium, st, ready, ip_octets(frame_octets), pkt);
    if (v != LE_PASS)
        return v;
    sh->ready_ns[st] = ready;
    c->queued_packets++;
    c->queued_bytes += frame_octets;
    return LE_PASS;
}

/* The next event is the end of a frame the other station can no longer start into. */
static int end_is_certain(const struct le_medium *m, int64_t next_ns, int64_t now_ns)
{
    return m->tx >= 0 && m->tx_end_ns == next_ns && now_ns > le_medium_contested_ns(m);
}

int64_t le_shared_due_ns(const struct le_shared *sh, int64_t ahead_ns)
{
    const struct le_medium *m = &sh->medium;
    int64_t next = le_medium_next_ns(m);
    if (next == INT64_MAX)
        return next;
    int64_t held = next + sh->hold_ns;
    /* Early only once the collision window is over, held, as le_shared_run checks. */
    if (m->tx >= 0 && m->tx_end_ns == next) {
        int64_t settled = le_medium_contested_ns(m) + 1 + sh->hold_ns;
        int64_t early = next - ahead_ns;
        return early > settled ? early : (settled < held ? settled : held);
    }
    return held;
}

int le_shared_run(struct le_shared *sh, int64_t now_ns, int64_t ahead_ns,
                  void (*done)(void *ctx, const struct le_outcome *o), void *ctx)
{
    struct le_medium *m = &sh->medium;
    int outcomes = 0;
    int64_t next;
    int64_t held = now_ns - sh->hold_ns;
    while ((next = le_medium_next_ns(m)) != INT64_MAX &&
           (next <= held || (next - ahead_ns <= now_ns && end_is_certain(m, next, held)))) {
        struct le_outcome out[LE_MAX_OUTCOMES];
        int n = le_medium_step(m, next, out);
        sh->now_ns = next;
        for (int i = 0; i < n; i++)
            done(ctx, &out[i]);
        outcomes += n;
    }
    return outcomes;
}

uint64_t le_shared_pending(const struct le_shared *sh, int st)
{
    return sh->medium.st[st].len;
}
