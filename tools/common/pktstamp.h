/* When the kernel received a frame, on the monotonic clock. A packet socket with SO_TIMESTAMPNS
 * has each frame stamped with the real-time clock as it arrives; the stamp leaves out the time
 * the reading thread took to wake up, which an emulator must not add to the frame's delay. */
#ifndef NR_PKTSTAMP_H
#define NR_PKTSTAMP_H

#include <stdint.h>
#include <sys/socket.h>

/* Room for the stamp in a recvmsg control buffer. */
#define NR_PKTSTAMP_CMSG_SPACE CMSG_SPACE(sizeof(struct timespec))

/* CLOCK_REALTIME minus CLOCK_MONOTONIC, read now: what converts a stamp to monotonic time. */
int64_t nr_real_offset_ns(void);

/* The monotonic arrival time in msg's control data, given the monotonic time now and
 * real_offset from nr_real_offset_ns. Without a stamp, or with one from the future or more
 * than a second old (the real-time clock was stepped), it is `now`. */
int64_t nr_pktstamp_arrival_ns(const struct msghdr *msg, int64_t now, int64_t real_offset);

#endif
