#include "pktstamp.h"

#include <string.h>
#include <time.h>

#include "clock.h"

int64_t nr_real_offset_ns(void)
{
    int64_t mono = nr_mono_ns();
    return nr_clock_ns(CLOCK_REALTIME) - mono;
}

int64_t nr_pktstamp_arrival_ns(const struct msghdr *msg, int64_t now, int64_t real_offset)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SO_TIMESTAMPNS)
            continue;
        struct timespec ts;
        memcpy(&ts, CMSG_DATA(c), sizeof ts);
        int64_t at = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec - real_offset;
        return at <= now && now - at < 1000000000LL ? at : now;
    }
    return now;
}
