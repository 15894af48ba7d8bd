/* netsim end to end: the real ttcp on two Tahoe stacks over the link model, in virtual time.
 * Expectations come from the mechanisms (the delayed-ACK tick, the link's rate), never from
 * the papers' measurements. */

#include "simtest.h"

#define TICK_NS 200000000LL

#define TX "\"role\":\"transmitter\""
#define SIM "\"record\":\"sim\""

/* A 100 Mb/s AAL5 link with MTU 9188 between two hosts of the IPC model, and a ttcp pair. */
#define ATM_LINK "--rate", "100Mbit", "--framing", "aal5-vc-mux", "--mtu", "9188B", \
                 "--host-model-a", ST_IPC_MODEL, "--host-model-b", ST_IPC_MODEL

static struct st_run ttcp_pair(const char *sndbuf, const char *rcvbuf, const char *bytes)
{
    char *args[] = {ATM_LINK, "--seed", "3", "--",
                    "-t", "--sndbuf", (char *)sndbuf, "--bytes", (char *)bytes, "--timeout",
                    "60s", NS_ADDR_B, "--",
                    "-r", "--rcvbuf", (char *)rcvbuf, "--timeout", "60s", NULL};
    return st_run_sim(args);
}

static void test_same_seed_same_output(void)
{
    char *args[] = {ATM_LINK, "--jitter", "20us", "--delay", "1ms", "--cell-loss-ratio", "2e-5",
                    "--seed", "7", "--", "-t", "--sndbuf", "48K", "--bytes", "1M", "--repeat",
                    "2", NS_ADDR_B, "--", "-r", "--rcvbuf", "48K", "--repeat", "2", NULL};
    /* Another seed moves the jitter and so the timings. */
    struct st_run r = st_check_seed(args, "8");
    NRT_EQ_INT(r.rc, 0);
    NRT_EQ_INT(r.status, 0);
    st_free(&r);
}

/* 16K/24K: once in lockstep each delayed-ACK tick of the receiver releases 8192 octets. Both
 * runs are identical up to the end of the shorter one, so the extra 2M of the longer one take
 * exactly the lockstep's time: 2M / 8192 ticks of 200 ms. */
static void test_16k_24k_lockstep(void)
{
    struct st_run r2 = ttcp_pair("16K", "24K", "2M");
    struct st_run r4 = ttcp_pair("16K", "24K", "4M");
    NRT_EQ_INT(r2.status, 0);
    NRT_EQ_INT(r4.status, 0);
    double t2 = st_field(&r2, TX, 0, "sender_elapsed_ns");
    double t4 = st_field(&r4, TX, 0, "sender_elapsed_ns");
    double expect_ns = (double)(2 << 20) / 8192 * TICK_NS;
    NRT_CHECK(t2 > 0 && t4 > t2);
    double marginal_bps = (double)(2 << 20) * 8 / ((t4 - t2) / 1e9);
    fprintf(stderr, "netsim/test_sim: 16K/24K marginal %.0f bit/s, whole 4M transfer %.0f bit/s\n",
            marginal_bps, st_field(&r4, TX, 0, "sender_bps"));
    NRT_CHECK(t4 - t2 > 0.995 * expect_ns && t4 - t2 < 1.005 * expect_ns);
    /* And the receiver's timer, not the link, paced it: a delayed ACK for each tick. */
    NRT_CHECK(st_field(&r4, SIM, 0, "b_tcps_delack") >= (double)(2 << 20) / 8192);
    NRT_EQ_INT(st_field(&r4, TX, 0, "receiver_bytes"), 4 << 20);

    /* 48K/48K streams: the link and the hosts' CPUs pace it, at least 20 times faster. */
    struct st_run n = ttcp_pair("48K", "48K", "4M");
    NRT_EQ_INT(n.status, 0);
    double normal_bps = st_field(&n, TX, 0, "sender_bps");
    NRT_CHECK(normal_bps > 20 * marginal_bps);
    NRT_CHECK(normal_bps < 100e6);
    NRT_EQ_INT(st_field(&n, SIM, 0, "b_tcps_delack") < 10, 1);
    st_free(&r2);
    st_free(&r4);
    st_free(&n);
}

/* Each ttcp transfer stands for a run of its own: with more transfers the hosts' context
 * switches have been drawn again, within the model's 15 % over its 128 us. */
static struct st_run ttcp_repeat(char *repeat)
{
    char *args[] = {ATM_LINK, "--seed", "3", "--", "-t", "--sndbuf", "48K", "--bytes", "64K",
                    "--repeat", repeat, NS_ADDR_B, "--", "-r", "--rcvbuf", "48K", "--repeat",
                    repeat, NULL};
    return st_run_sim(args);
}

static void test_each_transfer_draws_its_switch_cost(void)
{
    struct st_run one = ttcp_repeat("1");
    struct st_run three = ttcp_repeat("3");
    NRT_EQ_INT(one.status, 0);
    NRT_EQ_INT(three.status, 0);
    const char *keys[] = {"a_cpu_ctx_switch_ns", "b_cpu_ctx_switch_ns"};
    for (int k = 0; k < 2; k++) {
        double first = st_field(&one, SIM, 0, keys[k]);
        double third = st_field(&three, SIM, 0, keys[k]);
        NRT_CHECK(first >= 128000 && first <= 128000 * 1.15);
        NRT_CHECK(third >= 128000 && third <= 128000 * 1.15);
        NRT_CHECK(first != third);
    }
    st_free(&one);
    st_free(&three);
}

/* Cells lost on the line cost whole packets; Tahoe retransmits and every octet arrives. */
static void test_cell_loss_recovered(void)
{
    char *args[] = {ATM_LINK, "--cell-loss-ratio", "1e-4", "--seed", "5", "--",
                    "-t", "--sndbuf", "48K", "--bytes", "4M", "--timeout", "120s", NS_ADDR_B,
                    "--", "-r", "--rcvbuf", "48K", "--timeout", "120s", NULL};
    struct st_run r = st_run_sim(args);
    NRT_EQ_INT(r.rc, 0);
    NRT_EQ_INT(r.status, 0);
    NRT_EQ_INT(st_field(&r, TX, 0, "bytes"), 4 << 20);
    NRT_EQ_INT(st_field(&r, TX, 0, "receiver_bytes"), 4 << 20);
    NRT_CHECK(st_field(&r, SIM, 0, "forward_drop_cell_loss") > 0);
    NRT_CHECK(st_field(&r, SIM, 0, "a_tcps_sndrexmitpack") > 0);
    st_free(&r);
}

/* A UDP stream into an 8K socket buffer on a slower receiver: the datagrams the link carried
 * but the receiver dropped are counted where it dropped them, its udps_fullsock. */
static void test_udp_receiver_drops_counted(void)
{
    char *args[] = {ATM_LINK, "--host-model-b", ST_IPC_MODEL, "--seed", "3", "--",
                    "-t", "-u", "-l", "8K", "--bytes", "1M", "--timeout", "60s", NS_ADDR_B,
                    "--", "-r", "-u", "-l", "8K", "--rcvbuf", "8K", "--timeout", "60s", NULL};
    struct st_run r = st_run_sim(args);
    NRT_EQ_INT(r.rc, 0);
    NRT_EQ_INT(r.status, 0);
    double lost = st_field(&r, TX, 0, "datagrams_sent") - st_field(&r, TX, 0, "datagrams_received");
    NRT_CHECK(lost > 0);
    NRT_EQ_INT(st_field(&r, SIM, 0, "forward_drop_queue"), 0);
    NRT_CHECK(st_field(&r, SIM, 0, "b_udps_fullsock") >= lost);
    NRT_EQ_INT(st_field(&r, SIM, 0, "a_udps_fullsock"), 0);
    NRT_CHECK(st_field(&r, SIM, 0, "b_udps_ipackets") >= st_field(&r, TX, 0, "datagrams_sent"));
    st_free(&r);
}

static void test_bad_command_lines(void)
{
    struct ns_args a;
    FILE *null = fopen("/dev/null", "w");
    NRT_CHECK(null != NULL);
    if (!null)
        return;
    char *no_rate[] = {"netsim", "--", "-t", NS_ADDR_B, "--", "-r", NULL};
    NRT_EQ_INT(ns_parse_args(6, no_rate, &a, null, null), -1);
    char *wrong_host[] = {"netsim", "--rate", "1Mbit", "--", "-t", "10.0.0.9", "--", "-r", NULL};
    NRT_EQ_INT(ns_parse_args(8, wrong_host, &a, null, null), -1);
    char *repeat[] = {"netsim", "--rate", "1Mbit", "--", "-t", "--repeat", "2", NS_ADDR_B, "--",
                      "-r", NULL};
    NRT_EQ_INT(ns_parse_args(10, repeat, &a, null, null), -1);
    char *one_dash[] = {"netsim", "--rate", "1Mbit", "--", "-t", NS_ADDR_B, NULL};
    NRT_EQ_INT(ns_parse_args(6, one_dash, &a, null, null), -1);
    char *swapped[] = {"netsim", "--rate", "1Mbit", "--", "-r", "--", "-t", NS_ADDR_B, NULL};
    NRT_EQ_INT(ns_parse_args(8, swapped, &a, null, null), -1);
    char *good[] = {"netsim", "--rate", "1Mbit", "--reverse-delay", "3ms", "--", "-t", NS_ADDR_B,
                    "--", "-r", NULL};
    NRT_EQ_INT(ns_parse_args(10, good, &a, null, null), 0);
    NRT_EQ_INT(a.forward.delay_ns, 0);
    NRT_EQ_INT(a.reverse.delay_ns, 3000000);
    NRT_EQ_INT(a.reverse.queue_packets, a.forward.queue_packets);
    /* A --reverse- flag wins over its forward one wherever it stands; the rest copy forward. */
    char *order[] = {"netsim", "--reverse-loss-pct", "2", "--rate", "1Mbit", "--loss-pct", "5",
                     "--jitter", "1ms", "--", "-t", NS_ADDR_B, "--", "-r", NULL};
    NRT_EQ_INT(ns_parse_args(14, order, &a, null, null), 0);
    NRT_CHECK(a.forward.loss_pct == 5 && a.reverse.loss_pct == 2);
    NRT_EQ_INT(a.reverse.jitter_ns, 1000000);
    NRT_CHECK(a.reverse.rate_bps == 1e6);
    fclose(null);
}

/* ttcp's stack flags are refused by name, like the other programs', not handed to ttcp's own
 * parser, which would ask for the rest of them. */
static void test_ttcp_stack_flags_refused(void)
{
    char msg[512] = "";
    FILE *err = fmemopen(msg, sizeof msg, "w");
    NRT_CHECK(err != NULL);
    if (!err)
        return;
    static struct ns_args a;
    char *stack[] = {"netsim", "--rate", "1Mbit", "--", "-t", "--stack", "tahoe", NS_ADDR_B,
                     "--", "-r", NULL};
    NRT_EQ_INT(ns_parse_args(10, stack, &a, err, err), -1);
    fclose(err);
    NRT_CHECK(strstr(msg, "the transmitter arguments: drop --stack") != NULL);
}

int main(void)
{
    NRT_RUN(test_bad_command_lines);
    NRT_RUN(test_ttcp_stack_flags_refused);
    NRT_RUN(test_same_seed_same_output);
    NRT_RUN(test_16k_24k_lockstep);
    NRT_RUN(test_each_transfer_draws_its_switch_cost);
    NRT_RUN(test_cell_loss_recovered);
    NRT_RUN(test_udp_receiver_drops_counted);
    return nrt_summary("netsim/test_sim");
}
