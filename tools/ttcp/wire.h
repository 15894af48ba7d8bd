/* ttcp's in-band formats: the UDP datagram header (sequence numbers and end markers) and the
 * receiver's report, which goes back to the transmitter over the same socket so that one
 * record can hold both ends' throughput. All fields are big-endian. */
#ifndef TTCP_WIRE_H
#define TTCP_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define TTCP_MAGIC 0x74746370u /* "ttcp" */
#define TTCP_HDR_LEN 16        /* magic, type, transfer id, sequence */
#define TTCP_END_LEN 32        /* header + datagrams sent + bytes sent */
#define TTCP_REPORT_LEN 48     /* header + bytes, datagrams, ns, rcvbuf in force, requested */

enum ttcp_type { TTCP_DATA = 1, TTCP_END = 2, TTCP_REPORT = 3 };

struct ttcp_msg {
    uint32_t type;
    uint32_t id;  /* transfer number within the invocation */
    uint32_t seq; /* DATA: datagram number from 0 */
    uint64_t count; /* END: datagrams sent; REPORT: datagrams received */
    uint64_t bytes; /* END: bytes sent; REPORT: bytes received */
    uint64_t ns;    /* REPORT: receiver's first-to-last-byte interval */
    uint32_t rcvbuf, rcvbuf_requested; /* REPORT: the receiver's socket */
};

/* Writes the header (DATA) or the whole message (END, REPORT) into buf; returns its length,
 * or 0 when len is too small. */
size_t ttcp_encode(const struct ttcp_msg *m, uint8_t *buf, size_t len);
/* Parses buf; returns the message type, or 0 for anything that is not a valid ttcp message. */
int ttcp_decode(const uint8_t *buf, size_t len, struct ttcp_msg *m);

#endif
