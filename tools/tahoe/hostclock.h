/* The time of a host whose stack runs in real time, as the stack and its application see it:
 * the latest instant something happened to the host (a frame arrived, a deadline it waited
 * for came), not the moment the driver got round to it. A driver wakes and loops a little
 * late; taking that lateness as the host's time would push all its later work back by as
 * much, again and again, where virtual time does not. The time never goes back, and before
 * anything has happened it is real time. */
#ifndef TAHOE_HOSTCLOCK_H
#define TAHOE_HOSTCLOCK_H

#include <stdint.h>

struct hostclock {
    int64_t at; /* INT64_MIN: nothing has happened yet */
};

static inline void hostclock_init(struct hostclock *c) { c->at = INT64_MIN; }

/* Something happened to the host at t. */
static inline void hostclock_event(struct hostclock *c, int64_t t)
{
    if (t > c->at)
        c->at = t;
}

static inline int64_t hostclock_now(const struct hostclock *c, int64_t real_now)
{
    return c->at == INT64_MIN ? real_now : c->at;
}

#endif
