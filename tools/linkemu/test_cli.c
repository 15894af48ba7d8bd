/* The command line: units, defaults, reverse overrides and refusals. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "nrtest.h"

static FILE *devnull;

static int parse(struct le_opts *o, const char *line)
{
    char buf[1024];
    char *argv[64];
    int argc = 0;
    snprintf(buf, sizeof buf, "linkemu %s", line);
    for (char *tok = strtok(buf, " "); tok && argc < 63; tok = strtok(NULL, " "))
        argv[argc++] = tok;
    argv[argc] = NULL;
    static char keep[1024];
    memcpy(keep, buf, sizeof buf); /* opts point into argv strings */
    for (int i = 0; i < argc; i++)
        argv[i] = keep + (argv[i] - buf);
    return le_parse_args(argc, argv, o, devnull, devnull);
}

static void test_units(void)
{
    double r;
    int64_t t;
    uint64_t s;
    NRT_EQ_INT(le_parse_rate("155.52Mbit", &r), 0);
    NRT_CHECK(r == 155.52e6);
    NRT_EQ_INT(le_parse_rate("10", &r), -1);
    NRT_EQ_INT(le_parse_rate("10mbit", &r), -1);
    NRT_EQ_INT(le_parse_time("250us", &t), 0);
    NRT_EQ_INT(t, 250000);
    NRT_EQ_INT(le_parse_time("1.5s", &t), 0);
    NRT_EQ_INT(t, 1500000000);
    NRT_EQ_INT(le_parse_time("5", &t), -1);
    NRT_EQ_INT(le_parse_time("-5ms", &t), -1);
    NRT_EQ_INT(le_parse_size("9188B", &s), 0);
    NRT_EQ_INT(s, 9188);
    NRT_EQ_INT(le_parse_size("64K", &s), 0);
    NRT_EQ_INT(s, 65536);
    NRT_EQ_INT(le_parse_size("1500", &s), 0);
    NRT_EQ_INT(s, 1500);
    NRT_EQ_INT(le_parse_size("1.5B", &s), -1);
}

/* Issue 32: "0x10" was 16% loss, " 10" and "010" passed as 10. */
static void test_numbers_are_plain_decimal(void)
{
    double d;
    int64_t t;
    NRT_EQ_INT(le_parse_number("0x10", 0, 100, &d), -1);
    NRT_EQ_INT(le_parse_number(" 10", 0, 100, &d), -1);
    NRT_EQ_INT(le_parse_number("010", 0, 100, &d), -1);
    NRT_EQ_INT(le_parse_number("1e1", 0, 100, &d), 0);
    NRT_CHECK(d == 10);
    NRT_EQ_INT(le_parse_number("1.0000000000000001e-05", 0, 1, &d), 0);
    NRT_EQ_INT(le_parse_time("0x10ms", &t), -1);
    NRT_EQ_INT(le_parse_time(" 10ms", &t), -1);
    NRT_EQ_INT(le_parse_rate("0x10Mbit", &d), -1);
    NRT_EQ_INT(le_parse_rate("infbit", &d), -1);
}

static void test_defaults(void)
{
    struct le_opts o;
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 10Mbit"), 0);
    NRT_EQ_STR(o.if_a, "x");
    NRT_EQ_INT(o.framing, LE_FRAMING_ETHERNET);
    NRT_EQ_INT(o.mtu, 1500);
    NRT_EQ_INT(o.forward.queue_packets, 50);
    NRT_EQ_INT(o.forward.queue_bytes, 0);
    NRT_EQ_INT(o.forward.delay_ns, 0);
    NRT_EQ_INT(o.seed, 1);
    NRT_EQ_INT(o.spin_ns, 150000);
    NRT_EQ_INT(o.priority, 0);
    NRT_EQ_INT(o.frame_times, 0);
    NRT_CHECK(!o.shared_medium);
    NRT_CHECK(o.stats_path == NULL);
    NRT_CHECK(o.reverse.rate_bps == 10e6);
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 10Mbit --frame-times"), 0);
    NRT_EQ_INT(o.frame_times, 1);
}

static void test_reverse_overrides(void)
{
    struct le_opts o;
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 140Mbit --framing aal5-llc-snap --mtu 9188B "
                         "--delay 100ms --cell-loss-ratio 1e-5 --reverse-rate 10Mbit "
                         "--reverse-delay 5ms --queue-bytes 64K --seed 9 --stats s.json"), 0);
    NRT_EQ_INT(o.framing, LE_FRAMING_AAL5_LLC_SNAP);
    NRT_EQ_INT(o.mtu, 9188);
    NRT_CHECK(o.forward.rate_bps == 140e6);
    NRT_CHECK(o.reverse.rate_bps == 10e6);
    NRT_EQ_INT(o.forward.delay_ns, 100000000);
    NRT_EQ_INT(o.reverse.delay_ns, 5000000);
    NRT_CHECK(o.reverse.cell_loss_ratio == 1e-5);
    NRT_EQ_INT(o.reverse.queue_bytes, 65536);
    NRT_EQ_INT(o.seed, 9);
    NRT_EQ_STR(o.stats_path, "s.json");
}

/* netrepro passes every link flag, zeros included, so a shared link's zeros must pass. */
static void test_medium(void)
{
    struct le_opts o;
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 10Mbit --medium duplex"), 0);
    NRT_CHECK(!o.shared_medium);
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 10Mbit --delay 500ns --jitter 0ns --loss-pct 0 "
                         "--cell-loss-ratio 0 --bit-error-ratio 0 --queue-packets 50 --queue-bytes 0B "
                         "--medium shared"), 0);
    NRT_CHECK(o.shared_medium);
    NRT_EQ_INT(o.forward.delay_ns, 500);
    NRT_EQ_INT(o.forward.queue_packets, 50);
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 10Mbit --medium hub"), -1);
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 10Mbit --medium"), -1);
    /* The medium models the wire and the interface queues only. */
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 10Mbit --medium shared --framing aal5-vc-mux"), -1);
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 10Mbit --medium shared --reverse-rate 1Mbit"), -1);
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 10Mbit --medium shared --delay 1ms --jitter 1us"), -1);
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 10Mbit --medium shared --loss-pct 1"), -1);
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 10Mbit --medium shared --bit-error-ratio 1e-6"), -1);
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 10Mbit --medium shared --queue-bytes 64K"), -1);
}

static void test_refusals(void)
{
    struct le_opts o;
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y"), -1);                     /* no rate */
    NRT_EQ_INT(parse(&o, "--if-a x --rate 1Mbit"), -1);                 /* no if-b */
    NRT_EQ_INT(parse(&o, "--if-a x --if-b x --rate 1Mbit"), -1);        /* same interface */
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 1Mbit --loss-pct 101"), -1);
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 1Mbit --cell-loss-ratio 2"), -1);
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 1Mbit --delay 10"), -1);
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 0Mbit"), -1);
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 1Mbit --framing atm"), -1);
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 1Mbit --bogus 1"), -1);
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 1Mbit extra"), -1);
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 1Mbit --mtu 20B"), -1);
    NRT_EQ_INT(parse(&o, "--if-a x --if-b y --rate 1Mbit --priority 100"), -1);
    NRT_EQ_INT(parse(&o, "--help"), 1);
}

int main(void)
{
    devnull = fopen("/dev/null", "w");
    if (!devnull) {
        perror("test_cli: cannot open /dev/null");
        return 1;
    }
    NRT_RUN(test_units);
    NRT_RUN(test_numbers_are_plain_decimal);
    NRT_RUN(test_defaults);
    NRT_RUN(test_reverse_overrides);
    NRT_RUN(test_medium);
    NRT_RUN(test_refusals);
    fclose(devnull);
    return nrt_summary("linkemu/test_cli");
}
