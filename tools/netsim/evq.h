/* The simulator's event queue: a binary min-heap ordered by time; at equal times arrivals come
 * before wake-ups, and events of one kind in the order they were pushed, so that a run never
 * depends on how the heap breaks ties. */
#ifndef NETSIM_EVQ_H
#define NETSIM_EVQ_H

#include <stddef.h>
#include <stdint.h>

enum ns_ev_type {
    NS_EV_ARRIVE, /* a packet reaches host `host` */
    NS_EV_WAKE,   /* host `host` asked to run again at this time (stale unless gen matches) */
    NS_EV_MEDIUM, /* the shared medium's next event is due (stale unless gen matches) */
};

struct ns_pkt {
    size_t len;
    uint8_t data[];
};

struct ns_ev {
    int64_t at_ns;
    uint64_t seq;
    int type;
    int host;
    uint64_t gen;
    struct ns_pkt *pkt; /* NS_EV_ARRIVE: owned by the event */
};

struct ns_evq {
    struct ns_ev *items;
    size_t len, cap;
    uint64_t next_seq;
};

/* Returns 0, or -ENOMEM. ev->seq is assigned here. */
int ns_evq_push(struct ns_evq *q, struct ns_ev ev);
/* Removes the earliest event into *out; returns 0, or -1 when the queue is empty. */
int ns_evq_pop(struct ns_evq *q, struct ns_ev *out);
/* Frees the queue and the packets its events still own. */
void ns_evq_free(struct ns_evq *q);

#endif
