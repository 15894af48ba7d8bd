#include <stdlib.h>

#include "nrtest.h"
#include "plan.h"

static struct pingx_args args(int shuffled, uint64_t seed)
{
    struct pingx_args a = {0};
    a.sizes[0] = 512;
    a.sizes[1] = 12287;
    a.sizes[2] = 100;
    a.nsizes = 3;
    a.count = 4;
    a.shuffled = shuffled;
    a.seed = seed;
    return a;
}

static void test_sequential(void)
{
    struct pingx_args a = args(0, 1);
    long n;
    struct px_item *p = px_plan(&a, &n);
    NRT_CHECK(p != NULL);
    if (!p)
        return;
    NRT_EQ_INT(n, 12);
    for (long i = 0; i < n; i++) {
        NRT_EQ_INT(p[i].size, a.sizes[i / 4]);
        NRT_EQ_INT(p[i].seq, i % 4);
    }
    free(p);
}

static void test_shuffled(void)
{
    struct pingx_args a = args(1, 7);
    long n, n2;
    struct px_item *p = px_plan(&a, &n), *q = px_plan(&a, &n2);
    a.seed = 8;
    long n3;
    struct px_item *r = px_plan(&a, &n3);
    NRT_CHECK(p && q && r);
    if (!p || !q || !r)
        return;
    long count[3] = {0}, next_seq[3] = {0};
    int same_as_sequential = 1, same_seed_same = 1, other_seed_same = 1;
    for (long i = 0; i < n; i++) {
        int k = p[i].size == 512 ? 0 : p[i].size == 12287 ? 1 : 2;
        count[k]++;
        /* seq numbers each size's echoes in the order they are sent */
        NRT_EQ_INT(p[i].seq, next_seq[k]++);
        same_as_sequential &= p[i].size == a.sizes[i / 4];
        same_seed_same &= p[i].size == q[i].size;
        other_seed_same &= p[i].size == r[i].size;
    }
    NRT_EQ_INT(count[0], 4);
    NRT_EQ_INT(count[1], 4);
    NRT_EQ_INT(count[2], 4);
    NRT_CHECK(!same_as_sequential);
    NRT_CHECK(same_seed_same);
    NRT_CHECK(!other_seed_same);
    free(p);
    free(q);
    free(r);
}

static void test_repeated_size(void)
{
    struct pingx_args a = args(0, 1);
    a.sizes[2] = 512;
    long n;
    struct px_item *p = px_plan(&a, &n);
    NRT_CHECK(p != NULL);
    if (!p)
        return;
    NRT_EQ_INT(p[8].size, 512);
    NRT_EQ_INT(p[8].seq, 4); /* continues the count of the first 512 */
    free(p);
}

static void test_interval_rule(void)
{
    NRT_EQ_INT(px_interval(1000000000, 0), 1000000000);
    NRT_EQ_INT(px_interval(1000000000, 999999999), 1000000000);
    /* a measurement longer than the interval pushes the next message back */
    NRT_EQ_INT(px_interval(1000000000, 1500000000), 1500000000);
    NRT_EQ_INT(px_interval(0, 7), 7);
}

static void test_timeout_rule(void)
{
    NRT_EQ_INT(px_timeout(5000000000LL, 8), 5000000000LL);
    NRT_EQ_INT(px_timeout(5000000000LL, 4194304), 4194304LL * PX_TIMEOUT_NS_PER_OCTET);
    NRT_EQ_INT(px_timeout(100000000000LL, 4194304), 100000000000LL);
}

int main(void)
{
    NRT_RUN(test_sequential);
    NRT_RUN(test_shuffled);
    NRT_RUN(test_repeated_size);
    NRT_RUN(test_interval_rule);
    NRT_RUN(test_timeout_rule);
    return nrt_summary("pingx/test_plan");
}
