/* ipcbench's command line. */
#ifndef IPCBENCH_ARGS_H
#define IPCBENCH_ARGS_H

#include <stdint.h>
#include <stdio.h>

#include "stackopt.h"

enum ipc_api { IPC_SOCKETS, IPC_RPC, IPC_TLI };

/* Exit statuses; TLI's is distinct so a harness can tell "cannot exist here" from "failed". */
enum { IPC_EXIT_OK = 0, IPC_EXIT_FAIL = 1, IPC_EXIT_USAGE = 2, IPC_EXIT_NOT_REPRODUCIBLE = 3 };

struct ipc_args {
    const char *stack;   /* net.name */
    struct nr_stack_opts net;
    int api;
    int proto;           /* NRIO_UDP or NRIO_TCP, for --api sockets */
    int server;
    const char *host;    /* client: the server's address */
    const char *bind_ip; /* server */
    int port;
    long long size;      /* message size */
    long segment;        /* UDP datagram size, header included */
    int unack;           /* UDP segments per acknowledgement */
    int64_t rto_ns;
    int buf;             /* TCP and RPC: send and receive buffer; 0: the default */
    int repeat;
    int64_t pause_ns;
    int64_t timeout_ns;
    int count;           /* server: exit after this many messages; 0: serve until timeout */
};

/* Returns 0, 1 when help was asked for, or -1 with a message in err. */
int ipc_parse_args(int argc, char **argv, struct ipc_args *a, char *err, size_t errlen);
void ipc_usage(FILE *f);
const char *ipc_api_name(int api);

#endif
