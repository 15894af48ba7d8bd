/* The real-time driver of a tahoe stack: AF_PACKET, Ethernet and ARP, CLOCK_MONOTONIC, and an
 * output queue that holds each packet until its departure time. */
#include "if_packet.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/if_packet.h>
#include <linux/if_ether.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "frametime.h"
#include "hostclock.h"
#include "if_ether.h"
#include "json.h"
#include "nrio_tahoe.h"
#include "pktstamp.h"
#include "txlag.h"
#include "safeopen.h"
#include "units.h"

/* Packets the modelled CPU has finished but whose time has not come; far more than any window
 * (52428 octets) needs. */
#define OUTQ_MAX 4096
/* The packet socket's receive buffer: bursts must wait there while the process sleeps. */
#define RCVBUF_OCTETS (8 << 20)
#define FRAME_MAX (ETHER_HDR_LEN + 65535)
/* Iterations of the busy-loop calibration. */
#define SPIN_CALIB_ITERS 2000000L
/* The timer wakes the process this long before a departure or deadline, and it spins to the
 * instant: a timer wake-up comes tens of microseconds late, which would delay every packet
 * and tick by as much, as virtual time does not. */
#define SPIN_AHEAD_NS 100000
/* With --frame-times, the driver keeps a deadline open a little longer for frames stated to
 * arrive by it: linkemu releases such a frame at its time, but it reaches this process tens of
 * microseconds later, while the modelled host takes a frame that arrives as its CPU frees or a
 * timer fires before that work, as netsim does. Where both hosts have the same costs, that tie
 * comes with every back-to-back segment. The wait is half the least the host model charges an
 * output packet (its protocol and driver work),
 * which every output pays before it departs, so no output is late for it; this caps it. */
#define SETTLE_MAX_NS 100000

struct outpkt {
    struct outpkt *next;
    int64_t at;
    size_t len;
    uint8_t data[];
};

struct rtdrv {
    nrio *io;
    char ifname[IF_NAMESIZE];
    int fd, txfd, tfd, epfd; /* frames come in on fd and go out on txfd */
    int ifindex;
    struct nr_txlag txlag;
    struct ether_if eth;
    struct outpkt *outq, *outq_tail; /* by departure time */
    int noutq;
    int64_t tfd_armed;
    uint8_t *frame;    /* the frame read last; while held_len, one whose time has not come */
    size_t held_len;   /* 0: no frame held */
    int64_t held_at;   /* the held frame's arrival */
    struct hostclock clock;
    int frame_times;  /* --frame-times */
    int64_t xmit_at;  /* the departure time of the packet being sent; INT64_MIN: none */
    int64_t settle_ns; /* how long a deadline waits for frames stated to arrive by it */
    uint8_t *txframe; /* a frame with its trailer */
    /* --segment-log: the records gather in memory (no system call per segment on the modelled
     * timeline) and go to the file when the stack is freed. */
    const char *segment_log;
    FILE *segments;
    char *segments_buf;
    size_t segments_len;
};

_Static_assert(TAHOE_BOOT_SPREAD_NS == NR_TICK_CYCLE_NS,
               "--tick-phase and the random boot must span the same tick cycle");

/* How long before now the stack booted, drawn at random (TAHOE_BOOT_SPREAD_NS), as netsim draws
 * host b's: booting at the tool's start would make the receiver's first delayed ACK wait nearly
 * a whole tick in every run. */
static int boot_offset_ns(int64_t *out)
{
    uint64_t r;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
        return -1;
    *out = (int64_t)(r % (uint64_t)TAHOE_BOOT_SPREAD_NS);
    return 0;
}

static int64_t rt_now(void *ctx)
{
    struct rtdrv *d = ctx;
    return hostclock_now(&d->clock, nr_mono_ns());
}

/* The stack's if_output: packets may not go back into the stack from here, so they queue. */
static int rt_if_output(void *ctx, const uint8_t *pkt, size_t len, int64_t at_ns)
{
    struct rtdrv *d = ctx;
    if (d->noutq >= OUTQ_MAX)
        return -ENOBUFS;
    struct outpkt *p = malloc(sizeof *p + len);
    if (!p)
        return -ENOBUFS;
    p->next = NULL;
    p->at = at_ns;
    p->len = len;
    memcpy(p->data, pkt, len);
    /* The CPU finishes packets in order, so the tail is almost always the place. */
    if (!d->outq_tail || d->outq_tail->at <= at_ns) {
        if (d->outq_tail)
            d->outq_tail->next = p;
        else
            d->outq = p;
        d->outq_tail = p;
    } else {
        struct outpkt **pp = &d->outq;
        while ((*pp)->at <= at_ns)
            pp = &(*pp)->next;
        p->next = *pp;
        *pp = p;
    }
    d->noutq++;
    return 0;
}

static int rt_xmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct rtdrv *d = ctx;
    if (d->frame_times && d->xmit_at != INT64_MIN) {
        memcpy(d->txframe, frame, len);
        len = nr_frametime_put(d->txframe, len, d->xmit_at);
        frame = d->txframe;
    }
    int64_t called = nr_mono_ns();
    /* Blocking send: a veth or NIC queue drains in microseconds, and waiting beats a loss the
     * modelled host would not have had. */
    ssize_t n = send(d->txfd, frame, len, 0);
    if (n == (ssize_t)len) {
        nr_txlag_sent(&d->txlag, len, called);
        return 0;
    }
    if (n >= 0)
        return -EIO;
    if (errno == ENOBUFS || errno == EAGAIN)
        return -ENOBUFS;
    int err = errno;
    fprintf(stderr, "tahoe: sending a %zu-octet frame on %s failed: %s; check that the "
            "interface is up and its MTU is at least the stack's\n", len, d->ifname,
            strerror(err));
    return -err;
}

/* When to hand p to the kernel: early by the lag measured for its size, so that it reaches the
 * wire at its time. */
static int64_t handover_at(const struct rtdrv *d, const struct outpkt *p)
{
    size_t trailer = d->frame_times ? NR_FRAMETIME_LEN : 0;
    return p->at - nr_txlag_lead(&d->txlag, ETHER_HDR_LEN + p->len + trailer);
}

/* Sends every queued packet whose time has come. */
static int flush_due(struct rtdrv *d, int64_t now)
{
    int sent = 0;
    while (d->outq && handover_at(d, d->outq) <= now) {
        struct outpkt *p = d->outq;
        d->outq = p->next;
        if (!d->outq)
            d->outq_tail = NULL;
        d->noutq--;
        d->xmit_at = p->at;
        int rc = ether_output(&d->eth, p->data, p->len, now);
        d->xmit_at = INT64_MIN;
        free(p);
        if (rc < 0)
            return rc;
        sent = 1;
    }
    if (!sent)
        return 0;
    /* The stamps of what was sent are read once, after it all went. */
    int rc = nr_txlag_collect(&d->txlag, d->txfd);
    if (rc < 0)
        fprintf(stderr, "tahoe: reading transmit stamps on %s failed: %s\n", d->ifname,
                strerror(-rc));
    return rc < 0 ? rc : 0;
}

static int arm_timer(struct rtdrv *d, int64_t at)
{
    if (at == d->tfd_armed)
        return 0;
    struct itimerspec its = { { 0, 0 }, { 0, 0 } };
    if (at != INT64_MAX) {
        /* An absolute time of zero would disarm the timer. */
        int64_t t = at > 0 ? at : 1;
        its.it_value.tv_sec = t / 1000000000;
        its.it_value.tv_nsec = t % 1000000000;
    }
    if (timerfd_settime(d->tfd, TFD_TIMER_ABSTIME, &its, NULL) != 0) {
        int err = errno;
        fprintf(stderr, "tahoe: timerfd_settime failed: %s\n", strerror(err));
        return -err;
    }
    d->tfd_armed = at;
    return 0;
}

/* Reads the waiting frames and hands each to the stack at the time its trailer states
 * (--frame-times), else at the time the kernel stamped it, so this process's wake-up delay is
 * not added to the modelled host's processing. A frame due after limit is held in d->frame,
 * unread by the stack, until a wait reaches its time. Returns how many IPv4 packets went to
 * the stack, or -errno. */
static int read_frames(struct rtdrv *d, int64_t limit)
{
    int delivered = 0;
    int64_t real_offset = nr_real_offset_ns();
    for (;;) {
        if (!d->held_len) {
            struct sockaddr_ll sll;
            struct iovec iov = {d->frame, FRAME_MAX};
            union {
                char buf[NR_PKTSTAMP_CMSG_SPACE];
                struct cmsghdr align;
            } ctl;
            struct msghdr msg = {.msg_name = &sll, .msg_namelen = sizeof sll, .msg_iov = &iov,
                                 .msg_iovlen = 1, .msg_control = ctl.buf,
                                 .msg_controllen = sizeof ctl.buf};
            ssize_t n = recvmsg(d->fd, &msg, MSG_DONTWAIT);
            if (n < 0) {
                if (errno == EAGAIN || errno == EWOULDBLOCK)
                    return delivered;
                if (errno == EINTR)
                    continue;
                int err = errno;
                fprintf(stderr, "tahoe: reading from %s failed: %s\n", d->ifname, strerror(err));
                return -err;
            }
            /* Frames for other hosts reach us only in promiscuous mode. */
            if (sll.sll_pkttype != PACKET_HOST && sll.sll_pkttype != PACKET_BROADCAST)
                continue;
            size_t flen = (size_t)n;
            int64_t arrival = INT64_MIN;
            if (d->frame_times)
                flen = nr_frametime_take(d->frame, flen, &arrival);
            if (arrival == INT64_MIN)
                arrival = nr_pktstamp_arrival_ns(&msg, nr_mono_ns(), real_offset);
            d->held_len = flen;
            d->held_at = arrival;
        }
        if (d->held_at > limit)
            return delivered;
        const uint8_t *pkt;
        size_t len;
        int rc = ether_input(&d->eth, d->frame, d->held_len, &pkt, &len);
        d->held_len = 0;
        if (rc < 0)
            return rc;
        if (rc == 1) {
            nrio_tahoe_input(d->io, pkt, len, d->held_at);
            hostclock_event(&d->clock, d->held_at);
            delivered++;
        }
    }
}

/* A signal (echod's SIGTERM) ends a wait: the application's timers decide what it means. */
static int interrupted(struct rtdrv *d)
{
    hostclock_event(&d->clock, nr_mono_ns());
    return 0;
}

enum { WOKE_TIME, WOKE_FRAME, WOKE_SIGNAL };

/* Sleeps until at or until a frame comes in; returns WOKE_* or -errno. */
static int block(struct rtdrv *d, int64_t at)
{
    int rc = arm_timer(d, at);
    if (rc < 0)
        return rc;
    struct epoll_event ev[2];
    int n = epoll_wait(d->epfd, ev, 2, -1);
    if (n < 0) {
        if (errno == EINTR)
            return WOKE_SIGNAL;
        int err = errno;
        fprintf(stderr, "tahoe: epoll_wait failed: %s\n", strerror(err));
        return -err;
    }
    int woke = WOKE_TIME;
    for (int i = 0; i < n; i++) {
        if (ev[i].data.fd != d->tfd) {
            woke = WOKE_FRAME;
            continue;
        }
        uint64_t expirations;
        if (read(d->tfd, &expirations, sizeof expirations) < 0 && errno != EAGAIN) {
            int err = errno;
            fprintf(stderr, "tahoe: reading the timerfd failed: %s\n", strerror(err));
            return -err;
        }
        d->tfd_armed = -1;
    }
    return woke;
}

/* Returns 0 at the time, 1 if a signal came first, or -errno. */
static int sleep_until(int64_t at)
{
    struct timespec ts = {at / 1000000000, at % 1000000000};
    int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    if (rc == 0 || rc == EINTR)
        return rc == EINTR;
    fprintf(stderr, "tahoe: clock_nanosleep failed: %s\n", strerror(rc));
    return -rc;
}

/* Sends the due packets and returns once now reaches at; a spin covers the last stretch,
 * as a timer wakes the process tens of microseconds late. */
static int pause_until(struct rtdrv *d, int64_t at)
{
    for (;;) {
        int64_t now = nr_mono_ns();
        int rc = flush_due(d, now);
        if (rc < 0 || now >= at)
            return rc;
        if (at - now <= SPIN_AHEAD_NS) {
            while (nr_mono_ns() < at)
                continue;
            continue;
        }
        rc = sleep_until(at - SPIN_AHEAD_NS);
        if (rc != 0)
            return rc < 0 ? rc : WOKE_SIGNAL;
    }
}

/* The deadline until has come: the frames stated to arrive by it reach the stack first, those
 * on their way included (settle_ns). linkemu sends each direction's frames in order of time,
 * so once a later one is held, none of them is still to come. */
static int settle(struct rtdrv *d, int64_t until)
{
    int64_t end = until + d->settle_ns;
    int delivered = 0;
    for (;;) {
        int rc = read_frames(d, until);
        if (rc < 0)
            return rc;
        delivered += rc;
        int64_t now = nr_mono_ns();
        if (d->held_len || now >= end)
            return delivered;
        rc = flush_due(d, now);
        if (rc < 0)
            return rc;
        int64_t handover = d->outq ? handover_at(d, d->outq) : INT64_MAX;
        if (handover < end)
            rc = pause_until(d, handover);
        else
            rc = block(d, end);
        if (rc < 0)
            return rc;
        if (rc == WOKE_SIGNAL)
            return delivered;
    }
}

/* nrio_tahoe's wait: sends packets as they fall due and returns at until or once packets
 * reached the stack. */
static int rt_wait(void *ctx, int64_t until)
{
    struct rtdrv *d = ctx;
    for (;;) {
        int64_t now = nr_mono_ns();
        int rc = flush_due(d, now);
        if (rc < 0)
            return rc;
        if (now >= until) {
            hostclock_event(&d->clock, until);
            rc = settle(d, until);
            return rc > 0 ? flush_due(d, nr_mono_ns()) : rc;
        }
        if (d->held_len && d->held_at <= until) {
            rc = read_frames(d, until);
            return rc > 0 ? flush_due(d, nr_mono_ns()) : rc;
        }
        int64_t handover = d->outq ? handover_at(d, d->outq) : INT64_MAX;
        int64_t next = handover < until ? handover : until;
        /* A held frame keeps the socket readable: only time can end this wait. */
        if (next - now <= SPIN_AHEAD_NS || d->held_len) {
            rc = pause_until(d, next);
            if (rc < 0)
                return rc;
            if (rc == WOKE_SIGNAL)
                return interrupted(d);
            continue;
        }
        rc = block(d, next == INT64_MAX ? next : next - SPIN_AHEAD_NS);
        if (rc < 0)
            return rc;
        if (rc == WOKE_SIGNAL)
            return interrupted(d);
        if (rc == WOKE_FRAME) {
            rc = read_frames(d, until);
            if (rc < 0)
                return rc;
            /* Output the input caused can wait for the next call; flush what is due now. */
            if (rc > 0)
                return flush_due(d, nr_mono_ns());
        }
    }
}

/* The process is leaving: the packets its last calls produced (an answer, a FIN) still go out
 * at their times, as the kernel would send them after the process exited. */
static void drain(struct rtdrv *d)
{
    while (d->outq) {
        if (sleep_until(d->outq->at) < 0)
            return;
        if (flush_due(d, nr_mono_ns()) < 0)
            return;
    }
}

/* One record per TCP segment sent, as netsim's "segment" records but without the host, which
 * the caller knows. A record lost to memory shows as a short log, as a lost fprintf did. */
static void rt_segment(void *ctx, const struct tahoe_seg_trace *ev)
{
    struct rtdrv *d = ctx;
    struct nr_json j;
    tahoe_seg_json(&j, NULL, ev);
    (void)nr_json_emit(&j, d->segments);
}

/* Writes the gathered segment records to --segment-log's file; a failure is told on stderr,
 * where the caller finds it beside a missing or short file. */
static void write_segment_log(struct rtdrv *d)
{
    int failed = fclose(d->segments) != 0;
    d->segments = NULL;
    int fd = failed ? -errno : nr_open_write(d->segment_log);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (fd >= 0 && !f) {
        int e = errno;
        close(fd);
        fd = -e;
    }
    if (f) {
        failed = fwrite(d->segments_buf, 1, d->segments_len, f) != d->segments_len;
        failed = (fclose(f) != 0) || failed;
        fd = failed ? -errno : 0;
    }
    if (failed || !f)
        fprintf(stderr, "tahoe: writing the segment log %s failed: %s; check that its folder "
                "exists and has room\n", d->segment_log, nr_open_write_error(fd));
    free(d->segments_buf);
    d->segments_buf = NULL;
}

static void rt_free(void *ctx)
{
    struct rtdrv *d = ctx;
    if (d->fd >= 0 && d->io)
        drain(d);
    if (d->segments)
        write_segment_log(d);
    while (d->outq) {
        struct outpkt *p = d->outq;
        d->outq = p->next;
        free(p);
    }
    ether_if_free(&d->eth);
    if (d->epfd >= 0)
        close(d->epfd);
    if (d->tfd >= 0)
        close(d->tfd);
    if (d->fd >= 0)
        close(d->fd);
    if (d->txfd >= 0)
        close(d->txfd);
    free(d->frame);
    free(d->txframe);
    free(d);
}

/* The picoseconds one iteration of a busy loop takes here: the modelled host's application
 * loop is charged what this machine's takes (the host models give no figure for it). */
static int64_t spin_ps_here(void)
{
    volatile long sink = 0;
    int64_t best = INT64_MAX;
    for (int r = 0; r < 3; r++) {
        int64_t t0 = nr_mono_ns();
        for (long i = 0; i < SPIN_CALIB_ITERS; i++)
            sink = sink + 1;
        int64_t dt = nr_mono_ns() - t0;
        if (dt < best)
            best = dt;
    }
    int64_t ps = best * 1000 / SPIN_CALIB_ITERS;
    return ps > 0 ? ps : 1;
}

#define FAIL(...)                                                                  \
    do {                                                                           \
        snprintf(what, whatlen, __VA_ARGS__);                                      \
        goto fail;                                                                 \
    } while (0)

/* The interface's index, MAC and MTU; refuses one that is down or carries a kernel IPv4
 * address. */
static int probe_interface(struct rtdrv *d, uint8_t mac[ETHER_ADDR_LEN], int *mtu, char *what,
                           size_t whatlen, char *hint, size_t hintlen)
{
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", d->ifname);
    d->ifindex = (int)if_nametoindex(d->ifname);
    if (d->ifindex == 0) {
        snprintf(what, whatlen, "interface %s: %s", d->ifname, strerror(errno));
        snprintf(hint, hintlen, "run the tool inside the host's network namespace and name "
                 "one of its interfaces (ip link)");
        return -1;
    }
    if (ioctl(d->fd, SIOCGIFFLAGS, &ifr) != 0) {
        snprintf(what, whatlen, "reading the flags of %s failed: %s", d->ifname, strerror(errno));
        snprintf(hint, hintlen, "check that %s exists (ip link)", d->ifname);
        return -1;
    }
    if (!(ifr.ifr_flags & IFF_UP)) {
        snprintf(what, whatlen, "interface %s is down", d->ifname);
        snprintf(hint, hintlen, "bring it up: ip link set dev %s up", d->ifname);
        return -1;
    }
    if (ioctl(d->fd, SIOCGIFHWADDR, &ifr) != 0) {
        snprintf(what, whatlen, "reading the MAC address of %s failed: %s", d->ifname,
                 strerror(errno));
        snprintf(hint, hintlen, "check that %s is an Ethernet interface (ip link)", d->ifname);
        return -1;
    }
    if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER) {
        snprintf(what, whatlen, "interface %s is not Ethernet", d->ifname);
        snprintf(hint, hintlen, "give an Ethernet or veth interface with --if");
        return -1;
    }
    memcpy(mac, ifr.ifr_hwaddr.sa_data, ETHER_ADDR_LEN);
    if (ioctl(d->fd, SIOCGIFMTU, &ifr) != 0) {
        snprintf(what, whatlen, "reading the MTU of %s failed: %s", d->ifname, strerror(errno));
        snprintf(hint, hintlen, "give the MTU with --mtu");
        return -1;
    }
    *mtu = ifr.ifr_mtu;
    struct ifaddrs *ifa0;
    if (getifaddrs(&ifa0) != 0) {
        snprintf(what, whatlen, "listing the interface addresses failed: %s", strerror(errno));
        snprintf(hint, hintlen, "this should not happen; report it");
        return -1;
    }
    char ip[INET_ADDRSTRLEN] = "";
    for (struct ifaddrs *ifa = ifa0; ifa; ifa = ifa->ifa_next)
        if (ifa->ifa_addr && ifa->ifa_addr->sa_family == AF_INET &&
            strcmp(ifa->ifa_name, d->ifname) == 0)
            inet_ntop(AF_INET, &((struct sockaddr_in *)ifa->ifa_addr)->sin_addr, ip, sizeof ip);
    freeifaddrs(ifa0);
    if (ip[0]) {
        snprintf(what, whatlen, "interface %s carries the kernel's IPv4 address %s: the kernel "
                 "would answer the Tahoe stack's peers (TCP resets, ICMP unreachables)",
                 d->ifname, ip);
        snprintf(hint, hintlen, "remove it and keep the link up: ip addr flush dev %s",
                 d->ifname);
        return -1;
    }
    return 0;
}

nrio *nrio_tahoe_rt_new(const struct nr_stack_opts *o, char *what, size_t whatlen, char *hint,
                        size_t hintlen)
{
    struct rtdrv *d = calloc(1, sizeof *d);
    snprintf(hint, hintlen, "this should not happen; report it");
    if (!d || !(d->frame = malloc(FRAME_MAX)) ||
        !(d->txframe = malloc(FRAME_MAX + NR_FRAMETIME_LEN))) {
        if (d)
            free(d->frame);
        free(d);
        snprintf(what, whatlen, "out of memory starting the Tahoe stack");
        return NULL;
    }
    d->fd = d->txfd = d->tfd = d->epfd = -1;
    nr_txlag_init(&d->txlag);
    d->tfd_armed = -1;
    d->frame_times = o->frame_times;
    d->xmit_at = INT64_MIN;
    hostclock_init(&d->clock);
    snprintf(d->ifname, sizeof d->ifname, "%s", o->ifname);

    struct tahoe_config cfg;
    tahoe_config_defaults(&cfg);
    char model_err[512];
    int rc = tahoe_hostcost_read(o->host_model, &cfg.cost, model_err, sizeof model_err);
    if (rc < 0) {
        snprintf(hint, hintlen, "give a file from configs/hosts/ that "
                 "configs/schema/host.schema.json accepts");
        FAIL("reading the host model failed: %s", model_err);
    }

    d->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
    if (d->fd < 0) {
        snprintf(hint, hintlen, "the Tahoe stack needs CAP_NET_RAW: run as root, inside the "
                 "host's network namespace");
        FAIL("opening a packet socket failed: %s", strerror(errno));
    }
    uint8_t mac[ETHER_ADDR_LEN];
    int ifmtu;
    if (probe_interface(d, mac, &ifmtu, what, whatlen, hint, hintlen))
        goto fail;
    /* A frame's trailer travels in room the interface must have past the stack's MTU. */
    int trailer = d->frame_times ? NR_FRAMETIME_LEN : 0;
    cfg.mtu = o->mtu ? o->mtu : ifmtu - trailer;
    if (cfg.mtu + trailer > ifmtu) {
        snprintf(hint, hintlen, "give --mtu %dB or less, or raise it: ip link set dev %s mtu %d",
                 ifmtu - trailer, d->ifname, cfg.mtu + trailer);
        FAIL("--mtu %dB%s exceeds the MTU of %s (%dB)", cfg.mtu,
             trailer ? " and the 12-octet frame-time trailer" : "", d->ifname, ifmtu);
    }
    /* The emulated link carries Ethernet frames whatever it models; an MTU above Ethernet's
     * is the ATM link's (netsim decides by the link's framing, with the same result for the
     * papers' links: 1500 on Ethernet, 9180 or 9188 on ATM). */
    cfg.iface = cfg.mtu > NR_ETHER_MTU ? TAHOE_IF_ATM : TAHOE_IF_ETHER;
    if (d->frame_times) {
        const struct tahoe_hostcost *c = &cfg.cost;
        int64_t least = c->per_packet_ns + (cfg.iface == TAHOE_IF_ATM
                                                ? c->atm_tx_ns + (c->atm_buffer_bytes > 0
                                                                      ? c->atm_per_buffer_ns
                                                                      : 0)
                                                : c->le_tx_ns);
        d->settle_ns = least / 2 < SETTLE_MAX_NS ? least / 2 : SETTLE_MAX_NS;
    }
    struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL),
                               .sll_ifindex = d->ifindex };
    if (bind(d->fd, (struct sockaddr *)&sll, sizeof sll) != 0)
        FAIL("binding the packet socket to %s failed: %s", d->ifname, strerror(errno));
    int one = 1;
    if (setsockopt(d->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) != 0)
        FAIL("asking for receive time stamps (SO_TIMESTAMPNS) failed: %s", strerror(errno));
    /* Our own frames, sent on txfd, would otherwise come back here. */
    if (setsockopt(d->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one) != 0)
        FAIL("setting PACKET_IGNORE_OUTGOING on the packet socket failed: %s; the Tahoe stack "
             "needs Linux 4.20 or later", strerror(errno));
    /* A send-only socket of its own, so that its transmit stamps stay apart from the frames
     * received. */
    d->txfd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (d->txfd < 0)
        FAIL("opening the sending packet socket failed: %s", strerror(errno));
    sll.sll_protocol = 0;
    if (bind(d->txfd, (struct sockaddr *)&sll, sizeof sll) != 0)
        FAIL("binding the sending packet socket to %s failed: %s", d->ifname, strerror(errno));
    rc = nr_txlag_enable(d->txfd);
    if (rc < 0)
        FAIL("asking for transmit time stamps (SO_TIMESTAMPING) on %s failed: %s", d->ifname,
             strerror(-rc));
    int rcvbuf = RCVBUF_OCTETS;
    /* FORCE passes rmem_max, which a namespace's default leaves at 208K. */
    if (setsockopt(d->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf) != 0 &&
        setsockopt(d->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf) != 0)
        FAIL("setting the packet socket's receive buffer failed: %s", strerror(errno));
    /* The default 50 us timer slack would delay every departure the host model sets. */
    if (prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) != 0)
        FAIL("prctl(PR_SET_TIMERSLACK) failed: %s", strerror(errno));
    d->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (d->tfd < 0)
        FAIL("timerfd_create failed: %s", strerror(errno));
    d->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (d->epfd < 0)
        FAIL("epoll_create1 failed: %s", strerror(errno));
    struct epoll_event ev = { .events = EPOLLIN, .data.fd = d->fd };
    if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->fd, &ev) != 0)
        FAIL("epoll_ctl on the packet socket failed: %s", strerror(errno));
    ev.data.fd = d->tfd;
    if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->tfd, &ev) != 0)
        FAIL("epoll_ctl on the timerfd failed: %s", strerror(errno));

    ether_if_init(&d->eth, mac, o->addr, o->netmask, rt_xmit, d);
    for (int i = 0; i < o->narp; i++) {
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &o->arp[i].ip, ip, sizeof ip);
        if (ether_if_add_static(&d->eth, o->arp[i].ip, o->arp[i].mac) != 0) {
            snprintf(hint, hintlen, "give addresses on the network of --addr %s other than "
                     "its own", o->addr_text);
            FAIL("--arp %s: not a peer on the stack's network", ip);
        }
    }
    int space = nr_stack_default_space(cfg.mtu);
    cfg.tcp_sendspace = o->tcp_sendspace ? o->tcp_sendspace : space;
    cfg.tcp_recvspace = o->tcp_recvspace ? o->tcp_recvspace : space;
    cfg.addr = o->addr;
    cfg.netmask = o->netmask;
    /* Calibrated before the boot instant: the loop takes milliseconds, which would otherwise
     * lie between the stack's ticks starting and its first packet, and not in virtual time. */
    int64_t spin_ps = spin_ps_here();
    if (o->tick_phase_ns >= 0) {
        cfg.boot_ns = nr_tick_next_ns(nr_mono_ns(), o->tick_phase_ns);
        struct timespec at = {.tv_sec = cfg.boot_ns / 1000000000,
                              .tv_nsec = cfg.boot_ns % 1000000000};
        int rc;
        while ((rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL)) == EINTR)
            continue;
        if (rc != 0)
            FAIL("waiting for --tick-phase failed: clock_nanosleep: %s", strerror(rc));
        /* The tool starts as its host boots, as host a does in netsim: the time this process
         * took to wake and set up is not the modelled host's. */
        hostclock_event(&d->clock, cfg.boot_ns);
    } else {
        int64_t boot_offset;
        if (boot_offset_ns(&boot_offset) != 0)
            FAIL("getrandom for the boot phase of the stack's ticks failed: %s", strerror(errno));
        cfg.boot_ns = nr_mono_ns() - boot_offset;
    }
    if (o->jitter_set) {
        cfg.jitter_seed = o->jitter_seed;
        cfg.jitter_stream = o->jitter_stream;
    } else if (getrandom(&cfg.jitter_seed, sizeof cfg.jitter_seed, 0) !=
               (ssize_t)sizeof cfg.jitter_seed) {
        FAIL("getrandom for the stack's jitter seed failed: %s", strerror(errno));
    }
    cfg.if_output = rt_if_output;
    cfg.ctx = d;
    if (o->segment_log) {
        d->segment_log = o->segment_log;
        d->segments = open_memstream(&d->segments_buf, &d->segments_len);
        if (!d->segments)
            FAIL("open_memstream for --segment-log failed: %s", strerror(errno));
        cfg.trace = rt_segment;
        cfg.trace_ctx = d;
    }
    struct nrio_tahoe_env env = { rt_now, rt_wait, d, spin_ps, rt_free };
    d->io = nrio_tahoe_new(&cfg, &env);
    if (!d->io)
        FAIL("starting the Tahoe stack failed (MTU %d)", cfg.mtu);
    return d->io;
fail:
    rt_free(d);
    return NULL;
}

nrio *nr_stack_new(const struct nr_stack_opts *o, char *what, size_t whatlen, char *hint,
                   size_t hintlen)
{
    if (strcmp(o->name, "tahoe") == 0)
        return nrio_tahoe_rt_new(o, what, whatlen, hint, hintlen);
    nrio *io = nrio_kernel_new();
    if (!io) {
        snprintf(what, whatlen, "starting the kernel backend failed: %s", strerror(errno));
        snprintf(hint, hintlen, "check the limits on open files and epoll instances");
    }
    return io;
}
