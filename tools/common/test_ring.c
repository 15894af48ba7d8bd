/* ring_move keeps a ring's elements in order whether or not they wrap, and refuses a size that
 * cannot hold them without touching the ring. */
#include <stdint.h>
#include <stdlib.h>

#include "nrtest.h"
#include "ring.h"

static void test_wrapped_ring_comes_out_in_order(void)
{
    /* slots 0..4 of 5; the ring starts at slot 3: 30, 40, then 0, 10 wrapped round */
    int64_t *q = malloc(5 * sizeof *q);
    NRT_CHECK(q != NULL);
    for (int i = 0; i < 5; i++)
        q[i] = 10 * i;
    int64_t *moved = ring_move(q, sizeof *q, 3, 4, 5, 10);
    NRT_CHECK(moved != NULL);
    NRT_CHECK(moved[0] == 30 && moved[1] == 40 && moved[2] == 0 && moved[3] == 10);
    free(moved);
}

static void test_unwrapped_and_empty_rings(void)
{
    unsigned char *b = malloc(4);
    NRT_CHECK(b != NULL);
    b[1] = 'a';
    b[2] = 'b';
    unsigned char *moved = ring_move(b, 1, 1, 2, 4, 8);
    NRT_CHECK(moved != NULL && moved[0] == 'a' && moved[1] == 'b');
    free(moved);
    /* a ring never given memory: nothing to copy, a fresh array */
    void *fresh = ring_move(NULL, 8, 0, 0, 0, 64);
    NRT_CHECK(fresh != NULL);
    free(fresh);
}

static void test_too_small_or_too_large_leaves_ring(void)
{
    size_t *q = malloc(4 * sizeof *q);
    NRT_CHECK(q != NULL);
    q[0] = 7;
    NRT_CHECK(ring_move(q, sizeof *q, 0, 4, 4, 3) == NULL);
    NRT_CHECK(ring_move(q, sizeof *q, 0, 4, 4, SIZE_MAX / 2) == NULL);
    NRT_CHECK(q[0] == 7); /* still the caller's */
    free(q);
}

int main(void)
{
    NRT_RUN(test_wrapped_ring_comes_out_in_order);
    NRT_RUN(test_unwrapped_and_empty_rings);
    NRT_RUN(test_too_small_or_too_large_leaves_ring);
    return nrt_summary("common/test_ring");
}
