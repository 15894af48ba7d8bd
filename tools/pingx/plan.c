#include "plan.h"

#include <stdlib.h>

/* splitmix64: a small, well-mixed generator; the same seed gives the same order everywhere. */
static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

struct px_item *px_plan(const struct pingx_args *a, long *n)
{
    long total = a->nsizes * a->count;
    struct px_item *p = malloc((size_t)total * sizeof *p);
    if (!p)
        return NULL;
    for (long i = 0; i < total; i++)
        p[i].size = a->sizes[i / a->count];
    if (a->shuffled) {
        uint64_t s = a->seed;
        for (long i = total - 1; i > 0; i--) {
            /* The modulo bias is below 2^-40 for any plan that fits in memory. */
            long j = (long)(next_rand(&s) % (uint64_t)(i + 1));
            long t = p[i].size;
            p[i].size = p[j].size;
            p[j].size = t;
        }
    }
    /* seq counts each size's echoes in the order they are sent; a size given twice in --sizes
     * is one size, counted by its first position. */
    long seen[PX_MAX_SIZES] = {0};
    for (long i = 0; i < total; i++) {
        int j = 0;
        while (a->sizes[j] != p[i].size)
            j++;
        p[i].seq = seen[j]++;
    }
    *n = total;
    return p;
}

int64_t px_interval(int64_t configured_ns, int64_t prev_measurement_ns)
{
    return prev_measurement_ns > configured_ns ? prev_measurement_ns : configured_ns;
}

int64_t px_timeout(int64_t configured_ns, long size)
{
    int64_t by_size = (int64_t)size * PX_TIMEOUT_NS_PER_OCTET;
    return by_size > configured_ns ? by_size : configured_ns;
}
