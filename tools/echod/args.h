/* echod's command line. */
#ifndef ECHOD_ARGS_H
#define ECHOD_ARGS_H

#include <stdint.h>
#include <stdio.h>

#include "stackopt.h"

#define ECHOD_VERSION "0.1.0"

struct echod_args {
    const char *stack; /* what the summary names the stack: net.name, or the simulator's */
    struct nr_stack_opts net;
    const char *bind_ip;
    int port;
    int tcp, udp; /* which protocols to serve */
    int64_t udp_quiet_ns;
    int64_t echo_gap_ns; /* pause between echoed UDP datagrams; 0: back to back */
    int sndbuf, rcvbuf; /* 0: the stack's default */
    long max_message;
};

/* Fills a from argv. Returns 0, 1 when help was asked for, or -1 with a message in err. */
int echod_parse_args(int argc, char **argv, struct echod_args *a, char *err, size_t errlen);
void echod_usage(FILE *f);

#endif
