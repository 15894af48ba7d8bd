#include <string.h>

#include "args.h"
#include "nrtest.h"

static struct pingx_args a;
static char err[256];

static int parse(char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    err[0] = '\0';
    return pingx_parse_args(argc, argv, &a, err, sizeof err);
}

static void test_defaults(void)
{
    char *argv[] = {"pingx", "--mode", "tcp", "--sizes", "12K-1,12K", NULL};
    NRT_EQ_INT(parse(argv), 0);
    NRT_EQ_INT(a.mode, PX_TCP);
    NRT_EQ_INT(a.nsizes, 2);
    NRT_EQ_INT(a.sizes[0], 12287);
    NRT_EQ_INT(a.sizes[1], 12288);
    NRT_EQ_INT(a.count, 50);
    NRT_EQ_INT(a.interval_ns, 1000000000);
    NRT_EQ_INT(a.timeout_ns, 5000000000LL);
    NRT_EQ_INT(a.udp_quiet_ns, 500000000);
    NRT_EQ_INT(a.datagram, 8192);
    NRT_EQ_INT(a.cool_gap_ns, -1);
    NRT_EQ_INT(a.cool_iterations, -1);
    NRT_EQ_INT(a.port, 9007);
    NRT_EQ_STR(a.host, "127.0.0.1");
    NRT_EQ_STR(a.stack, "kernel");
    NRT_EQ_INT(a.shuffled, 0);
    NRT_EQ_INT(a.sndbuf, 0);
    NRT_EQ_INT(a.rcvbuf, 0);
    NRT_EQ_INT(a.print_each, 0);
    NRT_EQ_INT(a.pacing, PX_PACING_GRID);
}

static void test_everything(void)
{
    char *argv[] = {"pingx", "--mode", "udp-cooled", "--sizes", "8B,4M", "--count", "20",
                    "--order", "shuffled", "--seed", "42", "--interval", "200ms", "--timeout",
                    "2s", "--udp-quiet", "100ms", "--datagram", "1K", "--cool-iterations",
                    "2000", "--sndbuf", "16K", "--rcvbuf", "51K+204B", "--host", "10.0.0.2",
                    "--port", "7007", "--max-silent", "9", "--stack", "kernel", "--print-each",
                    "--pacing", "alarm", NULL};
    NRT_EQ_INT(parse(argv), 0);
    NRT_EQ_INT(a.mode, PX_UDP_COOLED);
    NRT_EQ_INT(a.sizes[1], 4194304);
    NRT_EQ_INT(a.count, 20);
    NRT_EQ_INT(a.shuffled, 1);
    NRT_EQ_INT(a.seed, 42);
    NRT_EQ_INT(a.interval_ns, 200000000);
    NRT_EQ_INT(a.timeout_ns, 2000000000);
    NRT_EQ_INT(a.udp_quiet_ns, 100000000);
    NRT_EQ_INT(a.datagram, 1024);
    NRT_EQ_INT(a.cool_iterations, 2000);
    NRT_EQ_INT(a.print_each, 1);
    NRT_EQ_INT(a.sndbuf, 16384);
    NRT_EQ_INT(a.rcvbuf, 52428);
    NRT_EQ_STR(a.host, "10.0.0.2");
    NRT_EQ_INT(a.port, 7007);
    NRT_EQ_INT(a.max_silent, 9);
    NRT_EQ_INT(a.pacing, PX_PACING_ALARM);
    NRT_EQ_STR(pingx_pacing_name(a.pacing), "alarm");
}

static void test_modes(void)
{
    const char *names[] = {"tcp-per-message", "tcp", "tcp-nodelay", "udp"};
    for (int i = 0; i < 4; i++) {
        char *argv[] = {"pingx", "--mode", (char *)names[i], "--sizes", "1K", NULL};
        NRT_EQ_INT(parse(argv), 0);
        NRT_EQ_INT(a.mode, i);
        NRT_EQ_STR(pingx_mode_name(a.mode), names[i]);
    }
    char *gap[] = {"pingx", "--mode", "udp-cooled", "--cool-gap", "2ms", "--sizes", "1K", NULL};
    NRT_EQ_INT(parse(gap), 0);
    NRT_EQ_INT(a.cool_gap_ns, 2000000);
}

static void refused(char **argv, const char *needle)
{
    NRT_EQ_INT(parse(argv), -1);
    if (!strstr(err, needle))
        fprintf(stderr, "error \"%s\" lacks \"%s\"\n", err, needle);
    NRT_CHECK(strstr(err, needle) != NULL);
}

static void test_refusals(void)
{
    char *no_mode[] = {"pingx", "--sizes", "1K", NULL};
    refused(no_mode, "--mode");
    char *no_sizes[] = {"pingx", "--mode", "tcp", NULL};
    refused(no_sizes, "--sizes");
    char *bad_mode[] = {"pingx", "--mode", "tcp-fast", "--sizes", "1K", NULL};
    refused(bad_mode, "tcp-fast");
    char *small[] = {"pingx", "--mode", "tcp", "--sizes", "7B", NULL};
    refused(small, "8B");
    char *big[] = {"pingx", "--mode", "tcp", "--sizes", "4M+1", NULL};
    refused(big, "4M");
    char *bare[] = {"pingx", "--mode", "tcp", "--sizes", "1024", NULL};
    refused(bare, "units");
    char *bare_time[] = {"pingx", "--mode", "tcp", "--sizes", "1K", "--interval", "1", NULL};
    refused(bare_time, "--interval");
    char *pacing[] = {"pingx", "--mode", "tcp", "--sizes", "1K", "--pacing", "signal", NULL};
    refused(pacing, "grid or alarm");
    char *both[] = {"pingx", "--mode", "udp-cooled", "--sizes", "1K", "--cool-gap", "1ms",
                    "--cool-iterations", "5", NULL};
    refused(both, "exactly one");
    char *neither[] = {"pingx", "--mode", "udp-cooled", "--sizes", "1K", NULL};
    refused(neither, "exactly one");
    char *cool_tcp[] = {"pingx", "--mode", "udp", "--sizes", "1K", "--cool-gap", "1ms", NULL};
    refused(cool_tcp, "udp-cooled only");
    char *stack[] = {"pingx", "--mode", "tcp", "--sizes", "1K", "--stack", "tahoe", NULL};
    refused(stack, "--if IFACE");
    char *bsd[] = {"pingx", "--mode", "tcp", "--sizes", "1K", "--stack", "bsd", NULL};
    refused(bsd, "kernel");
    char *if_kernel[] = {"pingx", "--mode", "tcp", "--sizes", "1K", "--if", "h1-eth0", NULL};
    refused(if_kernel, "--stack tahoe only");
    char *host[] = {"pingx", "--mode", "tcp", "--sizes", "1K", "--host", "h1", NULL};
    refused(host, "IPv4");
    char *dgram[] = {"pingx", "--mode", "udp", "--sizes", "1K", "--datagram", "15B", NULL};
    refused(dgram, "--datagram");
    char *many[] = {"pingx", "--mode", "udp", "--sizes", "4M", "--datagram", "16B", NULL};
    refused(many, "datagrams");
    char *port[] = {"pingx", "--mode", "tcp", "--sizes", "1K", "--port", "65536", NULL};
    refused(port, "--port");
    char *extra[] = {"pingx", "--mode", "tcp", "--sizes", "1K", "stray", NULL};
    refused(extra, "stray");
    char *unknown[] = {"pingx", "--mode", "tcp", "--sizes", "1K", "--verbose", NULL};
    refused(unknown, "--verbose");
    /* Issue 32: a deadline of now + this timeout wrapped around: every echo lost, exit 0. */
    char *forever[] = {"pingx", "--mode", "tcp", "--sizes", "1K", "--timeout",
                       "9223372036854775807ns", NULL};
    refused(forever, "--timeout 9223372036854775807ns: give a time from 1ms to 3600s");
    char *long_interval[] = {"pingx", "--mode", "tcp", "--sizes", "1K", "--interval", "3601s", NULL};
    refused(long_interval, "--interval 3601s: give a time up to 3600s");
    char *padded[] = {"pingx", "--mode", "tcp", "--sizes", "1K", "--count", "007", NULL};
    refused(padded, "--count 007");
}

static void test_help(void)
{
    char *argv[] = {"pingx", "--help", NULL};
    NRT_EQ_INT(parse(argv), 1);
}

/* The Tahoe stack's flags reach the args; the stack name follows --stack. */
static void test_tahoe(void)
{
    char *argv[] = {"pingx", "--mode", "tcp", "--sizes", "1K", "--host", "10.0.0.2", "--stack",
                    "tahoe", "--if", "h1-eth0", "--addr", "10.0.0.1/24", "--host-model",
                    "m.yaml", "--mtu", "9188B", "--tcp-sendspace", "16K", "--tcp-recvspace",
                    "24K", NULL};
    NRT_EQ_INT(parse(argv), 0);
    NRT_EQ_STR(a.stack, "tahoe");
    NRT_EQ_STR(a.net.ifname, "h1-eth0");
    NRT_EQ_INT(a.net.prefix, 24);
    NRT_EQ_STR(a.net.host_model, "m.yaml");
    NRT_EQ_INT(a.net.mtu, 9188);
    NRT_EQ_INT(a.net.tcp_sendspace, 16384);
    NRT_EQ_INT(a.net.tcp_recvspace, 24576);
}

int main(void)
{
    NRT_RUN(test_defaults);
    NRT_RUN(test_tahoe);
    NRT_RUN(test_everything);
    NRT_RUN(test_modes);
    NRT_RUN(test_refusals);
    NRT_RUN(test_help);
    return nrt_summary("pingx/test_args");
}
