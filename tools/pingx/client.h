/* pingx's event-driven client on nrio: sends each planned message, times its echo and writes
 * its record once the measurement is over. Nothing here blocks but the deliberate busy-wait of
 * udp-cooled. */
#ifndef PINGX_CLIENT_H
#define PINGX_CLIENT_H

#include <stdint.h>
#include <stdio.h>

#include "args.h"
#include "calib.h"
#include "nrio.h"
#include "plan.h"

enum px_phase { PX_IDLE, PX_CONNECTING, PX_SENDING, PX_RECEIVING };

/* The message under way. */
struct px_msg {
    long index; /* position in the run */
    long size, seq;
    int phase;
    int64_t t_start, t_end; /* t_end: the echo's last octet or datagram; 0 until then */
    int64_t interval_ns, timeout_ns, cool_gap_ns;
    size_t sent, got; /* TCP octets */
    long dg_count, dg_sent, dg_returned, dg_stale, dg_duplicate;
    long dg_misordered; /* returned after a datagram of a higher index */
    long dg_top_index;  /* the highest index returned so far */
    uint32_t msg_id;
    int64_t t_last_return;
    int timeout_timer, quiet_timer;
};

struct px_client {
    nrio *io;
    struct pingx_args a;
    FILE *out;
    struct nrio_addr peer;
    struct px_item *plan;
    long nplan, next;
    uint8_t *msg, *echo;   /* the message sent, and what came back */
    uint8_t *seen;         /* UDP: which datagrams of the message returned */
    int sock;              /* the connection, the UDP socket, or -1 */
    int watched;           /* the events sock is watched for */
    struct nrio_sockopts opts_in_force;
    struct nr_calib calib; /* udp-cooled with --cool-iterations */
    int64_t cool_gap_ns;   /* the gap made between datagrams; -1 when not cooled */
    int64_t t0;            /* the run's start; t_start_ns counts from here */
    int64_t due;           /* when the current message was due to start */
    int64_t prev_measurement;
    long silent_run;       /* UDP messages in a row with no datagram back */
    long stale_idle;       /* UDP datagrams of earlier messages read between messages */
    struct px_msg m;
    int failed;
    char what[256], hint[200];
};

/* Runs all of pingx on io: the meta record and one record per message on out, or an error
 * record when the run failed, which err also tells. Returns the exit status: 0, or 1 when the
 * run failed. The same on every nrio backend, netsim's included. */
int pingx_run(nrio *io, const struct pingx_args *a, FILE *out, FILE *err);

/* The parts of pingx_run. Prepares the run and writes the meta record; the caller then runs
 * the nrio loop, which stops when the run is over or failed. Returns 0, or -1 with c->what and
 * c->hint set. */
int px_start(struct px_client *c, nrio *io, const struct pingx_args *a, FILE *out);
void px_free(struct px_client *c);

/* Counts one datagram of the message under way returned (each index once): misordered when a
 * datagram of a higher index came back before it. echod echoes a message in index order once it
 * has all of it (or gave up waiting), so what is counted is misordering on the way back. */
void px_note_returned(struct px_msg *m, long index);

#endif
