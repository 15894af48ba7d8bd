#include "fwd.h"

#include <errno.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "csum.h"
#include "frametime.h"
#include "gso.h"
#include "pktstamp.h"
#include "pq.h"
#include "shared.h"
#include "stats.h"
#include "txlag.h"

#define BATCH 64
#define VNET_HDR ((uint32_t)sizeof(struct virtio_net_hdr))
#define IDLE_WAIT_NS 100000000LL /* how often an idle thread looks at the stop flag */
#define POOL_MAX_BYTES (1ULL << 30)
#define LOAD_WINDOW_NS 20000000LL /* how often a thread weighs its load to pick its priority */
/* Room past each receive buffer for the rest of a GSO frame (the kernel's 64 KB limit and its
 * headers), so that one arrives whole instead of truncated. */
#define SPILL (65536 + 256)

/* Free frame buffers, reused so that forwarding does not call malloc per frame. */
struct pool {
    struct le_pkt **free;
    size_t nfree, allocated, max;
    size_t buf;
};

static struct le_pkt *pool_get(struct pool *p)
{
    if (p->nfree)
        return p->free[--p->nfree];
    if (p->allocated >= p->max)
        return NULL;
    struct le_pkt **grown = realloc(p->free, (p->allocated + 1) * sizeof *grown);
    struct le_pkt *pkt = malloc(sizeof *pkt + p->buf);
    if (!grown || !pkt) {
        free(pkt);
        if (grown)
            p->free = grown;
        return NULL;
    }
    p->free = grown;
    p->allocated++;
    return pkt;
}

static void pool_put(struct pool *p, struct le_pkt *pkt)
{
    p->free[p->nfree++] = pkt; /* free has room for every buffer ever allocated */
}

static void pool_free(struct pool *p)
{
    for (size_t i = 0; i < p->nfree; i++)
        free(p->free[i]);
    free(p->free);
}

struct dir {
    const char *name;
    const char *rx_if, *tx_if;
    int rx_fd, tx_fd;
    int64_t spin_ns;
    struct le_dir model;
    struct le_fwd_counters fwd;
    struct le_pq queue;
    struct pool pool;
    struct le_pkt *rx[BATCH];
    uint8_t *spill;   /* BATCH areas of SPILL octets, one after each receive buffer */
    uint8_t *gso_buf; /* a GSO frame put back together, to be split */
    uint64_t seq;
    int64_t last_sent_ns;
    int frame_times;
    struct nr_txlag txlag;
    int warned_gso;
    struct le_shared *shared; /* --medium shared: frames take turns on it before the queue */
    int station;              /* this direction's sender on it: 0 host a, 1 host b */
    atomic_int *stop;
    atomic_int *failed;
};

/* One forwarding thread: one direction on a duplex link, both on a shared medium, whose
 * events and both directions' frames then run on one clock in one loop. */
struct worker {
    struct dir *dirs[2];
    int ndirs;
    struct le_shared *shared;
    int priority;
    int realtime;
    /* Held while the thread forwards, not while it waits: a snapshot of the counters takes it. */
    pthread_mutex_t lock;
    pthread_t thread;
};

static void fail(struct dir *d, const char *what, FILE *err)
{
    fprintf(err, "linkemu: %s direction (%s -> %s): %s: %s\n", d->name, d->rx_if, d->tx_if, what,
            strerror(errno));
    atomic_store(d->failed, 1);
}

/* When to hand pkt to the kernel: early by the lag measured for its size, so that it reaches
 * the far interface at its release time. */
static int64_t handover_at(const struct dir *d, const struct le_pkt *pkt)
{
    return pkt->release_ns - nr_txlag_lead(&d->txlag, pkt->len - VNET_HDR);
}

/* Sends every frame whose time has come, in batches. */
static int send_due(struct dir *d, int64_t now)
{
    struct mmsghdr msgs[BATCH];
    struct iovec iov[BATCH];
    struct le_pkt *batch[BATCH];
    for (;;) {
        int n = 0;
        struct le_pkt *top;
        while (n < BATCH && (top = le_pq_top(&d->queue)) && handover_at(d, top) <= now) {
            batch[n] = le_pq_pop(&d->queue);
            iov[n] = (struct iovec){batch[n]->data + VNET_HDR, batch[n]->len - VNET_HDR};
            msgs[n] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[n], .msg_iovlen = 1}};
            n++;
        }
        if (n == 0)
            return 0;
        int64_t sent_at = nr_mono_ns();
        d->last_sent_ns = sent_at;
        int done = 0;
        while (done < n) {
            int r = sendmmsg(d->tx_fd, msgs + done, (unsigned)(n - done), 0);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0) {
                /* A frame the interface refuses (e.g. ENOBUFS) is lost and counted, not fatal. */
                if (errno != ENOBUFS && errno != EMSGSIZE && errno != ENETDOWN && errno != ENXIO) {
                    fail(d, "sendmmsg failed", stderr);
                    return -1;
                }
                d->fwd.send_errors++;
                done++;
                continue;
            }
            /* Only the first call's time is known well enough to measure its frame's lag. */
            if (done == 0)
                nr_txlag_sent(&d->txlag, batch[0]->len - VNET_HDR, sent_at);
            for (int i = done; i < done + r; i++) {
                le_sent(&d->model, batch[i]->len - VNET_HDR - batch[i]->trailer);
                int64_t late_ns = sent_at - handover_at(d, batch[i]);
                uint64_t late = late_ns > 0 ? (uint64_t)late_ns : 0;
                d->fwd.late_sum_ns += late;
                if (late > d->fwd.late_max_ns)
                    d->fwd.late_max_ns = late;
            }
            done += r;
        }
        for (int i = 0; i < n; i++)
            pool_put(&d->pool, batch[i]);
        int rc = nr_txlag_collect(&d->txlag, d->tx_fd);
        if (rc < 0) {
            errno = -rc;
            fail(d, "reading transmit stamps failed", stderr);
            return -1;
        }
    }
}

/* Queues a frame for release at `release`, in buffer pkt; returns -1 if the queue is full.
 * A frame that came with a frame-time trailer leaves with one that states its release time. */
static int enqueue(struct dir *d, struct le_pkt *pkt, uint32_t got, int64_t release, int timed)
{
    pkt->release_ns = release;
    pkt->seq = d->seq++;
    pkt->len = got;
    pkt->trailer = 0;
    if (timed) {
        pkt->len = VNET_HDR + (uint32_t)nr_frametime_put(pkt->data + VNET_HDR, got - VNET_HDR, release);
        pkt->trailer = pkt->len - got;
    }
    return le_pq_push(&d->queue, pkt);
}

/* Duplex: the frame joins the queue to leave at release. Shared: it joins its host's interface
 * queue for the wire, and the queue to leave with its outcome (medium_done). Returns 0, -1 when
 * out of memory, 1 when the interface queue is full (the medium counts it). */
static int place(struct dir *d, struct le_pkt *pkt, uint32_t got, int64_t now, int64_t release, int timed)
{
    if (!d->shared)
        return enqueue(d, pkt, got, release, timed) < 0 ? -1 : 0;
    pkt->len = got;
    pkt->timed = timed;
    return le_shared_offer(d->shared, d->station, &d->model.count, now, got - VNET_HDR, pkt) == LE_PASS ? 0 : 1;
}

/* The model's verdict on a frame of frame_octets: on a duplex link the line's schedule gives
 * its release; on a shared medium its release comes with its turn on the wire. */
static enum le_verdict admit(struct dir *d, int64_t now, uint32_t frame_octets, int64_t *release)
{
    *release = 0;
    if (d->shared)
        return le_shared_admit(d->shared, &d->model.count, frame_octets);
    return le_admit(&d->model, now, frame_octets, release);
}

/* A frame that ends in a frame-time trailer is admitted at the time its sender states, not at
 * the time it reached us; the trailer is cut off and *timed set. Returns the admission time. */
static int64_t admission_time(struct dir *d, struct le_pkt *pkt, uint32_t *got, int64_t arrived,
                              int *timed)
{
    int64_t stated;
    size_t frame = *got - VNET_HDR;
    size_t plain = nr_frametime_take(pkt->data + VNET_HDR, frame, &stated);
    if (plain == frame)
        return arrived;
    *got = VNET_HDR + (uint32_t)plain;
    *timed = 1;
    int64_t late = arrived - stated;
    d->fwd.timed_frames++;
    d->fwd.timed_late_sum_ns += late;
    if (late > d->fwd.timed_late_max_ns)
        d->fwd.timed_late_max_ns = late;
    return stated;
}

static void warn_gso(struct dir *d, uint32_t frame, const char *why)
{
    if (d->warned_gso)
        return;
    fprintf(stderr, "linkemu: %s delivers a TSO/GSO frame of %u octets that %s; such frames are "
                    "dropped as oversize. Turn segmentation offload off on the hosts' interfaces "
                    "(ethtool -K IF tso off gso off)\n", d->rx_if, frame, why);
    d->warned_gso = 1;
}

/* A frame the sender's segmentation offload left whole (received in pkt and, past the buffer,
 * in spill) goes on as the frames a NIC would have sent, each through the model on its own. */
static void take_gso(struct dir *d, const struct le_pkt *pkt, const uint8_t *spill, uint32_t frame, int64_t now)
{
    const struct virtio_net_hdr *vh = (const struct virtio_net_hdr *)pkt->data;
    size_t head = d->pool.buf - VNET_HDR;
    memcpy(d->gso_buf, pkt->data + VNET_HDR, frame < head ? frame : head);
    if (frame > head)
        memcpy(d->gso_buf + head, spill, frame - head);
    struct le_gso g;
    if (le_gso_parse(d->gso_buf, frame, vh->gso_type, vh->gso_size, vh->csum_start, &g) < 0) {
        warn_gso(d, frame, "linkemu cannot split (not TCP or UDP over IPv4 or plain IPv6)");
        d->model.count.rx_packets++;
        d->model.count.rx_bytes += frame;
        d->model.count.drop_oversize++;
        return;
    }
    d->fwd.gso_frames++;
    for (uint32_t i = 0; i < g.segments; i++) {
        uint32_t len = le_gso_segment_len(&g, i);
        int64_t release;
        if (admit(d, now, len, &release) != LE_PASS)
            continue;
        /* A segment that passed fits the MTU, so it fits a pool buffer. */
        struct le_pkt *seg = pool_get(&d->pool);
        if (!seg) {
            d->model.count.drop_nomem++;
            continue;
        }
        le_gso_segment(d->gso_buf, &g, i, seg->data + VNET_HDR);
        int placed = place(d, seg, VNET_HDR + len, now, release, 0);
        if (placed != 0) {
            pool_put(&d->pool, seg);
            if (placed < 0)
                d->model.count.drop_nomem++;
        }
    }
}

/* Hands the frame received into *slot (and spill, past the buffer) to the model. A frame that
 * passes is queued and *slot gets a fresh buffer; otherwise the buffer is reused as it is. */
static void take_frame(struct dir *d, struct le_pkt **slot, const uint8_t *spill, uint32_t got, int truncated,
                       int64_t now)
{
    struct le_pkt *pkt = *slot;
    const struct virtio_net_hdr *vh = (const struct virtio_net_hdr *)pkt->data;
    uint32_t frame = got > VNET_HDR ? got - VNET_HDR : 0;
    if (vh->gso_type != VIRTIO_NET_HDR_GSO_NONE) {
        if (!truncated) {
            take_gso(d, pkt, spill, frame, now);
            return;
        }
        warn_gso(d, frame, "exceeds linkemu's receive buffer");
    }
    int timed = 0;
    /* A frame longer than its buffer is oversize, and its end (where a trailer lies) is not
     * in the buffer. */
    if (d->frame_times && got > VNET_HDR && got <= d->pool.buf) {
        int64_t arrived = now;
        now = admission_time(d, pkt, &got, now, &timed);
        if (timed && d->shared)
            now = le_shared_timed_ns(d->shared, now, arrived);
        frame = got - VNET_HDR;
    }
    int64_t release;
    if (admit(d, now, frame, &release) != LE_PASS)
        return;
    if (truncated) {
        /* Only frames larger than the MTU can be truncated, and those never pass. */
        d->model.count.drop_oversize++;
        return;
    }
    /* A frame that passed fits the MTU, so none of it lies in spill. */
    if ((vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
        le_csum_complete(pkt->data + VNET_HDR, frame, vh->csum_start, vh->csum_offset) < 0) {
        d->fwd.send_errors++;
        return;
    }
    /* The frame keeps its buffer only if another can take its place in the receive batch. */
    struct le_pkt *spare = pool_get(&d->pool);
    int placed = spare ? place(d, pkt, got, now, release, timed) : -1;
    if (placed != 0) {
        if (spare)
            pool_put(&d->pool, spare);
        if (placed < 0)
            d->model.count.drop_nomem++;
        return;
    }
    *slot = spare;
}

/* Reads what the socket holds, a bounded number of batches. Returns frames read, or -1. */
static int receive(struct dir *d)
{
    struct mmsghdr msgs[BATCH];
    struct iovec iov[BATCH][2];
    int total = 0;
    union {
        char buf[NR_PKTSTAMP_CMSG_SPACE];
        struct cmsghdr align;
    } ctl[BATCH];
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < BATCH; i++) {
            iov[i][0] = (struct iovec){d->rx[i]->data, d->pool.buf};
            iov[i][1] = (struct iovec){d->spill + (size_t)i * SPILL, SPILL};
            msgs[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = iov[i], .msg_iovlen = 2,
                                                   .msg_control = ctl[i].buf,
                                                   .msg_controllen = sizeof ctl[i].buf}};
        }
        int n = recvmmsg(d->rx_fd, msgs, BATCH, MSG_DONTWAIT | MSG_TRUNC, NULL);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                return total;
            fail(d, "recvmmsg failed", stderr);
            return -1;
        }
        int64_t real_offset = nr_real_offset_ns();
        int64_t now = nr_mono_ns();
        for (int i = 0; i < n; i++) {
            int truncated = (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) != 0;
            take_frame(d, &d->rx[i], d->spill + (size_t)i * SPILL, msgs[i].msg_len, truncated,
                       nr_pktstamp_arrival_ns(&msgs[i].msg_hdr, now, real_offset));
        }
        total += n;
        if (n < BATCH)
            break;
    }
    return total;
}

/* SCHED_FIFO lets a due frame preempt other work on a busy machine. */
static int set_realtime(struct worker *w, int on)
{
    struct sched_param sp = {.sched_priority = on ? w->priority : 0};
    int rc = pthread_setschedparam(pthread_self(), on ? SCHED_FIFO : SCHED_OTHER, &sp);
    if (rc != 0) {
        errno = rc;
        fail(w->dirs[0], "cannot change the scheduling policy (run as root, or give --priority 0)", stderr);
        return -1;
    }
    w->realtime = on;
    for (int i = 0; on && i < w->ndirs; i++)
        w->dirs[i]->fwd.realtime_switches++;
    return 0;
}

/* How early the medium runs the end of a frame: the send lag of a full-size frame, the most
 * any frame is handed over early. */
static int64_t medium_ahead(const struct worker *w)
{
    int64_t ahead = 0;
    for (int i = 0; i < w->ndirs; i++) {
        const struct dir *d = w->dirs[i];
        int64_t lead = nr_txlag_lead(&d->txlag, LE_ETH_HEADER + d->model.mtu);
        if (lead > ahead)
            ahead = lead;
    }
    return ahead;
}

/* A frame's turn on the shared medium ended: delivered, it waits to leave towards the other
 * host when it arrives there; given up after 16 collisions, it is gone, as on the wire. */
static void medium_done(void *ctx, const struct le_outcome *o)
{
    struct worker *w = ctx;
    struct dir *d = w->dirs[o->station];
    struct le_pkt *pkt = o->pkt;
    if (o->kind == LE_EXCESSIVE) {
        pool_put(&d->pool, pkt);
        return;
    }
    if (enqueue(d, pkt, pkt->len, o->arrive_ns, pkt->timed) < 0) {
        pool_put(&d->pool, pkt);
        d->model.count.drop_nomem++;
    }
}

/* One round: sends what is due, reads what arrived, runs the medium's due events. Returns the
 * frames read, or -1; *due is when the next frame or medium event is due (INT64_MAX: none) and
 * *last_sent when the thread last sent. */
static int forward_once(struct worker *w, int64_t now, int64_t *due, int64_t *last_sent)
{
    int got = 0;
    for (int i = 0; i < w->ndirs; i++)
        if (send_due(w->dirs[i], now) < 0)
            return -1;
    for (int i = 0; i < w->ndirs; i++) {
        int n = receive(w->dirs[i]);
        if (n < 0)
            return -1;
        got += n;
    }
    int64_t ahead = w->shared ? medium_ahead(w) : 0;
    if (w->shared)
        le_shared_run(w->shared, nr_mono_ns(), ahead, medium_done, w);
    *due = w->shared ? le_shared_due_ns(w->shared, ahead) : INT64_MAX;
    *last_sent = INT64_MIN;
    for (int i = 0; i < w->ndirs; i++) {
        struct dir *d = w->dirs[i];
        struct le_pkt *top = le_pq_top(&d->queue);
        if (top && handover_at(d, top) < *due)
            *due = handover_at(d, top);
        if (d->last_sent_ns > *last_sent)
            *last_sent = d->last_sent_ns;
    }
    return got;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct dir *first = w->dirs[0];
    /* Without this the kernel may defer a wake-up by 50 us to batch timers. */
    if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) < 0)
        fprintf(stderr, "linkemu: cannot set timer slack (%s); delays may be late by ~50 us\n",
                strerror(errno));
    if (set_realtime(w, w->priority > 0) < 0)
        return NULL;
    struct pollfd pfd[2];
    for (int i = 0; i < w->ndirs; i++)
        pfd[i] = (struct pollfd){.fd = w->dirs[i]->rx_fd, .events = POLLIN};
    int64_t window_start = nr_mono_ns(), slept = 0;
    while (!atomic_load(first->stop) && !atomic_load(first->failed)) {
        int64_t now = nr_mono_ns();
        if (w->priority > 0 && now - window_start >= LOAD_WINDOW_NS) {
            /* Real time only while mostly idle: a busy forwarder keeps exact times in its
             * schedule anyway, and at real-time priority it would starve the hosts. */
            int64_t idle_pct = 100 * slept / (now - window_start);
            if ((w->realtime && idle_pct < 50) || (!w->realtime && idle_pct > 75))
                if (set_realtime(w, !w->realtime) < 0)
                    return NULL;
            window_start = now;
            slept = 0;
        }
        int64_t due, last_sent;
        pthread_mutex_lock(&w->lock);
        int got = forward_once(w, now, &due, &last_sent);
        pthread_mutex_unlock(&w->lock);
        if (got < 0)
            return NULL;
        if (got > 0)
            continue;
        int64_t wait = due != INT64_MAX ? due - now : IDLE_WAIT_NS;
        if (wait > IDLE_WAIT_NS)
            wait = IDLE_WAIT_NS;
        int64_t spin = due != INT64_MAX && due - last_sent >= 4 * first->spin_ns ? first->spin_ns : 0;
        if (wait > spin) {
            int64_t sleep = wait - spin;
            struct timespec ts = {sleep / 1000000000LL, sleep % 1000000000LL};
            int64_t before = nr_mono_ns();
            if (ppoll(pfd, (nfds_t)w->ndirs, &ts, NULL) < 0 && errno != EINTR) {
                fail(first, "ppoll failed", stderr);
                return NULL;
            }
            slept += nr_mono_ns() - before;
        } else if (wait > 0) {
            /* A sleep overshoots by tens of microseconds, so the last stretch is spun. Only
             * when the previous send is at least four spins back: the thread then spins at
             * most a quarter of the time and leaves the hosts their CPU on a loaded link,
             * where release times stay exact in the schedule anyway. */
            while (nr_mono_ns() < due)
                ;
        }
    }
    return NULL;
}

static int open_socket(const char *ifname, int rx, uint32_t sock_buf, FILE *err)
{
    unsigned idx = if_nametoindex(ifname);
    if (idx == 0) {
        fprintf(err, "linkemu: no interface '%s' here (%s); check the name and that linkemu runs in "
                     "the middle node's network namespace\n", ifname, strerror(errno));
        return -1;
    }
    /* Protocol 0 receives nothing until bind sets the protocol, so no other interface's frames
     * slip in; a send-only socket keeps protocol 0 and never queues frames. */
    int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fprintf(err, "linkemu: cannot open a packet socket (%s); run as root or with CAP_NET_RAW\n",
                strerror(errno));
        return -1;
    }
    int one = 1;
    int size = (int)sock_buf;
    struct {
        int level, name;
        const void *value;
        socklen_t len;
        const char *what;
    } opts[] = {
        /* The virtio header says when the sender left a checksum to offload, so we can finish it. */
        {SOL_PACKET, PACKET_VNET_HDR, &one, sizeof one, "PACKET_VNET_HDR"},
        /* Frames we send must not come back to our own receive socket. */
        {SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one, "PACKET_IGNORE_OUTGOING"},
        {SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size, "SO_RCVBUFFORCE"},
        {SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one, "SO_TIMESTAMPNS"},
    };
    size_t nopts = rx ? sizeof opts / sizeof opts[0] : 0;
    for (size_t i = 0; i < nopts; i++) {
        if (setsockopt(fd, opts[i].level, opts[i].name, opts[i].value, opts[i].len) < 0) {
            fprintf(err, "linkemu: setsockopt %s on %s failed (%s); linkemu needs Linux >= 4.20 "
                         "and root\n", opts[i].what, ifname, strerror(errno));
            close(fd);
            return -1;
        }
    }
    struct sockaddr_ll addr = {.sll_family = AF_PACKET, .sll_ifindex = (int)idx,
                               .sll_protocol = rx ? htons(ETH_P_ALL) : 0};
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
        fprintf(err, "linkemu: cannot bind a packet socket to %s (%s); is the interface up?\n", ifname,
                strerror(errno));
        close(fd);
        return -1;
    }
    if (rx) {
        /* Frames addressed to the far host must reach us on a real NIC too. */
        struct packet_mreq mr = {.mr_ifindex = (int)idx, .mr_type = PACKET_MR_PROMISC};
        if (setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof mr) < 0) {
            fprintf(err, "linkemu: cannot make %s promiscuous (%s)\n", ifname, strerror(errno));
            close(fd);
            return -1;
        }
        /* Reading the statistics resets them, so the final read counts only our own run. */
        struct tpacket_stats st;
        socklen_t len = sizeof st;
        if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) < 0) {
            fprintf(err, "linkemu: cannot read PACKET_STATISTICS on %s (%s)\n", ifname, strerror(errno));
            close(fd);
            return -1;
        }
    } else {
        if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof size) < 0) {
            fprintf(err, "linkemu: setsockopt SO_SNDBUFFORCE on %s failed (%s); run as root\n", ifname,
                    strerror(errno));
            close(fd);
            return -1;
        }
        int rc = nr_txlag_enable(fd);
        if (rc < 0) {
            fprintf(err, "linkemu: setsockopt SO_TIMESTAMPING on %s failed (%s); linkemu needs "
                         "software transmit stamps to send frames at their times\n", ifname,
                    strerror(-rc));
            close(fd);
            return -1;
        }
    }
    return fd;
}

/* The interface must carry frames as large as the link's MTU and any frame-time trailer, or
 * sends would fail later. */
static int check_mtu(int fd, const char *ifname, const struct le_opts *o, FILE *err)
{
    uint32_t mtu = o->mtu + (o->frame_times ? NR_FRAMETIME_LEN : 0);
    struct ifreq ifr = {0};
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
    if (ioctl(fd, SIOCGIFMTU, &ifr) < 0) {
        fprintf(err, "linkemu: cannot read the MTU of %s (%s)\n", ifname, strerror(errno));
        return -1;
    }
    if ((uint32_t)ifr.ifr_mtu < mtu) {
        fprintf(err, "linkemu: %s has MTU %d, below --mtu %u%s; raise it with "
                     "'ip link set %s mtu %u'\n", ifname, ifr.ifr_mtu, o->mtu,
                o->frame_times ? " and the 12-octet trailer of --frame-times" : "", ifname, mtu);
        return -1;
    }
    return 0;
}

static int dir_init(struct dir *d, const char *name, const struct le_opts *o, const struct le_dir_cfg *cfg,
                    uint64_t stream, FILE *err)
{
    d->name = name;
    d->spin_ns = o->spin_ns;
    d->frame_times = o->frame_times;
    nr_txlag_init(&d->txlag);
    /* The largest frame we keep: MTU plus Ethernet header, a VLAN tag and a frame-time trailer;
     * larger ones are truncated on receive and dropped as oversize. */
    d->pool.buf = VNET_HDR + LE_ETH_HEADER + 4 + o->mtu + NR_FRAMETIME_LEN;
    d->pool.max = POOL_MAX_BYTES / d->pool.buf;
    if (le_dir_init(&d->model, cfg, o->framing, o->mtu, o->seed, stream) < 0)
        goto nomem;
    d->spill = malloc((size_t)BATCH * SPILL);
    d->gso_buf = malloc(d->pool.buf + SPILL);
    if (!d->spill || !d->gso_buf)
        goto nomem;
    for (int i = 0; i < BATCH; i++)
        if (!(d->rx[i] = pool_get(&d->pool)))
            goto nomem;
    return 0;
nomem:
    fprintf(err, "linkemu: out of memory setting up the %s direction\n", name);
    return -1;
}

/* The counters the forwarding loop keeps apart from the model's, brought up to date for a
 * record. Reading PACKET_STATISTICS resets it, so its drops are added up. */
static void dir_finish(struct dir *d)
{
    struct tpacket_stats st;
    socklen_t len = sizeof st;
    if (getsockopt(d->rx_fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0)
        d->fwd.socket_drops += st.tp_drops;
    else
        fprintf(stderr, "linkemu: cannot read PACKET_STATISTICS on %s (%s); socket_drops misses "
                "its drops since the last record\n", d->rx_if, strerror(errno));
    d->fwd.pending_packets = d->queue.len + (d->shared ? le_shared_pending(d->shared, d->station) : 0);
    d->fwd.tx_stamps = d->txlag.samples;
    d->fwd.tx_lead_ns = nr_txlag_lead(&d->txlag, LE_ETH_HEADER + d->model.mtu);
}

/* A frame the shared medium still holds goes back to its direction's pool. */
static void medium_free_pkt(void *ctx, int station, void *pkt)
{
    struct dir **dirs = ctx;
    pool_put(&dirs[station]->pool, pkt);
}

static void dir_free(struct dir *d)
{
    struct le_pkt *p;
    while ((p = le_pq_pop(&d->queue)))
        pool_put(&d->pool, p);
    for (int i = 0; i < BATCH; i++)
        if (d->rx[i])
            pool_put(&d->pool, d->rx[i]);
    le_pq_free(&d->queue);
    pool_free(&d->pool);
    free(d->spill);
    free(d->gso_buf);
    le_dir_free(&d->model);
}

static int write_ready(const char *path, FILE *err)
{
    return path ? le_write_atomic(path, "forwarding\n", err) : 0;
}

/* The record's text (malloc'd), or NULL with the reason on err. */
static char *record(const struct le_opts *o, int64_t start, struct dir *fw, struct dir *rv,
                    const struct le_shared *shared, uint64_t snapshot, FILE *err)
{
    struct le_dir_report f = {&fw->model.cfg, &fw->model.count, &fw->fwd};
    struct le_dir_report r = {&rv->model.cfg, &rv->model.count, &rv->fwd};
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (mem) {
        le_write_json(mem, o, (double)(nr_mono_ns() - start) / 1e9, &f, &r, shared ? &shared->medium : NULL,
                      snapshot);
        if (fclose(mem) == 0)
            return text;
    }
    fprintf(err, "linkemu: out of memory writing the counters\n");
    free(text);
    return NULL;
}

/* The final record (snapshot 0) goes to stdout and --stats; a snapshot to --stats only, or to
 * stdout without it. Frees text. */
static int publish(const struct le_opts *o, char *text, uint64_t snapshot, FILE *err)
{
    int status = 0;
    if ((snapshot == 0 || !o->stats_path) && (fputs(text, stdout) == EOF || fflush(stdout) == EOF)) {
        fprintf(err, "linkemu: cannot write the counters to stdout (%s)\n", strerror(errno));
        status = -1;
    }
    if (o->stats_path && le_write_atomic(o->stats_path, text, err) < 0)
        status = -1;
    free(text);
    return status;
}

/* SIGUSR1: the record so far, taken while no worker forwards so that its counters agree, and
 * written once they forward again. */
static int snapshot(const struct le_opts *o, int64_t start, struct worker *workers, int nworkers,
                    struct dir *fw, struct dir *rv, const struct le_shared *shared, uint64_t number, FILE *err)
{
    for (int i = 0; i < nworkers; i++)
        pthread_mutex_lock(&workers[i].lock);
    dir_finish(fw);
    dir_finish(rv);
    char *text = record(o, start, fw, rv, shared, number, err);
    for (int i = 0; i < nworkers; i++)
        pthread_mutex_unlock(&workers[i].lock);
    return text ? publish(o, text, number, err) : -1;
}

int le_run(const struct le_opts *o, FILE *err)
{
    atomic_int stop = 0, failed = 0;
    struct dir fw = {.rx_if = o->if_a, .tx_if = o->if_b, .rx_fd = -1, .tx_fd = -1, .station = 0,
                     .stop = &stop, .failed = &failed};
    struct dir rv = {.rx_if = o->if_b, .tx_if = o->if_a, .rx_fd = -1, .tx_fd = -1, .station = 1,
                     .stop = &stop, .failed = &failed};
    struct dir *dirs[2] = {&fw, &rv};
    struct le_shared shared;
    int have_shared = 0;
    /* Duplex: a thread per direction. Shared: one thread, as the medium is one. */
    struct worker workers[2] = {
        {.dirs = {&fw, &rv}, .ndirs = o->shared_medium ? 2 : 1, .priority = o->priority},
        {.dirs = {&rv}, .ndirs = 1, .priority = o->priority},
    };
    int nworkers = o->shared_medium ? 1 : 2, locks = 0;
    int status = 1, started = 0;
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGUSR1);
    /* Blocked here and in the threads, which inherit the mask, so only sigtimedwait sees them. */
    int rc = pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    if (rc != 0) {
        fprintf(err, "linkemu: pthread_sigmask failed (%s)\n", strerror(rc));
        return 1;
    }
    for (; locks < nworkers; locks++) {
        if ((rc = pthread_mutex_init(&workers[locks].lock, NULL)) != 0) {
            fprintf(err, "linkemu: pthread_mutex_init failed (%s)\n", strerror(rc));
            goto out;
        }
    }
    if (dir_init(&fw, "forward", o, &o->forward, 0, err) < 0 ||
        dir_init(&rv, "reverse", o, &o->reverse, 1, err) < 0)
        goto out;
    if (o->shared_medium) {
        /* Streams 2 and 3 draw the two stations' backoffs; the directions have 0 and 1. */
        if (le_shared_init(&shared, &o->forward, o->framing, o->mtu, o->seed, 2) < 0 ||
            (o->background_fps > 0 &&
             le_medium_background(&shared.medium, o->background_fps, o->background_octets,
                                  nr_mono_ns(), o->seed) < 0)) {
            fprintf(err, "linkemu: out of memory setting up the shared medium\n");
            goto out;
        }
        /* Timed frames reach linkemu tens of microseconds after the time they state; three
         * quarters of the shortest frame's time on the wire lets most take their place and
         * delays no frame's end (shared.h). */
        if (o->frame_times)
            le_shared_hold(&shared, 3 * le_medium_frame_ns(&shared.medium, 0) / 4);
        have_shared = 1;
        workers[0].shared = fw.shared = rv.shared = &shared;
    }
    if ((fw.rx_fd = open_socket(o->if_a, 1, o->sock_buf, err)) < 0 ||
        (rv.rx_fd = open_socket(o->if_b, 1, o->sock_buf, err)) < 0 ||
        (fw.tx_fd = open_socket(o->if_b, 0, o->sock_buf, err)) < 0 ||
        (rv.tx_fd = open_socket(o->if_a, 0, o->sock_buf, err)) < 0)
        goto out;
    if (check_mtu(fw.tx_fd, o->if_b, o, err) < 0 || check_mtu(rv.tx_fd, o->if_a, o, err) < 0)
        goto out;
    int64_t start = nr_mono_ns();
    for (; started < nworkers; started++) {
        if ((rc = pthread_create(&workers[started].thread, NULL, worker_main, &workers[started])) != 0) {
            fprintf(err, "linkemu: cannot start a forwarding thread (%s)\n", strerror(rc));
            atomic_store(&stop, 1);
            goto join;
        }
    }
    if (write_ready(o->ready_path, err) < 0) {
        atomic_store(&stop, 1);
        goto join;
    }
    fprintf(err, "linkemu: forwarding %s <-> %s%s\n", o->if_a, o->if_b,
            o->shared_medium ? " on one shared medium" : "");
    struct timespec tick = {0, 200000000};
    uint64_t snapshots = 0;
    while (!atomic_load(&failed)) {
        int sig = sigtimedwait(&sigs, NULL, &tick);
        if (sig == SIGUSR1) {
            if (snapshot(o, start, workers, nworkers, &fw, &rv, have_shared ? &shared : NULL, ++snapshots,
                         err) < 0)
                atomic_store(&failed, 1);
            continue;
        }
        if (sig > 0)
            break;
        if (errno != EAGAIN && errno != EINTR) {
            fprintf(err, "linkemu: sigtimedwait failed (%s)\n", strerror(errno));
            break;
        }
    }
    atomic_store(&stop, 1);
join:
    for (int i = 0; i < started; i++) {
        rc = pthread_join(workers[i].thread, NULL);
        if (rc != 0)
            fprintf(err, "linkemu: cannot join a forwarding thread (%s)\n", strerror(rc));
    }
    if (started == nworkers) {
        dir_finish(&fw);
        dir_finish(&rv);
        char *text = record(o, start, &fw, &rv, have_shared ? &shared : NULL, 0, err);
        if (text && publish(o, text, 0, err) == 0 && !atomic_load(&failed))
            status = 0;
    }
out:
    if (have_shared)
        le_shared_free(&shared, medium_free_pkt, dirs);
    for (int i = 0; i < 2; i++) {
        struct dir *d = dirs[i];
        if (d->rx_fd >= 0)
            close(d->rx_fd);
        if (d->tx_fd >= 0)
            close(d->tx_fd);
        dir_free(d);
    }
    for (int i = 0; i < locks; i++)
        pthread_mutex_destroy(&workers[i].lock);
    return status;
}
