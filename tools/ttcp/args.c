#include "args.h"

#include <getopt.h>
#include <stdarg.h>
#include <string.h>

#include "nrio.h"
#include "units.h"

#define DEFAULT_PORT 5001
#define DEFAULT_WRITE_SIZE 8192
#define DEFAULT_WRITES 1024
#define DEFAULT_END_MARKERS 4
#define DEFAULT_PAUSE_NS 1000000000LL
#define DEFAULT_TIMEOUT_NS 10000000000LL

void ttcp_usage(FILE *f)
{
    fprintf(f,
        "usage: ttcp -t [options] HOST   transmit to a receiver on HOST\n"
        "       ttcp -r [options]        receive, discarding the data\n");
    nr_stack_usage(f, 20);
    fprintf(f,
        "  -u                use UDP (default TCP)\n"
        "  -p, --port N      port (default %d)\n"
        "  -l, --length SIZE write size, e.g. 8K (default %d)\n"
        "  -n, --writes N    writes per transfer (default %d)\n"
        "  --bytes SIZE      bytes per transfer, e.g. 4M, instead of -n (default: -n times -l)\n"
        "  --sndbuf SIZE     SO_SNDBUF (default 0: the stack's default)\n"
        "  --rcvbuf SIZE     SO_RCVBUF (default 0: the stack's default)\n"
        "  -D, --nodelay     set TCP_NODELAY (default off)\n"
        "  --cool-gap TIME   UDP: wait this long after each datagram, e.g. 1ms (default 0)\n"
        "  --cool-spin N     UDP: busy-loop N iterations after each datagram; the ns per\n"
        "                    iteration is calibrated at start and reported (default 0)\n"
        "  --end-markers N   UDP: end markers sent per attempt (default %d)\n"
        "  --repeat N        transfers per invocation; give both ends the same N (default 1)\n"
        "  --pause TIME      transmitter: pause between transfers (default 1s)\n"
        "  --timeout TIME    no progress for this long ends the run with an error (default 10s)\n"
        "  --bind IP         receiver: local address (default 0.0.0.0)\n"
        "  -h, --help        this text\n"
        "Writes one JSON record per transfer on stdout. Exit status: 0 ok, 1 run failed,\n"
        "2 bad arguments.\n",
        DEFAULT_PORT, DEFAULT_WRITE_SIZE, DEFAULT_WRITES, DEFAULT_END_MARKERS);
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* A whole decimal number in [lo, hi]. */
static int int_arg(const char *s, long long lo, long long hi, long long *out)
{
    return nr_parse_count(s, hi, out) || *out < lo ? -1 : 0;
}

enum { OPT_BYTES = 256, OPT_SNDBUF, OPT_RCVBUF, OPT_GAP, OPT_SPIN, OPT_MARKERS,
       OPT_REPEAT, OPT_PAUSE, OPT_TIMEOUT, OPT_BIND };

int ttcp_parse_args(int argc, char **argv, struct ttcp_args *a, char *err, size_t errlen)
{
    static const struct option longopts[] = {
        NR_STACK_LONGOPTS,
        {"port", required_argument, 0, 'p'},
        {"length", required_argument, 0, 'l'},
        {"writes", required_argument, 0, 'n'},
        {"bytes", required_argument, 0, OPT_BYTES},
        {"sndbuf", required_argument, 0, OPT_SNDBUF},
        {"rcvbuf", required_argument, 0, OPT_RCVBUF},
        {"nodelay", no_argument, 0, 'D'},
        {"cool-gap", required_argument, 0, OPT_GAP},
        {"cool-spin", required_argument, 0, OPT_SPIN},
        {"end-markers", required_argument, 0, OPT_MARKERS},
        {"repeat", required_argument, 0, OPT_REPEAT},
        {"pause", required_argument, 0, OPT_PAUSE},
        {"timeout", required_argument, 0, OPT_TIMEOUT},
        {"bind", required_argument, 0, OPT_BIND},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    memset(a, 0, sizeof *a);
    a->transmit = -1;
    a->proto = NRIO_TCP;
    nr_stack_opts_init(&a->net);
    a->bind_ip = "0.0.0.0";
    a->port = DEFAULT_PORT;
    a->write_size = DEFAULT_WRITE_SIZE;
    a->end_markers = DEFAULT_END_MARKERS;
    a->repeat = 1;
    a->pause_ns = DEFAULT_PAUSE_NS;
    a->timeout_ns = DEFAULT_TIMEOUT_NS;
    long long writes = DEFAULT_WRITES, bytes = -1, v;
    int64_t t;
    int c;

    opterr = 0;
    optind = 0; /* GNU: reinitialise, so tests can parse several command lines */
    while ((c = getopt_long(argc, argv, "+trup:l:n:Dh", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
        case 'r':
            if (a->transmit != -1 && a->transmit != (c == 't'))
                return fail(err, errlen, "-t and -r exclude each other: pick one role");
            a->transmit = c == 't';
            break;
        case 'u': a->proto = NRIO_UDP; break;
        case 'D': a->nodelay = 1; break;
        case 'h': return 1;
        case NR_OPT_STACK: case NR_OPT_IF: case NR_OPT_ADDR: case NR_OPT_HOST_MODEL:
        case NR_OPT_MTU: case NR_OPT_SENDSPACE: case NR_OPT_RECVSPACE:
            if (nr_stack_opt(&a->net, c, optarg, err, errlen))
                return -1;
            break;
        case 'p':
            if (int_arg(optarg, 1, 65535, &v))
                return fail(err, errlen, "--port %s: give a port from 1 to 65535", optarg);
            a->port = (int)v;
            break;
        case 'l':
            if (nr_parse_size(optarg, &v) || v < 1 || v > (1 << 30))
                return fail(err, errlen, "-l %s: give a write size from 1 to 1G, e.g. 8K", optarg);
            a->write_size = (long)v;
            break;
        case 'n':
            if (int_arg(optarg, 1, 1LL << 40, &writes))
                return fail(err, errlen, "-n %s: give a positive number of writes", optarg);
            break;
        case OPT_BYTES:
            if (nr_parse_size(optarg, &bytes) || bytes < 1)
                return fail(err, errlen, "--bytes %s: give a positive size, e.g. 4M", optarg);
            break;
        case OPT_SNDBUF:
        case OPT_RCVBUF:
            if (nr_parse_size(optarg, &v) || v < 0 || v > (1 << 30))
                return fail(err, errlen, "--%s %s: give a size from 0 to 1G, e.g. 16K",
                            c == OPT_SNDBUF ? "sndbuf" : "rcvbuf", optarg);
            *(c == OPT_SNDBUF ? &a->sndbuf : &a->rcvbuf) = (int)v;
            break;
        case OPT_GAP:
            if (nr_parse_time_ns(optarg, &t) || t < 0)
                return fail(err, errlen, "--cool-gap %s: give a time, e.g. 500us", optarg);
            a->cool_gap_ns = t;
            break;
        case OPT_SPIN:
            if (int_arg(optarg, 0, 1LL << 40, &v))
                return fail(err, errlen, "--cool-spin %s: give a number of iterations >= 0",
                            optarg);
            a->cool_spin = (long)v;
            break;
        case OPT_MARKERS:
            if (int_arg(optarg, 1, 100, &v))
                return fail(err, errlen, "--end-markers %s: give 1 to 100", optarg);
            a->end_markers = (int)v;
            break;
        case OPT_REPEAT:
            if (int_arg(optarg, 1, 1000000, &v))
                return fail(err, errlen, "--repeat %s: give a positive count", optarg);
            a->repeat = (int)v;
            break;
        case OPT_PAUSE:
        case OPT_TIMEOUT:
            if (nr_parse_time_ns(optarg, &t) || t < 0 || (c == OPT_TIMEOUT && t == 0))
                return fail(err, errlen, "--%s %s: give a time, e.g. 5s",
                            c == OPT_PAUSE ? "pause" : "timeout", optarg);
            *(c == OPT_PAUSE ? &a->pause_ns : &a->timeout_ns) = t;
            break;
        case OPT_BIND:
            a->bind_ip = optarg;
            break;
        default:
            return fail(err, errlen, "%s: unknown option or missing value; see ttcp --help",
                        argv[optind - 1]);
        }
    }
    a->stack = a->net.name;
    if (nr_stack_check(&a->net, err, errlen))
        return -1;
    if (a->transmit == -1)
        return fail(err, errlen, "give -t (transmit) or -r (receive)");
    if (a->transmit) {
        if (optind != argc - 1)
            return fail(err, errlen, "-t needs exactly one HOST (the receiver's IPv4 address)");
        a->host = argv[optind];
    } else if (optind != argc) {
        return fail(err, errlen, "-r takes no HOST; use --bind to choose the local address");
    }
    struct nrio_addr probe;
    const char *ip = a->transmit ? a->host : a->bind_ip;
    if (nrio_parse_addr(ip, (uint16_t)a->port, &probe))
        return fail(err, errlen, "%s: not a dotted IPv4 address", ip);
    if (a->proto == NRIO_UDP && a->write_size < TTCP_MIN_UDP_WRITE)
        return fail(err, errlen, "-l %ld: UDP writes carry a %d-octet header; give -l >= %d",
                    a->write_size, TTCP_MIN_UDP_WRITE, TTCP_MIN_UDP_WRITE);
    if (a->proto == NRIO_UDP && a->write_size > TTCP_MAX_UDP_WRITE)
        return fail(err, errlen, "-l %ld: larger than a UDP datagram can be; give -l <= %d",
                    a->write_size, TTCP_MAX_UDP_WRITE);
    if (a->proto == NRIO_TCP && (a->cool_gap_ns || a->cool_spin))
        return fail(err, errlen, "--cool-gap and --cool-spin apply to UDP only; add -u");
    if (a->cool_gap_ns && a->cool_spin)
        return fail(err, errlen, "--cool-gap and --cool-spin exclude each other: pick one");
    if (a->proto == NRIO_UDP && a->nodelay)
        return fail(err, errlen, "-D (TCP_NODELAY) applies to TCP only; drop -u or -D");
    if (a->timeout_ns <= a->pause_ns)
        return fail(err, errlen, "--timeout must be longer than --pause, or the pause between "
                    "transfers ends the run");
    a->bytes = bytes > 0 ? bytes : writes * a->write_size;
    return 0;
}
