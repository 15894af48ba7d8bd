#include "args.h"

#include <getopt.h>
#include <string.h>

#include "nrargs.h"
#include "nrio.h"
#include "pingwire.h"
#include "units.h"

#define DEFAULT_PORT 9007
#define DEFAULT_COUNT 50
#define DEFAULT_SEED 1
#define DEFAULT_INTERVAL_NS 1000000000LL
#define DEFAULT_TIMEOUT_NS 5000000000LL
#define DEFAULT_UDP_QUIET_NS 500000000LL
#define DEFAULT_DATAGRAM 8192
#define DEFAULT_MAX_SILENT 5

static const char *const mode_names[] = {
    [PX_TCP_PER_MESSAGE] = "tcp-per-message",
    [PX_TCP] = "tcp",
    [PX_TCP_NODELAY] = "tcp-nodelay",
    [PX_UDP] = "udp",
    [PX_UDP_COOLED] = "udp-cooled",
};

static const char *const pacing_names[] = {
    [PX_PACING_GRID] = "grid",
    [PX_PACING_ALARM] = "alarm",
};

const char *pingx_mode_name(int mode) { return mode_names[mode]; }
const char *pingx_pacing_name(int pacing) { return pacing_names[pacing]; }

void pingx_usage(FILE *f)
{
    fprintf(f,
        "usage: pingx --mode MODE --sizes LIST [options]\n"
        "The extended ping: sends messages of exact sizes to echod and times each echo.\n"
        "  --mode MODE           (required) tcp-per-message: connect and close per message,\n"
        "                        timed from the connect to the echo's last octet; tcp: one\n"
        "                        connection; tcp-nodelay: one connection, TCP_NODELAY at both\n"
        "                        ends; udp: datagrams back to back; udp-cooled: a busy-wait\n"
        "                        between datagrams (--cool-gap or --cool-iterations)\n"
        "  --sizes LIST          (required) message sizes from %dB to 4M, e.g. 512B,12K-1,100K\n"
        "  --count N             echoes per size (default %d)\n"
        "  --order ORDER         sequential or shuffled (default sequential)\n"
        "  --seed N              seed of the shuffled order (default %d)\n"
        "  --interval TIME       start-to-start time between messages (default 1s); raised\n"
        "                        automatically: a message starts max(TIME, time the previous\n"
        "                        message's measurement took) after the previous one (see\n"
        "                        --pacing), so it is never sent before the previous echo\n"
        "                        returned; each record states it as interval_ns\n"
        "  --pacing PACING       grid: counted from when the previous message was due, so\n"
        "                        timer delays do not add up (an interval timer); alarm:\n"
        "                        counted from when the previous message's alarm went off, as\n"
        "                        alarm() set again in its handler (liu95db's ping), so each\n"
        "                        alarm's lateness, on the Tahoe stack its host model's clock\n"
        "                        tick, adds up (default grid)\n"
        "  --timeout TIME        longest wait for one echo (default 5s); raised to SIZE x 16us\n"
        "                        (a round trip at 1 Mbit/s) for large messages. TCP: counted\n"
        "                        from the message's start; a timeout ends the run with an\n"
        "                        error. UDP: counted from the last datagram sent; the message\n"
        "                        is incomplete\n"
        "  --max-silent N        UDP: this many messages in a row with no datagram back end\n"
        "                        the run with an error (default %d)\n"
        "  --udp-quiet TIME      UDP: a message is over this long after its latest returned\n"
        "                        datagram, even if some are missing (default 500ms)\n"
        "  --datagram SIZE       UDP datagram size, %dB to 65507B (default 8K)\n"
        "  --cool-gap TIME       udp-cooled: busy-wait this long between datagrams, e.g. 2ms\n"
        "                        (default: none)\n"
        "  --cool-iterations N   udp-cooled: busy-loop N iterations between datagrams; the\n"
        "                        ns per iteration is calibrated at start (default: none)\n"
        "  --print-each          print a line on stderr for every datagram (UDP) or\n"
        "                        message (TCP) that returns, as the original ping did; the\n"
        "                        Tahoe stack charges its host model's print_ns per line\n"
        "                        (default: no print)\n"
        "  --sndbuf SIZE         SO_SNDBUF, e.g. 16K (default: the stack's)\n"
        "  --rcvbuf SIZE         SO_RCVBUF, e.g. 16K (default: the stack's)\n"
        "  --host IP             echod's IPv4 address (default 127.0.0.1)\n"
        "  --port N              echod's port (default %d)\n",
        PW_MIN_MESSAGE, DEFAULT_COUNT, DEFAULT_SEED, DEFAULT_MAX_SILENT, PW_MIN_DGRAM,
        DEFAULT_PORT);
    nr_stack_usage(f, 24);
    fprintf(f,
        "  -h, --help            this text\n"
        "Writes a meta record, then one JSON record per message on stdout, each after its\n"
        "message's measurement ended, and on the Tahoe stack a drops record of the stack's\n"
        "UDP and IP counters last. Exit status: 0 ok, 1 run failed (an error record says\n"
        "why), 2 bad arguments.\n");
}

/* A time from min to NR_ARG_MAX_WAIT_NS (an hour). */
static int time_arg(const char *s, int64_t min, int64_t *out)
{
    return nr_parse_time_ns(s, out) || *out < min || *out > NR_ARG_MAX_WAIT_NS ? -1 : 0;
}

enum { OPT_MODE = 256, OPT_SIZES, OPT_COUNT, OPT_ORDER, OPT_SEED, OPT_INTERVAL, OPT_TIMEOUT,
       OPT_SILENT, OPT_QUIET, OPT_DATAGRAM, OPT_GAP, OPT_ITER, OPT_SNDBUF, OPT_RCVBUF,
       OPT_HOST, OPT_PORT, OPT_PRINT, OPT_PACING };

int pingx_parse_args(int argc, char **argv, struct pingx_args *a, char *err, size_t errlen)
{
    static const struct option longopts[] = {
        {"mode", required_argument, 0, OPT_MODE},
        {"sizes", required_argument, 0, OPT_SIZES},
        {"count", required_argument, 0, OPT_COUNT},
        {"order", required_argument, 0, OPT_ORDER},
        {"seed", required_argument, 0, OPT_SEED},
        {"interval", required_argument, 0, OPT_INTERVAL},
        {"pacing", required_argument, 0, OPT_PACING},
        {"timeout", required_argument, 0, OPT_TIMEOUT},
        {"max-silent", required_argument, 0, OPT_SILENT},
        {"udp-quiet", required_argument, 0, OPT_QUIET},
        {"datagram", required_argument, 0, OPT_DATAGRAM},
        {"cool-gap", required_argument, 0, OPT_GAP},
        {"cool-iterations", required_argument, 0, OPT_ITER},
        {"sndbuf", required_argument, 0, OPT_SNDBUF},
        {"rcvbuf", required_argument, 0, OPT_RCVBUF},
        {"host", required_argument, 0, OPT_HOST},
        {"port", required_argument, 0, OPT_PORT},
        {"print-each", no_argument, 0, OPT_PRINT},
        NR_STACK_LONGOPTS,
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    memset(a, 0, sizeof *a);
    a->mode = -1;
    nr_stack_opts_init(&a->net);
    a->clock = "CLOCK_MONOTONIC";
    a->host = "127.0.0.1";
    a->port = DEFAULT_PORT;
    a->count = DEFAULT_COUNT;
    a->seed = DEFAULT_SEED;
    a->interval_ns = DEFAULT_INTERVAL_NS;
    a->timeout_ns = DEFAULT_TIMEOUT_NS;
    a->udp_quiet_ns = DEFAULT_UDP_QUIET_NS;
    a->datagram = DEFAULT_DATAGRAM;
    a->cool_gap_ns = -1;
    a->cool_iterations = -1;
    a->max_silent = DEFAULT_MAX_SILENT;
    long long v, sizes[PX_MAX_SIZES];
    int c, nmode = (int)(sizeof mode_names / sizeof mode_names[0]);

    opterr = 0;
    optind = 0; /* GNU: reinitialise, so tests can parse several command lines */
    while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': return 1;
        case OPT_MODE:
            for (a->mode = 0; a->mode < nmode; a->mode++)
                if (strcmp(optarg, mode_names[a->mode]) == 0)
                    break;
            if (a->mode == nmode)
                return nr_arg_fail(err, errlen,
                                   "--mode %s: give tcp-per-message, tcp, tcp-nodelay, "
                                   "udp or udp-cooled", optarg);
            break;
        case OPT_SIZES:
            if (nr_parse_size_list(optarg, sizes, PX_MAX_SIZES, &a->nsizes))
                /* The reason first: a long list would cut it off the message. */
                return nr_arg_fail(err, errlen,
                                   "--sizes: give up to %d sizes with units, separated by "
                                   "commas, e.g. 512B,12K-1,100K; got %s", PX_MAX_SIZES, optarg);
            for (int i = 0; i < a->nsizes; i++) {
                if (sizes[i] < PW_MIN_MESSAGE || sizes[i] > PX_MAX_MESSAGE)
                    return nr_arg_fail(err, errlen,
                                       "--sizes: %lldB is out of range: a message holds "
                                       "an %d-octet header, so give sizes from %dB to 4M",
                                       sizes[i], PW_HDR_LEN, PW_MIN_MESSAGE);
                a->sizes[i] = (long)sizes[i];
            }
            break;
        case OPT_COUNT:
            if (nr_parse_count(optarg, 1000000, &v) || v < 1)
                return nr_arg_fail(err, errlen, "--count %s: give 1 to 1000000 echoes per size",
                                   optarg);
            a->count = (long)v;
            break;
        case OPT_ORDER:
            if (strcmp(optarg, "sequential") != 0 && strcmp(optarg, "shuffled") != 0)
                return nr_arg_fail(err, errlen, "--order %s: give sequential or shuffled", optarg);
            a->shuffled = strcmp(optarg, "shuffled") == 0;
            break;
        case OPT_SEED:
            if (nr_parse_count(optarg, INT64_MAX, &v))
                return nr_arg_fail(err, errlen, "--seed %s: give a non-negative integer", optarg);
            a->seed = (uint64_t)v;
            break;
        case OPT_INTERVAL:
            if (time_arg(optarg, 0, &a->interval_ns))
                return nr_arg_fail(err, errlen,
                                   "--interval %s: give a time up to 3600s, e.g. 1s or 200ms",
                                   optarg);
            break;
        case OPT_PACING:
            if (strcmp(optarg, "grid") != 0 && strcmp(optarg, "alarm") != 0)
                return nr_arg_fail(err, errlen, "--pacing %s: give grid or alarm", optarg);
            a->pacing = strcmp(optarg, "alarm") == 0 ? PX_PACING_ALARM : PX_PACING_GRID;
            break;
        case OPT_TIMEOUT:
            if (time_arg(optarg, 1000000, &a->timeout_ns))
                return nr_arg_fail(err, errlen,
                                   "--timeout %s: give a time from 1ms to 3600s, e.g. 5s",
                                   optarg);
            break;
        case OPT_SILENT:
            if (nr_parse_count(optarg, 1000000, &v) || v < 1)
                return nr_arg_fail(err, errlen,
                                   "--max-silent %s: give a count of at least 1", optarg);
            a->max_silent = (long)v;
            break;
        case OPT_QUIET:
            if (time_arg(optarg, 1000000, &a->udp_quiet_ns))
                return nr_arg_fail(err, errlen, "--udp-quiet %s: give a time from 1ms to 3600s, "
                                   "e.g. 500ms", optarg);
            break;
        case OPT_DATAGRAM:
            if (nr_parse_size(optarg, &v) || v < PW_MIN_DGRAM || v > PW_MAX_DGRAM)
                return nr_arg_fail(err, errlen, "--datagram %s: give a size from %dB to 65507B, "
                                   "e.g. 8K", optarg, PW_MIN_DGRAM);
            a->datagram = (long)v;
            break;
        case OPT_GAP:
            if (time_arg(optarg, 1, &a->cool_gap_ns))
                return nr_arg_fail(err, errlen,
                                   "--cool-gap %s: give a time from 1ns to 3600s, e.g. 2ms",
                                   optarg);
            break;
        case OPT_ITER:
            if (nr_parse_count(optarg, 1000000000000LL, &v) || v < 1)
                return nr_arg_fail(err, errlen, "--cool-iterations %s: give a positive number of "
                                   "iterations, e.g. 2000", optarg);
            a->cool_iterations = (long)v;
            break;
        case OPT_SNDBUF:
        case OPT_RCVBUF:
            if (nr_parse_size(optarg, &v) || v < 1 || v > (1 << 30))
                return nr_arg_fail(err, errlen, "--%s %s: give a size from 1B to 1024M, e.g. 16K",
                                   c == OPT_SNDBUF ? "sndbuf" : "rcvbuf", optarg);
            *(c == OPT_SNDBUF ? &a->sndbuf : &a->rcvbuf) = (int)v;
            break;
        case OPT_HOST:
            a->host = optarg;
            break;
        case OPT_PORT:
            if (nr_parse_count(optarg, 65535, &v) || v < 1)
                return nr_arg_fail(err, errlen, "--port %s: give a port from 1 to 65535", optarg);
            a->port = (int)v;
            break;
        case OPT_PRINT:
            a->print_each = 1;
            break;
        NR_STACK_OPT_CASES:
            if (nr_stack_opt(&a->net, c, optarg, err, errlen))
                return -1;
            break;
        default:
            return nr_arg_unknown("pingx", argv[optind - 1], err, errlen);
        }
    }
    if (nr_args_stack(&a->net, &a->stack, err, errlen) ||
        nr_args_operands(argc, argv, NULL, NULL, "pingx takes no operands; see pingx --help", err,
                         errlen))
        return -1;
    if (a->mode < 0)
        return nr_arg_fail(err, errlen, "give --mode: tcp-per-message, tcp, tcp-nodelay, udp or "
                           "udp-cooled");
    if (a->nsizes == 0)
        return nr_arg_fail(err, errlen, "give --sizes, e.g. --sizes 512B,12K-1,100K");
    if (nr_arg_ipv4("--host", a->host, err, errlen))
        return -1;
    int cooled = a->cool_gap_ns >= 0 || a->cool_iterations >= 0;
    if (a->mode == PX_UDP_COOLED && (a->cool_gap_ns >= 0) == (a->cool_iterations >= 0))
        return nr_arg_fail(err, errlen, "udp-cooled needs exactly one of --cool-gap (a time) and "
                           "--cool-iterations (busy-loop iterations)");
    if (a->mode != PX_UDP_COOLED && cooled)
        return nr_arg_fail(err, errlen,
                           "--cool-gap and --cool-iterations apply to --mode udp-cooled "
                           "only");
    if (pingx_is_udp(a->mode)) {
        for (int i = 0; i < a->nsizes; i++)
            if (pw_udp_count(a->sizes[i], a->datagram) < 0)
                return nr_arg_fail(err, errlen, "--sizes %ldB with --datagram %ldB needs more than "
                                   "%d datagrams; give a larger --datagram",
                                   a->sizes[i], a->datagram, PW_MAX_COUNT);
    }
    return 0;
}
