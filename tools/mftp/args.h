/* mftp's command line. */
#ifndef MFTP_ARGS_H
#define MFTP_ARGS_H

#include <stdint.h>
#include <stdio.h>

#include "stackopt.h"

enum mftp_rtt_method { MFTP_RTT_AUTO, MFTP_RTT_ICMP, MFTP_RTT_TCP };
/* How the data connections are opened, and so where a transfer's time starts. */
enum mftp_setup { MFTP_SETUP_PARALLEL, MFTP_SETUP_SERIAL };

struct mftp_args {
    const char *stack;       /* what the records call the stack: net.name, or netsim's */
    struct nr_stack_opts net;
    const char *host;
    int port;
    const char *user, *pass;
    const char *get;         /* RETR this remote name, or NULL */
    const char *put;         /* STOR this local file, or NULL */
    const char *remote_name; /* --put: the name on the server */
    const char *dest;        /* --get: where the data go */
    int connections;         /* -n; 0: not given */
    double target_bps;       /* --target-rate; 0: not given */
    long window;             /* per-connection window; 0: the stack's default */
    long block;
    long long reorder_max;   /* --get: the receiver's out-of-order bound; 0: none */
    int blocking_writes;     /* --put: the sender writes one block at a time */
    int plain;               /* one connection in stream mode, no MCON */
    int setup;               /* enum mftp_setup */
    int rtt_method;
    int rtt_samples;
    int repeat;
    int64_t pause_ns;
    int64_t timeout_ns;
};

/* Returns 0, 1 when help was asked for, or -1 with a message in err. */
int mftp_parse_args(int argc, char **argv, struct mftp_args *a, char *err, size_t errlen);
void mftp_usage(FILE *f);
/* A rate with a unit: bit, kbit, Mbit or Gbit (decimal, per second), e.g. "100Mbit".
 * Returns 0, or -1. */
int mftp_parse_rate(const char *s, double *bps);

#endif
