/* A real-time host's clock: real time until something happens, then the latest event's
 * instant, whatever the real time has reached by then; never backwards. */
#include "hostclock.h"
#include "nrtest.h"

static void test_real_time_before_any_event(void)
{
    struct hostclock c;
    hostclock_init(&c);
    NRT_EQ_INT(hostclock_now(&c, 5000), 5000);
}

static void test_a_late_driver_does_not_move_the_host(void)
{
    struct hostclock c;
    hostclock_init(&c);
    /* The wait was for 1 ms; the driver came back 30 us late. */
    hostclock_event(&c, 1000000);
    NRT_EQ_INT(hostclock_now(&c, 1030000), 1000000);
}

static void test_the_latest_event_counts_and_time_never_goes_back(void)
{
    struct hostclock c;
    hostclock_init(&c);
    hostclock_event(&c, 2000000);
    hostclock_event(&c, 1500000); /* a frame stamped before the deadline, read after it */
    NRT_EQ_INT(hostclock_now(&c, 2100000), 2000000);
    hostclock_event(&c, 2050000);
    NRT_EQ_INT(hostclock_now(&c, 2100000), 2050000);
}

int main(void)
{
    NRT_RUN(test_real_time_before_any_event);
    NRT_RUN(test_a_late_driver_does_not_move_the_host);
    NRT_RUN(test_the_latest_event_counts_and_time_never_goes_back);
    return nrt_summary("tahoe/test_hostclock");
}
