/* mftp's command line, and rates with units. */
#include <string.h>

#include "args.h"
#include "nrtest.h"

static int parse(struct mftp_args *a, char *err, const char *const *argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    return mftp_parse_args(argc, (char **)argv, a, err, 256);
}

static void test_defaults(void)
{
    struct mftp_args a;
    char err[256];
    const char *argv[] = {"mftp", "--get", "f", "10.0.0.1", NULL};
    NRT_EQ_INT(parse(&a, err, argv), 0);
    NRT_EQ_STR(a.get, "f");
    NRT_EQ_STR(a.dest, "/dev/null");
    NRT_EQ_INT(a.connections, 0);
    NRT_EQ_INT(a.window, 0);
    NRT_EQ_INT(a.rtt_method, MFTP_RTT_AUTO);
    NRT_EQ_INT(a.setup, MFTP_SETUP_PARALLEL);
    NRT_EQ_INT(a.blocking_writes, 0);
    NRT_EQ_INT(a.port, 2121);
    NRT_EQ_INT(a.repeat, 1);
    NRT_EQ_STR(a.stack, "kernel");
    const char *b[] = {"mftp", "--put", "f", "-n", "16", "--window", "24K", "--target-rate",
                       "30Mbit", "--rtt-method", "tcp", "--block", "64K", "--setup", "serial",
                       "--blocking-writes", "10.0.0.1", NULL};
    NRT_EQ_INT(parse(&a, err, b), 0);
    NRT_EQ_INT(a.connections, 16);
    NRT_EQ_INT(a.window, 24576);
    NRT_CHECK(a.target_bps == 30e6);
    NRT_EQ_INT(a.rtt_method, MFTP_RTT_TCP);
    NRT_EQ_INT(a.block, 65536);
    NRT_EQ_INT(a.setup, MFTP_SETUP_SERIAL);
    NRT_EQ_INT(a.blocking_writes, 1);
    NRT_EQ_STR(a.remote_name, "/dev/null");
}

static void test_refusals(void)
{
    static const struct {
        const char *argv[10];
        const char *says;
    } bad[] = {
        {{"mftp", "10.0.0.1"}, "--get"},
        {{"mftp", "--get", "a", "--put", "b", "10.0.0.1"}, "--get"},
        {{"mftp", "--get", "a"}, "HOST"},
        {{"mftp", "--get", "a", "-n", "17", "10.0.0.1"}, "-n"},
        {{"mftp", "--get", "a", "-n", "0", "10.0.0.1"}, "-n"},
        {{"mftp", "--get", "a", "--target-rate", "10", "10.0.0.1"}, "unit"},
        {{"mftp", "--get", "a", "--target-rate", "10Mbit", "10.0.0.1"}, "--window"},
        {{"mftp", "--get", "a", "--plain", "-n", "4", "10.0.0.1"}, "--plain"},
        {{"mftp", "--get", "a", "--rtt-method", "udp", "10.0.0.1"}, "--rtt-method"},
        {{"mftp", "--get", "a", "--window", "24", "10.0.0.1"}, "--window"},
        /* The whole message of the shared checks (common/nrargs.h), which name the flag,
         * the text and what is accepted. */
        {{"mftp", "--get", "a", "-n", "17", "10.0.0.1"},
         "-n 17: give a number of connections from 1 to 16"},
        {{"mftp", "--get", "a", "--window", "24", "10.0.0.1"},
         "--window 24: give a size from 0B to 512M, e.g. 24K"},
        {{"mftp", "--get", "a", "--block", "0B", "10.0.0.1"},
         "--block 0B: give a size from 1B to 16M, e.g. 32K"},
        {{"mftp", "--get", "a", "--rtt-method", "udp", "10.0.0.1"},
         "--rtt-method udp: give auto, icmp or tcp"},
        {{"mftp", "--get", "a", "--setup", "lazy", "10.0.0.1"},
         "--setup lazy: give parallel or serial"},
        {{"mftp", "--get", "a", "--rtt-samples", "1001", "10.0.0.1"},
         "--rtt-samples 1001: give a number of probes from 0 to 1000"},
        {{"mftp", "--get", "a", "--stack", "bsd", "10.0.0.1"},
         "--stack bsd: give kernel (Linux) or tahoe"},
        {{"mftp", "--get", "a", "--stack", "tahoe", "10.0.0.1"}, "--stack tahoe needs --if IFACE"},
        {{"mftp", "--get", "a", "--mtu", "9188B", "10.0.0.1"}, "apply to --stack tahoe only"},
        {{"mftp", "--get", "a", "--timeout", "0ms", "10.0.0.1"},
         "--timeout 0ms: give a time above 0, at most 3600s, e.g. 5s"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct mftp_args a;
        char err[256] = "";
        NRT_EQ_INT(parse(&a, err, bad[i].argv), -1);
        if (!strstr(err, bad[i].says))
            fprintf(stderr, "case %zu: \"%s\" lacks \"%s\"\n", i, err, bad[i].says);
        NRT_CHECK(strstr(err, bad[i].says) != NULL);
    }
}

/* The Tahoe stack's flags reach the args and the records' stack name follows --stack. */
static void test_tahoe(void)
{
    struct mftp_args a;
    char err[256] = "";
    const char *argv[] = {"mftp", "--get", "f", "-n", "4", "--stack", "tahoe", "--if", "h1-eth0",
                          "--addr", "10.0.0.1/24", "--host-model", "ss20.yaml", "--mtu", "9188B",
                          "--tcp-sendspace", "24K", "--tcp-recvspace", "24K", "10.0.0.2", NULL};
    NRT_EQ_INT(parse(&a, err, argv), 0);
    NRT_EQ_STR(a.stack, "tahoe");
    NRT_EQ_STR(a.net.ifname, "h1-eth0");
    NRT_EQ_INT(a.net.prefix, 24);
    NRT_EQ_STR(a.net.host_model, "ss20.yaml");
    NRT_EQ_INT(a.net.mtu, 9188);
    NRT_EQ_INT(a.net.tcp_sendspace, 24576);
    NRT_EQ_INT(a.net.tcp_recvspace, 24576);
    NRT_EQ_INT(a.connections, 4);
    NRT_EQ_STR(a.host, "10.0.0.2");
}

/* Without nrio's raw socket, the Tahoe stack measures the RTT by TCP connect: auto and tcp are
 * taken, icmp is refused with what to give instead, unless no RTT is measured at all. */
static void test_tahoe_rtt(void)
{
    struct mftp_args a;
    char err[256] = "";
#define TAHOE "--stack", "tahoe", "--if", "e0", "--addr", "10.0.0.1/24", "--host-model", "m"
    const char *autom[] = {"mftp", "--get", "f", TAHOE, "10.0.0.2", NULL};
    NRT_EQ_INT(parse(&a, err, autom), 0);
    NRT_EQ_INT(a.rtt_method, MFTP_RTT_AUTO);
    const char *tcp[] = {"mftp", "--get", "f", TAHOE, "--rtt-method", "tcp", "--target-rate",
                         "10Mbit", "--window", "24K", "10.0.0.2", NULL};
    NRT_EQ_INT(parse(&a, err, tcp), 0);
    NRT_EQ_INT(a.rtt_method, MFTP_RTT_TCP);
    const char *icmp[] = {"mftp", "--get", "f", TAHOE, "--rtt-method", "icmp", "10.0.0.2", NULL};
    NRT_EQ_INT(parse(&a, err, icmp), -1);
    NRT_EQ_STR(err, "--rtt-method icmp needs the kernel stack's raw socket; on --stack tahoe "
                    "give --rtt-method tcp (auto uses it there), or --rtt-samples 0 to skip the "
                    "RTT");
    const char *none[] = {"mftp", "--get", "f", TAHOE, "--rtt-method", "icmp", "--rtt-samples",
                          "0", "-n", "2", "10.0.0.2", NULL};
    NRT_EQ_INT(parse(&a, err, none), 0);
    const char *kernel[] = {"mftp", "--get", "f", "--stack", "kernel", "--rtt-method", "icmp",
                            "10.0.0.2", NULL};
    NRT_EQ_INT(parse(&a, err, kernel), 0);
    NRT_EQ_STR(a.stack, "kernel");
#undef TAHOE
}

static void test_rate(void)
{
    double r;
    NRT_EQ_INT(mftp_parse_rate("100Mbit", &r), 0);
    NRT_CHECK(r == 100e6);
    NRT_EQ_INT(mftp_parse_rate("2.5Gbit", &r), 0);
    NRT_CHECK(r == 2.5e9);
    NRT_EQ_INT(mftp_parse_rate("64kbit", &r), 0);
    NRT_CHECK(r == 64e3);
    NRT_EQ_INT(mftp_parse_rate("100", &r), -1);
    NRT_EQ_INT(mftp_parse_rate("100MB", &r), -1);
    NRT_EQ_INT(mftp_parse_rate("-1Mbit", &r), -1);
    NRT_EQ_INT(mftp_parse_rate("Mbit", &r), -1);
}

int main(void)
{
    NRT_RUN(test_defaults);
    NRT_RUN(test_refusals);
    NRT_RUN(test_tahoe);
    NRT_RUN(test_tahoe_rtt);
    NRT_RUN(test_rate);
    return nrt_summary("mftp/test_args");
}
