/* xoshiro256** seeded through splitmix64: fast, and the same seed gives the same draws on
 * every machine, so a run's losses and jitter can be reproduced. */
#ifndef LINKEMU_RNG_H
#define LINKEMU_RNG_H

#include <stdint.h>

struct le_rng {
    uint64_t s[4];
};

/* Seeds one stream; different `stream` values give independent sequences for one seed. */
void le_rng_seed(struct le_rng *r, uint64_t seed, uint64_t stream);
uint64_t le_rng_next(struct le_rng *r);
/* A uniform double in [0, 1). */
double le_rng_unit(struct le_rng *r);

#endif
