#include "clock.h"

#include <stdio.h>
#include <stdlib.h>

int64_t nr_clock_ns(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0) {
        perror("clock_gettime failed; this host lacks the monotonic or real-time clock the tools "
               "time everything by");
        abort();
    }
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t nr_mono_ns(void)
{
    return nr_clock_ns(CLOCK_MONOTONIC);
}
