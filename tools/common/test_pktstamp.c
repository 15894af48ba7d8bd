/* Kernel receive stamps become monotonic arrival times, and implausible ones are refused. */
#include "nrtest.h"
#include "pktstamp.h"

#include <time.h>

struct stamped {
    struct msghdr msg;
    union {
        char buf[NR_PKTSTAMP_CMSG_SPACE];
        struct cmsghdr align;
    } ctl;
};

static void stamp(struct stamped *s, int64_t real_ns)
{
    memset(s, 0, sizeof *s);
    s->msg.msg_control = s->ctl.buf;
    s->msg.msg_controllen = sizeof s->ctl.buf;
    struct cmsghdr *c = CMSG_FIRSTHDR(&s->msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SO_TIMESTAMPNS;
    c->cmsg_len = CMSG_LEN(sizeof(struct timespec));
    struct timespec ts = {real_ns / 1000000000LL, real_ns % 1000000000LL};
    memcpy(CMSG_DATA(c), &ts, sizeof ts);
}

static void test_a_stamp_becomes_the_monotonic_arrival(void)
{
    struct stamped s;
    int64_t offset = 1700000000LL * 1000000000LL, now = 5000000000LL;
    stamp(&s, offset + now - 42000);
    NRT_EQ_INT(nr_pktstamp_arrival_ns(&s.msg, now, offset), now - 42000);
}

static void test_future_or_stale_stamps_fall_back_to_now(void)
{
    struct stamped s;
    int64_t offset = 1700000000LL * 1000000000LL, now = 5000000000LL;
    stamp(&s, offset + now + 1000);
    NRT_EQ_INT(nr_pktstamp_arrival_ns(&s.msg, now, offset), now);
    stamp(&s, offset + now - 2000000000LL);
    NRT_EQ_INT(nr_pktstamp_arrival_ns(&s.msg, now, offset), now);
}

static void test_no_stamp_is_now(void)
{
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    NRT_EQ_INT(nr_pktstamp_arrival_ns(&msg, 77, 0), 77);
}

static void test_the_offset_is_real_minus_monotonic(void)
{
    struct timespec r, m;
    clock_gettime(CLOCK_REALTIME, &r);
    clock_gettime(CLOCK_MONOTONIC, &m);
    int64_t expect = ((int64_t)r.tv_sec - m.tv_sec) * 1000000000LL + (r.tv_nsec - m.tv_nsec);
    int64_t got = nr_real_offset_ns();
    NRT_CHECK(got - expect < 1000000 && expect - got < 1000000);
}

int main(void)
{
    NRT_RUN(test_a_stamp_becomes_the_monotonic_arrival);
    NRT_RUN(test_future_or_stale_stamps_fall_back_to_now);
    NRT_RUN(test_no_stamp_is_now);
    NRT_RUN(test_the_offset_is_real_minus_monotonic);
    return nrt_summary("common/test_pktstamp");
}
