/* The command-line parsing the tools' args.c share: checks of one flag's value, the flags
 * several tools take (--port, --timeout, ...), and what main does with the result.
 *
 * Each check takes the flag as the user wrote it ("--size", "-n") and the text given for it.
 * On a bad value it writes "FLAG TEXT: give ..." into err, naming what is accepted, and returns
 * -1, so a parser can return -1 at once. Values are those of units.h: sizes with a unit (B, K,
 * M), times with a unit (ns, us, ms, s), plain decimal counts. */
#ifndef NR_ARGS_H
#define NR_ARGS_H

#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* As hi of nr_arg_size: no upper bound beyond what a long long holds. */
#define NR_ARG_NO_MAX LLONG_MAX

/* Formats the message into err; returns -1. */
int nr_arg_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A plain decimal integer from lo to hi (0 <= lo <= hi); what names it in the message, e.g.
 * "a port" gives "--port 0: give a port from 1 to 65535". */
int nr_arg_int(const char *flag, const char *s, long long lo, long long hi, const char *what,
               long long *out, char *err, size_t errlen);

/* A size from lo to hi octets (hi may be NR_ARG_NO_MAX); what names it and hint ends the
 * message, e.g. "--size 0B: give a size from 1B to 2048M, e.g. 4M". */
int nr_arg_size(const char *flag, const char *s, long long lo, long long hi, const char *what,
                const char *hint, long long *out, char *err, size_t errlen);

/* The longest time any flag takes: an hour. Every time the tools take is a wait (a timeout, a
 * pause, an interval, a gap), and a deadline now + wait must stay far from int64's end (a
 * timeout of 9223372036854775807ns wrapped around and ended at once). netrepro/limits.py says
 * why an hour. */
#define NR_ARG_MAX_WAIT_NS (3600LL * 1000000000LL)

/* A time up to NR_ARG_MAX_WAIT_NS; zero_ok says whether 0 is accepted. example is a time for
 * the message, e.g. "5s". */
int nr_arg_time(const char *flag, const char *s, int zero_ok, const char *example,
                int64_t *out, char *err, size_t errlen);

/* One of the NULL-terminated names; *out gets its index. The message lists them all. */
int nr_arg_choice(const char *flag, const char *s, const char *const *names, int *out,
                  char *err, size_t errlen);

/* --stack for a tool that runs on the kernel stack only. */
int nr_arg_kernel_stack(const char *s, const char **out, char *err, size_t errlen);

/* A dotted IPv4 address; flag is NULL for an operand (the message then starts with the text). */
int nr_arg_ipv4(const char *flag, const char *s, char *err, size_t errlen);

/* The message for a flag getopt did not know or that lacked its value: arg is argv[optind - 1]. */
int nr_arg_unknown(const char *tool, const char *arg, char *err, size_t errlen);

/* The flags several tools share, with one spelling, check and message everywhere. A tool lists
 * the ones it takes in its getopt_long table (NR_ARG_LONGOPT_*, codes above its own and
 * stackopt.h's) and says where their values go in a struct nr_common_flags. */
enum { NR_ARG_OPT_KSTACK = 3000, NR_ARG_OPT_BIND, NR_ARG_OPT_REPEAT, NR_ARG_OPT_PAUSE,
       NR_ARG_OPT_TIMEOUT };
#define NR_ARG_LONGOPT_KSTACK {"stack", required_argument, 0, NR_ARG_OPT_KSTACK}
#define NR_ARG_LONGOPT_PORT {"port", required_argument, 0, 'p'}
#define NR_ARG_LONGOPT_BIND {"bind", required_argument, 0, NR_ARG_OPT_BIND}
#define NR_ARG_LONGOPT_REPEAT {"repeat", required_argument, 0, NR_ARG_OPT_REPEAT}
#define NR_ARG_LONGOPT_PAUSE {"pause", required_argument, 0, NR_ARG_OPT_PAUSE}
#define NR_ARG_LONGOPT_TIMEOUT {"timeout", required_argument, 0, NR_ARG_OPT_TIMEOUT}
#define NR_ARG_LONGOPT_HELP {"help", no_argument, 0, 'h'}

#define NR_ARG_MAX_REPEAT 1000000

/* Where a tool keeps the shared flags' values; NULL where it takes no such flag. */
struct nr_common_flags {
    const char *tool;          /* for "see TOOL --help" */
    const char *time_example;  /* for the messages of --pause and --timeout, e.g. "5s" */
    const char **kernel_stack; /* --stack NAME, which must be kernel */
    int *port;                 /* -p, --port N */
    const char **bind;         /* --bind IP, as given; the tool checks it with its operands */
    int *repeat;               /* --repeat N, 1 to NR_ARG_MAX_REPEAT */
    int64_t *pause_ns;         /* --pause TIME, 0 allowed */
    int64_t *timeout_ns;       /* --timeout TIME, above 0 */
};

/* Takes getopt_long's code and optarg for any flag the tool does not handle itself: stores a
 * shared flag's value, or fails with nr_arg_unknown's message naming arg (argv[optind - 1])
 * for a code the tool takes no shared flag for. Returns 0, or -1 with a message in err. */
int nr_arg_common(const struct nr_common_flags *f, int code, const char *val, const char *arg,
                  char *err, size_t errlen);

/* What main does with a parser's result rc (0 run, 1 help, -1 error in err): for help, usage on
 * stdout and status 0; for an error, "tool: err" and usage on stderr and status 2. Returns that
 * status, or -1 when the tool should go on and run. */
int nr_args_status(int rc, const char *tool, const char *err, void (*usage)(FILE *));

#endif
