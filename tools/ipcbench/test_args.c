/* ipcbench's command line. */
#include <string.h>

#include "args.h"
#include "nrio.h"
#include "nrtest.h"

static int parse(struct ipc_args *a, char *err, const char *const *argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    return ipc_parse_args(argc, (char **)argv, a, err, 256);
}

static void test_defaults(void)
{
    struct ipc_args a;
    char err[256];
    const char *argv[] = {"ipcbench", "10.0.0.2", NULL};
    NRT_EQ_INT(parse(&a, err, argv), 0);
    NRT_EQ_INT(a.api, IPC_SOCKETS);
    NRT_EQ_INT(a.proto, NRIO_UDP);
    NRT_EQ_INT(a.unack, 1);
    NRT_EQ_INT(a.segment, 1472);
    NRT_EQ_INT(a.size, 1 << 20);
    NRT_EQ_INT(a.server, 0);
    const char *b[] = {"ipcbench", "--server", "--proto", "tcp", "--buf", "48K", "--count", "3",
                       NULL};
    NRT_EQ_INT(parse(&a, err, b), 0);
    NRT_EQ_INT(a.proto, NRIO_TCP);
    NRT_EQ_INT(a.buf, 48 << 10);
    NRT_EQ_INT(a.count, 3);
    const char *c[] = {"ipcbench", "--api", "rpc", "--size", "2M", "127.0.0.1", NULL};
    NRT_EQ_INT(parse(&a, err, c), 0);
    NRT_EQ_INT(a.api, IPC_RPC);
    NRT_EQ_INT(a.proto, NRIO_TCP);
    NRT_CHECK(strcmp(a.stack, "kernel") == 0);
    const char *d[] = {"ipcbench", "--stack", "tahoe", "--if", "h1-eth0", "--addr", "10.0.0.1/24",
                       "--host-model", "h.yaml", "--tick-phase", "0ns", "10.0.0.2", NULL};
    NRT_EQ_INT(parse(&a, err, d), 0);
    NRT_CHECK(strcmp(a.stack, "tahoe") == 0);
    NRT_CHECK(strcmp(a.net.ifname, "h1-eth0") == 0);
}

/* --api tli parses whatever else is given, so that the tool can say it is not reproducible. */
static void test_tli(void)
{
    struct ipc_args a;
    char err[256];
    const char *argv[] = {"ipcbench", "--api", "tli", NULL};
    NRT_EQ_INT(parse(&a, err, argv), 0);
    NRT_EQ_INT(a.api, IPC_TLI);
    NRT_CHECK(IPC_EXIT_NOT_REPRODUCIBLE != IPC_EXIT_FAIL &&
              IPC_EXIT_NOT_REPRODUCIBLE != IPC_EXIT_USAGE);
}

static void test_refusals(void)
{
    static const struct {
        const char *argv[12];
        const char *says;
    } bad[] = {
        {{"ipcbench"}, "HOST"},
        {{"ipcbench", "--server", "1.2.3.4"}, "--bind"},
        {{"ipcbench", "--api", "xti", "1.2.3.4"}, "--api"},
        {{"ipcbench", "--api", "rpc", "--proto", "udp", "1.2.3.4"}, "TCP"},
        {{"ipcbench", "--segment", "16B", "1.2.3.4"}, "--segment"},
        {{"ipcbench", "--unack", "0", "1.2.3.4"}, "--unack"},
        {{"ipcbench", "--unack", "256", "1.2.3.4"}, "--unack"},
        {{"ipcbench", "--buf", "16K", "1.2.3.4"}, "--buf"},
        {{"ipcbench", "--size", "0B", "1.2.3.4"}, "--size"},
        {{"ipcbench", "--rto", "20s", "1.2.3.4"}, "--rto"},
        /* The whole message of the shared checks (common/nrargs.h), which name the flag,
         * the text and what is accepted. */
        {{"ipcbench", "--segment", "16B", "1.2.3.4"},
         "--segment 16B: give a datagram size from 21B to 65507B, its 20-octet header included"},
        {{"ipcbench", "--size", "4096M", "1.2.3.4"},
         "--size 4096M: give a size from 1B to 2048M, e.g. 4M"},
        {{"ipcbench", "--unack", "256", "1.2.3.4"},
         "--unack 256: give a number of segments from 1 to 255"},
        {{"ipcbench", "--repeat", "0", "1.2.3.4"}, "--repeat 0: give a count from 1 to 1000000"},
        {{"ipcbench", "--api", "xti", "1.2.3.4"}, "--api xti: give sockets, rpc or tli"},
        {{"ipcbench", "--proto", "sctp", "1.2.3.4"}, "--proto sctp: give udp or tcp"},
        {{"ipcbench", "--rto", "0s", "1.2.3.4"}, "--rto 0s: give a time above 0, at most 3600s, e.g. 100ms"},
        {{"ipcbench", "--server", "--bind", "::1"}, "::1: not a dotted IPv4 address"},
        {{"ipcbench", "--stack", "tahoe", "1.2.3.4"}, "--if"},
        {{"ipcbench", "--stack", "tahoe", "--if", "h1-eth0", "--addr", "10.0.0.1/24",
          "--host-model", "h.yaml", "--api", "rpc", "1.2.3.4"}, "give --stack kernel"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct ipc_args a;
        char err[256] = "";
        NRT_EQ_INT(parse(&a, err, bad[i].argv), -1);
        if (!strstr(err, bad[i].says))
            fprintf(stderr, "case %zu: \"%s\" lacks \"%s\"\n", i, err, bad[i].says);
        NRT_CHECK(strstr(err, bad[i].says) != NULL);
    }
}

int main(void)
{
    NRT_RUN(test_defaults);
    NRT_RUN(test_tli);
    NRT_RUN(test_refusals);
    return nrt_summary("ipcbench/test_args");
}
