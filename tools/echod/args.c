#include "args.h"

#include <getopt.h>
#include <string.h>

#include "nrargs.h"
#include "nrio.h"
#include "pingwire.h"
#include "units.h"

#define DEFAULT_PORT 9007
#define DEFAULT_UDP_QUIET_NS 500000000LL
#define DEFAULT_MAX_MESSAGE (4L << 20)
#define MAX_MAX_MESSAGE (64L << 20)

void echod_usage(FILE *f)
{
    fprintf(f,
        "usage: echod [options]\n"
        "Echoes pingx messages: a message goes back only once all of it has arrived.\n"
        "  --port N            TCP and UDP port (default %d)\n"
        "  --bind IP           local IPv4 address (default 0.0.0.0)\n"
        "  --proto P           tcp, udp or both (default both)\n",
        DEFAULT_PORT);
    nr_stack_usage(f, 22);
    fprintf(f,
        "  --udp-quiet TIME    echo an incomplete UDP message once none of its datagrams\n"
        "                      arrived for this long, e.g. 200ms (default 500ms)\n"
        "  --echo-gap TIME     pause between echoed UDP datagrams, pacing the echo as\n"
        "                      udp-cooled paces the request, e.g. 7ms (default 0: back to back)\n"
        "  --sndbuf SIZE       SO_SNDBUF, e.g. 16K (default: the stack's)\n"
        "  --rcvbuf SIZE       SO_RCVBUF, e.g. 16K (default: the stack's)\n"
        "  --max-message SIZE  largest message accepted, up to 64M (default 4M)\n"
        "  -h, --help          this text\n"
        "Runs until SIGTERM or SIGINT, then writes one JSON summary record on stdout and,\n"
        "on the Tahoe stack, a drops record of the stack's UDP and IP counters.\n"
        "Exit status: 0 ok, 1 run failed, 2 bad arguments.\n");
}

enum { OPT_PORT = 256, OPT_BIND, OPT_PROTO, OPT_QUIET, OPT_GAP, OPT_SNDBUF, OPT_RCVBUF,
       OPT_MAXMSG };

int echod_parse_args(int argc, char **argv, struct echod_args *a, char *err, size_t errlen)
{
    static const struct option longopts[] = {
        {"port", required_argument, 0, OPT_PORT},
        {"bind", required_argument, 0, OPT_BIND},
        {"proto", required_argument, 0, OPT_PROTO},
        NR_STACK_LONGOPTS,
        {"udp-quiet", required_argument, 0, OPT_QUIET},
        {"echo-gap", required_argument, 0, OPT_GAP},
        {"sndbuf", required_argument, 0, OPT_SNDBUF},
        {"rcvbuf", required_argument, 0, OPT_RCVBUF},
        {"max-message", required_argument, 0, OPT_MAXMSG},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    memset(a, 0, sizeof *a);
    nr_stack_opts_init(&a->net);
    a->bind_ip = "0.0.0.0";
    a->port = DEFAULT_PORT;
    a->tcp = a->udp = 1;
    a->udp_quiet_ns = DEFAULT_UDP_QUIET_NS;
    a->max_message = DEFAULT_MAX_MESSAGE;
    long long v;
    int64_t t;
    int c;

    opterr = 0;
    optind = 0; /* GNU: reinitialise, so tests can parse several command lines */
    while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': return 1;
        case OPT_PORT:
            if (nr_parse_count(optarg, 65535, &v) || v < 1)
                return nr_arg_fail(err, errlen, "--port %s: give a port from 1 to 65535", optarg);
            a->port = (int)v;
            break;
        case OPT_BIND:
            a->bind_ip = optarg;
            break;
        case OPT_PROTO:
            if (strcmp(optarg, "tcp") != 0 && strcmp(optarg, "udp") != 0 &&
                strcmp(optarg, "both") != 0)
                return nr_arg_fail(err, errlen, "--proto %s: give tcp, udp or both", optarg);
            a->tcp = strcmp(optarg, "udp") != 0;
            a->udp = strcmp(optarg, "tcp") != 0;
            break;
        NR_STACK_OPT_CASES:
            if (nr_stack_opt(&a->net, c, optarg, err, errlen))
                return -1;
            break;
        case OPT_QUIET:
            if (nr_parse_time_ns(optarg, &t) || t < 1000000 || t > NR_ARG_MAX_WAIT_NS)
                return nr_arg_fail(err, errlen,
                                   "--udp-quiet %s: give a time from 1ms to 3600s, e.g. "
                                   "500ms", optarg);
            a->udp_quiet_ns = t;
            break;
        case OPT_GAP:
            if (nr_parse_time_ns(optarg, &t) || t > 1000000000)
                return nr_arg_fail(err, errlen,
                                   "--echo-gap %s: give a time up to 1s, e.g. 7ms", optarg);
            a->echo_gap_ns = t;
            break;
        case OPT_SNDBUF:
        case OPT_RCVBUF:
            if (nr_parse_size(optarg, &v) || v < 1 || v > (1 << 30))
                return nr_arg_fail(err, errlen, "--%s %s: give a size from 1B to 1024M, e.g. 16K",
                                   c == OPT_SNDBUF ? "sndbuf" : "rcvbuf", optarg);
            *(c == OPT_SNDBUF ? &a->sndbuf : &a->rcvbuf) = (int)v;
            break;
        case OPT_MAXMSG:
            if (nr_parse_size(optarg, &v) || v < PW_MIN_MESSAGE || v > MAX_MAX_MESSAGE)
                return nr_arg_fail(err, errlen,
                                   "--max-message %s: give a size from %dB to 64M, e.g. "
                                   "4M", optarg, PW_MIN_MESSAGE);
            a->max_message = (long)v;
            break;
        default:
            return nr_arg_unknown("echod", argv[optind - 1], err, errlen);
        }
    }
    if (nr_args_stack(&a->net, &a->stack, err, errlen))
        return -1;
    return nr_args_operands(argc, argv, NULL, a->bind_ip,
                            "echod takes no operands; see echod --help", err, errlen);
}
