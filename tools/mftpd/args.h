/* mftpd's command line. */
#ifndef MFTPD_ARGS_H
#define MFTPD_ARGS_H

#include <stdint.h>
#include <stdio.h>

#include "stackopt.h"

struct mftpd_args {
    const char *stack;    /* what the records call the stack: net.name, or netsim's */
    struct nr_stack_opts net;
    const char *bind_ip;
    int port;
    const char *root;     /* RETR and STOR names are resolved under it */
    long window;          /* per-connection window for data connections; 0: stack default */
    long block;           /* block size when sending in block mode */
    long long reorder_max; /* STOR: the receiver's out-of-order bound; 0: none */
    int blocking_writes;   /* RETR: the sender writes one block at a time (--blocking-writes) */
    int sessions;         /* exit after this many logged-in sessions; 0: serve forever */
    int64_t timeout_ns;   /* a session silent this long is closed with an error record */
    int64_t idle_exit_ns; /* exit when no session starts for this long; 0: never */
};

/* Returns 0, 1 when help was asked for, or -1 with a message in err. */
int mftpd_parse_args(int argc, char **argv, struct mftpd_args *a, char *err, size_t errlen);
void mftpd_usage(FILE *f);

#endif
