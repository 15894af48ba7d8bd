/* The link model of one direction: framing arithmetic, loss draws and the schedule of a
 * drop-tail queue in front of a line of fixed rate followed by a propagation delay.
 * Pure: it takes the time as an argument and touches neither clock nor network, so tests
 * drive it with made-up times. */
#ifndef LINKEMU_MODEL_H
#define LINKEMU_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rng.h"

enum le_framing { LE_FRAMING_ETHERNET, LE_FRAMING_AAL5_LLC_SNAP, LE_FRAMING_AAL5_VC_MUX, LE_FRAMING_NONE };

/* Octets of the Ethernet header on the emulator's own interfaces, stripped to get the IP packet. */
#define LE_ETH_HEADER 14

struct le_dir_cfg {
    double rate_bps;
    int64_t delay_ns;
    int64_t jitter_ns;
    double loss_pct;
    double cell_loss_ratio;
    double bit_error_ratio;
    uint64_t queue_packets; /* 0: no limit in packets */
    uint64_t queue_bytes;   /* 0: no limit in octets */
    bool reorder;
};

struct le_counters {
    uint64_t rx_packets, rx_bytes;
    uint64_t tx_packets, tx_bytes;
    uint64_t queued_packets, queued_bytes;
    uint64_t drop_queue, drop_loss, drop_cell_loss, drop_bit_error, drop_oversize, drop_nomem;
    uint64_t queue_max_packets;
};

enum le_verdict {
    LE_PASS,
    LE_DROP_OVERSIZE,
    LE_DROP_LOSS,
    LE_DROP_QUEUE,
    LE_DROP_CELL_LOSS,
    LE_DROP_BIT_ERROR,
};

/* A packet waiting for the line: when it starts to be serialized and its size. */
struct le_waiting {
    int64_t start_ns;
    uint32_t octets;
};

/* Packets waiting for the line, oldest first, in a ring. */
struct le_wait {
    struct le_waiting *q;
    size_t cap, head, len;
    uint64_t bytes;
};

struct le_dir {
    struct le_dir_cfg cfg;
    enum le_framing framing;
    uint32_t mtu;
    struct nr_rng rng;
    double line_free_ns; /* double: keeps the fractions of a nanosecond of each serialization */
    int64_t last_release_ns;
    struct le_wait wait;
    struct le_counters count;
};

uint32_t le_cells(enum le_framing framing, uint32_t ip_octets);
uint32_t le_wire_octets(enum le_framing framing, uint32_t ip_octets);
uint64_t le_error_bits(enum le_framing framing, uint32_t ip_octets);
/* Probability that a packet with `units` cells or bits loses at least one, each with `ratio`. */
double le_unit_loss_prob(double ratio, uint64_t units);

/* Returns 0, or -1 when out of memory. */
int le_dir_init(struct le_dir *d, const struct le_dir_cfg *cfg, enum le_framing framing, uint32_t mtu,
                uint64_t seed, uint64_t stream);
void le_dir_free(struct le_dir *d);

/* Decides the fate of a frame of frame_octets (Ethernet header included) that arrived at now_ns.
 * On LE_PASS, *release_ns is when it leaves the emulator. Counters are updated. */
enum le_verdict le_admit(struct le_dir *d, int64_t now_ns, uint32_t frame_octets, int64_t *release_ns);

/* Counts a frame that was sent out. */
void le_sent(struct le_dir *d, uint32_t frame_octets);

#endif
