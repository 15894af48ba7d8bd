/* The one JSON record linkemu prints when it stops: its settings and each direction's counters. */
#ifndef LINKEMU_STATS_H
#define LINKEMU_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "medium.h"
#include "model.h"

/* What the forwarding loop adds to the model's counters for one direction. */
struct le_fwd_counters {
    uint64_t pending_packets; /* still queued or in flight when it stopped */
    uint64_t socket_drops;    /* frames the kernel dropped before linkemu read them */
    uint64_t late_max_ns;     /* the latest a frame was sent after its handover time (its release
                                 less tx_lead_ns) */
    uint64_t late_sum_ns;
    uint64_t tx_stamps;       /* transmit stamps that measured the send lag */
    int64_t tx_lead_ns;       /* at the end: how early a full-size frame was handed over */
    uint64_t send_errors;
    uint64_t gso_frames;        /* frames a host's segmentation offload left whole, split here */
    uint64_t realtime_switches; /* times the thread went (back) to real-time priority */
    uint64_t timed_frames;      /* frames admitted at the time their trailer stated */
    int64_t timed_late_sum_ns;  /* how much later than its stated time each of them reached us */
    int64_t timed_late_max_ns;
};

struct le_dir_report {
    const struct le_dir_cfg *cfg;
    const struct le_counters *count;
    const struct le_fwd_counters *fwd;
};

/* medium: --medium shared's, whose counters go in as netsim names them (medium_a_*, medium_b_*,
 * medium_collision_pct); NULL on a duplex link. snapshot: 0 for the final record, else the
 * number of the record SIGUSR1 asked for ("final":false), so a reader can tell it is new. */
void le_write_json(FILE *out, const struct le_opts *opts, double duration_s,
                   const struct le_dir_report *forward, const struct le_dir_report *reverse,
                   const struct le_medium *medium, uint64_t snapshot);

/* Writes text to path through a temporary file and rename(), so readers never see half of it.
 * Returns 0, or -1 with errno set and a message on err. */
int le_write_atomic(const char *path, const char *text, FILE *err);

#endif
