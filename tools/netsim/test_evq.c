/* The event queue pops in time order; at equal times arrivals before wake-ups, and each kind in
 * push order. */
#include <stdlib.h>

#include "evq.h"
#include "nrtest.h"

static void test_time_then_kind_then_push_order(void)
{
    struct ns_evq q = {0};
    /* Pseudo-random times with many ties; the host field records the push order. */
    uint64_t x = 12345;
    for (int i = 0; i < 1000; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        struct ns_ev ev = {.at_ns = (int64_t)(x >> 60), .host = i};
        ev.type = (x >> 40) & 1 ? NS_EV_ARRIVE : NS_EV_WAKE;
        NRT_EQ_INT(ns_evq_push(&q, ev), 0);
    }
    struct ns_ev prev, ev;
    NRT_EQ_INT(ns_evq_pop(&q, &prev), 0);
    int n = 1;
    while (ns_evq_pop(&q, &ev) == 0) {
        int later = ev.at_ns > prev.at_ns;
        int tie = ev.at_ns == prev.at_ns;
        int kind_after = prev.type == NS_EV_ARRIVE && ev.type == NS_EV_WAKE;
        int pushed_after = ev.type == prev.type && ev.host > prev.host;
        NRT_CHECK(later || (tie && (kind_after || pushed_after)));
        prev = ev;
        n++;
    }
    NRT_EQ_INT(n, 1000);
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
    NRT_RUN(test_time_then_kind_then_push_order);
    NRT_RUN(test_empty_and_free_owned_packets);
    return nrt_summary("netsim/test_evq");
}
