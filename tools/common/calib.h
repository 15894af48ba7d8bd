/* The cost of the busy loop (nrio_spin) on this host, and busy-waiting for a time.
 *
 * The papers cooled UDP with `for (i = 0; i < 2000; i++);`, a gap whose length depends on the
 * machine. A tool given a number of iterations measures what one costs here, at start, and
 * reports it, so a run states the gap it really made. */
#ifndef NR_CALIB_H
#define NR_CALIB_H

#include "nrio.h"

struct nr_calib {
    double ns_per_iter;     /* median over the rounds */
    double min_ns_per_iter; /* fastest round */
    double max_ns_per_iter; /* slowest round */
    long iterations;        /* per round */
    int rounds;
};

/* Times `rounds` busy loops of `iterations` each on io's clock. Returns 0, or -EINVAL when
 * iterations < 1 or rounds is not 1..NR_CALIB_MAX_ROUNDS. */
#define NR_CALIB_MAX_ROUNDS 101
int nr_calibrate_spin(nrio *io, long iterations, int rounds, struct nr_calib *out);

/* Busy-waits until io's clock has advanced by gap_ns, spinning in small slices: the clock is
 * read between slices, so the sim backend, which charges time per spin, advances too. */
void nr_busy_wait_ns(nrio *io, int64_t gap_ns);

#endif
