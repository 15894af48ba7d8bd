#include "calib.h"

#include <stdlib.h>

/* Small enough to overshoot a gap by well under a microsecond on any current host. */
#define SLICE_ITERATIONS 64

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int nr_calibrate_spin(nrio *io, long iterations, int rounds, struct nr_calib *out)
{
    double per[NR_CALIB_MAX_ROUNDS];
    if (iterations < 1 || rounds < 1 || rounds > NR_CALIB_MAX_ROUNDS || !out)
        return -EINVAL;
    for (int r = 0; r < rounds; r++) {
        int64_t t0 = nrio_now_ns(io);
        nrio_spin(io, iterations);
        int64_t t1 = nrio_now_ns(io);
        per[r] = (double)(t1 - t0) / (double)iterations;
    }
    qsort(per, (size_t)rounds, sizeof per[0], cmp_double);
    out->ns_per_iter = rounds % 2 ? per[rounds / 2] : (per[rounds / 2 - 1] + per[rounds / 2]) / 2;
    out->min_ns_per_iter = per[0];
    out->max_ns_per_iter = per[rounds - 1];
    out->iterations = iterations;
    out->rounds = rounds;
    return 0;
}

void nr_busy_wait_ns(nrio *io, int64_t gap_ns)
{
    int64_t until = nrio_now_ns(io) + gap_ns;
    while (nrio_now_ns(io) < until)
        nrio_spin(io, SLICE_ITERATIONS);
}
