/* ttcp's command line. */
#ifndef TTCP_ARGS_H
#define TTCP_ARGS_H

#include <stdint.h>
#include <stdio.h>

#include "stackopt.h"

#include "wire.h"

#define TTCP_MIN_UDP_WRITE TTCP_HDR_LEN
#define TTCP_MAX_UDP_WRITE 65507 /* 65535 less the IPv4 and UDP headers */

struct ttcp_args {
    int transmit;        /* 1 for -t, 0 for -r */
    int proto;           /* NRIO_TCP or NRIO_UDP */
    const char *stack;   /* net.name */
    struct nr_stack_opts net;
    const char *host;    /* -t: the receiver's address */
    const char *bind_ip; /* -r: local address */
    int port;
    long write_size;
    long long bytes;     /* bytes per transfer (from --bytes, or -n times -l) */
    int sndbuf, rcvbuf;  /* 0: the stack's default */
    int nodelay;
    int64_t cool_gap_ns;
    long cool_spin;
    int end_markers;
    int repeat;
    int64_t pause_ns;
    int64_t pause_spread_ns; /* each pause adds a draw uniform in [0, this) */
    uint64_t seed;           /* of the pause draws */
    int64_t timeout_ns;
};

/* Fills a from argv. Returns 0, 1 when help was asked for, or -1 with a message in err. */
int ttcp_parse_args(int argc, char **argv, struct ttcp_args *a, char *err, size_t errlen);
void ttcp_usage(FILE *f);

#endif
