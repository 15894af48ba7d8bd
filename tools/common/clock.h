/* The system clocks in nanoseconds. Every timing the tools make rests on them, and
 * clock_gettime fails only where a clock is missing altogether, so a failure ends the program
 * with a message rather than handing back a value nothing could use. */
#ifndef NR_CLOCK_H
#define NR_CLOCK_H

#include <stdint.h>
#include <time.h>

int64_t nr_clock_ns(clockid_t id);

/* CLOCK_MONOTONIC, which all Mininet hosts share: the tools' time base. */
int64_t nr_mono_ns(void);

#endif
