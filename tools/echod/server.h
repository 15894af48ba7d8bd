/* echod's event-driven server on nrio: TCP connections (any number, sequential or concurrent)
 * and one UDP socket with reassembly. Nothing here blocks; all work is done in callbacks. */
#ifndef ECHOD_SERVER_H
#define ECHOD_SERVER_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "args.h"
#include "nrio.h"
#include "reasm.h"

struct echod_conn;

struct echod_stats {
    int64_t tcp_connections;
    int64_t tcp_messages_echoed;
    int64_t tcp_messages_truncated; /* the peer closed in the middle of a message */
    int64_t tcp_bad_messages;       /* wrong header or over --max-message: connection closed */
    int64_t tcp_errors;             /* connections ended by a socket error */
    int64_t udp_messages_echoed;    /* complete */
    int64_t udp_messages_incomplete; /* echoed as they were after --udp-quiet */
    int64_t datagrams_received;
    int64_t datagrams_echoed;
    int64_t datagrams_duplicate;
    int64_t datagrams_bad;
    int64_t datagrams_late;
    int64_t datagrams_dropped; /* no room to keep, or the echo could not be sent */
};

struct echod {
    nrio *io;
    struct echod_args args;
    const volatile sig_atomic_t *stop_flag;
    int lsock, usock;
    struct echod_conn *conns;
    struct reasm reasm;
    int quiet_timer;
    int64_t quiet_at;
    struct reasm_dgram *outq, *outq_tail;
    int gap_timer; /* armed while an echo gap runs; the queue waits for it */
    uint8_t *ubuf;
    struct nrio_sockopts tcp_opts, udp_opts; /* in force, from getopts */
    struct echod_stats st;
    int udp_events; /* what the UDP socket is watched for */
    int failed;     /* a fatal socket error ended the run */
    char err[256];  /* what failed */
    char hint[160]; /* what to do about it */
};

/* Runs all of echod on io until *stop_flag is set (by a signal handler, or by netsim once
 * pingx is done) or a fatal error: the summary record on out, or an error record, which err
 * also tells; with announce, err says when it serves. Returns the exit status: 0, or 1 when
 * the run failed. */
int echod_run(nrio *io, const struct echod_args *a, const volatile sig_atomic_t *stop_flag,
              FILE *out, FILE *err, int announce);

/* The parts of echod_run. Opens, binds and watches the sockets. stop_flag is polled: when it
 * becomes non-zero the loop stops. Returns 0, or -1 with e->err and e->hint set. After
 * nrio_run(), e->failed says whether a fatal error (in e->err and e->hint) stopped the loop. */
int echod_start(struct echod *e, nrio *io, const struct echod_args *a,
                const volatile sig_atomic_t *stop_flag);
/* Writes the summary record. Returns 0, or a negative errno. */
int echod_summary(const struct echod *e, FILE *out);
void echod_free(struct echod *e);

#endif
