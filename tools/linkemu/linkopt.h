/* The link flags that linkemu and netsim share (--rate, --delay, ..., their --reverse-* forms,
 * --framing and --mtu), with their units, defaults and checks, parsed in one place so that both
 * programs emulate the same link from the same words. Each program keeps its own getopt loop
 * and usage text: it lists LE_LINK_LONGOPTS among its options and hands every code from
 * LE_OPT_LINK_FIRST to LE_OPT_LINK_LAST to le_link_opt. */
#ifndef LINKEMU_LINKOPT_H
#define LINKEMU_LINKOPT_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"

#define LE_DEFAULT_MTU 1500
#define LE_DEFAULT_QUEUE_PACKETS 50

/* getopt_long codes of the link flags, above stackopt.h's NR_OPT_* codes. A per-direction
 * flag's --reverse- form is its code plus LE_OPT_REVERSE. */
enum {
    LE_OPT_RATE = 2000, LE_OPT_DELAY, LE_OPT_JITTER, LE_OPT_REORDER, LE_OPT_LOSS, LE_OPT_CLR,
    LE_OPT_BER, LE_OPT_QPKT, LE_OPT_QBYTES,
    LE_OPT_REVERSE = 100,
    LE_OPT_FRAMING = LE_OPT_RATE + 2 * LE_OPT_REVERSE, LE_OPT_MTU,
    LE_OPT_LINK_FIRST = LE_OPT_RATE, LE_OPT_LINK_LAST = LE_OPT_MTU,
};
#define LE_NDIR_OPTS (LE_OPT_QBYTES - LE_OPT_RATE + 1)

#define LE_LINK_LONGOPTS                                                              \
    {"rate", required_argument, 0, LE_OPT_RATE},                                      \
    {"delay", required_argument, 0, LE_OPT_DELAY},                                    \
    {"jitter", required_argument, 0, LE_OPT_JITTER},                                  \
    {"reorder", no_argument, 0, LE_OPT_REORDER},                                      \
    {"loss-pct", required_argument, 0, LE_OPT_LOSS},                                  \
    {"cell-loss-ratio", required_argument, 0, LE_OPT_CLR},                            \
    {"bit-error-ratio", required_argument, 0, LE_OPT_BER},                            \
    {"queue-packets", required_argument, 0, LE_OPT_QPKT},                             \
    {"queue-bytes", required_argument, 0, LE_OPT_QBYTES},                             \
    {"reverse-rate", required_argument, 0, LE_OPT_REVERSE + LE_OPT_RATE},             \
    {"reverse-delay", required_argument, 0, LE_OPT_REVERSE + LE_OPT_DELAY},           \
    {"reverse-jitter", required_argument, 0, LE_OPT_REVERSE + LE_OPT_JITTER},         \
    {"reverse-reorder", no_argument, 0, LE_OPT_REVERSE + LE_OPT_REORDER},             \
    {"reverse-loss-pct", required_argument, 0, LE_OPT_REVERSE + LE_OPT_LOSS},         \
    {"reverse-cell-loss-ratio", required_argument, 0, LE_OPT_REVERSE + LE_OPT_CLR},   \
    {"reverse-bit-error-ratio", required_argument, 0, LE_OPT_REVERSE + LE_OPT_BER},   \
    {"reverse-queue-packets", required_argument, 0, LE_OPT_REVERSE + LE_OPT_QPKT},    \
    {"reverse-queue-bytes", required_argument, 0, LE_OPT_REVERSE + LE_OPT_QBYTES},    \
    {"framing", required_argument, 0, LE_OPT_FRAMING},                                \
    {"mtu", required_argument, 0, LE_OPT_MTU}

/* The link as the flags describe it. */
struct le_link_opts {
    enum le_framing framing;
    uint32_t mtu;
    struct le_dir_cfg forward; /* a -> b */
    struct le_dir_cfg reverse; /* b -> a: once le_link_finish has run, the forward values but
                                * for the --reverse-* flags given */
    bool rate_set;
    bool reverse_set[LE_NDIR_OPTS];
};

/* The defaults: Ethernet framing, MTU 1500, a 50-packet queue, no delay, loss or jitter. */
void le_link_init(struct le_link_opts *o);
/* Takes one link flag (a code from LE_OPT_LINK_FIRST to LE_OPT_LINK_LAST) and its value.
 * Returns 0, or -1 with the reason printed to err after "prog: ". */
int le_link_opt(struct le_link_opts *o, int code, const char *arg, const char *prog, FILE *err);
/* After the last flag: checks that --rate was given and fills in the reverse direction.
 * Returns 0, or -1 with the reason printed to err after "prog: ". */
int le_link_finish(struct le_link_opts *o, const char *prog, FILE *err);
/* Whether the link can be a shared medium (--medium shared), which models the wire and the
 * interface queues only: Ethernet framing, one rate and propagation for both stations, no added
 * loss or jitter, queues in packets. Returns true, or false with the reason printed to err
 * after "prog: ". */
bool le_link_shared_ok(const struct le_link_opts *o, const char *prog, FILE *err);
/* The shared medium's background station (--background-fps, --background-size): other hosts'
 * frames at a Poisson rate, which both programs parse alike. */
#define LE_BACKGROUND_FPS_MAX 10000.0
#define LE_BACKGROUND_USAGE                                                                  \
    "  --background-fps N         with --medium shared: other stations' frames, N a second on\n" \
    "                             average (Poisson, from the seed), contending for the wire\n"  \
    "                             and never delivered to either host; 0 to 10000 (default 0)\n" \
    "  --background-size SIZE     their IP octets, 28B to 1500B (default 1500B)\n"
/* Parses --background-fps (into *fps) or --background-size (into *octets); 0, or -1 with the
 * reason printed to err after "prog: ". */
int le_background_opt(const char *flag, const char *arg, double *fps, uint32_t *octets,
                      const char *prog, FILE *err);
/* The usage lines of the --reverse-* flags, the same for both programs. */
void le_link_usage_reverse(FILE *out);

/* Unit parsers; each returns 0 or -1 when the text is not a number with a known unit. */
int le_parse_rate(const char *text, double *bps);      /* bit, Kbit, Mbit, Gbit (10^3 steps) */
int le_parse_time(const char *text, int64_t *ns);      /* ns, us, ms, s */
int le_parse_size(const char *text, uint64_t *octets); /* bare, B, K/KB (1024), M/MB */
/* A plain decimal number from lo to hi, and a whole one from 0 to hi; 0 or -1. */
int le_parse_number(const char *text, double lo, double hi, double *value);
int le_parse_whole(const char *text, double hi, uint64_t *value);
const char *le_framing_name(enum le_framing framing);
int le_parse_framing(const char *text, enum le_framing *framing);

#endif
