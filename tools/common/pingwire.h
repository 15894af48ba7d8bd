/* The extended ping's framing, shared by pingx and echod. It lives inside the message's own
 * octets, so a message of N octets puts exactly N octets on the wire, as the papers' size-exact
 * TCP anomalies (12K-1 against 12K) require.
 *
 * TCP: a message begins with an 8-octet header
 *     'P' 'X' flags seq8 length(4, big-endian, the whole message including the header)
 * flags bit 0 asks the server for TCP_NODELAY on this connection; other bits must be 0.
 * seq8 is the message's sequence number modulo 256, a check that the echo is the right one.
 *
 * UDP: a message of N octets is cut into ceil(N / D) datagrams of D octets (the last one
 * shorter), each starting with an 8-octet header
 *     message-id(4) index(2) count(2), all big-endian.
 * A last piece shorter than the header takes the octets it lacks from the piece before it, so
 * the count stays ceil(N / D) and every datagram can carry its header; hence D >= 16. */
#ifndef PINGWIRE_H
#define PINGWIRE_H

#include <stddef.h>
#include <stdint.h>

#define PW_HDR_LEN 8
#define PW_MIN_MESSAGE PW_HDR_LEN
#define PW_MIN_DGRAM (2 * PW_HDR_LEN)
#define PW_MAX_DGRAM 65507 /* 65535 less the IPv4 and UDP headers */
#define PW_MAX_COUNT 65535
#define PW_FLAG_NODELAY 0x01

struct pw_tcp_hdr {
    uint8_t flags;
    uint8_t seq8;
    uint32_t length;
};

struct pw_udp_hdr {
    uint32_t msg_id;
    uint16_t index;
    uint16_t count;
};

void pw_tcp_encode(uint8_t *buf, const struct pw_tcp_hdr *h);
/* Returns 0, or -EPROTO when the magic or flags are wrong, -EINVAL when length < 8. */
int pw_tcp_decode(const uint8_t *buf, struct pw_tcp_hdr *h);

void pw_udp_encode(uint8_t *buf, const struct pw_udp_hdr *h);
/* Decodes a received datagram of len octets. Returns 0, or -EINVAL when it is shorter than the
 * header, its count is 0 or its index is not below its count. */
int pw_udp_decode(const uint8_t *buf, size_t len, struct pw_udp_hdr *h);

/* Number of datagrams for a message: ceil(size / dgram). Returns it, or -EINVAL when size is
 * below PW_MIN_MESSAGE or dgram outside PW_MIN_DGRAM..PW_MAX_DGRAM, -ERANGE above PW_MAX_COUNT. */
long pw_udp_count(long size, long dgram);
/* Offset and length of datagram index of a message (size, dgram valid for pw_udp_count). */
void pw_udp_slice(long size, long dgram, long index, long *off, long *len);

/* Fills a message body with a pattern that depends on salt, so a misdirected echo shows. */
void pw_fill(uint8_t *buf, size_t len, uint32_t salt);

#endif
