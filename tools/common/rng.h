/* xoshiro256** seeded through splitmix64: fast, and the same seed gives the same draws on
 * every machine, so a run's losses and jitter can be reproduced. */
#ifndef NR_RNG_H
#define NR_RNG_H

#include <stdint.h>

struct nr_rng {
    uint64_t s[4];
};

/* Seeds one stream; different `stream` values give independent sequences for one seed. */
void nr_rng_seed(struct nr_rng *r, uint64_t seed, uint64_t stream);
uint64_t nr_rng_next(struct nr_rng *r);
/* A uniform double in [0, 1). */
double nr_rng_unit(struct nr_rng *r);

#endif
