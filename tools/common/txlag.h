/* How long a frame takes from the send call to the wire, measured on one socket from the
 * kernel's software transmit stamps. An emulator that wants a frame on the wire at time T
 * hands it to the kernel that much before T; otherwise every frame would leave a system call
 * and a veth hop (a few microseconds) after its modelled time, and a timeline of thousands of
 * frames would drift from the model's. */
#ifndef NR_TXLAG_H
#define NR_TXLAG_H

#include <stddef.h>
#include <stdint.h>

/* Sends remembered for matching their stamps; more are outstanding only if stamps are lost. */
#define NR_TXLAG_CALLS 64
/* Frame sizes by powers of two from 128 octets up: the copy makes large frames slower. */
#define NR_TXLAG_BUCKETS 8
/* The lead is the median of a size's last this many lags, so one preempted send moves it
 * not at all. */
#define NR_TXLAG_WINDOW 15
/* No lead is larger: a stall that lasted for a whole window must not pull frames far early. */
#define NR_TXLAG_MAX_LEAD_NS 50000

struct nr_txlag_call {
    int64_t at_ns;
    uint32_t len;
    int matched;
};

struct nr_txlag {
    struct nr_txlag_call calls[NR_TXLAG_CALLS];
    unsigned ncalls, first; /* calls[first] is the oldest unmatched */
    int64_t lags[NR_TXLAG_BUCKETS][NR_TXLAG_WINDOW];
    unsigned nlags[NR_TXLAG_BUCKETS], next_lag[NR_TXLAG_BUCKETS];
    /* Each size's capped median, kept as samples come: frames ask for it more often than
     * stamps arrive. */
    int64_t lead[NR_TXLAG_BUCKETS];
    uint64_t samples;
};

void nr_txlag_init(struct nr_txlag *t);

/* Asks the kernel for software transmit stamps on fd, delivered on its error queue without
 * the frame. Returns 0 or -errno; without stamps the lead stays 0. */
int nr_txlag_enable(int fd);

/* Records one send call made at at_ns (CLOCK_MONOTONIC) whose first frame was len octets. */
void nr_txlag_sent(struct nr_txlag *t, size_t len, int64_t at_ns);

/* One transmit stamp, monotonic: it belongs to the latest call made at or before it; only a
 * call's first stamp counts (a batch's later frames waited for the earlier ones). */
void nr_txlag_stamp(struct nr_txlag *t, int64_t stamp_ns);

/* Reads every stamp waiting on fd's error queue into t; returns how many, or -errno. */
int nr_txlag_collect(struct nr_txlag *t, int fd);

/* How early to hand a frame of len octets to the kernel: the median lag measured for its
 * size, else for the nearest smaller size measured, else 0. */
int64_t nr_txlag_lead(const struct nr_txlag *t, size_t len);

#endif
