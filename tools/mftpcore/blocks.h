/* MFTP's block mode: how a file is cut into blocks, how each block is framed on a data
 * connection, and how the receiver rebuilds the file whatever connection each block took.
 *
 * A block on the wire is a 16-octet header (magic, payload length, file offset; big-endian)
 * followed by the payload. Blocks are handed out in file order to whichever connection can
 * take one (dynamic assignment), so they arrive out of order across connections; the receiver
 * writes each at its offset and tracks which ranges it holds. */
#ifndef MFTP_BLOCKS_H
#define MFTP_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

#define MFTP_BLOCK_MAGIC 0x4d465450u /* "MFTP" */
#define MFTP_HDR_LEN 16
#define MFTP_MAX_BLOCK (1L << 24)
#define MFTP_MAX_CONNS 16
#define MFTP_MAX_WINDOW (1L << 29) /* per data connection, as MCON and --window give it */
#define MFTP_MAX_REORDER (1LL << 34) /* the receiver's out-of-order bound, --reorder-max */

void mftp_hdr_encode(uint8_t *p, long long offset, long len);
/* Returns 0, or -1 when the header is not an MFTP block header or its length is out of range. */
int mftp_hdr_decode(const uint8_t *p, long long *offset, long *len);

/* Dynamic assignment: the next block in file order goes to whoever asks first. */
struct mftp_sched {
    long long size, next;
    long block;
};
void mftp_sched_init(struct mftp_sched *s, long long size, long block);
/* Gives the next block; returns 1, or 0 when the file is all handed out. */
int mftp_sched_next(struct mftp_sched *s, long long *offset, long *len);

/* The set of byte ranges received: sorted, disjoint, merged. */
struct mftp_ranges {
    struct mftp_range { long long start, end; } *r;
    int n, cap;
    long long total; /* octets covered */
};
void mftp_ranges_init(struct mftp_ranges *s);
void mftp_ranges_free(struct mftp_ranges *s);
/* Adds [offset, offset+len); returns the number of octets not held before (0 for a duplicate),
 * or -1 when memory ran out. */
long long mftp_ranges_add(struct mftp_ranges *s, long long offset, long long len);
/* 1 when [0, size) is covered exactly (nothing missing, nothing beyond). */
int mftp_ranges_complete(const struct mftp_ranges *s, long long size);
/* The first missing range below size; returns 1 and sets it, or 0 when there is none. */
int mftp_ranges_first_gap(const struct mftp_ranges *s, long long size, long long *off,
                          long long *len);

/* Unframes one connection's byte stream, however recv() splits it. */
typedef int (*mftp_sink_fn)(void *arg, long long offset, const uint8_t *data, long len);
struct mftp_rx {
    uint8_t hdr[MFTP_HDR_LEN];
    int hdr_have;
    long long offset; /* where the next payload octet goes */
    long left;        /* payload octets still to come in the current block */
    long blocks;      /* complete blocks seen */
};
void mftp_rx_init(struct mftp_rx *rx);
/* Feeds n octets; calls sink for every payload piece. Returns 0, -EPROTO for a bad header, or
 * what the sink returned when negative. */
int mftp_rx_feed(struct mftp_rx *rx, const uint8_t *buf, size_t n, mftp_sink_fn sink, void *arg);
/* 1 when the stream may end here: not inside a header or a payload. */
int mftp_rx_at_boundary(const struct mftp_rx *rx);

#endif
