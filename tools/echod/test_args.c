#include <string.h>

#include "args.h"
#include "nrtest.h"

static struct echod_args a;
static char err[256];

static int parse(char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    err[0] = '\0';
    return echod_parse_args(argc, argv, &a, err, sizeof err);
}

static void test_defaults(void)
{
    char *argv[] = {"echod", NULL};
    NRT_EQ_INT(parse(argv), 0);
    NRT_EQ_INT(a.port, 9007);
    NRT_EQ_INT(a.tcp, 1);
    NRT_EQ_INT(a.udp, 1);
    NRT_EQ_INT(a.udp_quiet_ns, 500000000);
    NRT_EQ_INT(a.echo_gap_ns, 0);
    NRT_EQ_INT(a.max_message, 4194304);
    NRT_EQ_INT(a.sndbuf, 0);
    NRT_EQ_INT(a.rcvbuf, 0);
    NRT_EQ_STR(a.bind_ip, "0.0.0.0");
    NRT_EQ_STR(a.stack, "kernel");
}

static void test_everything(void)
{
    char *argv[] = {"echod", "--port", "7007", "--proto", "udp", "--udp-quiet", "2s",
                    "--echo-gap", "7ms",
                    "--sndbuf", "16K", "--rcvbuf", "48K", "--max-message", "8M", "--bind",
                    "10.0.0.1", "--stack", "kernel", NULL};
    NRT_EQ_INT(parse(argv), 0);
    NRT_EQ_INT(a.port, 7007);
    NRT_EQ_INT(a.tcp, 0);
    NRT_EQ_INT(a.udp, 1);
    NRT_EQ_INT(a.udp_quiet_ns, 2000000000);
    NRT_EQ_INT(a.echo_gap_ns, 7000000);
    NRT_EQ_INT(a.sndbuf, 16384);
    NRT_EQ_INT(a.rcvbuf, 49152);
    NRT_EQ_INT(a.max_message, 8388608);
    NRT_EQ_STR(a.bind_ip, "10.0.0.1");
    char *tcp[] = {"echod", "--proto", "tcp", NULL};
    NRT_EQ_INT(parse(tcp), 0);
    NRT_EQ_INT(a.tcp, 1);
    NRT_EQ_INT(a.udp, 0);
}

static void refused(char **argv, const char *needle)
{
    NRT_EQ_INT(parse(argv), -1);
    NRT_CHECK(strstr(err, needle) != NULL);
}

static void test_refusals(void)
{
    char *proto[] = {"echod", "--proto", "sctp", NULL};
    refused(proto, "sctp");
    char *quiet[] = {"echod", "--udp-quiet", "500", NULL};
    refused(quiet, "--udp-quiet");
    char *gap[] = {"echod", "--echo-gap", "2s", NULL};
    refused(gap, "--echo-gap");
    char *max[] = {"echod", "--max-message", "65M", NULL};
    refused(max, "--max-message");
    char *small[] = {"echod", "--max-message", "7B", NULL};
    refused(small, "--max-message");
    char *stack[] = {"echod", "--stack", "sim", NULL};
    refused(stack, "kernel");
    char *bind[] = {"echod", "--bind", "any", NULL};
    refused(bind, "IPv4");
    char *extra[] = {"echod", "now", NULL};
    refused(extra, "now");
    char *help[] = {"echod", "-h", NULL};
    NRT_EQ_INT(parse(help), 1);
}

/* The Tahoe stack's flags reach the args; a Tahoe flag without --stack tahoe is refused. */
static void test_tahoe(void)
{
    char *argv[] = {"echod", "--stack", "tahoe", "--if", "h2-eth0", "--addr", "10.0.0.2/24",
                    "--host-model", "m.yaml", NULL};
    NRT_EQ_INT(parse(argv), 0);
    NRT_EQ_STR(a.stack, "tahoe");
    NRT_EQ_STR(a.net.ifname, "h2-eth0");
    NRT_EQ_INT(a.net.mtu, 0);
    char *no_model[] = {"echod", "--stack", "tahoe", "--if", "h2-eth0", "--addr", "10.0.0.2/24",
                        NULL};
    refused(no_model, "--host-model");
    char *kernel_mtu[] = {"echod", "--mtu", "9188B", NULL};
    refused(kernel_mtu, "--stack tahoe only");
}

int main(void)
{
    NRT_RUN(test_defaults);
    NRT_RUN(test_everything);
    NRT_RUN(test_refusals);
    NRT_RUN(test_tahoe);
    return nrt_summary("echod/test_args");
}
