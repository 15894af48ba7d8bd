#include "args.h"

#include <getopt.h>
#include <string.h>

#include "mftpcore/flags.h"
#include "nrargs.h"

#define DEFAULT_PORT 2121
#define DEFAULT_BLOCK 32768
#define DEFAULT_TIMEOUT_NS 60000000000LL

void mftpd_usage(FILE *f)
{
    fprintf(f,
        "usage: mftpd [options]   an FTP server with MFTP's parallel data connections (MCON)\n");
    nr_stack_usage(f, 20);
    fprintf(f,
        "  --bind IP         address to listen on (default 0.0.0.0)\n"
        "  -p, --port N      control port (default %d)\n"
        "  --root DIR        directory RETR and STOR names are resolved in; STOR /dev/null\n"
        "                    discards (default .)\n"
        "  --window SIZE     per-connection window of data connections; a client's MCON may\n"
        "                    set its own. kernel: TCP_WINDOW_CLAMP with buffers twice as\n"
        "                    large; tahoe: SO_SNDBUF and SO_RCVBUF of SIZE, as SunOS set a\n"
        "                    window, at most its sb_max (%dB unless raised) (default 0:\n"
        "                    the stack's default)\n"
        "  --block SIZE      block size when sending in block mode (default %d)\n"
        "  --reorder-max SIZE\n"
        "                    STOR, block mode: the most octets held ahead of the first one\n"
        "                    missing; a connection whose data lie beyond waits unread\n"
        "                    (default 0: no bound)\n"
        "  --blocking-writes\n"
        "                    RETR, block mode: write each block whole before any other\n"
        "                    connection gets data, as a blocking write() does\n"
        "                    (default off: every connection with room takes data)\n"
        "  --sessions N      exit after N logged-in sessions (default 0: serve forever)\n"
        "  --timeout TIME    close a session that is silent this long (default 60s)\n"
        "  --idle-exit TIME  exit with an error when no session starts for this long\n"
        "                    (default 0: never)\n"
        "  -h, --help        this text\n"
        "Writes one JSON record per transfer on stdout, and one line, \"mftpd: serving ...\",\n"
        "on stderr once it listens. Exit status: 0 ok, 1 failed, 2 bad arguments.\n",
        DEFAULT_PORT, NR_SB_MAX, DEFAULT_BLOCK);
}

enum { OPT_ROOT = 256, OPT_SESSIONS, OPT_IDLE };

int mftpd_parse_args(int argc, char **argv, struct mftpd_args *a, char *err, size_t errlen)
{
    static const struct option longopts[] = {
        /* mftpd's own flags, then the shared ones (common/stackopt.h, common/nrargs.h,
         * mftpcore/flags.h). */
        {"root", required_argument, 0, OPT_ROOT},
        {"sessions", required_argument, 0, OPT_SESSIONS},
        {"idle-exit", required_argument, 0, OPT_IDLE},
        NR_STACK_LONGOPTS,
        NR_ARG_LONGOPT_BIND, NR_ARG_LONGOPT_PORT, NR_ARG_LONGOPT_TIMEOUT, NR_ARG_LONGOPT_HELP,
        MFTP_XFER_LONGOPTS,
        {0, 0, 0, 0},
    };
    memset(a, 0, sizeof *a);
    nr_stack_opts_init(&a->net);
    a->bind_ip = "0.0.0.0";
    a->port = DEFAULT_PORT;
    a->root = ".";
    a->block = DEFAULT_BLOCK;
    a->timeout_ns = DEFAULT_TIMEOUT_NS;
    const struct nr_common_flags common = {
        .tool = "mftpd", .time_example = "30s", .port = &a->port, .bind = &a->bind_ip,
        .timeout_ns = &a->timeout_ns,
    };
    long long v;
    int c;
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, "+p:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': return 1;
        case OPT_ROOT: a->root = optarg; break;
        NR_STACK_OPT_CASES:
            if (nr_stack_opt(&a->net, c, optarg, err, errlen))
                return -1;
            break;
        case MFTP_OPT_WINDOW:
        case MFTP_OPT_BLOCK:
        case MFTP_OPT_REORDER:
        case MFTP_OPT_BLOCKING:
            if (mftp_xfer_opt(c, optarg, &a->window, &a->block, &a->reorder_max,
                              &a->blocking_writes, err, errlen))
                return -1;
            break;
        case OPT_SESSIONS:
            if (nr_arg_int("--sessions", optarg, 0, 1000000000, "a count", &v, err, errlen))
                return -1;
            a->sessions = (int)v;
            break;
        case OPT_IDLE:
            if (nr_arg_time("--idle-exit", optarg, 1, "30s", &a->idle_exit_ns, err, errlen))
                return -1;
            break;
        default:
            if (nr_arg_common(&common, c, optarg, argv[optind - 1], err, errlen))
                return -1;
        }
    }
    if (nr_args_stack(&a->net, &a->stack, err, errlen))
        return -1;
    return nr_args_operands(argc, argv, NULL, a->bind_ip,
                            "mftpd takes no operands; see mftpd --help", err, errlen);
}
