#include "args.h"

#include <getopt.h>
#include <string.h>

#include "ack.h"
#include "nrargs.h"
#include "nrio.h"

#define DEFAULT_PORT 5002
#define DEFAULT_SIZE (1 << 20)
#define DEFAULT_SEGMENT 1472 /* the largest UDP payload in one 1500-octet Ethernet frame */
#define DEFAULT_RTO_NS 100000000LL
#define DEFAULT_PAUSE_NS 1000000000LL
#define DEFAULT_TIMEOUT_NS 10000000000LL
#define MAX_SIZE (1LL << 31)
#define MAX_SEGMENT 65507 /* 65535 less the IPv4 and UDP headers */

void ipc_usage(FILE *f)
{
    fprintf(f,
        "usage: ipcbench [options] HOST     send messages to a server on HOST\n"
        "       ipcbench --server [options] serve\n");
    nr_stack_usage(f, 20);
    fprintf(f,
        "  --api API         sockets, rpc (ONC RPC over TCP, libtirpc; kernel stack only) or\n"
        "                    tli (not on Linux: says so and exits %d) (default sockets)\n"
        "  --proto P         sockets: udp or tcp (default udp)\n"
        "  --server          be the server (default: client)\n"
        "  -p, --port N      port (default %d)\n"
        "  --bind IP         server: local address (default 0.0.0.0)\n"
        "  --size SIZE       message size, e.g. 4M (default 1M)\n"
        "  --segment SIZE    UDP: datagram size, its %d-octet header included (default %dB)\n"
        "  --unack K         UDP: segments sent per 2-octet acknowledgement, 1..%d (default 1)\n"
        "  --rto TIME        UDP: retransmission timeout of a group (default 100ms)\n"
        "  --buf SIZE        TCP: SO_SNDBUF and SO_RCVBUF, give both ends the same; RPC: the\n"
        "                    client's and server's record buffers (default 0: the default)\n"
        "  --repeat N        client: messages to send (default 1)\n"
        "  --pause TIME      client: pause between messages (default 1s)\n"
        "  --timeout TIME    no progress for this long ends the run with an error\n"
        "                    (default 10s)\n"
        "  --count N         server: exit after N messages (default 0: until --timeout passes\n"
        "                    with nothing to do)\n"
        "  -h, --help        this text\n"
        "Writes one JSON record per message on stdout. A client's time runs until the server\n"
        "acknowledges the message's last octets (TCP: one octet once it read the message;\n"
        "UDP: the last group's acknowledgement; RPC: the call's reply), as timing_end says.\n"
        "Exit status: 0 ok, 1 failed, 2 bad arguments, 3 not reproducible on this system (TLI).\n",
        IPC_EXIT_NOT_REPRODUCIBLE, DEFAULT_PORT, IPC_HDR_LEN, DEFAULT_SEGMENT, IPC_MAX_UNACK);
}

const char *ipc_api_name(int api)
{
    return api == IPC_RPC ? "rpc" : api == IPC_TLI ? "tli" : "sockets";
}

enum { OPT_API = 256, OPT_PROTO, OPT_SERVER, OPT_SIZE, OPT_SEGMENT, OPT_UNACK, OPT_RTO,
       OPT_BUF, OPT_COUNT };

int ipc_parse_args(int argc, char **argv, struct ipc_args *a, char *err, size_t errlen)
{
    /* In enum ipc_api's order. */
    static const char *const apis[] = {"sockets", "rpc", "tli", NULL};
    static const char *const protos[] = {"udp", "tcp", NULL};
    static const struct option longopts[] = {
        /* ipcbench's own flags, then the shared ones (common/nrargs.h). */
        {"api", required_argument, 0, OPT_API},
        {"proto", required_argument, 0, OPT_PROTO},
        {"server", no_argument, 0, OPT_SERVER},
        {"size", required_argument, 0, OPT_SIZE},
        {"segment", required_argument, 0, OPT_SEGMENT},
        {"unack", required_argument, 0, OPT_UNACK},
        {"rto", required_argument, 0, OPT_RTO},
        {"buf", required_argument, 0, OPT_BUF},
        {"count", required_argument, 0, OPT_COUNT},
        NR_STACK_LONGOPTS, NR_ARG_LONGOPT_PORT, NR_ARG_LONGOPT_BIND, NR_ARG_LONGOPT_REPEAT,
        NR_ARG_LONGOPT_PAUSE, NR_ARG_LONGOPT_TIMEOUT, NR_ARG_LONGOPT_HELP,
        {0, 0, 0, 0},
    };
    memset(a, 0, sizeof *a);
    nr_stack_opts_init(&a->net);
    a->api = IPC_SOCKETS;
    a->proto = NRIO_UDP;
    a->bind_ip = "0.0.0.0";
    a->port = DEFAULT_PORT;
    a->size = DEFAULT_SIZE;
    a->segment = DEFAULT_SEGMENT;
    a->unack = 1;
    a->rto_ns = DEFAULT_RTO_NS;
    a->repeat = 1;
    a->pause_ns = DEFAULT_PAUSE_NS;
    a->timeout_ns = DEFAULT_TIMEOUT_NS;
    const struct nr_common_flags common = {
        .tool = "ipcbench", .time_example = "100ms",
        .port = &a->port, .bind = &a->bind_ip, .repeat = &a->repeat, .pause_ns = &a->pause_ns,
        .timeout_ns = &a->timeout_ns,
    };
    long long v;
    int c, i, proto_given = 0;
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, "+p:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': return 1;
        case OPT_API:
            if (nr_arg_choice("--api", optarg, apis, &i, err, errlen))
                return -1;
            a->api = i;
            break;
        case OPT_PROTO:
            if (nr_arg_choice("--proto", optarg, protos, &i, err, errlen))
                return -1;
            a->proto = i == 0 ? NRIO_UDP : NRIO_TCP;
            proto_given = 1;
            break;
        case OPT_SERVER: a->server = 1; break;
        case OPT_SIZE:
            if (nr_arg_size("--size", optarg, 1, MAX_SIZE, "a size", "e.g. 4M", &a->size, err,
                            errlen))
                return -1;
            break;
        case OPT_SEGMENT: {
            char hint[48];
            snprintf(hint, sizeof hint, "its %d-octet header included", IPC_HDR_LEN);
            if (nr_arg_size("--segment", optarg, IPC_HDR_LEN + 1, MAX_SEGMENT, "a datagram size",
                            hint, &v, err, errlen))
                return -1;
            a->segment = (long)v;
            break;
        }
        case OPT_UNACK:
            if (nr_arg_int("--unack", optarg, 1, IPC_MAX_UNACK, "a number of segments", &v, err,
                           errlen))
                return -1;
            a->unack = (int)v;
            break;
        case OPT_RTO:
            if (nr_arg_time("--rto", optarg, 0, "100ms", &a->rto_ns, err, errlen))
                return -1;
            break;
        case OPT_BUF:
            if (nr_arg_size("--buf", optarg, 0, 1 << 30, "a size", "e.g. 16K", &v, err, errlen))
                return -1;
            a->buf = (int)v;
            break;
        NR_STACK_OPT_CASES:
            if (nr_stack_opt(&a->net, c, optarg, err, errlen))
                return -1;
            break;
        case OPT_COUNT:
            if (nr_arg_int("--count", optarg, 0, NR_ARG_MAX_REPEAT, "a count", &v, err, errlen))
                return -1;
            a->count = (int)v;
            break;
        default:
            if (nr_arg_common(&common, c, optarg, argv[optind - 1], err, errlen))
                return -1;
        }
    }
    a->stack = a->net.name;
    if (nr_stack_check(&a->net, err, errlen))
        return -1;
    if (a->api == IPC_TLI)
        return 0; /* the caller reports it as not reproducible, whatever else was given */
    if (a->api == IPC_RPC && proto_given && a->proto != NRIO_TCP)
        return nr_arg_fail(err, errlen, "--api rpc runs over TCP; drop --proto udp");
    if (a->api == IPC_RPC && strcmp(a->stack, "kernel") != 0)
        return nr_arg_fail(err, errlen, "--api rpc runs on libtirpc, which drives the kernel's "
                           "sockets: give --stack kernel");
    if (a->api == IPC_RPC)
        a->proto = NRIO_TCP;
    if (a->server) {
        if (optind != argc)
            return nr_arg_fail(err, errlen,
                               "--server takes no HOST; use --bind for the local address");
    } else {
        if (optind != argc - 1)
            return nr_arg_fail(err, errlen,
                               "give exactly one HOST (the server's IPv4 address), or --server");
        a->host = argv[optind];
    }
    if (nr_arg_ipv4(NULL, a->server ? a->bind_ip : a->host, err, errlen))
        return -1;
    if (a->api == IPC_SOCKETS && a->proto == NRIO_UDP && a->buf)
        return nr_arg_fail(err, errlen,
                           "--buf applies to TCP and RPC; UDP uses --segment and --unack");
    if (a->timeout_ns <= a->pause_ns)
        return nr_arg_fail(err, errlen, "--timeout must be longer than --pause");
    if (a->timeout_ns <= a->rto_ns)
        return nr_arg_fail(err, errlen, "--timeout must be longer than --rto");
    return 0;
}
