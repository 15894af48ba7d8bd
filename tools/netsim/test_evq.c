/* The event queue pops in time order; at equal times arrivals before the others, and each in
 * the order it was queued; a superseded slot's event still comes out, as stale, at its time. The
 * queue is checked against the plainest one that has these rules: every event in one list,
 * each wake-up and medium event tagged with its slot's generation, stale when a later one was
 * set, and the earliest taken by a scan. */
#include <stdlib.h>

#include "evq.h"
#include "nrtest.h"

struct ref_ev {
    int64_t at_ns;
    uint64_t seq;
    int type, host;
    uint64_t gen;
};

struct ref {
    struct ref_ev ev[4096];
    int n;
    uint64_t next_seq;
    uint64_t gen[NS_SLOTS];
};

static int ref_before(const struct ref_ev *a, const struct ref_ev *b)
{
    if (a->at_ns != b->at_ns)
        return a->at_ns < b->at_ns;
    if ((a->type == NS_EV_ARRIVE) != (b->type == NS_EV_ARRIVE))
        return a->type == NS_EV_ARRIVE;
    return a->seq < b->seq;
}

static int slot_of(const struct ref_ev *e)
{
    return e->type == NS_EV_MEDIUM ? NS_SLOT_MEDIUM : e->host == 0 ? NS_SLOT_WAKE_A : NS_SLOT_WAKE_B;
}

static void ref_push(struct ref *r, int64_t at_ns, int type, int host)
{
    int slot = type == NS_EV_MEDIUM ? NS_SLOT_MEDIUM : host == 0 ? NS_SLOT_WAKE_A : NS_SLOT_WAKE_B;
    uint64_t gen = type == NS_EV_ARRIVE ? 0 : ++r->gen[slot];
    if (at_ns == INT64_MAX)
        return;
    r->ev[r->n++] = (struct ref_ev){at_ns, r->next_seq++, type, host, gen};
}

/* The earliest event, its type NS_EV_STALE when its slot was set again since; -1 when none. */
static int ref_pop(struct ref *r, struct ref_ev *out)
{
    if (!r->n)
        return -1;
    int best = 0;
    for (int i = 1; i < r->n; i++)
        if (ref_before(&r->ev[i], &r->ev[best]))
            best = i;
    *out = r->ev[best];
    r->ev[best] = r->ev[--r->n];
    if (out->type != NS_EV_ARRIVE && out->gen != r->gen[slot_of(out)])
        out->type = NS_EV_STALE;
    return 0;
}

static uint64_t draw(uint64_t *x)
{
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    return *x >> 33;
}

/* Random runs of arrivals, slot settings (far times, ties, none) and pops, as the simulator
 * makes them: each pop of the queue is the reference's, field by field, and the queue's block
 * grew as the one list would have (doubling from 64 whenever full), so netsim's heap, and the
 * host model's pages on it, stay as they were. */
static void test_same_order_as_one_list_of_every_event(void)
{
    for (uint64_t seed = 1; seed <= 50; seed++) {
        struct ns_evq q = {0};
        struct ref *r = calloc(1, sizeof *r);
        NRT_CHECK(r != NULL);
        uint64_t x = seed;
        int64_t now = 0;
        int mismatches = 0, most = 0;
        for (int step = 0; step < 3000; step++) {
            uint64_t op = draw(&x) % 10;
            int64_t at = now + (int64_t)(draw(&x) % 8) * (draw(&x) % 3 ? 1 : 1000);
            if (op < 3 && r->n < 4000) {
                int host = (int)(draw(&x) & 1);
                struct ns_pkt *p = malloc(sizeof *p);
                NRT_CHECK(p != NULL);
                NRT_EQ_INT(ns_evq_push(&q, (struct ns_ev){.at_ns = at, .type = NS_EV_ARRIVE,
                                                          .host = host, .pkt = p}), 0);
                ref_push(r, at, NS_EV_ARRIVE, host);
            } else if (op < 6 && r->n < 4000) {
                int slot = (int)(draw(&x) % NS_SLOTS);
                if (draw(&x) % 8 == 0)
                    at = INT64_MAX;
                NRT_EQ_INT(ns_evq_set(&q, (enum ns_slot)slot, at), 0);
                ref_push(r, at, slot == NS_SLOT_MEDIUM ? NS_EV_MEDIUM : NS_EV_WAKE,
                         slot == NS_SLOT_WAKE_B);
            } else {
                struct ns_ev ev = {0};
                struct ref_ev want = {0};
                int got = ns_evq_pop(&q, &ev);
                NRT_EQ_INT(got, ref_pop(r, &want));
                if (got < 0)
                    continue;
                now = ev.at_ns;
                mismatches += ev.at_ns != want.at_ns || ev.seq != want.seq || ev.type != want.type ||
                              (ev.type != NS_EV_STALE && ev.type != NS_EV_MEDIUM && ev.host != want.host);
                free(ev.pkt);
            }
            most = r->n > most ? r->n : most;
        }
        NRT_EQ_INT(mismatches, 0);
        size_t cap = 64;
        while (cap < (size_t)most)
            cap *= 2;
        NRT_EQ_INT(q.cap, cap);
        ns_evq_free(&q);
        free(r);
    }
}

static void test_a_slot_set_again_leaves_its_old_event_stale(void)
{
    struct ns_evq q = {0};
    NRT_EQ_INT(ns_evq_set(&q, NS_SLOT_WAKE_B, 10), 0);
    NRT_EQ_INT(ns_evq_set(&q, NS_SLOT_WAKE_B, 30), 0);
    NRT_EQ_INT(ns_evq_push(&q, (struct ns_ev){.at_ns = 30, .type = NS_EV_ARRIVE, .host = 1}), 0);
    NRT_EQ_INT(ns_evq_set(&q, NS_SLOT_MEDIUM, 20), 0);
    NRT_EQ_INT(ns_evq_set(&q, NS_SLOT_MEDIUM, INT64_MAX), 0);
    struct ns_ev ev;
    const int want[][2] = {{10, NS_EV_STALE}, {20, NS_EV_STALE}, {30, NS_EV_ARRIVE}, {30, NS_EV_WAKE}};
    for (int i = 0; i < 4; i++) {
        NRT_EQ_INT(ns_evq_pop(&q, &ev), 0);
        NRT_EQ_INT(ev.at_ns, want[i][0]);
        NRT_EQ_INT(ev.type, want[i][1]);
    }
    NRT_EQ_INT(ev.host, 1);
    NRT_EQ_INT(ns_evq_pop(&q, &ev), -1);
    ns_evq_free(&q);
}

static void test_empty_and_free_owned_packets(void)
{
    struct ns_evq q = {0};
    struct ns_ev ev;
    NRT_EQ_INT(ns_evq_pop(&q, &ev), -1);
    struct ns_pkt *p = malloc(sizeof *p + 4);
    NRT_CHECK(p != NULL);
    NRT_EQ_INT(ns_evq_push(&q, (struct ns_ev){.at_ns = 5, .type = NS_EV_ARRIVE, .pkt = p}), 0);
    ns_evq_free(&q); /* frees p; ASan or valgrind would report a leak otherwise */
    NRT_EQ_INT(q.len, 0);
}

int main(void)
{
    NRT_RUN(test_same_order_as_one_list_of_every_event);
    NRT_RUN(test_a_slot_set_again_leaves_its_old_event_stale);
    NRT_RUN(test_empty_and_free_owned_packets);
    return nrt_summary("netsim/test_evq");
}
