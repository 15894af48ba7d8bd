/* ttcp end to end on 127.0.0.1: receiver and transmitter in forked processes on a free port. */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "nrtest.h"
#include "nrtest_proc.h"

#define DEADLINE_S 10
#define TRANSFER "\"record\":\"transfer\""

/* The integer after "key": in the n-th transfer record (its line only); -1 if absent. */
static long long field(const char *text, int n, const char *key)
{
    const char *p = text;
    for (int i = 0; p && i <= n; i++)
        p = strstr(i ? p + 1 : p, TRANSFER);
    return nrt_field_before(p, key, p ? strchr(p, '\n') : NULL);
}

static void test_tcp(void)
{
    char port[8];
    snprintf(port, sizeof port, "%d", nrt_free_port(SOCK_STREAM));
    const char *rx[] = {"ttcp", "-r", "-p", port, "--bind", "127.0.0.1", "--repeat", "2",
                        "--pause", "50ms", "--timeout", "5s", NULL};
    const char *tx[] = {"ttcp", "-t", "-p", port, "--bytes", "1M", "-l", "8K", "--repeat", "2",
                        "--pause", "50ms", "--timeout", "5s", "-D", "--sndbuf", "32K",
                        "127.0.0.1", NULL};
    NRT_EQ_INT(nrt_run_pair(rx, "rx.out", tx, "tx.out", 0), 0);
    const char *out = nrt_read("tx.out");
    NRT_EQ_INT(nrt_count(out, TRANSFER), 2);
    for (int i = 0; i < 2; i++) {
        NRT_EQ_INT(field(out, i, "index"), i);
        NRT_EQ_INT(field(out, i, "bytes"), 1 << 20);
        NRT_EQ_INT(field(out, i, "receiver_bytes"), 1 << 20);
        NRT_EQ_INT(field(out, i, "writes"), 128);
        NRT_CHECK(field(out, i, "sender_bps") > 0);
        NRT_CHECK(field(out, i, "receiver_bps") > 0);
        NRT_CHECK(field(out, i, "elapsed_ns") > 0);
        NRT_EQ_INT(field(out, i, "sndbuf_requested"), 32768);
        NRT_CHECK(field(out, i, "sndbuf") >= 32768);
    }
    NRT_CHECK(strstr(out, "\"nodelay\":true") != NULL);
    out = nrt_read("rx.out");
    NRT_EQ_INT(nrt_count(out, TRANSFER), 2);
    NRT_EQ_INT(field(out, 1, "receiver_bytes"), 1 << 20);
    NRT_CHECK(strstr(out, "\"role\":\"receiver\"") != NULL);
}

static void test_udp(void)
{
    char port[8];
    snprintf(port, sizeof port, "%d", nrt_free_port(SOCK_DGRAM));
    const char *rx[] = {"ttcp", "-r", "-u", "-p", port, "--bind", "127.0.0.1", "--timeout",
                        "5s", NULL};
    const char *tx[] = {"ttcp", "-t", "-u", "-p", port, "-n", "200", "-l", "1K", "--cool-gap",
                        "100us", "--timeout", "5s", "127.0.0.1", NULL};
    NRT_EQ_INT(nrt_run_pair(rx, "urx.out", tx, "utx.out", atoi(port)), 0);
    const char *out = nrt_read("utx.out");
    NRT_EQ_INT(field(out, 0, "datagrams_sent"), 200);
    long long got = field(out, 0, "datagrams_received");
    NRT_CHECK(got > 0);
    NRT_EQ_INT(got + field(out, 0, "datagrams_lost"), 200);
    NRT_EQ_INT(field(out, 0, "receiver_bytes"), got * 1024);
    NRT_EQ_INT(field(out, 0, "cool_gap_ns"), 100000);
    out = nrt_read("urx.out");
    NRT_EQ_INT(field(out, 0, "datagrams_received"), got);
    NRT_EQ_INT(field(out, 0, "datagrams_sent"), 200);
}

/* --pause-spread: each pause is --pause plus a draw below the spread, the draws differ from
 * transfer to transfer, and a second run with the same --seed draws the same pauses. */
static void test_pause_spread(void)
{
    long long first[3] = {0};
    for (int run = 0; run < 2; run++) {
        char port[8];
        snprintf(port, sizeof port, "%d", nrt_free_port(SOCK_STREAM));
        const char *rx[] = {"ttcp", "-r", "-p", port, "--bind", "127.0.0.1", "--repeat", "4",
                            "--timeout", "5s", NULL};
        const char *tx[] = {"ttcp", "-t", "-p", port, "--bytes", "64K", "--repeat", "4",
                            "--pause", "20ms", "--pause-spread", "100ms", "--seed", "7",
                            "--timeout", "5s", "127.0.0.1", NULL};
        NRT_EQ_INT(nrt_run_pair(rx, "prx.out", tx, "ptx.out", 0), 0);
        const char *out = nrt_read("ptx.out");
        NRT_EQ_INT(nrt_count(out, TRANSFER), 4);
        NRT_EQ_INT(nrt_count(out, "\"pause_ns\":null"), 1); /* no pause before the first */
        for (int i = 1; i < 4; i++) {
            long long pause = field(out, i, "pause_ns");
            NRT_CHECK(pause >= 20000000 && pause < 120000000);
            if (run == 0)
                first[i - 1] = pause;
            else
                NRT_EQ_INT(pause, first[i - 1]);
        }
        NRT_CHECK(first[0] != first[1] && first[1] != first[2]);
        NRT_EQ_INT(nrt_count(nrt_read("prx.out"), "\"pause_ns\":null"), 4);
    }
}

/* No receiver: both protocols give up at --timeout with an error record and status 1. */
static void test_no_peer(void)
{
    char port[8];
    snprintf(port, sizeof port, "%d", nrt_free_port(SOCK_DGRAM));
    const char *udp[] = {"ttcp", "-t", "-u", "-p", port, "-n", "5", "-l", "1K", "--timeout",
                         "400ms", "--pause", "0s", "127.0.0.1", NULL};
    const char *tcp[] = {"ttcp", "-t", "-p", port, "-n", "5", "--timeout", "400ms", "--pause",
                         "0s", "127.0.0.1", NULL};
    const char *const *cases[] = {udp, tcp};
    for (int i = 0; i < 2; i++) {
        time_t deadline = time(NULL) + DEADLINE_S;
        NRT_EQ_INT(nrt_reap(nrt_start(cases[i], "none.out"), deadline), 1);
        const char *out = nrt_read("none.out");
        NRT_CHECK(strstr(out, "\"record\":\"error\"") != NULL);
        NRT_CHECK(strstr(out, "timeout") != NULL);
    }
}

int main(void)
{
    nrt_setup("ttcp");
    NRT_RUN(test_tcp);
    NRT_RUN(test_udp);
    NRT_RUN(test_pause_spread);
    NRT_RUN(test_no_peer);
    nrt_scratch_remove();
    return nrt_summary("ttcp/test_loopback");
}
