/* What pingx sends and when: the run order of messages, and the rules that raise the interval
 * and the timeout for large messages. Pure functions, so the rules are tested as written. */
#ifndef PINGX_PLAN_H
#define PINGX_PLAN_H

#include <stdint.h>

#include "args.h"

/* A round trip at 1 Mbit/s: 8 bits per octet each way. */
#define PX_TIMEOUT_NS_PER_OCTET 16000LL

struct px_item {
    long size;
    long seq; /* index of this echo among those of its size, in run order */
};

/* The run order: each size --count times; sequential keeps the sizes' order, shuffled permutes
 * all messages with --seed. Returns a malloc'd array of *n items, or NULL when out of memory. */
struct px_item *px_plan(const struct pingx_args *a, long *n);

/* Start-to-start time before a message: the configured interval, raised to the time the
 * previous message's measurement took (0 for the first message). */
int64_t px_interval(int64_t configured_ns, int64_t prev_measurement_ns);

/* Longest wait for the echo of a message of size octets. */
int64_t px_timeout(int64_t configured_ns, long size);

#endif
