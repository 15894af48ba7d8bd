/* The simulator's event queue. Events come out in time order; at equal times arrivals before
 * the others, and events in the order they were queued, so that a run never depends on how a
 * heap breaks ties. Arrivals are a binary min-heap. A host's wake-up and the shared medium's
 * next event are slots: each holds at most one event, and setting it again supersedes the one
 * it held. A superseded event still comes out, at its time, as NS_EV_STALE, so that the count
 * of events handled is that of a queue that kept it; kept in a heap of its own, it leaves the
 * arrivals' heap small (stale wake-ups at far timeouts were most of a single heap, and a fifth
 * of netsim's time went to sifting through them). */
#ifndef NETSIM_EVQ_H
#define NETSIM_EVQ_H

#include <stddef.h>
#include <stdint.h>

enum ns_ev_type {
    NS_EV_ARRIVE, /* a packet reaches host `host` */
    NS_EV_OFFER,  /* --medium shared: host `host`'s frame enters its interface queue */
    NS_EV_WAKE,   /* host `host` asked to run again at this time */
    NS_EV_MEDIUM, /* the shared medium's next event is due */
    NS_EV_STALE,  /* a wake-up or medium event superseded before its time: nothing to do */
};

/* The slots: one wake-up per host, and the medium's. */
enum ns_slot { NS_SLOT_WAKE_A, NS_SLOT_WAKE_B, NS_SLOT_MEDIUM, NS_SLOTS };

struct ns_pkt {
    size_t len;
    uint8_t data[];
};

struct ns_ev {
    int64_t at_ns;
    uint64_t seq;
    int type;
    int host;
    struct ns_pkt *pkt; /* NS_EV_ARRIVE, NS_EV_OFFER: owned by the event */
};

struct ns_evq {
    struct ns_ev *items; /* the arrivals' heap from the front, the superseded events' from the back */
    size_t len, cap;
    size_t nstale;
    struct ns_ev slot[NS_SLOTS]; /* their times and queueing order */
    int pending[NS_SLOTS];
    uint64_t next_seq;
};

/* Queues an arrival or an offer. Returns 0, or -ENOMEM. ev->seq is assigned here. */
int ns_evq_push(struct ns_evq *q, struct ns_ev ev);
/* Sets slot to an event at at_ns (INT64_MAX: none), superseding the one it held. Returns 0,
 * or -ENOMEM. */
int ns_evq_set(struct ns_evq *q, enum ns_slot slot, int64_t at_ns);
/* Removes the earliest event into *out; returns 0, or -1 when the queue is empty. */
int ns_evq_pop(struct ns_evq *q, struct ns_ev *out);
/* Frees the queue and the packets its events still own. */
void ns_evq_free(struct ns_evq *q);

#endif
