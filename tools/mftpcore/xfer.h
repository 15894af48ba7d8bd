/* One file transfer over 1..16 data connections, in either direction, as nrio callbacks.
 *
 * Sending, each connection that is writable and has nothing left to send takes the next block
 * of the file (dynamic assignment; with blocking_writes one block at a time, as blocking writes
 * give); when the file is handed out it shuts down its write side
 * and waits for the peer to close, so "done" means the peer has everything. Receiving, blocks
 * are written at their offsets whatever connection carried them, and the transfer is complete
 * when every connection has ended at a block boundary and the file has no gap.
 * In stream mode (plain FTP, one connection) the data carries no block headers. */
#ifndef MFTP_XFER_H
#define MFTP_XFER_H

#include <stdint.h>

#include "blocks.h"
#include "nrio.h"

/* Plain FTP's reads and writes of the file and the data connection: SunOS 4.1.3's ftp and ftpd
 * move BUFSIZ*8 octets at a time in binary mode (ucb/ftp/ftp.c, usr.etc/in.ftpd/ftpd.c). */
#define MFTP_STREAM_IO 8192

struct mftp_xfer;
/* Called once, when the transfer completed (ok = 1) or failed (ok = 0, message in error). */
typedef void (*mftp_xfer_done_fn)(void *arg, struct mftp_xfer *x, int ok);

struct mftp_xconn {
    int sock;
    uint8_t *buf;     /* sending: the block being sent, header included */
    size_t len, off;
    struct mftp_rx rx;
    long long bytes;  /* payload octets this connection carried */
    long blocks;
    int shut, eof;
    int stalled; /* receiving: left unread for reorder_max */
    int held;    /* sending, blocking_writes: not watched while another's block is written */
};

struct mftp_xfer {
    nrio *io;
    int sending, framed, n;
    int fd;           /* the file read from, or written to */
    long long size;   /* sending: file size; receiving: expected size, or -1 if unknown */
    long block;
    struct mftp_sched sched;
    struct mftp_ranges have;
    struct mftp_xconn c[MFTP_MAX_CONNS];
    uint8_t *rbuf;
    int64_t t_first, t_last; /* first and last data octet through the sockets */
    int64_t t_done;          /* when every connection had ended */
    long long bytes;         /* payload octets (receiving: distinct ones) */
    long long dup_bytes;     /* receiving: payload octets that arrived twice */
    int active;
    /* Receiving: the window clamp to hold, checked before every burst of reads and set back
     * when it moved, because Linux (6.x) re-derives TCP_WINDOW_CLAMP from the receive buffer
     * whenever it learns a new payload-to-truesize ratio; 0 leaves the window alone. Set it
     * right after mftp_xfer_start. */
    int reclamp;
    int window_max;  /* the largest clamp found at those checks; 0: none was made */
    long reasserts;  /* checks that found the clamp moved and set it back */
    /* Receiving, block mode: the most octets held ahead of the first one missing, as a
     * receiver that hands the file on in order keeps them; a connection whose next octet lies
     * beyond is not read until the gap fills. 0: no bound (blocks written at their offsets).
     * Set it right after mftp_xfer_start. */
    long long reorder_max;
    long stalls;     /* times a connection was left unread for that bound */
    long long held_ahead_max; /* receiving: the most octets held ahead of the first missing */
    /* Sending, block mode: write each block as one blocking write() does, as a program that
     * picks a connection with room (select) and then writes it the whole block: until the
     * block is in, no other connection gets data, even one with room, so a connection that
     * waits on a retransmission holds them all. 0: each connection takes data whenever it has
     * room. Set it right after mftp_xfer_start. */
    int blocking_writes;
    int writing;     /* sending, blocking_writes: the connection inside a block, or -1 */
    long holds;      /* sending: times a connection with room waited for another's block */
    char error[256];
    mftp_xfer_done_fn done;
    void *arg;
};

/* Starts moving data on socks[0..n-1] (connected, owned by the caller, which closes them
 * after done). Returns 0, or -1 with the reason in x->error (done is not called then). */
int mftp_xfer_start(struct mftp_xfer *x, nrio *io, int sending, int framed, const int *socks,
                    int n, int fd, long long size, long block, mftp_xfer_done_fn done, void *arg);
/* Stops watching the sockets and frees the buffers; safe to call more than once. */
void mftp_xfer_cleanup(struct mftp_xfer *x);

#endif
