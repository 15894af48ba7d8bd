#include "args.h"

#include <getopt.h>
#include <string.h>

#include "appcmd.h"
#include "linkemu/linkopt.h"
#include "mftpd/server.h"
#include "nrio.h"

/* ASSUMPTION: one iteration of an empty busy loop takes one cycle of a 25 MHz CPU. */
#define DEFAULT_SPIN_PS 40000

static const char *const app_names[] = {[NS_APP_TTCP] = "ttcp", [NS_APP_PINGX] = "pingx",
                                        [NS_APP_MFTP] = "mftp", [NS_APP_IPCBENCH] = "ipcbench"};

const char *ns_app_name(enum ns_app app) { return app_names[app]; }

void ns_usage(FILE *out)
{
    fprintf(out,
        "usage: netsim --rate RATE [options] -- TTCP_TRANSMITTER_ARGS -- TTCP_RECEIVER_ARGS\n"
        "       netsim --app pingx --rate RATE [options] -- PINGX_ARGS -- ECHOD_ARGS\n"
        "       netsim --app mftp --rate RATE [options] -- MFTP_ARGS -- MFTPD_ARGS\n"
        "       netsim --app ipcbench --rate RATE [options] -- CLIENT_ARGS -- SERVER_ARGS\n"
        "Runs an application in virtual time: ttcp's transmitter, pingx or mftp on host a\n"
        "(" NS_ADDR_A "), ttcp's receiver, echod or mftpd on host b (" NS_ADDR_B "), each on its\n"
        "own 4.3BSD-Tahoe stack with a host model, joined by linkemu's link model in both\n"
        "directions. The arguments after each '--' are the program's own, e.g.\n"
        "  netsim --rate 100Mbit --framing aal5-vc-mux --mtu 9188B -- \\\n"
        "    -t --sndbuf 16K --bytes 1M " NS_ADDR_B " -- -r --rcvbuf 24K\n"
        "  netsim --app pingx --rate 10Mbit --delay 1ms --pcap a.pcap -- \\\n"
        "    --mode udp --sizes 512B,8K --count 5 --interval 100ms -- --proto udp\n"
        "  netsim --app mftp --rate 140Mbit --framing aal5-vc-mux --mtu 9188B --delay 100ms \\\n"
        "    --file-size 1M -- -n 4 --window 24K --get src.bin --dest got.bin " NS_ADDR_B " -- \\\n"
        "    --root .\n"
        "ipcbench (milliner): the client on host a sends to HOST " NS_ADDR_B ", the server\n"
        "(--server is given for it) on host b; the server's --count defaults to the client's\n"
        "--repeat. --api rpc (libtirpc drives kernel sockets) and --api tli (no TLI on Linux)\n"
        "are refused, as is --stack.\n"
        "pingx's --host defaults to host b here; mftp's HOST, like ttcp's, must be host b. The\n"
        "stack flags of pingx, echod, mftp and mftpd (--stack, --if, ...) are refused, as both\n"
        "hosts run the simulated stack, and so is mftp's --rtt-method icmp (the stack has no\n"
        "raw socket; auto times a TCP connect). mftpd gets --sessions 1: it serves mftp's one\n"
        "session (mftp's --repeat transfers) and returns. Both hosts share this machine's\n"
        "files: mftpd reads and writes under its --root, mftp its --dest and --put FILE.\n"
        "Writes the applications' JSON records in virtual-time order: ttcp's (both ends, one\n"
        "per transfer each), pingx's (meta, then one message record per echo, as on a real\n"
        "stack) and echod's summary, or mftp's and mftpd's (one transfer record per transfer\n"
        "each, or an error record). echod ends as on SIGTERM: once pingx has returned, netsim\n"
        "sets echod's stop flag, which echod reads every 100 ms of virtual time; mftpd, should\n"
        "mftp return before mftpd has served the session, is stopped at once and fails. Records\n"
        "name the stack \"" NS_STACK "\" and pingx's clock \"" NS_CLOCK "\". Last comes one\n"
        "{\"record\":\"sim\",...} with event counts, times and both hosts' tcpstat.\n"
        "The same arguments give byte-identical output (for mftp, with --file-size or the same\n"
        "source file), but for the wall-clock fields of the sim record (wall_ns, events_per_s,\n"
        "speedup), which --no-wall leaves out.\n"
        "\n"
        "Link (as linkemu; forward is a->b):\n"
        "  --rate RATE                line rate, e.g. 10Mbit, 100Mbit (required)\n"
        "  --framing NAME             ethernet, aal5-llc-snap, aal5-vc-mux or none (default ethernet)\n"
        "  --mtu SIZE                 interface MTU of both hosts and largest packet the link\n"
        "                             carries, e.g. 1500B, 9188B (default %dB)\n"
        "  --delay TIME               one-way propagation delay (default 0ms)\n"
        "  --jitter TIME              added delay varies uniformly by +-TIME (default 0ms)\n"
        "  --reorder                  let jitter reorder packets (default: keep order)\n"
        "  --loss-pct PCT             random packet loss in percent (default 0)\n"
        "  --cell-loss-ratio R        ATM cell loss ratio (default 0)\n"
        "  --bit-error-ratio R        bit error ratio (default 0)\n"
        "  --queue-packets N          drop-tail queue limit in packets, 0 = none (default %d)\n"
        "  --queue-bytes SIZE         drop-tail queue limit in octets, 0 = none (default 0)\n"
        "  --medium NAME              duplex: a line per direction; shared: one half-duplex\n"
        "                             Ethernet (forward values; --delay is the propagation in\n"
        "                             which starts collide; CSMA/CD, 802.3 backoff, 51.2 us\n"
        "                             slots at 10 Mb/s, 16 attempts) (default duplex)\n"
        LE_BACKGROUND_USAGE,
        LE_DEFAULT_MTU, LE_DEFAULT_QUEUE_PACKETS);
    le_link_usage_reverse(out);
    fprintf(out,
        "Hosts and run:\n"
        "  --app NAME                 the application: ttcp (transmitter on a, receiver on b),\n"
        "                             pingx (pingx on a, echod on b) or mftp (mftp on a, mftpd\n"
        "                             on b) or ipcbench (client on a, server on b)\n"
        "                             (default ttcp)\n"
        "  --file-size SIZE           mftp: before the run, write SIZE octets drawn from --seed\n"
        "                             to the file the transfer reads, replacing it: mftpd's\n"
        "                             --root/NAME for mftp --get NAME, FILE for mftp --put FILE\n"
        "                             (default: none written; the file is sent as it is)\n"
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
        "  --window-scale             both hosts offer RFC 1323 window scaling in their SYNs,\n"
        "                             as SunOS's TCP-LFN option did (default off, as Tahoe)\n"
        "  --sb-max SIZE              both hosts' largest socket buffer (default %dB,\n"
        "                             SunOS 4.1's sb_max); windows above 64K need it raised\n"
        "                             and --window-scale\n"
        "  --spin-ps N                CPU time of one busy-loop iteration, in picoseconds: of\n"
        "                             ttcp --cool-spin, pingx --cool-iterations, and of the\n"
        "                             busy-wait of pingx --cool-gap, which needs N > 0; a\n"
        "                             host model's spin_ps overrides it for its host\n"
        "                             (default %d)\n"
        "  --seed N                   seed of the link's loss and jitter draws, of --boot-b and\n"
        "                             of --file-size's data (default 1); pingx's --seed, its\n"
        "                             shuffled order, is apart\n"
        "  --no-wall                  leave the wall-clock fields out of the sim record\n"
        "                             (default: written)\n"
        "  --trace                    also write a {\"record\":\"segment\",...} for every TCP\n"
        "                             segment a host sends, with the rule that sent it\n"
        "                             (default off)\n"
        "  --tcp-debug                also write a {\"record\":\"tcp_debug\",...} with a TCP\n"
        "                             connection's send state (snd_una, snd_wnd, cwnd,\n"
        "                             ssthresh) after every segment a host takes in or drops\n"
        "                             and every timer that runs out, as 4.3BSD's TCP_DEBUG\n"
        "                             (default off)\n"
        "  --pcap FILE                write every IP packet at host a's interface to FILE, as\n"
        "                             tcpdump there would: classic pcap, raw IP (link type 101),\n"
        "                             nanosecond virtual timestamps from host a's boot; a sent\n"
        "                             packet when a hands it to the link, a received one when\n"
        "                             it arrives; the sim record's capture_packets counts them\n"
        "                             (default: no capture)\n"
        "  --help                     print this and exit\n"
        "Units: rates bit|Kbit|Mbit|Gbit (powers of 1000), times ns|us|ms|s, sizes B|K|M\n"
        "(K = 1024 octets). Exit status: 0 ok, 1 an application or the simulation failed,\n"
        "2 bad arguments.\n",
        NR_SB_MAX, DEFAULT_SPIN_PS);
}

enum {
    OPT_APP = 256, OPT_HOST_A, OPT_HOST_B, OPT_BOOT_B, OPT_SPIN, OPT_TCP_SPACE, OPT_SEED,
    OPT_NO_WALL, OPT_TRACE, OPT_TCP_DEBUG, OPT_PCAP, OPT_FILE_SIZE, OPT_MEDIUM, OPT_BG_FPS, OPT_BG_SIZE, OPT_WINDOW_SCALE, OPT_SB_MAX, OPT_HELP,
};

/* The stack flags choose a real stack, which the simulator replaces with its own. They are
 * refused before the program's parser sees them, which would ask for the rest of them. */
static int refuse_stack_flags(char **argv, int n, const char *which, FILE *err)
{
    static const struct option stack[] = {NR_STACK_LONGOPTS, {0, 0, 0, 0}};
    for (int i = 0; i < n; i++) {
        if (strncmp(argv[i], "--", 2) != 0)
            continue;
        const char *name = argv[i] + 2;
        size_t len = strcspn(name, "=");
        for (const struct option *o = stack; o->name; o++) {
            if (strlen(o->name) == len && strncmp(name, o->name, len) == 0) {
                fprintf(err, "netsim: the %s arguments: drop %s: both hosts run the simulated "
                             "Tahoe stack, set with netsim's --mtu, --tcp-space, "
                             "--host-model-a/-b and --boot-b\n", which, argv[i]);
                return -1;
            }
        }
    }
    return 0;
}


/* c->args gets prog, then pre (what netsim presets; the user's arguments come after, so they
 * override it), then argv[0..n-1]; which names them in errors. -1 with the reason printed to
 * err when there are too many or they hold stack flags. */
int ns_app_cmd_init(struct ns_app_cmd *c, const char *prog, char **pre, int npre, char **argv,
                        int n, const char *which, FILE *err)
{
    if (npre + n > MAX_APP_ARGS) {
        fprintf(err, "netsim: more than %d %s arguments\n", MAX_APP_ARGS - npre, which);
        return -1;
    }
    if (refuse_stack_flags(argv, n, which, err) < 0)
        return -1;
    c->argc = 0;
    c->args[c->argc++] = (char *)prog;
    for (int i = 0; i < npre; i++)
        c->args[c->argc++] = pre[i];
    for (int i = 0; i < n; i++)
        c->args[c->argc++] = argv[i];
    c->args[c->argc] = NULL;
    c->msg[0] = '\0';
    return 0;
}

/* rc is what the program's parser returned for c: 0 is success, anything else is reported. */
int ns_app_cmd_parsed(const struct ns_app_cmd *c, int rc, const char *which, FILE *err)
{
    if (rc == 0)
        return 0;
    if (rc == 1)
        fprintf(err, "netsim: the %s arguments: --help is not a run; see %s --help\n", which,
                c->args[0]);
    else
        fprintf(err, "netsim: the %s arguments: %s\n", which, c->msg);
    return -1;
}

/* Parses one ttcp command line (argv[0..n-1], without a program name) into t. */
static int parse_ttcp(char **argv, int n, struct ttcp_args *t, const char *which, FILE *err)
{
    struct ns_app_cmd c;
    if (ns_app_cmd_init(&c, "ttcp", NULL, 0, argv, n, which, err) < 0 ||
        ns_app_cmd_parsed(&c, ttcp_parse_args(c.argc, c.args, t, c.msg, sizeof c.msg), which, err) < 0)
        return -1;
    /* The records say which stack moved the data. */
    t->stack = NS_STACK;
    return 0;
}

static int parse_pingx(char **argv, int n, struct pingx_args *p, FILE *err)
{
    char *pre[] = {"--host", NS_ADDR_B};
    struct ns_app_cmd c;
    if (ns_app_cmd_init(&c, "pingx", pre, 2, argv, n, "pingx", err) < 0 ||
        ns_app_cmd_parsed(&c, pingx_parse_args(c.argc, c.args, p, c.msg, sizeof c.msg), "pingx", err) < 0)
        return -1;
    p->stack = NS_STACK;
    p->clock = NS_CLOCK;
    return 0;
}

static int parse_echod(char **argv, int n, struct echod_args *e, FILE *err)
{
    struct ns_app_cmd c;
    if (ns_app_cmd_init(&c, "echod", NULL, 0, argv, n, "echod", err) < 0 ||
        ns_app_cmd_parsed(&c, echod_parse_args(c.argc, c.args, e, c.msg, sizeof c.msg), "echod", err) < 0)
        return -1;
    e->stack = NS_STACK;
    return 0;
}

static int parse_mftp(char **argv, int n, struct mftp_args *m, FILE *err)
{
    struct ns_app_cmd c;
    if (ns_app_cmd_init(&c, "mftp", NULL, 0, argv, n, "mftp", err) < 0 ||
        ns_app_cmd_parsed(&c, mftp_parse_args(c.argc, c.args, m, c.msg, sizeof c.msg), "mftp", err) < 0)
        return -1;
    m->stack = NS_STACK;
    return 0;
}

static int parse_mftpd(char **argv, int n, struct mftpd_args *d, FILE *err)
{
    /* mftpd serves forever by default; here it ends with mftp's session. */
    char *pre[] = {"--sessions", "1"};
    struct ns_app_cmd c;
    if (ns_app_cmd_init(&c, "mftpd", pre, 2, argv, n, "mftpd", err) < 0 ||
        ns_app_cmd_parsed(&c, mftpd_parse_args(c.argc, c.args, d, c.msg, sizeof c.msg), "mftpd", err) < 0)
        return -1;
    d->stack = NS_STACK;
    return 0;
}

/* Whether ip is host b's address, or with any_ok 0.0.0.0 too. */
int ns_is_host_b(const char *ip, int any_ok)
{
    struct nrio_addr addr, b;
    nrio_parse_addr(NS_ADDR_B, 0, &b);
    return nrio_parse_addr(ip, 0, &addr) == 0 && (addr.ip == b.ip || (any_ok && addr.ip == 0));
}

static int check_ttcp(const struct ns_args *a, FILE *err)
{
    if (!a->tx.transmit || a->rx.transmit) {
        fprintf(err, "netsim: give the transmitter (-t) first and the receiver (-r) second\n");
        return -1;
    }
    if (!ns_is_host_b(a->tx.host, 0)) {
        fprintf(err, "netsim: the transmitter sends to %s, but the receiver is host b, %s\n",
                a->tx.host, NS_ADDR_B);
        return -1;
    }
    if (!ns_is_host_b(a->rx.bind_ip, 1)) {
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

static int check_pingx(const struct ns_args *a, FILE *err)
{
    const struct pingx_args *p = &a->ping;
    const struct echod_args *e = &a->echo;
    if (!ns_is_host_b(p->host, 0)) {
        fprintf(err, "netsim: pingx sends to --host %s, but echod runs on host b, %s; drop "
                     "--host or give --host %s\n", p->host, NS_ADDR_B, NS_ADDR_B);
        return -1;
    }
    if (!ns_is_host_b(e->bind_ip, 1)) {
        fprintf(err, "netsim: echod binds %s; use 0.0.0.0 or %s\n", e->bind_ip, NS_ADDR_B);
        return -1;
    }
    if (p->port != e->port) {
        fprintf(err, "netsim: pingx uses --port %d but echod --port %d; give both the same port\n",
                p->port, e->port);
        return -1;
    }
    int udp = pingx_is_udp(p->mode);
    if (!(udp ? e->udp : e->tcp)) {
        fprintf(err, "netsim: pingx --mode %s needs echod to serve %s; give echod --proto %s or "
                     "both\n", pingx_mode_name(p->mode), udp ? "UDP" : "TCP", udp ? "udp" : "tcp");
        return -1;
    }
    /* The busy-wait advances only by what its iterations cost: at 0 it would never end. */
    if (p->cool_gap_ns > 0 && a->spin_ps == 0) {
        fprintf(err, "netsim: pingx --cool-gap busy-waits, which takes forever with --spin-ps 0; "
                     "give --spin-ps above 0\n");
        return -1;
    }
    return 0;
}

/* Where mftpd finds name under root, into out (PATH_MAX); -1 with the reason when it would
 * refuse the name. */
static int served_path(const struct ns_args *a, const char *name, const char *flag, char *out,
                       FILE *err)
{
    if (mftpd_resolve(a->mftpd.root, name, out, PATH_MAX) < 0) {
        fprintf(err, "netsim: mftp %s %s: mftpd refuses names that are empty or hold '..'; "
                     "give a name under mftpd's --root\n", flag, name);
        return -1;
    }
    return 0;
}

static int check_mftp(struct ns_args *a, FILE *err)
{
    const struct mftp_args *m = &a->mftp;
    const struct mftpd_args *d = &a->mftpd;
    if (!ns_is_host_b(m->host, 0)) {
        fprintf(err, "netsim: mftp connects to %s, but mftpd runs on host b; give HOST %s\n",
                m->host, NS_ADDR_B);
        return -1;
    }
    if (!ns_is_host_b(d->bind_ip, 1)) {
        fprintf(err, "netsim: mftpd binds %s; use 0.0.0.0 or %s\n", d->bind_ip, NS_ADDR_B);
        return -1;
    }
    if (m->port != d->port) {
        fprintf(err, "netsim: mftp uses -p %d but mftpd -p %d; give both the same port\n",
                m->port, d->port);
        return -1;
    }
    if (d->sessions != 1) {
        fprintf(err, "netsim: mftpd --sessions %d: netsim runs one mftp session; drop mftpd's "
                     "--sessions (mftp's --repeat gives more transfers)\n", d->sessions);
        return -1;
    }
    /* An echo from a raw socket would leave this machine instead of crossing the link. */
    if (m->rtt_method == MFTP_RTT_ICMP && m->rtt_samples > 0) {
        fprintf(err, "netsim: mftp --rtt-method icmp needs a raw socket, which the simulated "
                     "stack lacks; give --rtt-method tcp (auto uses it here)\n");
        return -1;
    }
    if (m->get) {
        if (served_path(a, m->get, "--get", a->source, err) < 0)
            return -1;
        snprintf(a->sink, sizeof a->sink, "%s", m->dest);
    } else {
        snprintf(a->source, sizeof a->source, "%s", m->put);
        if (served_path(a, m->remote_name, "--remote-name", a->sink, err) < 0)
            return -1;
    }
    return 0;
}

int ns_parse_args(int argc, char **argv, struct ns_args *a, FILE *out, FILE *err)
{
    static const struct option longopts[] = {
        LE_LINK_LONGOPTS,
        {"app", required_argument, 0, OPT_APP},
        {"host-model-a", required_argument, 0, OPT_HOST_A},
        {"host-model-b", required_argument, 0, OPT_HOST_B},
        {"boot-b", required_argument, 0, OPT_BOOT_B},
        {"spin-ps", required_argument, 0, OPT_SPIN},
        {"tcp-space", required_argument, 0, OPT_TCP_SPACE},
        {"window-scale", no_argument, 0, OPT_WINDOW_SCALE},
        {"sb-max", required_argument, 0, OPT_SB_MAX},
        {"seed", required_argument, 0, OPT_SEED},
        {"no-wall", no_argument, 0, OPT_NO_WALL},
        {"trace", no_argument, 0, OPT_TRACE},
        {"tcp-debug", no_argument, 0, OPT_TCP_DEBUG},
        {"pcap", required_argument, 0, OPT_PCAP},
        {"file-size", required_argument, 0, OPT_FILE_SIZE},
        {"medium", required_argument, 0, OPT_MEDIUM},
        {"background-fps", required_argument, 0, OPT_BG_FPS},
        {"background-size", required_argument, 0, OPT_BG_SIZE},
        {"help", no_argument, 0, OPT_HELP},
        {0, 0, 0, 0},
    };
    *a = (struct ns_args){.app = NS_APP_TTCP, .seed = 1, .boot_b_ns = -1,
                          .spin_ps = DEFAULT_SPIN_PS, .file_size = -1, .background_octets = 1500};
    struct le_link_opts link;
    le_link_init(&link);
    uint64_t v;
    int opt, index = 0;
    optind = 0; /* getopt keeps state across calls; 0 resets it fully (glibc) */
    opterr = 0;
    /* "+": stop at the first non-option, so nothing after "--" is taken as netsim's. */
    while ((opt = getopt_long(argc, argv, "+", longopts, &index)) != -1) {
        const char *flag = longopts[index].name;
        int bad = 0;
        switch (opt) {
        case OPT_APP:
            if (strcmp(optarg, app_names[NS_APP_TTCP]) == 0) {
                a->app = NS_APP_TTCP;
            } else if (strcmp(optarg, app_names[NS_APP_PINGX]) == 0) {
                a->app = NS_APP_PINGX;
            } else if (strcmp(optarg, app_names[NS_APP_MFTP]) == 0) {
                a->app = NS_APP_MFTP;
            } else if (strcmp(optarg, app_names[NS_APP_IPCBENCH]) == 0) {
                a->app = NS_APP_IPCBENCH;
            } else {
                fprintf(err, "netsim: unknown --app '%s'; give ttcp, pingx, mftp or ipcbench\n",
                        optarg);
                return -1;
            }
            break;
        case OPT_FILE_SIZE:
            bad = le_parse_size(optarg, &v) < 0 || v > (uint64_t)LLONG_MAX;
            a->file_size = (long long)v;
            break;
        case OPT_HOST_A:
        case OPT_HOST_B:
            a->host_model[opt == OPT_HOST_B] = optarg;
            break;
        case OPT_BOOT_B:
            bad = le_parse_time(optarg, &a->boot_b_ns) < 0;
            break;
        case OPT_SPIN:
            bad = le_parse_whole(optarg, 1e12, &v) < 0;
            a->spin_ps = (int64_t)v;
            break;
        case OPT_TCP_SPACE:
            bad = le_parse_size(optarg, &v) < 0 || v < 1 || v > (1u << 30);
            a->tcp_space = (int)v;
            break;
        case OPT_WINDOW_SCALE:
            a->window_scale = true;
            break;
        case OPT_SB_MAX:
            bad = le_parse_size(optarg, &v) < 0 || v < 1 || v > (1u << 30);
            a->sb_max = (int)v;
            break;
        case OPT_SEED:
            bad = le_parse_whole(optarg, 9007199254740992.0, &a->seed) < 0;
            break;
        case OPT_NO_WALL:
            a->no_wall = true;
            break;
        case OPT_TRACE:
            a->trace = true;
            break;
        case OPT_TCP_DEBUG:
            a->tcp_debug = true;
            break;
        case OPT_MEDIUM:
            bad = strcmp(optarg, "shared") != 0 && strcmp(optarg, "duplex") != 0;
            a->shared_medium = strcmp(optarg, "shared") == 0;
            break;
        case OPT_BG_FPS:
        case OPT_BG_SIZE:
            if (le_background_opt(flag, optarg, &a->background_fps, &a->background_octets,
                                  "netsim", err) < 0)
                return -1;
            break;
        case OPT_PCAP:
            bad = !*optarg;
            a->pcap_path = optarg;
            break;
        case OPT_HELP:
            ns_usage(out);
            return 1;
        case '?':
            fprintf(err, "netsim: unknown option '%s', or it is missing its value; see --help\n",
                    argv[optind - 1]);
            return -1;
        default:
            if (le_link_opt(&link, opt, optarg, "netsim", err) < 0)
                return -1;
        }
        if (bad) {
            fprintf(err, "netsim: bad value '%s' for --%s; see --help for its unit and range\n",
                    optarg, flag);
            return -1;
        }
    }
    if (le_link_finish(&link, "netsim", err) < 0)
        return -1;
    a->framing = link.framing;
    a->mtu = link.mtu;
    a->forward = link.forward;
    a->reverse = link.reverse;
    if (a->shared_medium && !le_link_shared_ok(&link, "netsim", err))
        return -1;
    if (a->background_fps > 0 && !a->shared_medium) {
        fprintf(err, "netsim: --background-fps needs --medium shared\n");
        return -1;
    }

    if (a->file_size >= 0 && a->app != NS_APP_MFTP) {
        fprintf(err, "netsim: --file-size applies to --app mftp only\n");
        return -1;
    }
    static const char *const firsts[] = {[NS_APP_TTCP] = "transmitter", [NS_APP_PINGX] = "pingx",
                                         [NS_APP_MFTP] = "mftp", [NS_APP_IPCBENCH] = "client"};
    static const char *const seconds[] = {[NS_APP_TTCP] = "receiver", [NS_APP_PINGX] = "echod",
                                          [NS_APP_MFTP] = "mftpd", [NS_APP_IPCBENCH] = "server"};
    static const char *const forms[] = {[NS_APP_TTCP] = "-- TRANSMITTER -- RECEIVER",
                                        [NS_APP_PINGX] = "-- PINGX_ARGS -- ECHOD_ARGS",
                                        [NS_APP_MFTP] = "-- MFTP_ARGS -- MFTPD_ARGS",
                                        [NS_APP_IPCBENCH] = "-- CLIENT_ARGS -- SERVER_ARGS"};
    const char *first = firsts[a->app], *second = seconds[a->app];
    /* getopt stopped just after the first "--"; the second splits the two command lines. */
    if (optind < 1 || strcmp(argv[optind - 1], "--") != 0) {
        fprintf(err, "netsim: give the %s arguments after '--': %s\n", ns_app_name(a->app),
                forms[a->app]);
        return -1;
    }
    int split = -1;
    for (int i = optind; i < argc && split < 0; i++)
        if (strcmp(argv[i], "--") == 0)
            split = i;
    if (split < 0) {
        fprintf(err, "netsim: give a second '--' between the %s's and the %s's arguments\n",
                first, second);
        return -1;
    }
    char **argv1 = argv + optind, **argv2 = argv + split + 1;
    int n1 = split - optind, n2 = argc - split - 1;
    if (a->app == NS_APP_TTCP)
        return parse_ttcp(argv1, n1, &a->tx, first, err) < 0 ||
               parse_ttcp(argv2, n2, &a->rx, second, err) < 0 ? -1 : check_ttcp(a, err);
    if (a->app == NS_APP_IPCBENCH)
        return ns_parse_ipcbench(argv1, n1, argv2, n2, a, err);
    if (a->app == NS_APP_PINGX)
        return parse_pingx(argv1, n1, &a->ping, err) < 0 ||
               parse_echod(argv2, n2, &a->echo, err) < 0 ? -1 : check_pingx(a, err);
    return parse_mftp(argv1, n1, &a->mftp, err) < 0 ||
           parse_mftpd(argv2, n2, &a->mftpd, err) < 0 ? -1 : check_mftp(a, err);
}
