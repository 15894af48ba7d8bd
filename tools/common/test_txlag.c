/* Transmit lag: stamps are matched to the send calls that made them, the lead is a robust
 * per-size median, and a real socket's error queue yields stamps. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "nrtest.h"
#include "txlag.h"

static void test_no_samples_no_lead(void)
{
    struct nr_txlag t;
    nr_txlag_init(&t);
    NRT_CHECK(nr_txlag_lead(&t, 9202) == 0);
    NRT_CHECK(nr_txlag_lead(&t, 54) == 0);
}

static void test_lead_is_the_median_of_its_size(void)
{
    struct nr_txlag t;
    nr_txlag_init(&t);
    int64_t at = 1000000;
    /* Nine lags near 3 us, one 400 us preemption: the lead ignores the outlier. */
    for (int i = 0; i < 10; i++) {
        nr_txlag_sent(&t, 9202, at);
        nr_txlag_stamp(&t, at + (i == 4 ? 400000 : 3000 + 10 * i));
        at += 1000000;
    }
    NRT_EQ_INT((int)t.samples, 10);
    int64_t lead = nr_txlag_lead(&t, 9202);
    NRT_CHECK(lead >= 3000 && lead <= 3100);
    /* Small frames have not been measured: they borrow nothing from the large ones. */
    NRT_CHECK(nr_txlag_lead(&t, 54) == 0);
    /* A larger size not yet measured takes the nearest smaller size's lead. */
    NRT_CHECK(nr_txlag_lead(&t, 60000) == lead);
}

static void test_window_follows_a_change(void)
{
    struct nr_txlag t;
    nr_txlag_init(&t);
    int64_t at = 0;
    for (int i = 0; i < NR_TXLAG_WINDOW; i++, at += 100000) {
        nr_txlag_sent(&t, 60, at);
        nr_txlag_stamp(&t, at + 2000);
    }
    for (int i = 0; i < NR_TXLAG_WINDOW; i++, at += 100000) {
        nr_txlag_sent(&t, 60, at);
        nr_txlag_stamp(&t, at + 1000);
    }
    NRT_CHECK(nr_txlag_lead(&t, 60) == 1000);
}

static void test_lead_is_capped(void)
{
    struct nr_txlag t;
    nr_txlag_init(&t);
    for (int i = 0; i < 3; i++) {
        nr_txlag_sent(&t, 1500, i * 10000000LL);
        nr_txlag_stamp(&t, i * 10000000LL + 5000000);
    }
    NRT_CHECK(nr_txlag_lead(&t, 1500) == NR_TXLAG_MAX_LEAD_NS);
}

static void test_stamps_match_their_calls(void)
{
    struct nr_txlag t;
    nr_txlag_init(&t);
    /* A batch call at 0 sends three frames: only its first stamp is a sample. */
    nr_txlag_sent(&t, 1500, 0);
    nr_txlag_stamp(&t, 2000);
    nr_txlag_stamp(&t, 3000);
    nr_txlag_stamp(&t, 4000);
    NRT_EQ_INT((int)t.samples, 1);
    /* Two calls before their stamps are read: each stamp goes to the latest call before it. */
    nr_txlag_sent(&t, 1500, 10000);
    nr_txlag_sent(&t, 1500, 20000);
    nr_txlag_stamp(&t, 12500);
    nr_txlag_stamp(&t, 22500);
    NRT_EQ_INT((int)t.samples, 3);
    NRT_CHECK(nr_txlag_lead(&t, 1500) == 2500);
    /* A stamp older than every call remembered is not a sample. */
    nr_txlag_stamp(&t, 5000);
    NRT_EQ_INT((int)t.samples, 3);
}

static void test_calls_beyond_the_ring_are_forgotten(void)
{
    struct nr_txlag t;
    nr_txlag_init(&t);
    for (int i = 0; i < NR_TXLAG_CALLS + 10; i++)
        nr_txlag_sent(&t, 100, i * 1000);
    NRT_EQ_INT((int)t.ncalls, NR_TXLAG_CALLS);
    nr_txlag_stamp(&t, 5);
    NRT_EQ_INT((int)t.samples, 0);
    nr_txlag_stamp(&t, (NR_TXLAG_CALLS + 9) * 1000 + 700);
    NRT_EQ_INT((int)t.samples, 1);
    NRT_CHECK(nr_txlag_lead(&t, 100) == 700);
}

/* A UDP socket on the loopback device gets software transmit stamps as a packet socket on a
 * veth does, through the same error queue. */
static void test_socket_error_queue(void)
{
    int rx = socket(AF_INET, SOCK_DGRAM, 0);
    int tx = socket(AF_INET, SOCK_DGRAM, 0);
    NRT_CHECK(rx >= 0 && tx >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    NRT_CHECK(bind(rx, (struct sockaddr *)&a, sizeof a) == 0);
    NRT_CHECK(getsockname(rx, (struct sockaddr *)&a, &alen) == 0);
    NRT_EQ_INT(nr_txlag_enable(tx), 0);
    struct nr_txlag t;
    nr_txlag_init(&t);
    char payload[1000] = {0};
    int got = 0;
    for (int i = 0; i < 5; i++) {
        int64_t at = nr_mono_ns();
        NRT_CHECK(sendto(tx, payload, sizeof payload, 0, (struct sockaddr *)&a, sizeof a) ==
                  (ssize_t)sizeof payload);
        nr_txlag_sent(&t, sizeof payload, at);
        int n = nr_txlag_collect(&t, tx);
        NRT_CHECK(n >= 0);
        got += n;
    }
    NRT_EQ_INT(got, 5);
    NRT_EQ_INT((int)t.samples, 5);
    int64_t lead = nr_txlag_lead(&t, sizeof payload);
    NRT_CHECK(lead > 0 && lead < NR_TXLAG_MAX_LEAD_NS);
    close(rx);
    close(tx);
}

int main(void)
{
    NRT_RUN(test_no_samples_no_lead);
    NRT_RUN(test_lead_is_the_median_of_its_size);
    NRT_RUN(test_window_follows_a_change);
    NRT_RUN(test_lead_is_capped);
    NRT_RUN(test_stamps_match_their_calls);
    NRT_RUN(test_calls_beyond_the_ring_are_forgotten);
    NRT_RUN(test_socket_error_queue);
    return nrt_summary("common/test_txlag");
}
