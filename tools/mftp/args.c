#include "args.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mftpcore/blocks.h"
#include "mftpcore/flags.h"
#include "nrargs.h"

#define DEFAULT_PORT 2121
#define DEFAULT_BLOCK 32768
#define DEFAULT_RTT_SAMPLES 3
#define DEFAULT_PAUSE_NS 1000000000LL
#define DEFAULT_TIMEOUT_NS 10000000000LL

void mftp_usage(FILE *f)
{
    fprintf(f,
        "usage: mftp [options] (--get NAME | --put FILE) HOST\n"
        "  an FTP client that spreads a transfer over N parallel data connections (MFTP)\n");
    nr_stack_usage(f, 22);
    fprintf(f,
        "  -p, --port N        server's control port (default %d)\n"
        "  --user NAME         login name (default anonymous)\n"
        "  --pass WORD         password (default mftp@)\n"
        "  --get NAME          retrieve NAME from the server (RETR)\n"
        "  --put FILE          send the local FILE to the server (STOR)\n"
        "  --remote-name NAME  --put: name on the server (default /dev/null, discarded)\n"
        "  --dest PATH         --get: where the data go (default /dev/null); a file gets a\n"
        "                      CRC-32 in the record\n"
        "  -n, --connections N use N data connections, 1..%d, overriding --target-rate\n"
        "  --target-rate RATE  pick N from Tm = N*W/D (ishikura): N = ceil(Tm*D/W) clamped to\n"
        "                      1..%d, with W = --window and D the measured RTT; e.g. 50Mbit\n"
        "  --window SIZE       per-connection window at both ends. kernel: TCP_WINDOW_CLAMP\n"
        "                      with buffers twice as large, set back whenever the kernel\n"
        "                      moves it; tahoe: SO_SNDBUF and SO_RCVBUF of SIZE, as SunOS\n"
        "                      set a window, at most its sb_max (%dB unless raised). The\n"
        "                      record gives window_start, window_end, window_max and\n"
        "                      window_reasserts (default 0: the stack's default)\n"
        "  --block SIZE        block size when sending (default %d)\n"
        "  --reorder-max SIZE  --get, block mode: the most octets held ahead of the first one\n"
        "                      missing, as a program handing the file on in order holds\n"
        "                      them; a connection whose data lie beyond waits unread and\n"
        "                      its window closes (default 0: no bound)\n"
        "  --blocking-writes   --put, block mode: write each block whole before any other\n"
        "                      connection gets data, as a blocking write() does (default\n"
        "                      off: every connection with room takes data)\n"
        "  --plain             plain FTP: one data connection in stream mode, no MCON\n"
        "  --setup MODE        parallel or serial: open the N data connections all at once\n"
        "                      and time the transfer from its first data octet, or one\n"
        "                      after another (each connect once the one before is up, as a\n"
        "                      loop of blocking connects) and time it from the first\n"
        "                      connection being up, as ftp starts its clock once its data\n"
        "                      connection is (default parallel)\n"
        "  --rtt-method M      auto, icmp or tcp: ICMP echo (a raw socket, kernel stack\n"
        "                      only), or the time a TCP connect to the control port takes;\n"
        "                      auto tries ICMP first on the kernel stack, else uses tcp\n"
        "                      (default auto)\n"
        "  --rtt-samples N     RTT probes; the smallest counts; 0 skips the measurement\n"
        "                      (default %d)\n"
        "  --repeat N          transfers in the session (default 1)\n"
        "  --pause TIME        pause between transfers (default 1s)\n"
        "  --timeout TIME      no progress for this long ends the run with an error\n"
        "                      (default 10s)\n"
        "  -h, --help          this text\n"
        "Without -n or --target-rate, N is 1 in block mode. Writes one JSON record per transfer\n"
        "on stdout. Exit status: 0 ok, 1 failed, 2 bad arguments.\n",
        DEFAULT_PORT, MFTP_MAX_CONNS, MFTP_MAX_CONNS, NR_SB_MAX, DEFAULT_BLOCK,
        DEFAULT_RTT_SAMPLES);
}

int mftp_parse_rate(const char *s, double *bps)
{
    static const struct { const char *unit; double mult; } units[] = {
        {"bit", 1}, {"kbit", 1e3}, {"Mbit", 1e6}, {"Gbit", 1e9},
    };
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v <= 0)
        return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].unit) == 0) {
            *bps = v * units[i].mult;
            return 0;
        }
    }
    return -1;
}

enum { OPT_USER = 256, OPT_PASS, OPT_GET, OPT_PUT, OPT_REMOTE, OPT_DEST, OPT_RATE, OPT_PLAIN,
       OPT_RTT, OPT_SAMPLES, OPT_SETUP };

int mftp_parse_args(int argc, char **argv, struct mftp_args *a, char *err, size_t errlen)
{
    /* In enum mftp_rtt_method's order. */
    static const char *const rtt_methods[] = {"auto", "icmp", "tcp", NULL};
    /* In enum mftp_setup's order. */
    static const char *const setups[] = {"parallel", "serial", NULL};
    static const struct option longopts[] = {
        /* mftp's own flags, then the shared ones (common/stackopt.h, common/nrargs.h,
         * mftpcore/flags.h). */
        {"user", required_argument, 0, OPT_USER},
        {"pass", required_argument, 0, OPT_PASS},
        {"get", required_argument, 0, OPT_GET},
        {"put", required_argument, 0, OPT_PUT},
        {"remote-name", required_argument, 0, OPT_REMOTE},
        {"dest", required_argument, 0, OPT_DEST},
        {"connections", required_argument, 0, 'n'},
        {"target-rate", required_argument, 0, OPT_RATE},
        {"plain", no_argument, 0, OPT_PLAIN},
        {"setup", required_argument, 0, OPT_SETUP},
        {"rtt-method", required_argument, 0, OPT_RTT},
        {"rtt-samples", required_argument, 0, OPT_SAMPLES},
        NR_STACK_LONGOPTS,
        NR_ARG_LONGOPT_PORT, NR_ARG_LONGOPT_REPEAT, NR_ARG_LONGOPT_PAUSE, NR_ARG_LONGOPT_TIMEOUT,
        NR_ARG_LONGOPT_HELP,
        MFTP_XFER_LONGOPTS,
        {0, 0, 0, 0},
    };
    memset(a, 0, sizeof *a);
    nr_stack_opts_init(&a->net);
    a->port = DEFAULT_PORT;
    a->user = "anonymous";
    a->pass = "mftp@";
    a->remote_name = "/dev/null";
    a->dest = "/dev/null";
    a->block = DEFAULT_BLOCK;
    a->rtt_method = MFTP_RTT_AUTO;
    a->rtt_samples = DEFAULT_RTT_SAMPLES;
    a->repeat = 1;
    a->pause_ns = DEFAULT_PAUSE_NS;
    a->timeout_ns = DEFAULT_TIMEOUT_NS;
    const struct nr_common_flags common = {
        .tool = "mftp", .time_example = "5s", .port = &a->port, .repeat = &a->repeat,
        .pause_ns = &a->pause_ns, .timeout_ns = &a->timeout_ns,
    };
    long long v;
    int c;
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, "+p:n:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': return 1;
        case OPT_USER: a->user = optarg; break;
        case OPT_PASS: a->pass = optarg; break;
        case OPT_GET: a->get = optarg; break;
        case OPT_PUT: a->put = optarg; break;
        case OPT_REMOTE: a->remote_name = optarg; break;
        case OPT_DEST: a->dest = optarg; break;
        case OPT_PLAIN: a->plain = 1; break;
        NR_STACK_OPT_CASES:
            if (nr_stack_opt(&a->net, c, optarg, err, errlen))
                return -1;
            break;
        case 'n':
            if (nr_arg_int("-n", optarg, 1, MFTP_MAX_CONNS, "a number of connections", &v, err,
                           errlen))
                return -1;
            a->connections = (int)v;
            break;
        case OPT_RATE:
            if (mftp_parse_rate(optarg, &a->target_bps))
                return nr_arg_fail(err, errlen, "--target-rate %s: give a rate with a unit, e.g. "
                                   "50Mbit (bit, kbit, Mbit, Gbit)", optarg);
            break;
        case MFTP_OPT_WINDOW:
        case MFTP_OPT_BLOCK:
        case MFTP_OPT_REORDER:
        case MFTP_OPT_BLOCKING:
            if (mftp_xfer_opt(c, optarg, &a->window, &a->block, &a->reorder_max,
                              &a->blocking_writes, err, errlen))
                return -1;
            break;
        case OPT_SETUP:
            if (nr_arg_choice("--setup", optarg, setups, &a->setup, err, errlen))
                return -1;
            break;
        case OPT_RTT:
            if (nr_arg_choice("--rtt-method", optarg, rtt_methods, &a->rtt_method, err, errlen))
                return -1;
            break;
        case OPT_SAMPLES:
            if (nr_arg_int("--rtt-samples", optarg, 0, 1000, "a number of probes", &v, err, errlen))
                return -1;
            a->rtt_samples = (int)v;
            break;
        default:
            if (nr_arg_common(&common, c, optarg, argv[optind - 1], err, errlen))
                return -1;
        }
    }
    if (nr_args_stack(&a->net, &a->stack, err, errlen))
        return -1;
    /* nrio offers no raw socket, so only the kernel stack can send an ICMP echo. */
    if (a->rtt_method == MFTP_RTT_ICMP && a->rtt_samples > 0 &&
        strcmp(a->net.name, "kernel") != 0)
        return nr_arg_fail(err, errlen, "--rtt-method icmp needs the kernel stack's raw socket; "
                           "on --stack %s give --rtt-method tcp (auto uses it there), or "
                           "--rtt-samples 0 to skip the RTT", a->net.name);
    if (nr_args_operands(argc, argv, &a->host, NULL,
                         "give exactly one HOST (the server's IPv4 address)", err, errlen))
        return -1;
    if (!a->get == !a->put)
        return nr_arg_fail(err, errlen, "give one of --get NAME (retrieve) or --put FILE (send)");
    if (a->plain && (a->connections > 1 || a->target_bps > 0))
        return nr_arg_fail(err, errlen, "--plain uses one connection; drop -n or --target-rate");
    if (a->target_bps > 0 && !a->connections && a->window == 0)
        return nr_arg_fail(err, errlen, "--target-rate needs --window: W in Tm = N*W/D is the "
                           "per-connection window");
    if (a->target_bps > 0 && !a->connections && a->rtt_samples == 0)
        return nr_arg_fail(err, errlen,
                           "--target-rate needs an RTT: --rtt-samples must be at least 1");
    return nr_args_longer("--timeout", a->timeout_ns, "--pause", a->pause_ns, NULL, err, errlen);
}
