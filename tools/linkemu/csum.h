/* Completes a checksum the sending host left to "hardware": a veth peer with checksum offload
 * hands over frames whose TCP/UDP checksum holds only the pseudo-header sum. Forwarded as they
 * are, the receiving host would drop them. */
#ifndef LINKEMU_CSUM_H
#define LINKEMU_CSUM_H

#include <stddef.h>
#include <stdint.h>

/* Sums frame[start..len) (the seeded checksum field included) and stores the folded complement
 * at frame[start + offset], as skb_checksum_help() does. A zero is stored as 0xffff.
 * Returns 0, or -1 when start/offset lie outside the frame. */
int le_csum_complete(uint8_t *frame, size_t len, size_t start, size_t offset);

/* The Internet checksum (RFC 1071) of data, complemented, in network byte order as stored. */
uint16_t le_inet_csum(const uint8_t *data, size_t len, uint32_t seed);

#endif
