#include "args.h"

#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mftpcore/blocks.h"
#include "nrio.h"
#include "units.h"

#define DEFAULT_PORT 2121
#define DEFAULT_BLOCK 32768
#define DEFAULT_RTT_SAMPLES 3
#define DEFAULT_PAUSE_NS 1000000000LL
#define DEFAULT_TIMEOUT_NS 10000000000LL

void mftp_usage(FILE *f)
{
    fprintf(f,
        "usage: mftp [options] (--get NAME | --put FILE) HOST\n"
        "  an FTP client that spreads a transfer over N parallel data connections (MFTP)\n"
        "  --stack NAME        network stack: kernel (default kernel)\n"
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
        "  --window SIZE       per-connection window: TCP_WINDOW_CLAMP with a buffer twice as\n"
        "                      large, at both ends, set back whenever the kernel moves it; the\n"
        "                      record gives window_start, window_end, window_max and\n"
        "                      window_reasserts (default 0: the stack's default)\n"
        "  --block SIZE        block size when sending (default %d)\n"
        "  --plain             plain FTP: one data connection in stream mode, no MCON\n"
        "  --rtt-method M      auto, icmp or tcp: ICMP echo (raw socket), or the time a TCP\n"
        "                      connect to the control port takes; auto tries ICMP first\n"
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
        DEFAULT_PORT, MFTP_MAX_CONNS, MFTP_MAX_CONNS, DEFAULT_BLOCK, DEFAULT_RTT_SAMPLES);
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
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

enum { OPT_STACK = 256, OPT_USER, OPT_PASS, OPT_GET, OPT_PUT, OPT_REMOTE, OPT_DEST, OPT_RATE,
       OPT_WINDOW, OPT_BLOCK, OPT_PLAIN, OPT_RTT, OPT_SAMPLES, OPT_REPEAT, OPT_PAUSE,
       OPT_TIMEOUT };

int mftp_parse_args(int argc, char **argv, struct mftp_args *a, char *err, size_t errlen)
{
    static const struct option longopts[] = {
        {"stack", required_argument, 0, OPT_STACK},
        {"port", required_argument, 0, 'p'},
        {"user", required_argument, 0, OPT_USER},
        {"pass", required_argument, 0, OPT_PASS},
        {"get", required_argument, 0, OPT_GET},
        {"put", required_argument, 0, OPT_PUT},
        {"remote-name", required_argument, 0, OPT_REMOTE},
        {"dest", required_argument, 0, OPT_DEST},
        {"connections", required_argument, 0, 'n'},
        {"target-rate", required_argument, 0, OPT_RATE},
        {"window", required_argument, 0, OPT_WINDOW},
        {"block", required_argument, 0, OPT_BLOCK},
        {"plain", no_argument, 0, OPT_PLAIN},
        {"rtt-method", required_argument, 0, OPT_RTT},
        {"rtt-samples", required_argument, 0, OPT_SAMPLES},
        {"repeat", required_argument, 0, OPT_REPEAT},
        {"pause", required_argument, 0, OPT_PAUSE},
        {"timeout", required_argument, 0, OPT_TIMEOUT},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    memset(a, 0, sizeof *a);
    a->stack = "kernel";
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
    long long v;
    int64_t t;
    int c;
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, "+p:n:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': return 1;
        case OPT_STACK:
            if (strcmp(optarg, "kernel") != 0)
                return fail(err, errlen, "--stack %s: unknown stack; the only one today is kernel",
                            optarg);
            a->stack = optarg;
            break;
        case 'p':
            if (nr_parse_count(optarg, 65535, &v) || v < 1)
                return fail(err, errlen, "--port %s: give a port from 1 to 65535", optarg);
            a->port = (int)v;
            break;
        case OPT_USER: a->user = optarg; break;
        case OPT_PASS: a->pass = optarg; break;
        case OPT_GET: a->get = optarg; break;
        case OPT_PUT: a->put = optarg; break;
        case OPT_REMOTE: a->remote_name = optarg; break;
        case OPT_DEST: a->dest = optarg; break;
        case OPT_PLAIN: a->plain = 1; break;
        case 'n':
            if (nr_parse_count(optarg, MFTP_MAX_CONNS, &v) || v < 1)
                return fail(err, errlen, "-n %s: give 1 to %d connections", optarg,
                            MFTP_MAX_CONNS);
            a->connections = (int)v;
            break;
        case OPT_RATE:
            if (mftp_parse_rate(optarg, &a->target_bps))
                return fail(err, errlen, "--target-rate %s: give a rate with a unit, e.g. "
                            "50Mbit (bit, kbit, Mbit, Gbit)", optarg);
            break;
        case OPT_WINDOW:
            if (nr_parse_size(optarg, &v) || v < 0 || v > (1 << 29))
                return fail(err, errlen, "--window %s: give a size from 0 to 512M, e.g. 24K",
                            optarg);
            a->window = (long)v;
            break;
        case OPT_BLOCK:
            if (nr_parse_size(optarg, &v) || v < 1 || v > MFTP_MAX_BLOCK)
                return fail(err, errlen, "--block %s: give a size from 1B to 16M, e.g. 32K",
                            optarg);
            a->block = (long)v;
            break;
        case OPT_RTT:
            if (strcmp(optarg, "auto") == 0)
                a->rtt_method = MFTP_RTT_AUTO;
            else if (strcmp(optarg, "icmp") == 0)
                a->rtt_method = MFTP_RTT_ICMP;
            else if (strcmp(optarg, "tcp") == 0)
                a->rtt_method = MFTP_RTT_TCP;
            else
                return fail(err, errlen, "--rtt-method %s: give auto, icmp or tcp", optarg);
            break;
        case OPT_SAMPLES:
            if (nr_parse_count(optarg, 1000, &v))
                return fail(err, errlen, "--rtt-samples %s: give 0 to 1000", optarg);
            a->rtt_samples = (int)v;
            break;
        case OPT_REPEAT:
            if (nr_parse_count(optarg, 1000000, &v) || v < 1)
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
        default:
            return fail(err, errlen, "%s: unknown option or missing value; see mftp --help",
                        argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return fail(err, errlen, "give exactly one HOST (the server's IPv4 address)");
    a->host = argv[optind];
    struct nrio_addr probe;
    if (nrio_parse_addr(a->host, (uint16_t)a->port, &probe))
        return fail(err, errlen, "%s: not a dotted IPv4 address", a->host);
    if (!a->get == !a->put)
        return fail(err, errlen, "give one of --get NAME (retrieve) or --put FILE (send)");
    if (a->plain && (a->connections > 1 || a->target_bps > 0))
        return fail(err, errlen, "--plain uses one connection; drop -n or --target-rate");
    if (a->target_bps > 0 && !a->connections && a->window == 0)
        return fail(err, errlen, "--target-rate needs --window: W in Tm = N*W/D is the "
                    "per-connection window");
    if (a->target_bps > 0 && !a->connections && a->rtt_samples == 0)
        return fail(err, errlen, "--target-rate needs an RTT: --rtt-samples must be at least 1");
    if (a->timeout_ns <= a->pause_ns)
        return fail(err, errlen, "--timeout must be longer than --pause");
    return 0;
}
