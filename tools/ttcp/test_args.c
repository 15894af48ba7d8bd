/* ttcp's command line: defaults, units, and refusals with a useful message. */
#include <string.h>

#include "args.h"
#include "nrio.h"
#include "nrtest.h"

static int parse(struct ttcp_args *a, char *err, const char *const *argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    return ttcp_parse_args(argc, (char **)argv, a, err, 256);
}

static void test_defaults(void)
{
    struct ttcp_args a;
    char err[256];
    const char *argv[] = {"ttcp", "-t", "10.0.0.2", NULL};
    NRT_EQ_INT(parse(&a, err, argv), 0);
    NRT_EQ_INT(a.transmit, 1);
    NRT_EQ_INT(a.proto, NRIO_TCP);
    NRT_EQ_STR(a.host, "10.0.0.2");
    NRT_EQ_STR(a.stack, "kernel");
    NRT_EQ_INT(a.write_size, 8192);
    NRT_EQ_INT(a.bytes, 8192LL * 1024);
    NRT_EQ_INT(a.repeat, 1);
    NRT_EQ_INT(a.sndbuf, 0);
    NRT_EQ_INT(a.nodelay, 0);
}

static void test_full(void)
{
    struct ttcp_args a;
    char err[256];
    const char *argv[] = {"ttcp", "-r", "-u", "--stack", "kernel", "-p", "6000", "-l", "1K",
                          "--bytes", "4M", "--rcvbuf", "24K", "--sndbuf", "16K",
                          "--cool-spin", "2000", "--repeat", "50", "--pause", "250ms",
                          "--timeout", "3s", "--bind", "127.0.0.1", NULL};
    NRT_EQ_INT(parse(&a, err, argv), 0);
    NRT_EQ_INT(a.transmit, 0);
    NRT_EQ_INT(a.proto, NRIO_UDP);
    NRT_EQ_INT(a.port, 6000);
    NRT_EQ_INT(a.write_size, 1024);
    NRT_EQ_INT(a.bytes, 4 << 20);
    NRT_EQ_INT(a.rcvbuf, 24 << 10);
    NRT_EQ_INT(a.sndbuf, 16 << 10);
    NRT_EQ_INT(a.cool_spin, 2000);
    NRT_EQ_INT(a.repeat, 50);
    NRT_EQ_INT(a.pause_ns, 250000000);
    NRT_EQ_INT(a.pause_spread_ns, 0);
    NRT_EQ_INT(a.seed, 1);
    NRT_EQ_INT(a.timeout_ns, 3000000000LL);
    NRT_EQ_STR(a.bind_ip, "127.0.0.1");

    const char *spread[] = {"ttcp", "-t", "--pause", "5s", "--pause-spread", "1s", "--seed",
                            "1994", "--timeout", "7s", "127.0.0.1", NULL};
    NRT_EQ_INT(parse(&a, err, spread), 0);
    NRT_EQ_INT(a.pause_spread_ns, 1000000000LL);
    NRT_EQ_INT(a.seed, 1994);

    const char *w[] = {"ttcp", "-t", "-n", "10", "-l", "2K", "-D", "127.0.0.1", NULL};
    NRT_EQ_INT(parse(&a, err, w), 0);
    NRT_EQ_INT(a.bytes, 20480);
    NRT_EQ_INT(a.nodelay, 1);
}

/* Each bad command line is refused with a message naming the culprit. */
static void test_refusals(void)
{
    static const struct {
        const char *argv[10];
        const char *says;
    } bad[] = {
        {{"ttcp", "127.0.0.1"}, "-t"},
        {{"ttcp", "-t", "-r", "127.0.0.1"}, "exclude"},
        {{"ttcp", "-t"}, "HOST"},
        {{"ttcp", "-r", "127.0.0.1"}, "--bind"},
        {{"ttcp", "-t", "-p", "70000", "1.2.3.4"}, "--port"},
        {{"ttcp", "-t", "-l", "8192", "1.2.3.4"}, "-l"},
        {{"ttcp", "-t", "--stack", "tahoe", "1.2.3.4"}, "--if IFACE"},
        {{"ttcp", "-t", "--stack", "tahoe", "--if", "e0", "--addr", "10.0.0.1", "1.2.3.4"},
         "prefix"},
        {{"ttcp", "-t", "--tcp-sendspace", "16K", "1.2.3.4"}, "--stack tahoe only"},
        {{"ttcp", "-t", "--cool-gap", "1ms", "1.2.3.4"}, "UDP"},
        {{"ttcp", "-t", "-u", "-l", "8B", "1.2.3.4"}, "header"},
        {{"ttcp", "-t", "-u", "-D", "1.2.3.4"}, "TCP"},
        {{"ttcp", "-t", "-u", "--cool-gap", "1ms", "--cool-spin", "5", "1.2.3.4"}, "exclude"},
        {{"ttcp", "-t", "--timeout", "1s", "--pause", "2s", "1.2.3.4"}, "--timeout"},
        {{"ttcp", "-t", "--timeout", "3s", "--pause", "2s", "--pause-spread", "1s", "1.2.3.4"},
         "--pause-spread"},
        {{"ttcp", "-t", "--seed", "-1", "1.2.3.4"}, "--seed -1: give a seed from 0"},
        {{"ttcp", "-t", "--repeat", "0", "1.2.3.4"}, "--repeat"},
        {{"ttcp", "-t", "host.example"}, "IPv4"},
        {{"ttcp", "-t", "--frobnicate", "1.2.3.4"}, "unknown"},
        /* The whole message of the shared checks (common/nrargs.h), which name the flag,
         * the text and what is accepted. */
        {{"ttcp", "-t", "-p", "0", "1.2.3.4"}, "--port 0: give a port from 1 to 65535"},
        {{"ttcp", "-t", "-n", "0", "1.2.3.4"},
         "-n 0: give a number of writes from 1 to 1099511627776"},
        {{"ttcp", "-t", "--end-markers", "101", "1.2.3.4"},
         "--end-markers 101: give a number of markers from 1 to 100"},
        {{"ttcp", "-t", "-l", "2048M", "1.2.3.4"},
         "-l 2048M: give a write size from 1B to 1024M, e.g. 8K"},
        {{"ttcp", "-t", "--sndbuf", "16", "1.2.3.4"},
         "--sndbuf 16: give a size from 0B to 1024M, e.g. 16K"},
        {{"ttcp", "-t", "--bytes", "0B", "1.2.3.4"},
         "--bytes 0B: give a size of at least 1B, e.g. 4M"},
        {{"ttcp", "-t", "--timeout", "0s", "1.2.3.4"},
         "--timeout 0s: give a time above 0, at most 3600s, e.g. 5s"},
        {{"ttcp", "-t", "--pause", "1", "1.2.3.4"}, "--pause 1: give a time, at most 3600s, e.g. 5s"},
        {{"ttcp", "-t", "--timeout", "3601s", "1.2.3.4"},
         "--timeout 3601s: give a time above 0, at most 3600s, e.g. 5s"},
        {{"ttcp", "-t", "1.2.3"}, "1.2.3: not a dotted IPv4 address"},
        {{"ttcp", "-t", "--frobnicate", "1.2.3.4"},
         "--frobnicate: unknown option or missing value; see ttcp --help"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct ttcp_args a;
        char err[256] = "";
        int rc = parse(&a, err, bad[i].argv);
        NRT_EQ_INT(rc, -1);
        if (!strstr(err, bad[i].says))
            fprintf(stderr, "case %zu: message \"%s\" lacks \"%s\"\n", i, err, bad[i].says);
        NRT_CHECK(strstr(err, bad[i].says) != NULL);
    }
}

static void test_help(void)
{
    struct ttcp_args a;
    char err[256];
    const char *argv[] = {"ttcp", "--help", NULL};
    NRT_EQ_INT(parse(&a, err, argv), 1);
}

int main(void)
{
    NRT_RUN(test_defaults);
    NRT_RUN(test_full);
    NRT_RUN(test_refusals);
    NRT_RUN(test_help);
    return nrt_summary("ttcp/test_args");
}
