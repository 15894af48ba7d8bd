/* A shared half-duplex Ethernet between two stations (10BASE5/10BASE2 of 1994), the IEEE 802.3
 * clause 4 MAC of each station: one frame on the wire at a time in either direction; a frame
 * is its preamble and start delimiter (64 bits) and at least 64 octets (padded, FCS included);
 * every station waits the 96-bit interframe gap after the medium falls silent, in two parts
 * (a carrier that starts in the first 64 bits restarts the gap, one in the last 32 is ignored)
 * and, 1-persistent, starts at the end of the gap whenever a frame waits; two starts within the
 * propagation time of each other collide, each station completes its preamble, sends a 32-bit
 * jam, stops and backs off r slots of 512 bits, r uniform in [0, 2^min(n,10)) after its n-th
 * collision, giving the frame up after 16 attempts. The two hosts' interfaces are LANCEs
 * (milliner Sec 4: AMD Am7990), which add LE_LANCE_RX_GAP_BITS to the gap that follows a frame
 * they received; the background station's is plain 802.3. Each station counts the collisions its own
 * frames suffered, as netstat -i shows them for one host. Pure, like model.h: the caller hands
 * it the time and runs its events in order; the backoffs come from a seeded generator.
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
#define LE_PREAMBLE_BITS 64    /* preamble and start delimiter; a collision fragment has them all */
#define LE_IFG_BITS 96         /* interframe gap: 9.6 us at 10 Mb/s */
#define LE_IFS1_BITS 64        /* its first part, 2/3, in which a new carrier restarts it */
/* A LANCE that has just received a frame waits this much beyond the gap before it transmits,
 * so a station with frames queued behind its own keeps the wire and the receiver's reply
 * defers to them instead of colliding with them. Sun's later Ethernet MACs copy the behaviour
 * as their default "lance_mode": ipg0 = 16 nibble times, 6.4 us at 10 Mb/s, added before a
 * transmission that follows a reception "to reduce collisions" (Sun, Platform Notes: The hme
 * Fast Ethernet Device Driver, May 1996, lance_mode and ipg0). The value is Sun's for that
 * emulation; the Am7990 data sheet's own figure was not found here. */
#define LE_LANCE_RX_GAP_BITS 64
#define LE_BACKOFF_LIMIT 10    /* the backoff range stops doubling after 10 collisions */
#define LE_ATTEMPT_LIMIT 16    /* attempts before a frame is given up (excessive collisions) */
#define LE_BACKGROUND 2        /* the station of other hosts' traffic, once enabled */
#define LE_STATIONS 3          /* the two hosts and the background station */
#define LE_MAX_OUTCOMES 3      /* a collision of all three can give up three frames */
/* The background station draws its backoffs from this stream of the seed and its arrivals from
 * the next: streams no backend uses for anything else. */
#define LE_BACKGROUND_STREAM 7

/* What one station's interface counted, as SunOS's netstat -i does per interface: one host's
 * collision rate is its collisions over its tx_frames. */
struct le_station_counters {
    uint64_t offered;    /* frames handed to the interface */
    uint64_t tx_frames;  /* frames that went out whole (netstat's Opkts) */
    uint64_t collisions; /* collisions this station's frames suffered (netstat's Collis): a
                          * collision of both stations' frames counts once at each */
    uint64_t deferrals;  /* attempts that heard the other's carrier and waited for it */
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
    int64_t earliest_ns; /* the head frame starts no sooner: when it was ready, or its backoff ends */
    int64_t quiet_ns;   /* the medium last fell silent here, this station's own signal included */
    int64_t rx_gap_ns;  /* added to the gap after a frame received from the other host (LANCE) */
    int received;       /* the last carrier here was a frame from the other host, received */
    int deferring;      /* it heard the other's carrier and waits for it to drop */
    int64_t try_ns;     /* when the head frame next tries the medium; INT64_MAX: nothing to do */
    struct nr_rng rng;
    struct le_station_counters count;
};

struct le_medium {
    double rate_bps;
    int64_t prop_ns;         /* end-to-end propagation: the window in which starts collide */
    enum le_framing framing;
    uint64_t queue_packets;  /* each interface's queue limit, frame on the wire included; 0: none */
    struct le_station st[LE_STATIONS];
    int nst;                 /* stations: the two hosts, and the background one when enabled */
    int tx;                  /* the station whose frame is on the wire; -1: none */
    int64_t tx_start_ns, tx_end_ns; /* its first and last bit leave the sender */
    /* The background station: other hosts' frames of bg_octets, a Poisson process of bg_fps
     * frames a second, each contending as the hosts' do; never delivered to either host. */
    double bg_fps;
    uint32_t bg_octets;
    int64_t bg_next_ns;      /* its next frame's arrival; INT64_MAX: none */
    struct nr_rng bg_arrivals;
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
/* Adds the background station: from start_ns, frames of ip_octets arrive at it at exponential
 * intervals of mean 1/frames_per_s (seed's stream LE_BACKGROUND_STREAM + 1) and contend for the
 * medium (backoffs from LE_BACKGROUND_STREAM); the hosts only see the medium busy and their
 * collisions with them. Its counters are st[LE_BACKGROUND].count. Returns 0, or -1 when out of
 * memory or frames_per_s is not positive. */
int le_medium_background(struct le_medium *m, double frames_per_s, uint32_t ip_octets,
                         int64_t start_ns, uint64_t seed);
/* free_pkt (NULL: none) is called on every frame still queued. */
void le_medium_free(struct le_medium *m, void (*free_pkt)(void *));

/* Station st's interface is handed a frame of ip_octets at ready_ns (not before the frames it
 * already holds). Returns LE_PASS, or LE_DROP_QUEUE (the queue is full or memory ran out). */
enum le_verdict le_medium_offer(struct le_medium *m, int st, int64_t ready_ns, uint32_t ip_octets,
                                void *pkt);

/* How long a frame of ip_octets holds the medium, preamble included, the gap after it not. */
int64_t le_medium_frame_ns(const struct le_medium *m, uint32_t ip_octets);

/* The time of the medium's next event; INT64_MAX when it has none. */
int64_t le_medium_next_ns(const struct le_medium *m);

/* The last time at which another station could still start into the frame on the wire (its
 * carrier has not reached it, or reached it in the last part of its gap); after it the frame
 * ends as scheduled, whatever is offered (a background frame arrives when drawn, so the medium
 * knows whether one can). INT64_MAX when no frame is on the wire. */
int64_t le_medium_contested_ns(const struct le_medium *m);

/* Runs the medium's events due at now_ns (which must not pass le_medium_next_ns()) until one
 * has an outcome: returns the number of outcomes written to out (0 to LE_MAX_OUTCOMES: a
 * collision can give up every colliding host's frame; the background station's frames are no
 * outcome). Call again while le_medium_next_ns() <= now_ns. */
int le_medium_step(struct le_medium *m, int64_t now_ns, struct le_outcome out[LE_MAX_OUTCOMES]);

/* Collisions over frames sent, in percent, both stations pooled. One host's netstat -i shows
 * its own counters' ratio instead (le_station_counters). */
double le_medium_collision_pct(const struct le_medium *m);

#endif
