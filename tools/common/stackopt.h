/* The command-line flags that choose a tool's network stack, shared by every nrio tool.
 *
 * --stack kernel uses the Linux stack; --stack tahoe runs the project's 4.3BSD-Tahoe stack on a
 * network interface it owns (--if, --addr, --host-model; --mtu, the default TCP buffers,
 * --tick-phase, static --arp entries, --frame-times and --segment-log are optional). Parsing lives here, with
 * no dependency on the Tahoe code, so tools can check their command lines in unit tests;
 * tahoe/if_packet.h opens the backend the flags describe. */
#ifndef NR_STACKOPT_H
#define NR_STACKOPT_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The largest socket buffer the Tahoe stack grants (SunOS 4.1's sb_max), and the MTUs it takes:
 * the stack (tahoe_config_defaults, tahoe_new) and the tools' flags read them here.
 * netrepro/limits.py states the same (TAHOE_SB_MAX, MTU); tests/test_facts.py checks they agree. */
#define NR_SB_MAX 52428
#define NR_MTU_MIN 68
#define NR_MTU_MAX 65535

/* A static ARP entry, as `arp -s` set one in 4.3BSD: the peer's link address is known without
 * asking. */
#define NR_STACK_ARP_MAX 8
struct nr_arp_entry {
    uint32_t ip; /* network byte order */
    uint8_t mac[6];
};

struct nr_stack_opts {
    const char *name;       /* "kernel" or "tahoe" */
    const char *ifname;     /* tahoe: the interface the stack owns */
    const char *addr_text;  /* tahoe: --addr as given, for records and messages */
    uint32_t addr;          /* network byte order */
    uint32_t netmask;       /* network byte order */
    int prefix;             /* netmask length */
    const char *host_model; /* tahoe: a host model file (configs/hosts) */
    int mtu;                /* 0: the interface's MTU */
    int tcp_sendspace;      /* 0: the MTU's default (see usage) */
    int tcp_recvspace;
    int64_t tick_phase_ns;  /* tahoe: ticks this long after each whole second; -1: random */
    struct nr_arp_entry arp[NR_STACK_ARP_MAX]; /* tahoe: --arp entries */
    int narp;
    int frame_times;        /* tahoe: frames carry their modelled times (common/frametime.h) */
    const char *segment_log; /* tahoe: a file that gets each TCP segment sent and its rule */
    /* tahoe: the host's jitter stream (common/rng.h), as netsim seeds it; jitter_set 0: a
     * random seed */
    int jitter_set;
    uint64_t jitter_seed, jitter_stream;
};

/* getopt_long codes of the stack flags; tools keep their own codes below NR_OPT_STACK. */
enum { NR_OPT_STACK = 1000, NR_OPT_IF, NR_OPT_ADDR, NR_OPT_HOST_MODEL, NR_OPT_MTU,
       NR_OPT_SENDSPACE, NR_OPT_RECVSPACE, NR_OPT_TICK_PHASE, NR_OPT_ARP,
       NR_OPT_FRAME_TIMES, NR_OPT_SEGMENT_LOG, NR_OPT_JITTER };

#define NR_STACK_LONGOPTS                                                 \
    {"stack", required_argument, 0, NR_OPT_STACK},                        \
    {"if", required_argument, 0, NR_OPT_IF},                              \
    {"addr", required_argument, 0, NR_OPT_ADDR},                          \
    {"host-model", required_argument, 0, NR_OPT_HOST_MODEL},              \
    {"mtu", required_argument, 0, NR_OPT_MTU},                            \
    {"tcp-sendspace", required_argument, 0, NR_OPT_SENDSPACE},            \
    {"tcp-recvspace", required_argument, 0, NR_OPT_RECVSPACE},           \
    {"tick-phase", required_argument, 0, NR_OPT_TICK_PHASE},             \
    {"arp", required_argument, 0, NR_OPT_ARP},                            \
    {"frame-times", no_argument, 0, NR_OPT_FRAME_TIMES},                  \
    {"segment-log", required_argument, 0, NR_OPT_SEGMENT_LOG},           \
    {"jitter", required_argument, 0, NR_OPT_JITTER}

/* The case labels of every stack flag, for a tool's getopt switch to hand them to nr_stack_opt. */
#define NR_STACK_OPT_CASES                                                \
    case NR_OPT_STACK: case NR_OPT_IF: case NR_OPT_ADDR:                  \
    case NR_OPT_HOST_MODEL: case NR_OPT_MTU: case NR_OPT_SENDSPACE:       \
    case NR_OPT_RECVSPACE: case NR_OPT_TICK_PHASE: case NR_OPT_ARP:       \
    case NR_OPT_FRAME_TIMES: case NR_OPT_SEGMENT_LOG: case NR_OPT_JITTER

/* The Tahoe stack's defaults when no flag gives them: 4.3BSD's 4K,
 * and SunOS 4.1's 16K on an interface whose MTU exceeds Ethernet's (the ATM interface). */
#define NR_TCPSPACE_BSD 4096
#define NR_TCPSPACE_ATM 16384
#define NR_ETHER_MTU 1500
/* The 200 ms and 500 ms ticks of a Tahoe stack come back to the same phase every second. */
#define NR_TICK_CYCLE_NS 1000000000LL

void nr_stack_opts_init(struct nr_stack_opts *o);
/* Takes one stack flag (code NR_OPT_*) and its value. Returns 0, or -1 with a message in err. */
int nr_stack_opt(struct nr_stack_opts *o, int code, const char *val, char *err, size_t errlen);
/* Checks the flags as a whole once all are parsed: tahoe needs --if, --addr and --host-model,
 * and the kernel stack takes none of the Tahoe flags. Returns 0, or -1 with a message. */
int nr_stack_check(const struct nr_stack_opts *o, char *err, size_t errlen);
/* The usage lines of the stack flags, the help text starting at column col. */
void nr_stack_usage(FILE *f, int col);
/* The default TCP buffer for an interface MTU when no flag gives one. */
int nr_stack_default_space(int mtu);
/* --tick-phase: the first instant at or after now_ns (CLOCK_MONOTONIC) that lies phase_ns after
 * a whole second; the stack waits for it and boots then. */
int64_t nr_tick_next_ns(int64_t now_ns, int64_t phase_ns);

#endif
