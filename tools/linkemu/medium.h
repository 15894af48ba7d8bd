/* A shared half-duplex Ethernet between two stations (10BASE5/10BASE2 of 1994): one frame on
 * the wire at a time in either direction, 1-persistent carrier sense, collisions when the two
 * stations start within the propagation time of each other, and IEEE 802.3's truncated binary
 * exponential backoff (slot 512 bit times, exponent capped at 10, a frame dropped after 16
 * attempts). Pure, like model.h: the caller hands it the time and runs its events in order.
 *
 * Use: le_medium_offer() when a station's interface has a frame; whenever the simulated time
 * reaches le_medium_next_ns(), call le_medium_step() until it returns no more outcomes due. */
#ifndef LINKEMU_MEDIUM_H
#define LINKEMU_MEDIUM_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "rng.h"

#define LE_SLOT_BITS 512       /* 802.3 slot time: 51.2 us at 10 Mb/s */
#define LE_JAM_BITS 32         /* the jam a station sends once it detects a collision */
#define LE_BACKOFF_LIMIT 10    /* the backoff range stops doubling after 10 collisions */
#define LE_ATTEMPT_LIMIT 16    /* attempts before a frame is given up (excessive collisions) */

/* What one station's interface counted, as SunOS's netstat -i does per interface. */
struct le_station_counters {
    uint64_t offered;    /* frames handed to the interface */
    uint64_t tx_frames;  /* frames that went out whole (netstat's Opkts) */
    uint64_t collisions; /* attempts that collided (netstat's Collis) */
    uint64_t deferrals;  /* attempts that found the carrier and waited */
    uint64_t excessive;  /* frames given up after 16 attempts */
    uint64_t drop_queue; /* frames refused by a full interface queue */
    uint64_t queue_max_packets;
};

struct le_frame {
    int64_t ready_ns;
    uint32_t ip_octets;
    void *pkt; /* the caller's; handed back in an outcome */
};

struct le_station {
    struct le_frame *q; /* FIFO ring; the head is the frame trying the medium */
    size_t cap, head, len;
    int attempts;       /* collisions the head frame has had */
    int64_t try_ns;     /* when the head frame next senses the medium; INT64_MAX: nothing to do */
    struct nr_rng rng;
    struct le_station_counters count;
};

struct le_medium {
    double rate_bps;
    int64_t prop_ns;         /* end-to-end propagation: the window in which starts collide */
    enum le_framing framing;
    uint64_t queue_packets;  /* each interface's queue limit, frame on the wire included; 0: none */
    struct le_station st[2];
    int tx;                  /* the station whose frame is on the wire; -1: none */
    int64_t tx_start_ns, tx_end_ns;
    int64_t free_ns;         /* the carrier (a frame, or a collision's jam) ends here */
};

enum le_outcome_kind { LE_DELIVERED, LE_EXCESSIVE };

struct le_outcome {
    enum le_outcome_kind kind;
    int station;       /* the sender */
    int64_t arrive_ns; /* LE_DELIVERED: when the frame has reached the other station */
    void *pkt;
};

/* Streams stream and stream + 1 of seed draw the two stations' backoffs. Returns 0, or -1
 * when out of memory. */
int le_medium_init(struct le_medium *m, double rate_bps, int64_t prop_ns, enum le_framing framing,
                   uint64_t queue_packets, uint64_t seed, uint64_t stream);
/* free_pkt (NULL: none) is called on every frame still queued. */
void le_medium_free(struct le_medium *m, void (*free_pkt)(void *));

/* Station st's interface is handed a frame of ip_octets at ready_ns (not before the frames it
 * already holds). Returns LE_PASS, or LE_DROP_QUEUE (the queue is full or memory ran out). */
enum le_verdict le_medium_offer(struct le_medium *m, int st, int64_t ready_ns, uint32_t ip_octets,
                                void *pkt);

/* The time of the medium's next event; INT64_MAX when it has none. */
int64_t le_medium_next_ns(const struct le_medium *m);

/* Runs the medium's events due at now_ns (which must not pass le_medium_next_ns()) until one
 * has an outcome: returns the number of outcomes written to out (0 to 2: a collision can give
 * up both stations' frames). Call again while le_medium_next_ns() <= now_ns. */
int le_medium_step(struct le_medium *m, int64_t now_ns, struct le_outcome out[2]);

/* Collisions per frame sent, in percent, over both stations (netstat's Collis over Opkts). */
double le_medium_collision_pct(const struct le_medium *m);

#endif
