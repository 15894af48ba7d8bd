#include "args.h"

#include <getopt.h>
#include <stdarg.h>
#include <string.h>

#include "mftpcore/blocks.h"
#include "nrio.h"
#include "units.h"

#define DEFAULT_PORT 2121
#define DEFAULT_BLOCK 32768
#define DEFAULT_TIMEOUT_NS 60000000000LL

void mftpd_usage(FILE *f)
{
    fprintf(f,
        "usage: mftpd [options]   an FTP server with MFTP's parallel data connections (MCON)\n"
        "  --stack NAME      network stack: kernel (default kernel)\n"
        "  --bind IP         address to listen on (default 0.0.0.0)\n"
        "  -p, --port N      control port (default %d)\n"
        "  --root DIR        directory RETR and STOR names are resolved in; STOR /dev/null\n"
        "                    discards (default .)\n"
        "  --window SIZE     per-connection window of data connections (TCP_WINDOW_CLAMP with a\n"
        "                    buffer twice as large); a client's MCON may set its own (default 0:\n"
        "                    the stack's default)\n"
        "  --block SIZE      block size when sending in block mode (default %d)\n"
        "  --sessions N      exit after N logged-in sessions (default 0: serve forever)\n"
        "  --timeout TIME    close a session that is silent this long (default 60s)\n"
        "  --idle-exit TIME  exit with an error when no session starts for this long\n"
        "                    (default 0: never)\n"
        "  -h, --help        this text\n"
        "Writes one JSON record per transfer on stdout. Exit status: 0 ok, 1 failed, 2 bad\n"
        "arguments.\n",
        DEFAULT_PORT, DEFAULT_BLOCK);
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

enum { OPT_STACK = 256, OPT_BIND, OPT_ROOT, OPT_WINDOW, OPT_BLOCK, OPT_SESSIONS, OPT_TIMEOUT,
       OPT_IDLE };

int mftpd_parse_args(int argc, char **argv, struct mftpd_args *a, char *err, size_t errlen)
{
    static const struct option longopts[] = {
        {"stack", required_argument, 0, OPT_STACK},
        {"bind", required_argument, 0, OPT_BIND},
        {"port", required_argument, 0, 'p'},
        {"root", required_argument, 0, OPT_ROOT},
        {"window", required_argument, 0, OPT_WINDOW},
        {"block", required_argument, 0, OPT_BLOCK},
        {"sessions", required_argument, 0, OPT_SESSIONS},
        {"timeout", required_argument, 0, OPT_TIMEOUT},
        {"idle-exit", required_argument, 0, OPT_IDLE},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    memset(a, 0, sizeof *a);
    a->stack = "kernel";
    a->bind_ip = "0.0.0.0";
    a->port = DEFAULT_PORT;
    a->root = ".";
    a->block = DEFAULT_BLOCK;
    a->timeout_ns = DEFAULT_TIMEOUT_NS;
    long long v;
    int64_t t;
    int c;
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, "+p:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': return 1;
        case OPT_STACK:
            if (strcmp(optarg, "kernel") != 0)
                return fail(err, errlen, "--stack %s: unknown stack; the only one today is kernel",
                            optarg);
            a->stack = optarg;
            break;
        case OPT_BIND: a->bind_ip = optarg; break;
        case OPT_ROOT: a->root = optarg; break;
        case 'p':
            if (nr_parse_count(optarg, 65535, &v) || v < 1)
                return fail(err, errlen, "--port %s: give a port from 1 to 65535", optarg);
            a->port = (int)v;
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
        case OPT_SESSIONS:
            if (nr_parse_count(optarg, 1000000000, &v))
                return fail(err, errlen, "--sessions %s: give a count >= 0", optarg);
            a->sessions = (int)v;
            break;
        case OPT_TIMEOUT:
        case OPT_IDLE:
            if (nr_parse_time_ns(optarg, &t) || t < 0 || (c == OPT_TIMEOUT && t == 0))
                return fail(err, errlen, "--%s %s: give a time, e.g. 30s",
                            c == OPT_TIMEOUT ? "timeout" : "idle-exit", optarg);
            *(c == OPT_TIMEOUT ? &a->timeout_ns : &a->idle_exit_ns) = t;
            break;
        default:
            return fail(err, errlen, "%s: unknown option or missing value; see mftpd --help",
                        argv[optind - 1]);
        }
    }
    if (optind != argc)
        return fail(err, errlen, "%s: mftpd takes no operands", argv[optind]);
    struct nrio_addr probe;
    if (nrio_parse_addr(a->bind_ip, (uint16_t)a->port, &probe))
        return fail(err, errlen, "--bind %s: not a dotted IPv4 address", a->bind_ip);
    return 0;
}
