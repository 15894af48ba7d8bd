#include "xfer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Sends or receives per callback are bounded so the other connections and timers get turns. */
#define BURST 64
#define RBUF_LEN (1 << 16)

static void xfail(struct mftp_xfer *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->error, sizeof x->error, fmt, ap);
    va_end(ap);
    mftp_xfer_cleanup(x);
    x->done(x->arg, x, 0);
}

static struct mftp_xconn *conn_of(struct mftp_xfer *x, int sock)
{
    for (int i = 0; i < x->n; i++)
        if (x->c[i].sock == sock)
            return &x->c[i];
    return NULL;
}

static int all_ended(const struct mftp_xfer *x)
{
    for (int i = 0; i < x->n; i++)
        if (!x->c[i].eof)
            return 0;
    return 1;
}

static void finish(struct mftp_xfer *x)
{
    x->t_done = nrio_now_ns(x->io);
    if (!x->sending && x->framed) {
        long long want = x->size >= 0 ? x->size : x->have.total;
        long long off, len;
        if (mftp_ranges_first_gap(&x->have, want, &off, &len) ||
            !mftp_ranges_complete(&x->have, want)) {
            if (mftp_ranges_first_gap(&x->have, want, &off, &len))
                xfail(x, "the data connections ended with octets %lld..%lld missing", off,
                      off + len - 1);
            else
                xfail(x, "received data beyond the announced size of %lld octets", want);
            return;
        }
    }
    if (!x->sending && !x->framed && x->size >= 0 && x->bytes != x->size) {
        xfail(x, "the data connection ended after %lld of %lld octets", x->bytes, x->size);
        return;
    }
    mftp_xfer_cleanup(x);
    x->done(x->arg, x, 1);
}

static void on_peer_close(void *arg, int sock, int events)
{
    struct mftp_xfer *x = arg;
    struct mftp_xconn *c = conn_of(x, sock);
    uint8_t scratch[512];
    (void)events;
    if (!c)
        return;
    for (;;) {
        ssize_t n = nrio_recv(x->io, sock, scratch, sizeof scratch);
        if (n == -EAGAIN)
            return;
        /* A reset after our FIN still means the peer is done with the connection. */
        if (n == 0 || n == -ECONNRESET)
            break;
        if (n < 0) {
            xfail(x, "data connection %d failed after sending: %s", (int)(c - x->c),
                  strerror((int)-n));
            return;
        }
    }
    c->eof = 1;
    nrio_watch(x->io, sock, 0, NULL, NULL);
    if (all_ended(x))
        finish(x);
}

/* Loads the connection's next block; returns 1, 0 when the file is all handed out, -1 failed. */
static int next_block(struct mftp_xfer *x, struct mftp_xconn *c)
{
    long long off;
    long len;
    if (!mftp_sched_next(&x->sched, &off, &len))
        return 0;
    size_t hdr = x->framed ? MFTP_HDR_LEN : 0;
    if (x->framed)
        mftp_hdr_encode(c->buf, off, len);
    for (long got = 0; got < len;) {
        ssize_t r = nrio_file_read(x->io, x->fd, c->buf + hdr + got, (size_t)(len - got),
                                   off + got);
        if (r == -EINTR)
            continue;
        if (r <= 0) {
            xfail(x, "reading the file at offset %lld failed: %s", off + got,
                  r < 0 ? strerror((int)-r)
                        : "the file is shorter than when the transfer began");
            return -1;
        }
        got += r;
    }
    c->len = hdr + (size_t)len;
    c->off = 0;
    c->blocks++;
    c->bytes += len;
    x->bytes += len;
    return 1;
}

static void on_writable(void *arg, int sock, int events)
{
    struct mftp_xfer *x = arg;
    struct mftp_xconn *c = conn_of(x, sock);
    (void)events;
    if (!c)
        return;
    int idx = (int)(c - x->c);
    if (x->blocking_writes && x->writing >= 0 && x->writing != idx) {
        int rc = nrio_watch(x->io, sock, 0, NULL, NULL);
        if (rc < 0) {
            xfail(x, "holding data connection %d failed: %s", idx, strerror(-rc));
            return;
        }
        c->held = 1;
        x->holds++;
        return;
    }
    for (int burst = 0; burst < BURST; burst++) {
        if (c->off == c->len) {
            int rc = next_block(x, c);
            if (rc < 0)
                return;
            if (rc == 1 && x->blocking_writes)
                x->writing = idx;
            if (rc == 0) {
                int s = nrio_shutdown_write(x->io, sock);
                if (s == 0)
                    s = nrio_watch(x->io, sock, NRIO_IN, on_peer_close, x);
                if (s < 0)
                    xfail(x, "ending data connection %d failed: %s", (int)(c - x->c),
                          strerror(-s));
                c->shut = 1;
                return;
            }
        }
        if (x->t_first == 0)
            x->t_first = nrio_now_ns(x->io);
        ssize_t n = nrio_send(x->io, sock, c->buf + c->off, c->len - c->off);
        if (n == -EAGAIN)
            return;
        if (n < 0) {
            xfail(x, "sending on data connection %d failed: %s; did the peer go away?",
                  (int)(c - x->c), strerror((int)-n));
            return;
        }
        x->t_last = nrio_now_ns(x->io);
        c->off += (size_t)n;
        if (x->blocking_writes && c->off == c->len) {
            /* The write returns: the program looks for a connection with room again. */
            x->writing = -1;
            for (int i = 0; i < x->n; i++) {
                if (!x->c[i].held)
                    continue;
                x->c[i].held = 0;
                int rc = nrio_watch(x->io, x->c[i].sock, NRIO_OUT, on_writable, x);
                if (rc < 0) {
                    xfail(x, "watching data connection %d again failed: %s", i, strerror(-rc));
                    return;
                }
            }
            return;
        }
    }
}

/* The first octet the receiver does not hold: what it has handed on in order. */
static long long in_order(const struct mftp_xfer *x)
{
    return x->have.n > 0 && x->have.r[0].start == 0 ? x->have.r[0].end : 0;
}

struct sink_ctx {
    struct mftp_xfer *x;
    struct mftp_xconn *c;
};

static int sink(void *arg, long long offset, const uint8_t *data, long len)
{
    struct sink_ctx *s = arg;
    struct mftp_xfer *x = s->x;
    if (x->size >= 0 && offset + len > x->size) {
        snprintf(x->error, sizeof x->error,
                 "a block at offset %lld runs past the announced size of %lld octets", offset,
                 x->size);
        return -ERANGE;
    }
    for (long done = 0; done < len;) {
        ssize_t w = nrio_file_write(x->io, x->fd, data + done, (size_t)(len - done),
                                    offset + done);
        if (w == -EINTR)
            continue;
        if (w < 0) {
            snprintf(x->error, sizeof x->error, "writing the file at offset %lld failed: %s",
                     offset + done, strerror((int)-w));
            return -EIO;
        }
        done += w;
    }
    long long added = mftp_ranges_add(&x->have, offset, len);
    if (added < 0) {
        snprintf(x->error, sizeof x->error, "out of memory tracking received ranges");
        return -ENOMEM;
    }
    x->bytes += added;
    x->dup_bytes += len - added;
    long long ahead = x->have.total - in_order(x);
    if (ahead > x->held_ahead_max)
        x->held_ahead_max = ahead;
    s->c->bytes += len;
    return 0;
}

/* Sets the window clamp back to x->reclamp if the stack moved it, noting what it had become.
 * Returns 0, or -1 after failing the transfer. */
static int hold_window(struct mftp_xfer *x, struct mftp_xconn *c)
{
    struct nrio_sockopts now;
    int rc = nrio_getopts(x->io, c->sock, &now);
    if (rc < 0) {
        xfail(x, "reading the window of data connection %d failed: %s", (int)(c - x->c),
              strerror(-rc));
        return -1;
    }
    if (now.window_clamp > x->window_max)
        x->window_max = now.window_clamp;
    if (now.window_clamp == x->reclamp)
        return 0;
    struct nrio_sockopts o = {.window_clamp = x->reclamp};
    rc = nrio_setopts(x->io, c->sock, &o);
    if (rc == -EOPNOTSUPP)
        return 0; /* this stack cannot set it back; window_max still shows where it went */
    if (rc < 0) {
        xfail(x, "re-asserting the window on data connection %d failed: %s", (int)(c - x->c),
              strerror(-rc));
        return -1;
    }
    x->reasserts++;
    return 0;
}

/* How much connection c may read now under reorder_max: a block's header whole, so that its
 * offset is known, then payload up to the bound; 0 when its next octet lies beyond it. */
static size_t read_allowance(const struct mftp_xfer *x, const struct mftp_xconn *c)
{
    size_t want = x->framed ? RBUF_LEN : MFTP_STREAM_IO;
    if (!x->framed || x->reorder_max <= 0)
        return want;
    if (c->rx.left == 0)
        return (size_t)(MFTP_HDR_LEN - c->rx.hdr_have);
    long long room = in_order(x) + x->reorder_max - c->rx.offset;
    if (room <= 0)
        return 0;
    if (room > c->rx.left)
        room = c->rx.left;
    return room < (long long)want ? (size_t)room : want;
}

static void on_readable(void *arg, int sock, int events);

/* Reads again from the connections the bound left unread, now that the gap may have moved. */
static int resume_stalled(struct mftp_xfer *x)
{
    for (int i = 0; i < x->n; i++) {
        struct mftp_xconn *c = &x->c[i];
        if (!c->stalled || read_allowance(x, c) == 0)
            continue;
        c->stalled = 0;
        int rc = nrio_watch(x->io, c->sock, NRIO_IN, on_readable, x);
        if (rc < 0) {
            xfail(x, "watching data connection %d again failed: %s", i, strerror(-rc));
            return -1;
        }
    }
    return 0;
}

static void on_readable(void *arg, int sock, int events)
{
    struct mftp_xfer *x = arg;
    struct mftp_xconn *c = conn_of(x, sock);
    (void)events;
    if (!c)
        return;
    if (x->reclamp > 0 && hold_window(x, c) < 0)
        return;
    for (int burst = 0; burst < BURST; burst++) {
        size_t allowed = read_allowance(x, c);
        if (allowed == 0) {
            /* The data waits in the socket, whose window closes behind it, as it did when the
             * receiving program held out-of-order blocks no longer. */
            int rc = nrio_watch(x->io, sock, 0, NULL, NULL);
            if (rc < 0) {
                xfail(x, "pausing data connection %d failed: %s", (int)(c - x->c),
                      strerror(-rc));
                return;
            }
            c->stalled = 1;
            x->stalls++;
            return;
        }
        ssize_t n = nrio_recv(x->io, sock, x->rbuf, allowed);
        if (n == -EAGAIN)
            return;
        if (n < 0) {
            xfail(x, "receiving on data connection %d failed: %s", (int)(c - x->c),
                  strerror((int)-n));
            return;
        }
        if (n == 0) {
            if (x->framed && !mftp_rx_at_boundary(&c->rx)) {
                xfail(x, "data connection %d ended inside a block", (int)(c - x->c));
                return;
            }
            c->eof = 1;
            nrio_watch(x->io, sock, 0, NULL, NULL);
            if (all_ended(x))
                finish(x);
            return;
        }
        int64_t now = nrio_now_ns(x->io);
        if (x->t_first == 0)
            x->t_first = now;
        x->t_last = now;
        if (x->framed) {
            long before = c->rx.blocks;
            struct sink_ctx s = {x, c};
            int rc = mftp_rx_feed(&c->rx, x->rbuf, (size_t)n, sink, &s);
            if (rc == -EPROTO) {
                xfail(x, "data connection %d carried a malformed block header; is the peer "
                      "an MFTP of this version?", (int)(c - x->c));
                return;
            }
            if (rc < 0) {
                char msg[sizeof x->error];
                memcpy(msg, x->error, sizeof msg);
                xfail(x, "%s", msg);
                return;
            }
            c->blocks += c->rx.blocks - before;
            if (x->reorder_max > 0 && resume_stalled(x) < 0)
                return;
        } else {
            struct sink_ctx s = {x, c};
            long long at = c->bytes;
            if (sink(&s, at, x->rbuf, (long)n) < 0) {
                char msg[sizeof x->error];
                memcpy(msg, x->error, sizeof msg);
                xfail(x, "%s", msg);
                return;
            }
        }
    }
}

int mftp_xfer_start(struct mftp_xfer *x, nrio *io, int sending, int framed, const int *socks,
                    int n, int fd, long long size, long block, mftp_xfer_done_fn done, void *arg)
{
    memset(x, 0, sizeof *x);
    x->io = io;
    x->sending = sending;
    x->framed = framed;
    x->n = n;
    x->fd = fd;
    x->size = size;
    x->block = block;
    x->done = done;
    x->arg = arg;
    x->active = 1;
    x->writing = -1;
    mftp_ranges_init(&x->have);
    if (n < 1 || n > MFTP_MAX_CONNS || (!framed && n != 1) || block < 1 ||
        block > MFTP_MAX_BLOCK || (sending && size < 0)) {
        snprintf(x->error, sizeof x->error, "bad transfer parameters (%d connections, block %ld)",
                 n, block);
        x->active = 0;
        return -1;
    }
    mftp_sched_init(&x->sched, size, block);
    if (!sending && !(x->rbuf = malloc(RBUF_LEN)))
        goto oom;
    for (int i = 0; i < n; i++) {
        struct mftp_xconn *c = &x->c[i];
        c->sock = socks[i];
        mftp_rx_init(&c->rx);
        if (sending && !(c->buf = malloc(MFTP_HDR_LEN + (size_t)block)))
            goto oom;
    }
    for (int i = 0; i < n; i++) {
        int rc = nrio_watch(io, socks[i], sending ? NRIO_OUT : NRIO_IN,
                            sending ? on_writable : on_readable, x);
        if (rc < 0) {
            snprintf(x->error, sizeof x->error, "watching data connection %d failed: %s", i,
                     strerror(-rc));
            mftp_xfer_cleanup(x);
            return -1;
        }
    }
    return 0;
oom:
    snprintf(x->error, sizeof x->error, "out of memory for %d buffers of %ld octets", n, block);
    mftp_xfer_cleanup(x);
    return -1;
}

void mftp_xfer_cleanup(struct mftp_xfer *x)
{
    if (!x->active)
        return;
    x->active = 0;
    for (int i = 0; i < x->n; i++) {
        if (x->c[i].sock >= 0)
            nrio_watch(x->io, x->c[i].sock, 0, NULL, NULL);
        free(x->c[i].buf);
        x->c[i].buf = NULL;
    }
    free(x->rbuf);
    x->rbuf = NULL;
    mftp_ranges_free(&x->have);
}
