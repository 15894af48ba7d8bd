/* netsim's command line: the link (linkemu's flags and units), the hosts, the seed, the
 * application, and its two command lines: ttcp's transmitter and receiver, pingx's and
 * echod's, or mftp's and mftpd's. */
#ifndef NETSIM_ARGS_H
#define NETSIM_ARGS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "echod/args.h"
#include "ipcbench/args.h"
#include "linkemu/model.h"
#include "mftp/args.h"
#include "mftpd/args.h"
#include "pingx/args.h"
#include "ttcp/args.h"

#define NS_ADDR_A "10.0.0.1"
#define NS_ADDR_B "10.0.0.2"

/* What the records name the stack and the clock of a simulated run. */
#define NS_STACK "tahoe-sim"
#define NS_CLOCK "virtual"

enum ns_app { NS_APP_TTCP, NS_APP_PINGX, NS_APP_MFTP, NS_APP_IPCBENCH };

struct ns_args {
    enum ns_app app;
    enum le_framing framing;
    uint32_t mtu;
    struct le_dir_cfg forward; /* a -> b */
    struct le_dir_cfg reverse; /* b -> a */
    uint64_t seed;
    const char *host_model[2]; /* NULL: a host that costs nothing */
    int64_t boot_b_ns;         /* host b booted this long before host a; -1: from the seed */
    int64_t spin_ps;
    int tcp_space;             /* both hosts' default TCP buffers; 0: by the MTU */
    bool window_scale;         /* both hosts offer RFC 1323 window scaling */
    int sb_max;                /* both hosts' largest socket buffer; 0: NR_SB_MAX */
    bool no_wall;
    bool shared_medium;        /* --medium shared: one half-duplex wire for both hosts */
    double background_fps;     /* --background-fps: other stations' frames a second */
    uint32_t background_octets; /* --background-size */
    bool trace;                /* a record per TCP segment sent */
    bool tcp_debug;            /* a TCP_DEBUG record per segment taken in, timer run out */
    const char *pcap_path;     /* where to capture host a's packets; NULL: nowhere */
    struct ttcp_args tx, rx;   /* NS_APP_TTCP: ttcp on host a (-t) and on host b (-r) */
    struct pingx_args ping;    /* NS_APP_PINGX: pingx on host a */
    struct echod_args echo;    /*               and echod on host b */
    struct mftp_args mftp;     /* NS_APP_MFTP: mftp on host a */
    struct mftpd_args mftpd;   /*              and mftpd on host b */
    struct ipc_args ipc;       /* NS_APP_IPCBENCH: the ipcbench client on host a */
    struct ipc_args ipcd;      /*                  and ipcbench --server on host b */
    long long file_size;       /* NS_APP_MFTP: octets of seeded data to write first; -1: none */
    /* The file the transfer reads and the one it writes: both hosts see this machine's files. */
    char source[PATH_MAX], sink[PATH_MAX];
};

const char *ns_app_name(enum ns_app app);

/* Parses argv. Returns 0, 1 when --help was given (usage printed to out), or -1 on a bad
 * command line (the reason printed to err). */
int ns_parse_args(int argc, char **argv, struct ns_args *a, FILE *out, FILE *err);
void ns_usage(FILE *out);

#endif
