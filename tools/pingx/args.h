/* pingx's command line. */
#ifndef PINGX_ARGS_H
#define PINGX_ARGS_H

#include <stdint.h>
#include <stdio.h>

#include "stackopt.h"

#define PINGX_VERSION "0.1.0"
#define PX_MAX_SIZES 256
#define PX_MAX_MESSAGE (4L << 20)

enum px_mode { PX_TCP_PER_MESSAGE, PX_TCP, PX_TCP_NODELAY, PX_UDP, PX_UDP_COOLED };
/* How the next message's start is counted: from when the previous one was due (an interval
 * timer, setitimer's it_interval), or from when its alarm went off (alarm() set again in the
 * SIGALRM handler, as liu95db's ping did). */
enum px_pacing { PX_PACING_GRID, PX_PACING_ALARM };

struct pingx_args {
    int mode;
    const char *stack;    /* what records name the stack: net.name, or the simulator's */
    const char *clock;    /* the clock records' times come from */
    struct nr_stack_opts net;
    const char *host;
    int port;
    long sizes[PX_MAX_SIZES];
    int nsizes;
    long count;  /* echoes per size */
    int shuffled;
    uint64_t seed;
    int64_t interval_ns;
    int pacing; /* enum px_pacing */
    int64_t timeout_ns;
    int64_t udp_quiet_ns;
    long datagram;        /* UDP datagram size in octets */
    int64_t cool_gap_ns;  /* udp-cooled by time; -1 when not given */
    long cool_iterations; /* udp-cooled by busy-loop iterations; -1 when not given */
    int sndbuf, rcvbuf;   /* 0: the stack's default */
    long max_silent;
    int print_each; /* a line on stderr per returned datagram (UDP) or message (TCP) */
};

const char *pingx_mode_name(int mode);
const char *pingx_pacing_name(int pacing);
static inline int pingx_is_udp(int mode) { return mode == PX_UDP || mode == PX_UDP_COOLED; }
/* Fills a from argv. Returns 0, 1 when help was asked for, or -1 with a message in err. */
int pingx_parse_args(int argc, char **argv, struct pingx_args *a, char *err, size_t errlen);
void pingx_usage(FILE *f);

#endif
