/* The release queue gives frames back by time, and in arrival order for equal times. */
#include <stdlib.h>

#include "nrtest.h"
#include "pq.h"

static void test_order(void)
{
    struct le_pq q = {0};
    static const int64_t times[] = {50, 10, 30, 10, 70, 20, 10, 60, 40, 30};
    struct le_pkt pkts[10];
    for (int i = 0; i < 10; i++) {
        pkts[i] = (struct le_pkt){.release_ns = times[i], .seq = (uint64_t)i};
        NRT_EQ_INT(le_pq_push(&q, &pkts[i]), 0);
    }
    NRT_EQ_INT(le_pq_top(&q)->release_ns, 10);
    int64_t last_t = -1;
    uint64_t last_seq = 0;
    for (int i = 0; i < 10; i++) {
        struct le_pkt *p = le_pq_pop(&q);
        NRT_CHECK(p->release_ns >= last_t);
        if (p->release_ns == last_t)
            NRT_CHECK(p->seq > last_seq);
        last_t = p->release_ns;
        last_seq = p->seq;
    }
    NRT_CHECK(le_pq_pop(&q) == NULL);
    le_pq_free(&q);
}

static void test_many_random(void)
{
    struct le_pq q = {0};
    enum { N = 5000 };
    static struct le_pkt pkts[N];
    srand(1);
    for (int i = 0; i < N; i++) {
        pkts[i] = (struct le_pkt){.release_ns = rand() % 1000, .seq = (uint64_t)i};
        NRT_EQ_INT(le_pq_push(&q, &pkts[i]), 0);
    }
    int sorted = 1;
    struct le_pkt *prev = le_pq_pop(&q);
    for (int i = 1; i < N; i++) {
        struct le_pkt *p = le_pq_pop(&q);
        sorted &= p->release_ns > prev->release_ns ||
                  (p->release_ns == prev->release_ns && p->seq > prev->seq);
        prev = p;
    }
    NRT_CHECK(sorted);
    NRT_EQ_INT(q.len, 0);
    le_pq_free(&q);
}

int main(void)
{
    NRT_RUN(test_order);
    NRT_RUN(test_many_random);
    return nrt_summary("linkemu/test_pq");
}
