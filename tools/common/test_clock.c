/* The clock helpers read the clocks they name, in nanoseconds. */
#include "clock.h"
#include "nrtest.h"

static int64_t direct_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void test_mono_is_clock_monotonic_in_nanoseconds(void)
{
    int64_t before = direct_ns(CLOCK_MONOTONIC);
    int64_t got = nr_mono_ns();
    int64_t after = direct_ns(CLOCK_MONOTONIC);
    NRT_CHECK(before <= got && got <= after);
}

static void test_a_sleep_shows_in_full(void)
{
    int64_t t0 = nr_mono_ns();
    struct timespec ms = {0, 1000000};
    NRT_CHECK(nanosleep(&ms, NULL) == 0);
    NRT_CHECK(nr_mono_ns() - t0 >= 1000000);
}

static void test_any_clock_by_id(void)
{
    int64_t before = direct_ns(CLOCK_REALTIME);
    int64_t got = nr_clock_ns(CLOCK_REALTIME);
    NRT_CHECK(before <= got && got <= direct_ns(CLOCK_REALTIME));
}

int main(void)
{
    NRT_RUN(test_mono_is_clock_monotonic_in_nanoseconds);
    NRT_RUN(test_a_sleep_shows_in_full);
    NRT_RUN(test_any_clock_by_id);
    return nrt_summary("common/test_clock");
}
