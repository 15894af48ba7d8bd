/* The seeded generator: one seed and stream give one sequence on every machine, streams are
 * independent, and the unit draws are uniform in [0, 1). */
#include "nrtest.h"
#include "rng.h"

#define DRAWS 100000

static void test_known_sequence(void)
{
    /* Pinned, so a change to the generator, which would change every seeded run, shows. */
    struct nr_rng r;
    nr_rng_seed(&r, 1994, 0);
    NRT_CHECK(nr_rng_next(&r) == 10985599389106287629ULL);
    NRT_CHECK(nr_rng_next(&r) == 8427545374570396621ULL);
}

static void test_same_seed_same_draws_other_stream_others(void)
{
    struct nr_rng a, b, c;
    nr_rng_seed(&a, 42, 3);
    nr_rng_seed(&b, 42, 3);
    nr_rng_seed(&c, 42, 4);
    int same = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t x = nr_rng_next(&a);
        NRT_CHECK(x == nr_rng_next(&b));
        same += x == nr_rng_next(&c);
    }
    NRT_EQ_INT(same, 0);
}

static void test_unit_draws_are_uniform(void)
{
    struct nr_rng r;
    nr_rng_seed(&r, 7, 0);
    int below_half = 0, out_of_range = 0;
    for (int i = 0; i < DRAWS; i++) {
        double u = nr_rng_unit(&r);
        out_of_range += u < 0.0 || u >= 1.0;
        below_half += u < 0.5;
    }
    NRT_EQ_INT(out_of_range, 0);
    /* 5 standard deviations of a fair binomial count. */
    NRT_CHECK(below_half > DRAWS / 2 - 800 && below_half < DRAWS / 2 + 800);
}

int main(void)
{
    NRT_RUN(test_known_sequence);
    NRT_RUN(test_same_seed_same_draws_other_stream_others);
    NRT_RUN(test_unit_draws_are_uniform);
    return nrt_summary("common/test_rng");
}
