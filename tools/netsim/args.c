#include "args.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linkemu/cli.h"
#include "nrio.h"
#include "units.h"

/* ASSUMPTION: one iteration of an empty busy loop takes one cycle of a 25 MHz CPU. */
#define DEFAULT_SPIN_PS 40000
#define DEFAULT_QUEUE_PACKETS 50
#define MAX_TTCP_ARGS 64

void ns_usage(FILE *out)
{
    fprintf(out,
        "usage: netsim --rate RATE [options] -- TTCP_TRANSMITTER_ARGS -- TTCP_RECEIVER_ARGS\n"
        "Runs ttcp in virtual time: the transmitter on host a (" NS_ADDR_A "), the receiver on\n"
        "host b (" NS_ADDR_B "), each on its own 4.3BSD-Tahoe stack with a host model, joined\n"
        "by linkemu's link model in both directions. The ttcp arguments are ttcp's own, e.g.\n"
        "  netsim --rate 100Mbit --framing aal5-vc-mux --mtu 9188B -- \\\n"
        "    -t --sndbuf 16K --bytes 1M " NS_ADDR_B " -- -r --rcvbuf 24K\n"
        "Writes ttcp's JSON records (both ends, one per transfer each, in virtual-time order),\n"
        "then one {\"record\":\"sim\",...} with event counts, times and both hosts' tcpstat.\n"
        "The same arguments give byte-identical output, but for the wall-clock fields of the\n"
        "sim record (wall_ns, events_per_s, speedup), which --no-wall leaves out.\n"
        "\n"
        "Link (as linkemu; forward is a->b):\n"
        "  --rate RATE                line rate, e.g. 10Mbit, 100Mbit (required)\n"
        "  --framing NAME             ethernet, aal5-llc-snap, aal5-vc-mux or none (default ethernet)\n"
        "  --mtu SIZE                 interface MTU of both hosts and largest packet the link\n"
        "                             carries, e.g. 1500B, 9188B (default 1500B)\n"
        "  --delay TIME               one-way propagation delay (default 0ms)\n"
        "  --jitter TIME              added delay varies uniformly by +-TIME (default 0ms)\n"
        "  --reorder                  let jitter reorder packets (default: keep order)\n"
        "  --loss-pct PCT             random packet loss in percent (default 0)\n"
        "  --cell-loss-ratio R        ATM cell loss ratio (default 0)\n"
        "  --bit-error-ratio R        bit error ratio (default 0)\n"
        "  --queue-packets N          drop-tail queue limit in packets, 0 = none (default %d)\n"
        "  --queue-bytes SIZE         drop-tail queue limit in octets, 0 = none (default 0)\n"
        "  --reverse-rate RATE        the b->a direction's rate (default: as --rate)\n"
        "  --reverse-delay TIME       (default: as --delay)\n"
        "  --reverse-jitter TIME      (default: as --jitter)\n"
        "  --reverse-reorder          (default: as --reorder)\n"
        "  --reverse-loss-pct PCT     (default: as --loss-pct)\n"
        "  --reverse-cell-loss-ratio R (default: as --cell-loss-ratio)\n"
        "  --reverse-bit-error-ratio R (default: as --bit-error-ratio)\n"
        "  --reverse-queue-packets N  (default: as --queue-packets)\n"
        "  --reverse-queue-bytes SIZE (default: as --queue-bytes)\n"
        "Hosts and run:\n"
        "  --app NAME                 the application: ttcp (default ttcp)\n"
        "  --host-model-a FILE        host a's processing costs, configs/hosts/*.yaml\n"
        "                             (default: none, a host that costs no time)\n"
        "  --host-model-b FILE        host b's (default: none)\n"
        "  --boot-b TIME              how long before host a host b booted, which sets the\n"
        "                             phase of b's 200 ms and 500 ms ticks against a's; both\n"
        "                             applications start as host a boots (default: drawn from\n"
        "                             --seed, uniform in [0s, 1s))\n"
        "  --tcp-space SIZE           both hosts' default TCP send and receive buffers, which\n"
        "                             also start each connection's cwnd (default: SunOS's\n"
        "                             choice by MTU, 16K above MTU 1500, else 4.3BSD's 4K)\n"
        "  --spin-ps N                CPU time of one busy-loop iteration (ttcp --cool-spin), in\n"
        "                             picoseconds (default %d)\n"
        "  --seed N                   seed of the link's loss and jitter draws and of --boot-b\n"
        "                             (default 1)\n"
        "  --no-wall                  leave the wall-clock fields out of the sim record\n"
        "                             (default: written)\n"
        "  --trace                    also write a {\"record\":\"segment\",...} for every TCP\n"
        "                             segment a host sends, with the rule that sent it\n"
        "                             (default off)\n"
        "  --help                     print this and exit\n"
        "Units: rates bit|Kbit|Mbit|Gbit (powers of 1000), times ns|us|ms|s, sizes B|K|M\n"
        "(K = 1024 octets). Exit status: 0 ok, 1 a transfer or the simulation failed,\n"
        "2 bad arguments.\n",
        DEFAULT_QUEUE_PACKETS, DEFAULT_SPIN_PS);
}

enum {
    OPT_RATE = 256, OPT_DELAY, OPT_JITTER, OPT_REORDER, OPT_LOSS, OPT_CLR, OPT_BER, OPT_QPKT,
    OPT_QBYTES,
    OPT_REVERSE = 512, /* OPT_REVERSE + a per-direction option: the same for b->a */
    OPT_FRAMING = 1024, OPT_MTU, OPT_APP, OPT_HOST_A, OPT_HOST_B, OPT_BOOT_B, OPT_SPIN, OPT_TCP_SPACE, OPT_SEED,
    OPT_NO_WALL, OPT_TRACE, OPT_HELP,
};
#define NDIR (OPT_QBYTES - OPT_RATE + 1)

static int parse_number(const char *text, double lo, double hi, double *value)
{
    char *end;
    double number = strtod(text, &end);
    if (end == text || *end || !(number >= lo && number <= hi))
        return -1;
    *value = number;
    return 0;
}

static int parse_whole(const char *text, double hi, uint64_t *value)
{
    double number;
    if (parse_number(text, 0, hi, &number) < 0 || number != floor(number))
        return -1;
    *value = (uint64_t)number;
    return 0;
}

/* One per-direction flag into c; returns 0 or -1 on a bad value. */
static int set_dir(struct le_dir_cfg *c, int opt, const char *arg)
{
    uint64_t v;
    switch (opt) {
    case OPT_RATE:
        return le_parse_rate(arg, &c->rate_bps) < 0 || c->rate_bps <= 0 ? -1 : 0;
    case OPT_DELAY:
        return le_parse_time(arg, &c->delay_ns);
    case OPT_JITTER:
        return le_parse_time(arg, &c->jitter_ns);
    case OPT_REORDER:
        c->reorder = true;
        return 0;
    case OPT_LOSS:
        return parse_number(arg, 0, 100, &c->loss_pct);
    case OPT_CLR:
        return parse_number(arg, 0, 1, &c->cell_loss_ratio);
    case OPT_BER:
        return parse_number(arg, 0, 1, &c->bit_error_ratio);
    case OPT_QPKT:
        if (parse_whole(arg, 1e9, &v) < 0)
            return -1;
        c->queue_packets = v;
        return 0;
    case OPT_QBYTES:
        return le_parse_size(arg, &c->queue_bytes);
    }
    return -1;
}

/* Copies each per-direction value given for the reverse direction over the forward one. */
static void merge_reverse(struct le_dir_cfg *o, const struct le_dir_cfg *r, const bool *set)
{
    if (set[OPT_RATE - OPT_RATE]) o->rate_bps = r->rate_bps;
    if (set[OPT_DELAY - OPT_RATE]) o->delay_ns = r->delay_ns;
    if (set[OPT_JITTER - OPT_RATE]) o->jitter_ns = r->jitter_ns;
    if (set[OPT_REORDER - OPT_RATE]) o->reorder = r->reorder;
    if (set[OPT_LOSS - OPT_RATE]) o->loss_pct = r->loss_pct;
    if (set[OPT_CLR - OPT_RATE]) o->cell_loss_ratio = r->cell_loss_ratio;
    if (set[OPT_BER - OPT_RATE]) o->bit_error_ratio = r->bit_error_ratio;
    if (set[OPT_QPKT - OPT_RATE]) o->queue_packets = r->queue_packets;
    if (set[OPT_QBYTES - OPT_RATE]) o->queue_bytes = r->queue_bytes;
}

/* Parses one ttcp command line (argv[0..n-1], without a program name) into t. */
static int parse_ttcp(char **argv, int n, struct ttcp_args *t, const char *which, FILE *err)
{
    char *args[MAX_TTCP_ARGS + 2];
    if (n > MAX_TTCP_ARGS) {
        fprintf(err, "netsim: more than %d %s arguments\n", MAX_TTCP_ARGS, which);
        return -1;
    }
    args[0] = "ttcp";
    for (int i = 0; i < n; i++)
        args[i + 1] = argv[i];
    args[n + 1] = NULL;
    char msg[256];
    int rc = ttcp_parse_args(n + 1, args, t, msg, sizeof msg);
    if (rc != 0) {
        fprintf(err, "netsim: the %s arguments: %s\n",
                which, rc == 1 ? "--help is not a transfer; see ttcp --help" : msg);
        return -1;
    }
    /* The records say which stack moved the data. */
    t->stack = "tahoe-sim";
    return 0;
}

static int check_pair(const struct ns_args *a, FILE *err)
{
    struct nrio_addr to, b, bind;
    nrio_parse_addr(NS_ADDR_B, 0, &b);
    if (!a->tx.transmit || a->rx.transmit) {
        fprintf(err, "netsim: give the transmitter (-t) first and the receiver (-r) second\n");
        return -1;
    }
    if (nrio_parse_addr(a->tx.host, 0, &to) < 0 || to.ip != b.ip) {
        fprintf(err, "netsim: the transmitter sends to %s, but the receiver is host b, %s\n",
                a->tx.host, NS_ADDR_B);
        return -1;
    }
    if (nrio_parse_addr(a->rx.bind_ip, 0, &bind) < 0 || (bind.ip != 0 && bind.ip != b.ip)) {
        fprintf(err, "netsim: the receiver binds %s; use 0.0.0.0 or %s\n", a->rx.bind_ip,
                NS_ADDR_B);
        return -1;
    }
    if (a->tx.port != a->rx.port || a->tx.proto != a->rx.proto ||
        a->tx.repeat != a->rx.repeat) {
        fprintf(err, "netsim: give both ttcp ends the same -p, -u and --repeat\n");
        return -1;
    }
    return 0;
}

int ns_parse_args(int argc, char **argv, struct ns_args *a, FILE *out, FILE *err)
{
    static const struct option longopts[] = {
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
        {"framing", required_argument, 0, OPT_FRAMING},
        {"mtu", required_argument, 0, OPT_MTU},
        {"app", required_argument, 0, OPT_APP},
        {"host-model-a", required_argument, 0, OPT_HOST_A},
        {"host-model-b", required_argument, 0, OPT_HOST_B},
        {"boot-b", required_argument, 0, OPT_BOOT_B},
        {"spin-ps", required_argument, 0, OPT_SPIN},
        {"tcp-space", required_argument, 0, OPT_TCP_SPACE},
        {"seed", required_argument, 0, OPT_SEED},
        {"no-wall", no_argument, 0, OPT_NO_WALL},
        {"trace", no_argument, 0, OPT_TRACE},
        {"help", no_argument, 0, OPT_HELP},
        {0, 0, 0, 0},
    };
    *a = (struct ns_args){.framing = LE_FRAMING_ETHERNET, .mtu = 1500, .seed = 1,
                          .boot_b_ns = -1, .spin_ps = DEFAULT_SPIN_PS,
                          .forward = {.queue_packets = DEFAULT_QUEUE_PACKETS}};
    struct le_dir_cfg rev = {0};
    bool rev_set[NDIR] = {false};
    bool rate_set = false;
    uint64_t v;
    int opt, index = 0;
    optind = 0; /* getopt keeps state across calls; 0 resets it fully (glibc) */
    opterr = 0;
    /* "+": stop at the first non-option, so nothing after "--" is taken as netsim's. */
    while ((opt = getopt_long(argc, argv, "+", longopts, &index)) != -1) {
        const char *flag = longopts[index].name;
        int bad = 0;
        switch (opt) {
        case OPT_FRAMING:
            if (le_parse_framing(optarg, &a->framing) < 0) {
                fprintf(err, "netsim: unknown --framing '%s'; use ethernet, aal5-llc-snap, "
                             "aal5-vc-mux or none\n", optarg);
                return -1;
            }
            break;
        case OPT_MTU:
            bad = le_parse_size(optarg, &v) < 0 || v < 68 || v > 65535;
            a->mtu = (uint32_t)v;
            break;
        case OPT_APP:
            if (strcmp(optarg, "ttcp") != 0) {
                fprintf(err, "netsim: --app %s: the only application today is ttcp\n", optarg);
                return -1;
            }
            break;
        case OPT_HOST_A:
        case OPT_HOST_B:
            a->host_model[opt == OPT_HOST_B] = optarg;
            break;
        case OPT_BOOT_B:
            bad = le_parse_time(optarg, &a->boot_b_ns) < 0;
            break;
        case OPT_SPIN:
            bad = parse_whole(optarg, 1e12, &v) < 0;
            a->spin_ps = (int64_t)v;
            break;
        case OPT_TCP_SPACE:
            bad = le_parse_size(optarg, &v) < 0 || v < 1 || v > (1u << 30);
            a->tcp_space = (int)v;
            break;
        case OPT_SEED:
            bad = parse_whole(optarg, 9007199254740992.0, &a->seed) < 0;
            break;
        case OPT_NO_WALL:
            a->no_wall = true;
            break;
        case OPT_TRACE:
            a->trace = true;
            break;
        case OPT_HELP:
            ns_usage(out);
            return 1;
        case '?':
            fprintf(err, "netsim: unknown option '%s', or it is missing its value; see --help\n",
                    argv[optind - 1]);
            return -1;
        default:
            if (opt >= OPT_REVERSE) {
                bad = set_dir(&rev, opt - OPT_REVERSE, optarg) < 0;
                rev_set[opt - OPT_REVERSE - OPT_RATE] = true;
            } else {
                bad = set_dir(&a->forward, opt, optarg) < 0;
                rate_set |= opt == OPT_RATE;
            }
        }
        if (bad) {
            fprintf(err, "netsim: bad value '%s' for --%s; see --help for its unit and range\n",
                    optarg, flag);
            return -1;
        }
    }
    if (!rate_set) {
        fprintf(err, "netsim: --rate is required, e.g. --rate 100Mbit\n");
        return -1;
    }
    a->reverse = a->forward;
    merge_reverse(&a->reverse, &rev, rev_set);

    /* getopt stopped just after the first "--"; the second splits the two ttcp lines. */
    if (optind < 1 || strcmp(argv[optind - 1], "--") != 0) {
        fprintf(err, "netsim: give the ttcp arguments after '--': -- TRANSMITTER -- RECEIVER\n");
        return -1;
    }
    int split = -1;
    for (int i = optind; i < argc && split < 0; i++)
        if (strcmp(argv[i], "--") == 0)
            split = i;
    if (split < 0) {
        fprintf(err, "netsim: give a second '--' between the transmitter's and the receiver's "
                     "ttcp arguments\n");
        return -1;
    }
    if (parse_ttcp(argv + optind, split - optind, &a->tx, "transmitter", err) < 0 ||
        parse_ttcp(argv + split + 1, argc - split - 1, &a->rx, "receiver", err) < 0)
        return -1;
    return check_pair(a, err);
}
