/* A frame's modelled time, carried in a trailer after its IPv4 packet.
 *
 * In emulation, the Tahoe hosts and linkemu each run in real time, and each wakes and sends a
 * little late (a few microseconds; a hundred for the first frame after an idle spell). Virtual
 * time has no such lateness, and where a run's outcome hangs on which of two events comes
 * first (a segment or the receiver's 200 ms tick), a few microseconds per frame, added up over
 * a transfer, change it. So a sender appends the time the model gives its frame (a host: when
 * the frame leaves it; linkemu: when it has reached the far end), and the receiver takes that
 * time instead of the moment the frame reached it. Frames still move in real time, and a
 * frame late by more than the receiver's next event still changes the outcome.
 *
 * The trailer is NR_FRAMETIME_LEN octets: a 4-octet mark, then the time as 64-bit big-endian
 * nanoseconds of CLOCK_MONOTONIC, which every network namespace shares. It lies past the IP
 * packet's total length, where an IP stack takes it for link padding and ignores it, and a
 * receiver looks for it only there, so no packet's own octets are ever taken for one. */
#ifndef NR_FRAMETIME_H
#define NR_FRAMETIME_H

#include <stddef.h>
#include <stdint.h>

#define NR_FRAMETIME_LEN 12
#define NR_FRAMETIME_ETHER_HDR 14

/* Appends a trailer with t_ns to an Ethernet frame of flen octets, whose buffer holds
 * NR_FRAMETIME_LEN more. Returns the new length; a frame that is not IPv4, or is shorter than
 * its IPv4 header says, gets no trailer and keeps flen. */
size_t nr_frametime_put(uint8_t *frame, size_t flen, int64_t t_ns);

/* If the Ethernet frame of flen octets ends in a trailer past its IPv4 packet, stores its time
 * in *t_ns and returns the frame's length without it; otherwise returns flen and leaves *t_ns. */
size_t nr_frametime_take(const uint8_t *frame, size_t flen, int64_t *t_ns);

#endif
