/* RTT by ICMP echo, as ishikura's parameter collection did. It needs a raw socket, which
 * nrio does not offer, so it works only on the kernel stack and runs before the event loop,
 * waiting at most timeout_ns per probe. On other stacks (Tahoe, netsim) --rtt-method auto
 * measures the TCP connect time instead and --rtt-method icmp is refused; on the kernel stack
 * without CAP_NET_RAW, auto falls back to the TCP connect time too. */
#ifndef MFTP_RTT_ICMP_H
#define MFTP_RTT_ICMP_H

#include <stdint.h>

#include "nrio.h"

/* The smallest of samples echo round trips to ip (network order), timed with io's clock.
 * Returns 0, -EPERM (or another errno) when no raw socket can be had, or -ETIMEDOUT when no
 * reply came. */
int mftp_icmp_rtt(nrio *io, uint32_t ip_be, int samples, int64_t timeout_ns, int64_t *rtt_ns);

#endif
