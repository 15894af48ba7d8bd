#include "cli.h"

#include <getopt.h>
#include <math.h>
#include <string.h>

#include "nrargs.h"

void le_usage(FILE *out)
{
    fputs("usage: linkemu --if-a IF --if-b IF --rate RATE [options]\n"
          "Forwards Ethernet frames between two interfaces, imposing an emulated link:\n"
          "a drop-tail queue, a line of RATE charged with per-packet framing, a delay,\n"
          "and random loss. Frames from if-a leave through if-b (forward), and back (reverse).\n"
          "Each frame is handed to the kernel early by the send lag the kernel's transmit\n"
          "stamps measured (tx_lead_ns in the record), so it leaves at its time.\n"
          "Stops on SIGTERM or SIGINT and prints one JSON record of counters; SIGUSR1 writes\n"
          "the record so far (\"final\":false) to --stats FILE, or stdout without it.\n"
          "\n"
          "  --if-a IF                  interface towards host a (required)\n"
          "  --if-b IF                  interface towards host b (required)\n"
          "  --rate RATE                line rate, e.g. 10Mbit, 155.52Mbit (required)\n"
          "  --framing NAME             ethernet, aal5-llc-snap, aal5-vc-mux or none (default ethernet)\n"
          "  --mtu SIZE                 largest IP packet, e.g. 1500B, 9188B; larger frames are\n"
          "                             dropped and counted (default 1500B)\n"
          "  --delay TIME               one-way propagation delay, e.g. 0ms, 100ms (default 0ms)\n"
          "  --jitter TIME              added delay varies uniformly by +-TIME (default 0ms)\n"
          "  --reorder                  let jitter reorder packets (default: keep order)\n"
          "  --loss-pct PCT             random packet loss in percent, before the queue (default 0)\n"
          "  --cell-loss-ratio R        ATM cell loss ratio, lost per packet from its cells (default 0)\n"
          "  --bit-error-ratio R        bit error ratio, lost per packet from its bits (default 0)\n"
          "  --queue-packets N          drop-tail queue limit in packets, 0 = none (default 50)\n"
          "  --queue-bytes SIZE         drop-tail queue limit in octets of IP packets, 0 = none\n"
          "                             (default 0)\n"
          "  --medium NAME              duplex: a line per direction; shared: one half-duplex\n"
          "                             Ethernet both hosts take turns on, on the real clock\n"
          "                             (forward values; --delay is the propagation in which\n"
          "                             starts collide, --queue-packets each host's interface\n"
          "                             queue; CSMA/CD, 802.3 backoff, 51.2 us slots at 10 Mb/s,\n"
          "                             16 attempts; counters medium_* in the record)\n"
          "                             (default duplex)\n"
          LE_BACKGROUND_USAGE,
          out);
    le_link_usage_reverse(out);
    fputs("  --seed N                   seed of the loss and jitter draws (default 1)\n"
          "  --stats FILE               also write the final JSON record to FILE, atomically\n"
          "                             (default: stdout only)\n"
          "  --ready-file FILE          create FILE once forwarding (default: none)\n"
          "  --spin-us N                busy-wait this long before a scheduled send instead of\n"
          "                             sleeping, for timing precision, when the thread's\n"
          "                             previous send was at least 4 x N ago, so spinning takes at\n"
          "                             most a quarter of a thread's time (default 150)\n"
          "  --priority N               run the forwarding threads SCHED_FIFO at priority N (1-99),\n"
          "                             so that a busy machine delays frames less; a thread idle\n"
          "                             less than half of the time drops to normal scheduling\n"
          "                             until it idles again; 0 = normal scheduling (default 0)\n"
          "  --sock-buf SIZE            receive buffer of each packet socket; it absorbs the frames\n"
          "                             that arrive while a thread is descheduled (default 16M)\n"
          "  --frame-times              admit a frame that ends in a frame-time trailer at the time\n"
          "                             the trailer states, and send it on with a trailer that\n"
          "                             states its release time; frames without one pass as they\n"
          "                             are. For hosts on the Tahoe stack with --frame-times; both\n"
          "                             interfaces need an MTU 12 octets above --mtu (default off)\n"
          "  --help                     print this and exit\n"
          "Units: rates bit|Kbit|Mbit|Gbit (powers of 1000), times ns|us|ms|s,\n"
          "sizes B|K|M (K = 1024 octets).\n",
          out);
}

enum { OPT_IF_A = 256, OPT_IF_B, OPT_SEED, OPT_STATS, OPT_READY, OPT_SPIN, OPT_PRIORITY,
       OPT_SOCKBUF, OPT_FRAME_TIMES, OPT_MEDIUM, OPT_BG_FPS, OPT_BG_SIZE, OPT_HELP };

int le_parse_args(int argc, char **argv, struct le_opts *opts, FILE *out, FILE *err)
{
    static const struct option longopts[] = {
        {"if-a", required_argument, 0, OPT_IF_A},
        {"if-b", required_argument, 0, OPT_IF_B},
        LE_LINK_LONGOPTS,
        {"seed", required_argument, 0, OPT_SEED},
        {"stats", required_argument, 0, OPT_STATS},
        {"ready-file", required_argument, 0, OPT_READY},
        {"spin-us", required_argument, 0, OPT_SPIN},
        {"priority", required_argument, 0, OPT_PRIORITY},
        {"sock-buf", required_argument, 0, OPT_SOCKBUF},
        {"frame-times", no_argument, 0, OPT_FRAME_TIMES},
        {"medium", required_argument, 0, OPT_MEDIUM},
        {"background-fps", required_argument, 0, OPT_BG_FPS},
        {"background-size", required_argument, 0, OPT_BG_SIZE},
        {"help", no_argument, 0, OPT_HELP},
        {0, 0, 0, 0},
    };
    struct le_link_opts link;
    le_link_init(&link);
    *opts = (struct le_opts){.seed = 1, .spin_ns = 150000, .sock_buf = 16 << 20,
                             .background_octets = 1500};
    double number;
    uint64_t size;
    char message[256];
    int opt;
    optind = 0; /* getopt keeps state across calls; 0 resets it fully (glibc) */
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (opt) {
        case OPT_IF_A:
            opts->if_a = optarg;
            break;
        case OPT_IF_B:
            opts->if_b = optarg;
            break;
        case OPT_SEED:
            if (le_parse_whole(optarg, 9007199254740992.0, &opts->seed) < 0) {
                fprintf(err, "linkemu: bad --seed '%s'; give a non-negative integer\n", optarg);
                return -1;
            }
            break;
        case OPT_STATS:
            opts->stats_path = optarg;
            break;
        case OPT_READY:
            opts->ready_path = optarg;
            break;
        case OPT_SPIN:
            if (le_parse_number(optarg, 0, 100000, &number) < 0) {
                fprintf(err, "linkemu: bad --spin-us '%s'; give 0 to 100000 microseconds\n", optarg);
                return -1;
            }
            opts->spin_ns = (int64_t)(number * 1000);
            break;
        case OPT_PRIORITY:
            if (le_parse_number(optarg, 0, 99, &number) < 0 || number != floor(number)) {
                fprintf(err, "linkemu: bad --priority '%s'; give 0 (normal) or 1 to 99\n", optarg);
                return -1;
            }
            opts->priority = (int)number;
            break;
        case OPT_SOCKBUF:
            if (le_parse_size(optarg, &size) < 0 || size < 65536 || size > (1u << 30)) {
                fprintf(err, "linkemu: bad --sock-buf '%s'; give 64K to 1024M\n", optarg);
                return -1;
            }
            opts->sock_buf = (uint32_t)size;
            break;
        case OPT_FRAME_TIMES:
            opts->frame_times = 1;
            break;
        case OPT_MEDIUM:
            if (strcmp(optarg, "duplex") != 0 && strcmp(optarg, "shared") != 0) {
                fprintf(err, "linkemu: bad --medium '%s'; give duplex or shared\n", optarg);
                return -1;
            }
            opts->shared_medium = strcmp(optarg, "shared") == 0;
            break;
        case OPT_BG_FPS:
        case OPT_BG_SIZE:
            if (le_background_opt(opt == OPT_BG_FPS ? "background-fps" : "background-size", optarg,
                                  &opts->background_fps, &opts->background_octets, "linkemu",
                                  err) < 0)
                return -1;
            break;
        case OPT_HELP:
            le_usage(out);
            return 1;
        case '?':
            nr_arg_unknown("linkemu", argv[optind - 1], message, sizeof message);
            fprintf(err, "linkemu: %s\n", message);
            return -1;
        default:
            if (le_link_opt(&link, opt, optarg, "linkemu", err) < 0)
                return -1;
        }
    }
    if (nr_args_operands(argc, argv, NULL, NULL,
                         "linkemu takes no operands: every setting is a --flag; see linkemu --help",
                         message, sizeof message)) {
        fprintf(err, "linkemu: %s\n", message);
        return -1;
    }
    if (!opts->if_a || !opts->if_b) {
        fprintf(err, "linkemu: --if-a and --if-b are required: the two interfaces to forward between\n");
        return -1;
    }
    if (strcmp(opts->if_a, opts->if_b) == 0) {
        fprintf(err, "linkemu: --if-a and --if-b are both '%s'; give two different interfaces\n",
                opts->if_a);
        return -1;
    }
    if (le_link_finish(&link, "linkemu", err) < 0)
        return -1;
    if (opts->shared_medium && !le_link_shared_ok(&link, "linkemu", err))
        return -1;
    if (opts->background_fps > 0 && !opts->shared_medium) {
        fprintf(err, "linkemu: --background-fps needs --medium shared\n");
        return -1;
    }
    opts->framing = link.framing;
    opts->mtu = link.mtu;
    opts->forward = link.forward;
    opts->reverse = link.reverse;
    return 0;
}
