/* ttcp's transfers, written as nrio callbacks so that they run on any backend. */
#ifndef TTCP_TTCP_H
#define TTCP_TTCP_H

#include <stdio.h>

#include "args.h"
#include "nrio.h"

/* What one transfer measured. -1 marks a value this end does not know. */
struct ttcp_result {
    int index;
    long long bytes;          /* bytes this end moved */
    long long writes;         /* transmitter */
    long long reads;          /* receiver: reads, or datagrams including end markers */
    int64_t send_ns;          /* sender: first write to end of last write */
    int64_t recv_ns;          /* receiver: first byte to last byte */
    long long recv_bytes;     /* bytes the receiver got */
    long long dgrams_sent, dgrams_received;
    int sndbuf, rcvbuf;       /* this end's socket, in force */
    int peer_rcvbuf, peer_rcvbuf_requested; /* the receiver's, as reported to the transmitter */
    int nodelay;              /* in force */
    double spin_ns_per_iter;  /* calibration of --cool-spin; negative when not calibrated */
    int64_t pause_ns;         /* transmitter: the pause before this transfer; -1 for none */
};

/* Runs every transfer of a, writing one record per transfer (or an error record) to out.
 * A receiver writes one "ttcp: receiving ..." line to announce (unless NULL) once its socket
 * listens or is bound, so a driver can start the transmitter only then: a stack that is not
 * yet up drops the first SYN silently, and the connect waits out a retransmission.
 * Returns the exit status: 0, or 1 when a transfer failed. */
int ttcp_run(nrio *io, const struct ttcp_args *a, FILE *out, FILE *announce);

/* The records, in record.c. */
void ttcp_emit_transfer(FILE *out, const struct ttcp_args *a, const struct ttcp_result *r);
void ttcp_emit_error(FILE *out, const struct ttcp_args *a, int index, const char *message);

#endif
