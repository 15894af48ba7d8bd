#include "args.h"

#include <getopt.h>
#include <stdarg.h>
#include <string.h>

#include "ack.h"
#include "nrio.h"
#include "units.h"

#define DEFAULT_PORT 5002
#define DEFAULT_SIZE (1 << 20)
#define DEFAULT_SEGMENT 1472 /* the largest UDP payload in one 1500-octet Ethernet frame */
#define DEFAULT_RTO_NS 100000000LL
#define DEFAULT_PAUSE_NS 1000000000LL
#define DEFAULT_TIMEOUT_NS 10000000000LL
#define MAX_SIZE (1LL << 31)

void ipc_usage(FILE *f)
{
    fprintf(f,
        "usage: ipcbench [options] HOST     send messages to a server on HOST\n"
        "       ipcbench --server [options] serve\n"
        "  --stack NAME      network stack: kernel (default kernel)\n"
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
        "Writes one JSON record per message on stdout. Exit status: 0 ok, 1 failed, 2 bad\n"
        "arguments, 3 not reproducible on this system (TLI).\n",
        IPC_EXIT_NOT_REPRODUCIBLE, DEFAULT_PORT, IPC_HDR_LEN, DEFAULT_SEGMENT, IPC_MAX_UNACK);
}

const char *ipc_api_name(int api)
{
    return api == IPC_RPC ? "rpc" : api == IPC_TLI ? "tli" : "sockets";
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

enum { OPT_STACK = 256, OPT_API, OPT_PROTO, OPT_SERVER, OPT_BIND, OPT_SIZE, OPT_SEGMENT,
       OPT_UNACK, OPT_RTO, OPT_BUF, OPT_REPEAT, OPT_PAUSE, OPT_TIMEOUT, OPT_COUNT };

int ipc_parse_args(int argc, char **argv, struct ipc_args *a, char *err, size_t errlen)
{
    static const struct option longopts[] = {
        {"stack", required_argument, 0, OPT_STACK},
        {"api", required_argument, 0, OPT_API},
        {"proto", required_argument, 0, OPT_PROTO},
        {"server", no_argument, 0, OPT_SERVER},
        {"port", required_argument, 0, 'p'},
        {"bind", required_argument, 0, OPT_BIND},
        {"size", required_argument, 0, OPT_SIZE},
        {"segment", required_argument, 0, OPT_SEGMENT},
        {"unack", required_argument, 0, OPT_UNACK},
        {"rto", required_argument, 0, OPT_RTO},
        {"buf", required_argument, 0, OPT_BUF},
        {"repeat", required_argument, 0, OPT_REPEAT},
        {"pause", required_argument, 0, OPT_PAUSE},
        {"timeout", required_argument, 0, OPT_TIMEOUT},
        {"count", required_argument, 0, OPT_COUNT},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    memset(a, 0, sizeof *a);
    a->stack = "kernel";
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
    long long v;
    int64_t t;
    int c, proto_given = 0;
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, "+p:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': return 1;
        case OPT_STACK:
            if (strcmp(optarg, "kernel") != 0)
                return fail(err, errlen, "--stack %s: unknown stack; the only one today is kernel",
                            optarg);
            a->stack = optarg;
            break;
        case OPT_API:
            if (strcmp(optarg, "sockets") == 0)
                a->api = IPC_SOCKETS;
            else if (strcmp(optarg, "rpc") == 0)
                a->api = IPC_RPC;
            else if (strcmp(optarg, "tli") == 0)
                a->api = IPC_TLI;
            else
                return fail(err, errlen, "--api %s: give sockets, rpc or tli", optarg);
            break;
        case OPT_PROTO:
            if (strcmp(optarg, "udp") == 0)
                a->proto = NRIO_UDP;
            else if (strcmp(optarg, "tcp") == 0)
                a->proto = NRIO_TCP;
            else
                return fail(err, errlen, "--proto %s: give udp or tcp", optarg);
            proto_given = 1;
            break;
        case OPT_SERVER: a->server = 1; break;
        case OPT_BIND: a->bind_ip = optarg; break;
        case 'p':
            if (nr_parse_count(optarg, 65535, &v) || v < 1)
                return fail(err, errlen, "--port %s: give a port from 1 to 65535", optarg);
            a->port = (int)v;
            break;
        case OPT_SIZE:
            if (nr_parse_size(optarg, &v) || v < 1 || v > MAX_SIZE)
                return fail(err, errlen, "--size %s: give a size from 1B to 2048M, e.g. 4M",
                            optarg);
            a->size = v;
            break;
        case OPT_SEGMENT:
            if (nr_parse_size(optarg, &v) || v <= IPC_HDR_LEN || v > 65507)
                return fail(err, errlen, "--segment %s: give a datagram size from %dB to 65507B "
                            "(it carries a %d-octet header)", optarg, IPC_HDR_LEN + 1,
                            IPC_HDR_LEN);
            a->segment = (long)v;
            break;
        case OPT_UNACK:
            if (nr_parse_count(optarg, IPC_MAX_UNACK, &v) || v < 1)
                return fail(err, errlen, "--unack %s: give 1 to %d segments", optarg,
                            IPC_MAX_UNACK);
            a->unack = (int)v;
            break;
        case OPT_BUF:
            if (nr_parse_size(optarg, &v) || v < 0 || v > (1 << 30))
                return fail(err, errlen, "--buf %s: give a size from 0 to 1G, e.g. 16K", optarg);
            a->buf = (int)v;
            break;
        case OPT_REPEAT:
        case OPT_COUNT:
            if (nr_parse_count(optarg, 1000000, &v) || (c == OPT_REPEAT && v < 1))
                return fail(err, errlen, "--%s %s: give a count", c == OPT_REPEAT ? "repeat" :
                            "count", optarg);
            *(c == OPT_REPEAT ? &a->repeat : &a->count) = (int)v;
            break;
        case OPT_RTO:
        case OPT_PAUSE:
        case OPT_TIMEOUT:
            if (nr_parse_time_ns(optarg, &t) || t < 0 || (c != OPT_PAUSE && t == 0))
                return fail(err, errlen, "--%s %s: give a time, e.g. 100ms",
                            c == OPT_RTO ? "rto" : c == OPT_PAUSE ? "pause" : "timeout", optarg);
            *(c == OPT_RTO ? &a->rto_ns : c == OPT_PAUSE ? &a->pause_ns : &a->timeout_ns) = t;
            break;
        default:
            return fail(err, errlen, "%s: unknown option or missing value; see ipcbench --help",
                        argv[optind - 1]);
        }
    }
    if (a->api == IPC_TLI)
        return 0; /* the caller reports it as not reproducible, whatever else was given */
    if (a->api == IPC_RPC && proto_given && a->proto != NRIO_TCP)
        return fail(err, errlen, "--api rpc runs over TCP; drop --proto udp");
    if (a->api == IPC_RPC)
        a->proto = NRIO_TCP;
    if (a->server) {
        if (optind != argc)
            return fail(err, errlen, "--server takes no HOST; use --bind for the local address");
    } else {
        if (optind != argc - 1)
            return fail(err, errlen, "give exactly one HOST (the server's IPv4 address), or "
                        "--server");
        a->host = argv[optind];
    }
    struct nrio_addr probe;
    const char *ip = a->server ? a->bind_ip : a->host;
    if (nrio_parse_addr(ip, (uint16_t)a->port, &probe))
        return fail(err, errlen, "%s: not a dotted IPv4 address", ip);
    if (a->api == IPC_SOCKETS && a->proto == NRIO_UDP && a->buf)
        return fail(err, errlen, "--buf applies to TCP and RPC; UDP uses --segment and --unack");
    if (a->timeout_ns <= a->pause_ns)
        return fail(err, errlen, "--timeout must be longer than --pause");
    if (a->timeout_ns <= a->rto_ns)
        return fail(err, errlen, "--timeout must be longer than --rto");
    return 0;
}
