/* linkemu --medium shared: the frames of both directions take turns on one le_medium (medium.h)
 * that runs on linkemu's real clock. Pure, like medium.h: the forwarding loop hands it each
 * frame with the time it arrived and the current time, and tests drive it with made-up times.
 *
 * Station 0 is host a's interface (frames from --if-a, the forward direction), station 1 host
 * b's. The forwarding loop runs the medium late by however long it was busy, so the medium keeps
 * its own clock (the last event it ran) and takes no frame as ready before it: a frame that
 * reached linkemu while it ran the medium's events contends from there on. With a hold
 * (le_shared_hold) it runs each event that long after its time, so a frame that states its time
 * (--frame-times) and reaches linkemu up to the hold late still contends at that time. */
#ifndef LINKEMU_SHARED_H
#define LINKEMU_SHARED_H

#include <stdint.h>

#include "medium.h"
#include "model.h"

struct le_shared {
    struct le_medium medium;
    uint32_t mtu;
    int64_t now_ns;     /* the medium's clock: the time of the last event it ran */
    int64_t ready_ns[2]; /* each station's last frame became ready here; the next not before */
    int64_t hold_ns;    /* events run this long after their time (le_shared_hold) */
};

/* One rate, propagation (cfg->delay_ns) and interface queue (cfg->queue_packets) for both
 * stations. Returns 0, or -1 when out of memory. */
int le_shared_init(struct le_shared *sh, const struct le_dir_cfg *cfg, enum le_framing framing, uint32_t mtu,
                   uint64_t seed, uint64_t stream);
/* Runs each event hold_ns after its time (0 at init). A frame that reached linkemu late, behind
 * an event the medium already ran (the other station's start), would contend at that event's
 * instant, and a frame that started first in its sender's model would collide with one that
 * should have deferred to it: on milliner's 4096-octet TCP transfers nine frames in ten. The
 * hold must stay below the shortest frame's time on the wire, so that no frame's end waits for
 * it. */
void le_shared_hold(struct le_shared *sh, int64_t hold_ns);

/* When a frame that states stated_ns and reached linkemu at arrived_ns contends: at its stated
 * time if it came within the hold, else at its arrival less the hold. Given to the medium at
 * its clock instead, such a frame would try the instant the medium's last event happened, often
 * the other station's start, and collide with that frame. */
int64_t le_shared_timed_ns(const struct le_shared *sh, int64_t stated_ns, int64_t arrived_ns);

/* free_pkt (NULL: none) is called with each station and frame still queued. */
void le_shared_free(struct le_shared *sh, void (*free_pkt)(void *ctx, int station, void *pkt), void *ctx);

/* The check of a frame of frame_octets (Ethernet header included) before it goes to an
 * interface, counted in c as le_admit counts it (rx_*, drop_oversize). Returns LE_PASS or
 * LE_DROP_OVERSIZE. */
enum le_verdict le_shared_admit(const struct le_shared *sh, struct le_counters *c, uint32_t frame_octets);

/* Station st's interface is handed a frame that passed le_shared_admit and reached linkemu at
 * arrived_ns; counted in c's queued_*. Returns LE_PASS (the medium holds pkt until an outcome
 * hands it back) or LE_DROP_QUEUE (the interface queue is full: the medium's drop_queue). */
enum le_verdict le_shared_offer(struct le_shared *sh, int st, struct le_counters *c, int64_t arrived_ns,
                                uint32_t frame_octets, void *pkt);

/* When the forwarding loop must next call le_shared_run (INT64_MAX: nothing to do). A frame
 * whose start is past the collision window ends when scheduled whatever is offered later, so
 * its end is due ahead_ns early: the frame can then be handed to the kernel ahead_ns before it
 * arrives, as the duplex path hands frames over by their measured send lag. */
int64_t le_shared_due_ns(const struct le_shared *sh, int64_t ahead_ns);

/* Runs every medium event due by now_ns (le_shared_due_ns), each at its own time, and hands
 * each outcome to done: a frame delivered at o->arrive_ns to the other station, or given up
 * after 16 collisions. Returns the number of outcomes. */
int le_shared_run(struct le_shared *sh, int64_t now_ns, int64_t ahead_ns,
                  void (*done)(void *ctx, const struct le_outcome *o), void *ctx);

/* Frames the station's interface still holds. */
uint64_t le_shared_pending(const struct le_shared *sh, int st);

#endif
