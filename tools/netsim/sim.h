/* The simulator: two hosts, each a Tahoe stack behind the nrio backend with its own virtual
 * clock view and a coroutine running its application (ttcp's two ends, pingx on host a and
 * echod on host b, or mftp on host a and mftpd on host b), joined by one linkemu link model
 * per direction; a scheduler takes events (packet arrivals, host wake-ups) in time order. */
#ifndef NETSIM_SIM_H
#define NETSIM_SIM_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "args.h"
#include "coro.h"
#include "evq.h"
#include "linkemu/medium.h"
#include "linkemu/model.h"
#include "nrio.h"
#include "pcap.h"

struct ns_sim;

struct ns_host {
    struct ns_sim *sim;
    int idx;          /* 0: host a, 1: host b */
    nrio *io;         /* nrio_tahoe on this host's stack */
    struct ns_coro co;
    int64_t last_out_ns; /* packets enter the link in the order the CPU finished them */
    int status;       /* the application's exit status once it returned */
};

struct ns_sim {
    const struct ns_args *args;
    FILE *out;
    struct ns_host host[2];
    struct le_dir link[2]; /* link[i] carries packets from host i */
    struct le_medium medium; /* --medium shared: the one wire both hosts take turns on */
    struct ns_evq q;
    int64_t now_ns;
    int64_t boot_b_ns; /* host b booted this long before host a (at 0) */
    uint64_t events;   /* events the scheduler handled, superseded ones too */
    uint64_t packets;  /* packets handed to the link */
    int error;         /* a negative errno that stopped the simulation */
    struct ns_pcap pcap; /* with --pcap: host a's packets */
    volatile sig_atomic_t stop_echod; /* echod's stop flag, which SIGTERM sets on a real host */
};

/* Builds both hosts and the link, and for mftp writes the --file-size data. Returns 0, or -1
 * with the reason printed to err. */
int ns_sim_init(struct ns_sim *s, const struct ns_args *a, FILE *out, FILE *err);
/* Runs until both applications have returned, then completes and closes the capture.
 * Returns 0, or a negative errno when the simulation itself failed (the applications'
 * statuses are in host[].status). */
int ns_sim_run(struct ns_sim *s);
void ns_sim_free(struct ns_sim *s);

/* Writes the sim record; wall_ns < 0 leaves out the wall-clock fields. */
void ns_emit_sim(FILE *out, const struct ns_sim *s, int64_t wall_ns);

#endif
