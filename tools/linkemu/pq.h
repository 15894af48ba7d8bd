/* Frames waiting to leave the emulator, ordered by release time and, for equal times, by
 * arrival, so that without jitter the order is first in, first out. */
#ifndef LINKEMU_PQ_H
#define LINKEMU_PQ_H

#include <stddef.h>
#include <stdint.h>

struct le_pkt {
    int64_t release_ns;
    uint64_t seq;
    uint32_t len;     /* octets to send, virtio header included */
    uint32_t trailer; /* octets of them that are a frame-time trailer, not the frame's */
    int timed;        /* --medium shared, while the medium holds it: it leaves with a trailer */
    uint8_t data[];
};

struct le_pq {
    struct le_pkt **items;
    size_t len, cap;
};

/* Returns 0, or -1 when out of memory. */
int le_pq_push(struct le_pq *q, struct le_pkt *p);
struct le_pkt *le_pq_top(const struct le_pq *q);
struct le_pkt *le_pq_pop(struct le_pq *q);
void le_pq_free(struct le_pq *q);

#endif
