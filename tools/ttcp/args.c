#include "args.h"

#include <getopt.h>
#include <string.h>

#include "nrargs.h"
#include "nrio.h"

#define DEFAULT_PORT 5001
#define DEFAULT_WRITE_SIZE 8192
#define DEFAULT_WRITES 1024
#define DEFAULT_END_MARKERS 4
#define DEFAULT_PAUSE_NS 1000000000LL
#define DEFAULT_TIMEOUT_NS 10000000000LL
#define DEFAULT_SEED 1
#define MAX_COUNT (1LL << 40) /* -n and --cool-spin */

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
        "  --repeat N        transfers per invocation; give both ends the same N. On a\n"
        "                    modelled host (netsim) each stands for a process of its own\n"
        "                    (default 1)\n"
        "  --pause TIME      transmitter: pause between transfers (default 1s)\n"
        "  --pause-spread TIME\n"
        "                    transmitter: lengthen each pause by a draw uniform in [0, TIME)\n"
        "                    from --seed, e.g. 1s (default 0)\n"
        "  --seed N          seed of the --pause-spread draws (default %d)\n"
        "  --timeout TIME    no progress for this long ends the run with an error (default 10s)\n"
        "  --bind IP         receiver: local address (default 0.0.0.0)\n"
        "  -h, --help        this text\n"
        "Writes one JSON record per transfer on stdout; a receiver also writes one line,\n"
        "\"ttcp: receiving ...\", on stderr once it listens. Exit status: 0 ok, 1 run failed,\n"
        "2 bad arguments.\n",
        DEFAULT_PORT, DEFAULT_WRITE_SIZE, DEFAULT_WRITES, DEFAULT_END_MARKERS, DEFAULT_SEED);
}

enum { OPT_BYTES = 256, OPT_SNDBUF, OPT_RCVBUF, OPT_GAP, OPT_SPIN, OPT_MARKERS, OPT_SPREAD, OPT_SEED };

int ttcp_parse_args(int argc, char **argv, struct ttcp_args *a, char *err, size_t errlen)
{
    static const struct option longopts[] = {
        /* ttcp's own flags, then the shared ones (common/stackopt.h, common/nrargs.h). */
        {"length", required_argument, 0, 'l'},
        {"writes", required_argument, 0, 'n'},
        {"bytes", required_argument, 0, OPT_BYTES},
        {"sndbuf", required_argument, 0, OPT_SNDBUF},
        {"rcvbuf", required_argument, 0, OPT_RCVBUF},
        {"nodelay", no_argument, 0, 'D'},
        {"cool-gap", required_argument, 0, OPT_GAP},
        {"cool-spin", required_argument, 0, OPT_SPIN},
        {"end-markers", required_argument, 0, OPT_MARKERS},
        {"pause-spread", required_argument, 0, OPT_SPREAD},
        {"seed", required_argument, 0, OPT_SEED},
        NR_STACK_LONGOPTS,
        NR_ARG_LONGOPT_PORT, NR_ARG_LONGOPT_REPEAT, NR_ARG_LONGOPT_PAUSE, NR_ARG_LONGOPT_TIMEOUT,
        NR_ARG_LONGOPT_BIND, NR_ARG_LONGOPT_HELP,
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
    a->seed = DEFAULT_SEED;
    const struct nr_common_flags common = {
        .tool = "ttcp", .time_example = "5s", .port = &a->port, .bind = &a->bind_ip,
        .repeat = &a->repeat, .pause_ns = &a->pause_ns, .timeout_ns = &a->timeout_ns,
    };
    long long writes = DEFAULT_WRITES, bytes = -1, v;
    int c;

    opterr = 0;
    optind = 0; /* GNU: reinitialise, so tests can parse several command lines */
    while ((c = getopt_long(argc, argv, "+trup:l:n:Dh", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
        case 'r':
            if (a->transmit != -1 && a->transmit != (c == 't'))
                return nr_arg_fail(err, errlen, "-t and -r exclude each other: pick one role");
            a->transmit = c == 't';
            break;
        case 'u': a->proto = NRIO_UDP; break;
        case 'D': a->nodelay = 1; break;
        case 'h': return 1;
        NR_STACK_OPT_CASES:
            if (nr_stack_opt(&a->net, c, optarg, err, errlen))
                return -1;
            break;
        case 'l':
            if (nr_arg_size("-l", optarg, 1, 1 << 30, "a write size", "e.g. 8K", &v, err, errlen))
                return -1;
            a->write_size = (long)v;
            break;
        case 'n':
            if (nr_arg_int("-n", optarg, 1, MAX_COUNT, "a number of writes", &writes, err, errlen))
                return -1;
            break;
        case OPT_BYTES:
            if (nr_arg_size("--bytes", optarg, 1, NR_ARG_NO_MAX, "a size", "e.g. 4M", &bytes, err,
                            errlen))
                return -1;
            break;
        case OPT_SNDBUF:
        case OPT_RCVBUF:
            if (nr_arg_size(c == OPT_SNDBUF ? "--sndbuf" : "--rcvbuf", optarg, 0, 1 << 30, "a size",
                            "e.g. 16K", &v, err, errlen))
                return -1;
            *(c == OPT_SNDBUF ? &a->sndbuf : &a->rcvbuf) = (int)v;
            break;
        case OPT_GAP:
            if (nr_arg_time("--cool-gap", optarg, 1, "500us", &a->cool_gap_ns, err, errlen))
                return -1;
            break;
        case OPT_SPIN:
            if (nr_arg_int("--cool-spin", optarg, 0, MAX_COUNT, "a number of iterations", &v, err,
                           errlen))
                return -1;
            a->cool_spin = (long)v;
            break;
        case OPT_MARKERS:
            if (nr_arg_int("--end-markers", optarg, 1, 100, "a number of markers", &v, err, errlen))
                return -1;
            a->end_markers = (int)v;
            break;
        case OPT_SPREAD:
            if (nr_arg_time("--pause-spread", optarg, 1, "1s", &a->pause_spread_ns, err, errlen))
                return -1;
            break;
        case OPT_SEED:
            if (nr_arg_int("--seed", optarg, 0, INT64_MAX, "a seed", &v, err, errlen))
                return -1;
            a->seed = (uint64_t)v;
            break;
        default:
            if (nr_arg_common(&common, c, optarg, argv[optind - 1], err, errlen))
                return -1;
        }
    }
    if (nr_args_stack(&a->net, &a->stack, err, errlen))
        return -1;
    if (a->transmit == -1)
        return nr_arg_fail(err, errlen, "give -t (transmit) or -r (receive)");
    if (a->transmit ? nr_args_operands(argc, argv, &a->host, NULL,
                                       "-t needs exactly one HOST (the receiver's IPv4 address)",
                                       err, errlen)
                    : nr_args_operands(argc, argv, NULL, a->bind_ip,
                                       "-r takes no HOST; use --bind to choose the local address",
                                       err, errlen))
        return -1;
    if (a->proto == NRIO_UDP && a->write_size < TTCP_MIN_UDP_WRITE)
        return nr_arg_fail(err, errlen,
                           "-l %ld: UDP writes carry a %d-octet header; give -l >= %d",
                           a->write_size, TTCP_MIN_UDP_WRITE, TTCP_MIN_UDP_WRITE);
    if (a->proto == NRIO_UDP && a->write_size > TTCP_MAX_UDP_WRITE)
        return nr_arg_fail(err, errlen,
                           "-l %ld: larger than a UDP datagram can be; give -l <= %d",
                           a->write_size, TTCP_MAX_UDP_WRITE);
    if (a->proto == NRIO_TCP && (a->cool_gap_ns || a->cool_spin))
        return nr_arg_fail(err, errlen, "--cool-gap and --cool-spin apply to UDP only; add -u");
    if (a->cool_gap_ns && a->cool_spin)
        return nr_arg_fail(err, errlen, "--cool-gap and --cool-spin exclude each other: pick one");
    if (a->proto == NRIO_UDP && a->nodelay)
        return nr_arg_fail(err, errlen, "-D (TCP_NODELAY) applies to TCP only; drop -u or -D");
    if (nr_args_longer("--timeout", a->timeout_ns, "--pause plus --pause-spread",
                       a->pause_ns + a->pause_spread_ns,
                       "or the pause between transfers ends the run", err, errlen))
        return -1;
    a->bytes = bytes > 0 ? bytes : writes * a->write_size;
    return 0;
}
