#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const framing_names[] = {
    [LE_FRAMING_ETHERNET] = "ethernet",
    [LE_FRAMING_AAL5_LLC_SNAP] = "aal5-llc-snap",
    [LE_FRAMING_AAL5_VC_MUX] = "aal5-vc-mux",
    [LE_FRAMING_NONE] = "none",
};

const char *le_framing_name(enum le_framing framing)
{
    return framing_names[framing];
}

int le_parse_framing(const char *text, enum le_framing *framing)
{
    for (size_t i = 0; i < sizeof framing_names / sizeof framing_names[0]; i++) {
        if (strcmp(text, framing_names[i]) == 0) {
            *framing = (enum le_framing)i;
            return 0;
        }
    }
    return -1;
}

struct unit {
    const char *name;
    double factor;
};

/* A non-negative decimal number followed by one of units (an empty name allows a bare number). */
static int parse_with_unit(const char *text, const struct unit *units, double *value)
{
    char *end;
    errno = 0;
    double number = strtod(text, &end);
    if (errno || end == text || !isfinite(number) || number < 0 || text[0] == '-' || text[0] == '+')
        return -1;
    for (const struct unit *u = units; u->name; u++) {
        if (strcmp(end, u->name) == 0) {
            *value = number * u->factor;
            return 0;
        }
    }
    return -1;
}

int le_parse_rate(const char *text, double *bps)
{
    static const struct unit units[] = {{"bit", 1}, {"Kbit", 1e3}, {"Mbit", 1e6}, {"Gbit", 1e9}, {0}};
    return parse_with_unit(text, units, bps);
}

int le_parse_time(const char *text, int64_t *ns)
{
    static const struct unit units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {0}};
    double value;
    if (parse_with_unit(text, units, &value) < 0 || value > 1e15)
        return -1;
    *ns = (int64_t)llround(value);
    return 0;
}

int le_parse_size(const char *text, uint64_t *octets)
{
    static const struct unit units[] = {{"", 1}, {"B", 1}, {"K", 1024}, {"KB", 1024},
                                        {"M", 1048576}, {"MB", 1048576}, {0}};
    double value;
    if (parse_with_unit(text, units, &value) < 0 || value != floor(value) || value > 1e15)
        return -1;
    *octets = (uint64_t)value;
    return 0;
}

static int parse_number(const char *text, double lo, double hi, double *value)
{
    char *end;
    errno = 0;
    double number = strtod(text, &end);
    if (errno || end == text || *end || !(number >= lo && number <= hi))
        return -1;
    *value = number;
    return 0;
}

void le_usage(FILE *out)
{
    fputs("usage: linkemu --if-a IF --if-b IF --rate RATE [options]\n"
          "Forwards Ethernet frames between two interfaces, imposing an emulated link:\n"
          "a drop-tail queue, a line of RATE charged with per-packet framing, a delay,\n"
          "and random loss. Frames from if-a leave through if-b (forward), and back (reverse).\n"
          "Stops on SIGTERM or SIGINT and prints one JSON record of counters.\n"
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
          "  --reverse-rate RATE        the b->a direction's rate (default: as --rate)\n"
          "  --reverse-delay TIME       (default: as --delay)\n"
          "  --reverse-jitter TIME      (default: as --jitter)\n"
          "  --reverse-reorder          (default: as --reorder)\n"
          "  --reverse-loss-pct PCT     (default: as --loss-pct)\n"
          "  --reverse-cell-loss-ratio R (default: as --cell-loss-ratio)\n"
          "  --reverse-bit-error-ratio R (default: as --bit-error-ratio)\n"
          "  --reverse-queue-packets N  (default: as --queue-packets)\n"
          "  --reverse-queue-bytes SIZE (default: as --queue-bytes)\n"
          "  --seed N                   seed of the loss and jitter draws (default 1)\n"
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
          "  --help                     print this and exit\n"
          "Units: rates bit|Kbit|Mbit|Gbit (powers of 1000), times ns|us|ms|s,\n"
          "sizes B|K|M (K = 1024 octets).\n",
          out);
}

enum {
    OPT_IF_A = 256, OPT_IF_B, OPT_RATE, OPT_FRAMING, OPT_MTU, OPT_DELAY, OPT_JITTER, OPT_REORDER,
    OPT_LOSS, OPT_CLR, OPT_BER, OPT_QPKT, OPT_QBYTES,
    OPT_REVERSE = 512, /* OPT_REVERSE + a per-direction option: the same for b->a */
    OPT_SEED = 1024, OPT_STATS, OPT_READY, OPT_SPIN, OPT_PRIORITY, OPT_SOCKBUF, OPT_HELP,
};

/* Per-direction settings given on the command line; unset reverse ones copy the forward ones. */
struct dir_args {
    bool set[OPT_QBYTES - OPT_RATE + 1];
    struct le_dir_cfg cfg;
};

static int set_dir(struct dir_args *d, int opt, const char *arg, const char *flag, FILE *err)
{
    struct le_dir_cfg *c = &d->cfg;
    double number;
    uint64_t size = 0;
    int bad = 0;
    switch (opt) {
    case OPT_RATE:
        bad = le_parse_rate(arg, &c->rate_bps) < 0 || c->rate_bps <= 0;
        break;
    case OPT_DELAY:
        bad = le_parse_time(arg, &c->delay_ns) < 0;
        break;
    case OPT_JITTER:
        bad = le_parse_time(arg, &c->jitter_ns) < 0;
        break;
    case OPT_REORDER:
        c->reorder = true;
        break;
    case OPT_LOSS:
        bad = parse_number(arg, 0, 100, &c->loss_pct) < 0;
        break;
    case OPT_CLR:
        bad = parse_number(arg, 0, 1, &c->cell_loss_ratio) < 0;
        break;
    case OPT_BER:
        bad = parse_number(arg, 0, 1, &c->bit_error_ratio) < 0;
        break;
    case OPT_QPKT:
        bad = parse_number(arg, 0, 1e9, &number) < 0 || number != floor(number);
        c->queue_packets = bad ? 0 : (uint64_t)number;
        break;
    case OPT_QBYTES:
        bad = le_parse_size(arg, &size) < 0;
        c->queue_bytes = size;
        break;
    default:
        return -1;
    }
    if (bad) {
        fprintf(err, "linkemu: bad value '%s' for --%s; see --help for its unit and range\n", arg, flag);
        return -1;
    }
    d->set[opt - OPT_RATE] = true;
    return 0;
}

int le_parse_args(int argc, char **argv, struct le_opts *opts, FILE *out, FILE *err)
{
    static const struct option longopts[] = {
        {"if-a", required_argument, 0, OPT_IF_A},
        {"if-b", required_argument, 0, OPT_IF_B},
        {"framing", required_argument, 0, OPT_FRAMING},
        {"mtu", required_argument, 0, OPT_MTU},
        {"rate", required_argument, 0, OPT_RATE},
        {"delay", required_argument, 0, OPT_DELAY},
        {"jitter", required_argument, 0, OPT_JITTER},
        {"reorder", no_argument, 0, OPT_REORDER},
        {"loss-pct", required_argument, 0, OPT_LOSS},
        {"cell-loss-ratio", required_argument, 0, OPT_CLR},
        {"bit-error-ratio", required_argument, 0, OPT_BER},
        {"queue-packets", required_argument, 0, OPT_QPKT},
        {"queue-bytes", required_argument, 0, OPT_QBYTES},
        {"reverse-rate", required_argument, 0, OPT_REVERSE + OPT_RATE},
        {"reverse-delay", required_argument, 0, OPT_REVERSE + OPT_DELAY},
        {"reverse-jitter", required_argument, 0, OPT_REVERSE + OPT_JITTER},
        {"reverse-reorder", no_argument, 0, OPT_REVERSE + OPT_REORDER},
        {"reverse-loss-pct", required_argument, 0, OPT_REVERSE + OPT_LOSS},
        {"reverse-cell-loss-ratio", required_argument, 0, OPT_REVERSE + OPT_CLR},
        {"reverse-bit-error-ratio", required_argument, 0, OPT_REVERSE + OPT_BER},
        {"reverse-queue-packets", required_argument, 0, OPT_REVERSE + OPT_QPKT},
        {"reverse-queue-bytes", required_argument, 0, OPT_REVERSE + OPT_QBYTES},
        {"seed", required_argument, 0, OPT_SEED},
        {"stats", required_argument, 0, OPT_STATS},
        {"ready-file", required_argument, 0, OPT_READY},
        {"spin-us", required_argument, 0, OPT_SPIN},
        {"priority", required_argument, 0, OPT_PRIORITY},
        {"sock-buf", required_argument, 0, OPT_SOCKBUF},
        {"help", no_argument, 0, OPT_HELP},
        {0, 0, 0, 0},
    };
    struct dir_args fwd = {.cfg = {.queue_packets = 50}};
    struct dir_args rev = {0};
    *opts = (struct le_opts){.framing = LE_FRAMING_ETHERNET, .mtu = 1500, .seed = 1,
                             .spin_ns = 150000, .sock_buf = 16 << 20};
    double number;
    uint64_t size;
    int opt, index = 0;
    optind = 0; /* getopt keeps state across calls; 0 resets it fully (glibc) */
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", longopts, &index)) != -1) {
        const char *flag = longopts[index].name;
        switch (opt) {
        case OPT_IF_A:
            opts->if_a = optarg;
            break;
        case OPT_IF_B:
            opts->if_b = optarg;
            break;
        case OPT_FRAMING:
            if (le_parse_framing(optarg, &opts->framing) < 0) {
                fprintf(err, "linkemu: unknown --framing '%s'; use ethernet, aal5-llc-snap, aal5-vc-mux "
                             "or none\n", optarg);
                return -1;
            }
            break;
        case OPT_MTU:
            if (le_parse_size(optarg, &size) < 0 || size < 68 || size > 65535) {
                fprintf(err, "linkemu: bad --mtu '%s'; give 68B to 65535B, e.g. 1500B\n", optarg);
                return -1;
            }
            opts->mtu = (uint32_t)size;
            break;
        case OPT_SEED:
            if (parse_number(optarg, 0, 9007199254740992.0, &number) < 0 || number != floor(number)) {
                fprintf(err, "linkemu: bad --seed '%s'; give a non-negative integer\n", optarg);
                return -1;
            }
            opts->seed = (uint64_t)number;
            break;
        case OPT_STATS:
            opts->stats_path = optarg;
            break;
        case OPT_READY:
            opts->ready_path = optarg;
            break;
        case OPT_SPIN:
            if (parse_number(optarg, 0, 100000, &number) < 0) {
                fprintf(err, "linkemu: bad --spin-us '%s'; give 0 to 100000 microseconds\n", optarg);
                return -1;
            }
            opts->spin_ns = (int64_t)(number * 1000);
            break;
        case OPT_PRIORITY:
            if (parse_number(optarg, 0, 99, &number) < 0 || number != floor(number)) {
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
        case OPT_HELP:
            le_usage(out);
            return 1;
        case '?':
            if (optopt)
                fprintf(err, "linkemu: option '%s' is missing its value or takes none; see --help\n",
                        argv[optind - 1]);
            else
                fprintf(err, "linkemu: unknown option '%s'; see --help\n", argv[optind - 1]);
            return -1;
        default:
            if (opt >= OPT_REVERSE && opt < OPT_SEED) {
                if (set_dir(&rev, opt - OPT_REVERSE, optarg, flag, err) < 0)
                    return -1;
            } else if (set_dir(&fwd, opt, optarg, flag, err) < 0) {
                return -1;
            }
        }
    }
    if (optind < argc) {
        fprintf(err, "linkemu: unexpected argument '%s'; every setting is a --flag, see --help\n",
                argv[optind]);
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
    if (!fwd.set[OPT_RATE - OPT_RATE]) {
        fprintf(err, "linkemu: --rate is required, e.g. --rate 10Mbit\n");
        return -1;
    }
    opts->forward = fwd.cfg;
    opts->reverse = fwd.cfg;
    /* Each reverse value that was given replaces the copy of the forward one. */
    const struct le_dir_cfg *r = &rev.cfg;
    struct le_dir_cfg *o = &opts->reverse;
    if (rev.set[OPT_RATE - OPT_RATE]) o->rate_bps = r->rate_bps;
    if (rev.set[OPT_DELAY - OPT_RATE]) o->delay_ns = r->delay_ns;
    if (rev.set[OPT_JITTER - OPT_RATE]) o->jitter_ns = r->jitter_ns;
    if (rev.set[OPT_REORDER - OPT_RATE]) o->reorder = r->reorder;
    if (rev.set[OPT_LOSS - OPT_RATE]) o->loss_pct = r->loss_pct;
    if (rev.set[OPT_CLR - OPT_RATE]) o->cell_loss_ratio = r->cell_loss_ratio;
    if (rev.set[OPT_BER - OPT_RATE]) o->bit_error_ratio = r->bit_error_ratio;
    if (rev.set[OPT_QPKT - OPT_RATE]) o->queue_packets = r->queue_packets;
    if (rev.set[OPT_QBYTES - OPT_RATE]) o->queue_bytes = r->queue_bytes;
    return 0;
}
