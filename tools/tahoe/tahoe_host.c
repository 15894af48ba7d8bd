/* The stack object, its clock, the CPU cost model and host model files. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "in_pcb.h"
#include "ip.h"
#include "socketvar.h"
#include "stackopt.h"
#include "tcp.h"
#include "udp_var.h"
#include "tahoe_var.h"
#include "units.h"

void tahoe_config_defaults(struct tahoe_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->mtu = NR_ETHER_MTU;
    cfg->sb_max = NR_SB_MAX;
    /* 4.3BSD tcp_sendspace / tcp_recvspace; SunOS raised them to 16K on the ATM interface. */
    cfg->tcp_sendspace = NR_TCPSPACE_BSD;
    cfg->tcp_recvspace = NR_TCPSPACE_BSD;
    /* ASSUMPTION: the papers do not give SunOS's UDP buffers. 9216 lets an 8 KB datagram
     * (liu95db) and a 9000-octet one (milliner) through; 41600 is 4.3BSD-Reno's receive space. */
    cfg->udp_sendspace = 9216;
    cfg->udp_recvspace = 41600;
    cfg->udp_cksum = 1;
    cfg->iss = 1;
}

/* A draw from the host's jitter stream, uniform over 0..max nanoseconds. */
static int64_t draw_uniform(struct tahoe_stack *st, int64_t max)
{
    if (max <= 0)
        return 0;
    return (int64_t)(nr_rng_unit(&st->jitter) * (double)(max + 1));
}

void tahoe_process_begins(struct tahoe_stack *st)
{
    const struct tahoe_hostcost *c = &st->cfg.cost;
    st->cpustat.ctx_switch_ns =
        c->ctx_switch_ns + draw_uniform(st, c->ctx_switch_ns * c->ctx_switch_spread_pct / 100);
}

struct tahoe_stack *tahoe_new(const struct tahoe_config *cfg)
{
    if (!cfg->if_output || cfg->mtu < NR_MTU_MIN || cfg->mtu > NR_MTU_MAX)
        return NULL;
    struct tahoe_stack *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->cfg = *cfg;
    if (cfg->cost.udp_sendspace_bytes)
        st->cfg.udp_sendspace = (int)cfg->cost.udp_sendspace_bytes;
    if (cfg->cost.udp_recvspace_bytes)
        st->cfg.udp_recvspace = (int)cfg->cost.udp_recvspace_bytes;
    if (cfg->cost.udp_no_cksum)
        st->cfg.udp_cksum = 0;
    st->now = cfg->boot_ns;
    st->cpu_free = cfg->boot_ns;
    st->intr_free = cfg->boot_ns;
    st->bus_free = cfg->boot_ns;
    nr_rng_seed(&st->jitter, cfg->jitter_seed, cfg->jitter_stream);
    tahoe_process_begins(st);
    st->next_fast = cfg->boot_ns + FASTTICK_NS;
    st->next_slow = cfg->boot_ns + SLOWTICK_NS;
    st->next_hz = cfg->cost.clock_hz > 0 && cfg->cost.clock_tick_ns > 0
                      ? cfg->boot_ns + 1000000000LL / cfg->cost.clock_hz
                      : INT64_MAX;
    st->tcp_iss = cfg->iss;
    st->last_port = 1023;
    return st;
}

void tahoe_free(struct tahoe_stack *st)
{
    if (!st)
        return;
    for (int i = 0; i < st->nfds; i++)
        if (st->fds[i])
            tahoe_close(st, i);
    /* Connections still closing hold their sockets through their pcbs. */
    while (st->tcb)
        tcp_close(st->tcb->inp_ppcb);
    while (st->udb)
        in_pcbdetach(st->udb);
    while (st->ripcb)
        in_pcbdetach(st->ripcb);
    ip_freeq_all(st);
    while (st->inq) {
        struct inpkt *p = st->inq;
        st->inq = p->next;
        free(p);
    }
    free(st->fds);
    free(st);
}

/* Interrupt work from start for ns while the process sleeps on its disk: only what runs past
 * its wakeup delays it. */
static int64_t asleep_push(const struct tahoe_stack *st, int64_t start, int64_t ns)
{
    return start + ns > st->sleep_end ? start + ns - st->sleep_end : 0;
}

/* Interrupt-level work with intr_preempts: it starts when earlier interrupt-level work ends,
 * and process-level work under way or queued waits while it runs (SunOS 4's spl levels: the
 * driver's interrupt and ipintr run before the process, kern_synch.c / if_le.c). Outputs the
 * process handed over before the interrupt keep their times: the delay lands on its later work. */
static int64_t charge_intr(struct tahoe_stack *st, int64_t ns)
{
    int64_t start = st->intr_free > st->now ? st->intr_free : st->now;
    st->intr_free = start + ns;
    if (st->rcvd_so && st->rcvd_at > start)
        st->rcvd_at += start < st->sleep_end ? asleep_push(st, start, ns) : ns;
    if (st->cpu_free > start)
        st->cpu_free += start < st->sleep_end ? asleep_push(st, start, ns) : ns;
    else
        st->cpu_free = st->intr_free;
    st->cpustat.intr_ns += ns;
    return st->intr_free;
}

int64_t tahoe_charge(struct tahoe_stack *st, int64_t ns)
{
    if (st->in_intr && st->cfg.cost.intr_preempts)
        return charge_intr(st, ns);
    if (st->cpu_free < st->now)
        st->cpu_free = st->now;
    st->cpu_free += ns;
    if (st->in_intr)
        st->cpustat.intr_ns += ns;
    return st->cpu_free;
}

/* soreceive_loop. BSD's soreceive copies a stream's data out mbuf by mbuf at spl0, so the
 * frames that arrive meanwhile are taken at interrupt level between the copies and appended
 * to the chain it is walking; it stops when the buffer is empty or the reader's is full, and
 * only then issues PRU_RCVD, whose tcp_output may send the window update (SunOS 4.1.3
 * sys/os/uipc_socket.c, as 4.3BSD's and 4.4BSD-Lite2's: splx around uiomove, MFREE then the
 * next mbuf, pr_usrreq(PRU_RCVD) after the loop). The model charges a copy ahead of time, so the update waits for where the
 * copy really ends: the process's work charged so far, pushed by every interrupt taken before
 * it ends; if data came in the meantime and the reader had room, the loop goes on (the
 * process's next read of the socket) and the update waits for its end. */
void tahoe_defer_rcvd(struct socket *so, int room, size_t n, int64_t copy_ns,
                      const size_t *ends, size_t nends)
{
    struct tahoe_stack *st = so->so_stack;
    if (st->rcvd_so && st->rcvd_so != so)
        tahoe_rcvd_flush(st);
    if (!st->cfg.cost.intr_preempts || !st->cfg.cost.soreceive_loop || st->cpu_free <= st->now ||
        copy_ns <= 0) {
        st->rcvd_so = so;
        tahoe_rcvd_flush(st);
        return;
    }
    st->rcvd_so = so;
    st->rcvd_at = st->cpu_free;
    st->rcvd_room = room;
    st->rcvd_bytes = n;
    st->rcvd_copy_ns = copy_ns;
    st->rcvd_nends = nends < TAHOE_RCVD_ENDS ? nends : TAHOE_RCVD_ENDS;
    memcpy(st->rcvd_ends, ends, st->rcvd_nends * sizeof *ends);
    so->so_rcv.sb_held = n;
}

/* What the copy under way has not yet freed by start, when interrupt work begins: the copy
 * has passed a share of its octets in proportion to the process-level time it has run, and
 * every mbuf it has passed the end of is free (SunOS 4.1.3 sys/os/uipc_socket.c soreceive:
 * sbfree and MFREE of an mbuf, or sb_cc -= len of a part, only after its uiomove). */
static void rcvd_release(struct tahoe_stack *st, int64_t start)
{
    if (!st->rcvd_so || st->rcvd_at == INT64_MAX)
        return;
    int64_t left = st->rcvd_at - start;
    if (left < 0)
        left = 0;
    if (left >= st->rcvd_copy_ns)
        return;
    size_t copied = st->rcvd_bytes - (size_t)((double)st->rcvd_bytes * (double)left /
                                              (double)st->rcvd_copy_ns);
    size_t freed = 0;
    for (size_t i = 0; i < st->rcvd_nends && st->rcvd_ends[i] <= copied; i++)
        freed = st->rcvd_ends[i];
    st->rcvd_so->so_rcv.sb_held = st->rcvd_bytes - freed;
}

int tahoe_rcvd_continues(const struct socket *so)
{
    const struct tahoe_stack *st = so->so_stack;
    return st->rcvd_so == so && st->rcvd_at == INT64_MAX;
}

void tahoe_rcvd_flush(struct tahoe_stack *st)
{
    struct socket *so = st->rcvd_so;
    if (!so)
        return;
    st->rcvd_so = NULL;
    so->so_rcv.sb_held = 0;
    tcp_usr_rcvd(so);
}

int64_t tahoe_bytecost(const struct tahoe_stack *st, size_t nbytes)
{
    return (int64_t)nbytes * st->cfg.cost.per_byte_ps / 1000;
}

int64_t tahoe_copycost(const struct tahoe_stack *st, size_t nbytes)
{
    return (1 + st->cfg.cost.copy_write_passes) * tahoe_bytecost(st, nbytes);
}

/* The protocol work, the checksum pass and the DMA's passes of one packet; a UDP packet (any
 * fragment of a datagram) on a host that does not checksum UDP has no checksum pass. */
static int64_t packetcost(const struct tahoe_stack *st, const uint8_t *pkt, size_t len)
{
    int cksum = !(len > IPO_PROTO && pkt[IPO_PROTO] == IPPROTO_UDP && !st->cfg.udp_cksum);
    return st->cfg.cost.per_packet_ns +
           (cksum + st->cfg.cost.dma_passes) * tahoe_bytecost(st, len);
}

static int64_t streams_cost(const struct tahoe_hostcost *c, int64_t hops)
{
    return hops * c->streams_hop_ns;
}

/* The host buffers of atm_buffer_bytes a PDU of len octets occupies (one when unsized). */
static int64_t atm_buffers(const struct tahoe_hostcost *c, size_t len)
{
    if (c->atm_buffer_bytes <= 0)
        return 1;
    return ((int64_t)len + c->atm_buffer_bytes - 1) / c->atm_buffer_bytes;
}

/* The ATM driver maps a PDU into host buffers, each its own DVMA work. */
static int64_t atm_buffers_cost(const struct tahoe_hostcost *c, size_t len)
{
    return c->atm_buffer_bytes > 0 ? atm_buffers(c, len) * c->atm_per_buffer_ns : 0;
}

/* A sun4c page (NBPG), what the ATM driver flushes from the virtual cache per receive buffer. */
#define VAC_PAGE_BYTES 4096

/* What a received frame's DMA left to flush from the virtual cache: the LANCE driver flushes the
 * frame (if_le.c leread, vac_flush); an ATM driver each receive buffer's page (HARP's
 * fore_receive.c, written for SunOS 4.1 on sun4c, vac_pageflush). */
static int64_t vac_flush_cost(const struct tahoe_stack *st, size_t len)
{
    const struct tahoe_hostcost *c = &st->cfg.cost;
    int64_t octets = st->cfg.iface == TAHOE_IF_ATM ? atm_buffers(c, len) * VAC_PAGE_BYTES
                                                   : (int64_t)len;
    return octets * c->vac_flush_per_byte_ps / 1000;
}

int64_t tahoe_outcost(const struct tahoe_stack *st, const uint8_t *pkt, size_t len)
{
    const struct tahoe_hostcost *c = &st->cfg.cost;
    int64_t driver = st->cfg.iface == TAHOE_IF_ATM ? c->atm_tx_ns + atm_buffers_cost(c, len)
                                                   : c->le_tx_ns;
    return packetcost(st, pkt, len) + driver + streams_cost(c, c->streams_tx_hops);
}

int64_t tahoe_incost(const struct tahoe_stack *st, const uint8_t *pkt, size_t len)
{
    const struct tahoe_hostcost *c = &st->cfg.cost;
    int64_t driver = st->cfg.iface == TAHOE_IF_ATM
                         ? c->atm_rx_ns + atm_buffers_cost(c, len) +
                               (int64_t)len * c->atm_rx_per_byte_ps / 1000
                         : c->le_rx_ns + (c->le_rx_copy ? tahoe_copycost(st, len) : 0);
    return packetcost(st, pkt, len) + driver + vac_flush_cost(st, len) +
           streams_cost(c, c->streams_rx_hops);
}

/* SunOS's mbufs (S4 of docs/host-mechanisms.md): clusters of 1024 octets; lestart pulls the
 * first 102 octets of a frame into its first mbuf (if_le.c lepullup0). */
#define LE_MCLBYTES 1024
#define LE_PULLUP0 102
#define LE_ETHER_HDR 14
#define LE_FCS 4
#define LE_PREAMBLE 8
#define LE_MIN_FRAME 64
#define LE_OCTET_NS 800 /* 10 Mb/s */
#define LE_GAP_NS 9600

/* mbuf sizes of SunOS 4.1.3 (sys/sys/mbuf.h MLEN: 128-octet mbufs with 112 octets of data)
 * and the room copy_to_mbufs leaves before a copied frame (sys/sunif/if_subr.c). */
#define MBUF_MLEN 112
#define ETHER_PRE_PAD 24

size_t tahoe_rcv_mbufs(const struct tahoe_stack *st, size_t lead, size_t dlen, size_t *mlen,
                       size_t max)
{
    const struct tahoe_hostcost *c = &st->cfg.cost;
    size_t n = 0;
    if (max == 0)
        return 0;
    if (st->cfg.iface == TAHOE_IF_ATM && c->atm_buffer_bytes > 0) {
        /* The adapter fills the driver's receive buffers in turn from the PDU's first octet
         * (HARP fore_receive.c: mbuf clusters); tcp_input moves m_off past the headers. */
        size_t b = (size_t)c->atm_buffer_bytes, at = lead % b, left = dlen;
        while (left && n + 1 < max) {
            size_t m = b - at < left ? b - at : left;
            mlen[n++] = m;
            left -= m;
            at = 0;
        }
        if (left)
            mlen[n++] = left;
        return n;
    }
    if (st->cfg.iface == TAHOE_IF_ATM || !c->le_rx_copy) {
        /* One buffer holds the PDU, or leread loans the LANCE's whole receive buffer up as
         * one cluster mbuf (sys/sunif/if_le.c, mclgetx). */
        mlen[n++] = dlen;
        return n;
    }
    /* copy_to_mbufs: a first small mbuf after ETHER_PRE_PAD, then 1K clusters while two small
     * mbufs' worth is left, then small mbufs; the headers fill the front. */
    size_t left = lead + dlen, skip = lead;
    for (int first = 1; left; first = 0) {
        size_t m = first ? MBUF_MLEN - ETHER_PRE_PAD : left < 2 * MBUF_MLEN ? MBUF_MLEN : LE_MCLBYTES;
        if (m > left)
            m = left;
        left -= m;
        size_t gone = skip < m ? skip : m;
        skip -= gone;
        if (m == gone)
            continue;
        if (n + 1 == max) {
            mlen[n++] = m - gone + left;
            break;
        }
        mlen[n++] = m - gone;
    }
    return n;
}

/* The descriptors of one frame, one per mbuf: the header mbuf (Ethernet, IP and the transport
 * header, then the data lestart pulls up into it) and the clusters the rest of the data spans.
 * The data lie in clusters from offset data_off of the sender's data: a fragment's place in
 * its datagram, a TCP segment's sequence number (the phase of the stream's clusters is not
 * known; its average is what counts). */
static int le_tmds(size_t hdr, uint64_t data_off, size_t data_len)
{
    size_t pulled = hdr + LE_ETHER_HDR < LE_PULLUP0 ? LE_PULLUP0 - hdr - LE_ETHER_HDR : 0;
    if (data_len <= pulled)
        return 1;
    uint64_t a = data_off + pulled, end = data_off + data_len;
    return 1 + (int)((end - 1) / LE_MCLBYTES - a / LE_MCLBYTES + 1);
}

/* The descriptors the IP packet pkt takes in the ring. */
static int le_packet_tmds(const uint8_t *pkt, size_t len)
{
    size_t ihl = (size_t)(pkt[0] & 0x0f) * 4;
    if (len < ihl || len < IP_HDRLEN)
        return 1;
    uint64_t frag = (uint64_t)(get16(pkt + IPO_OFF) & IP_OFFMASK) * 8;
    size_t payload = len - ihl;
    const uint8_t *tp = pkt + ihl;
    /* A later fragment (of a UDP datagram: TCP's segments fit the MTU): its data sit past the
     * UDP header in the datagram. */
    if (frag > 0)
        return le_tmds(ihl, frag - UDP_HDRLEN, payload);
    if (pkt[IPO_PROTO] == IPPROTO_TCP && payload >= TCP_HDRLEN) {
        size_t thl = (size_t)(tp[12] >> 4) * 4;
        return le_tmds(ihl + thl, get32(tp + THO_SEQ), payload > thl ? payload - thl : 0);
    }
    if (pkt[IPO_PROTO] == IPPROTO_UDP && payload >= UDP_HDRLEN)
        return le_tmds(ihl + UDP_HDRLEN, 0, payload - UDP_HDRLEN);
    return le_tmds(ihl, 0, payload);
}

int tahoe_le_ring(struct tahoe_stack *st, const uint8_t *pkt, size_t len, int64_t at_ns)
{
    int64_t ring = st->cfg.cost.le_tx_tmds;
    if (ring <= 0 || st->cfg.iface == TAHOE_IF_ATM)
        return 0;
    while (st->le_ring_len > 0 && st->le_ring[st->le_ring_head].done_ns <= at_ns) {
        st->le_ring_tmds -= st->le_ring[st->le_ring_head].tmds;
        st->le_ring_head = (st->le_ring_head + 1) % TAHOE_LE_RING_MAX;
        st->le_ring_len--;
    }
    int tmds = le_packet_tmds(pkt, len);
    /* lestart stops one short of the descriptor the chip is on: ring - 1 can be held. */
    if (st->le_ring_tmds + tmds > ring - 1 || st->le_ring_len == TAHOE_LE_RING_MAX) {
        st->le_no_tmds++;
        return -ENOBUFS;
    }
    /* It leaves once the frames before it have, at the LANCE's 10 Mb/s: preamble, header, data
     * and FCS (64 octets at least) and the gap (IEEE 802.3). */
    size_t octets = len + LE_ETHER_HDR + LE_FCS < LE_MIN_FRAME ? LE_MIN_FRAME : len + LE_ETHER_HDR + LE_FCS;
    int64_t start = st->le_wire_free > at_ns ? st->le_wire_free : at_ns;
    st->le_wire_free = start + (int64_t)(octets + LE_PREAMBLE) * LE_OCTET_NS + LE_GAP_NS;
    st->le_ring[(st->le_ring_head + st->le_ring_len) % TAHOE_LE_RING_MAX] =
        (struct le_tmd_frame){st->le_wire_free, tmds};
    st->le_ring_len++;
    st->le_ring_tmds += tmds;
    return 0;
}

int64_t tahoe_bus(struct tahoe_stack *st, int64_t at_ns, size_t len)
{
    int64_t rate = st->cfg.cost.sbus_dma_bytes_per_s;
    if (rate <= 0)
        return at_ns;
    int64_t dma = (int64_t)((double)len * 1e9 / (double)rate);
    int64_t start = st->bus_free > at_ns ? st->bus_free : at_ns;
    st->bus_free = start + dma;
    st->cpustat.bus_ns += dma;
    return st->bus_free;
}

int64_t tahoe_now_ns(const struct tahoe_stack *st) { return st->now; }
void tahoe_cpu_charge(struct tahoe_stack *st, int64_t ns) { tahoe_charge(st, ns); }
int64_t tahoe_cpu_free_ns(const struct tahoe_stack *st)
{
    return st->cpu_free > st->now ? st->cpu_free : st->now;
}

int64_t tahoe_wakeup(struct tahoe_stack *st)
{
    const struct tahoe_hostcost *c = &st->cfg.cost;
    st->in_intr = 1;
    int64_t woken = tahoe_charge(st, c->wakeup_ns);
    st->in_intr = 0;
    st->cpustat.wakeups++;
    if (c->late_wakeup_pct > 0 && nr_rng_unit(&st->jitter) * 100.0 < (double)c->late_wakeup_pct) {
        int64_t late = draw_uniform(st, c->late_wakeup_max_ns);
        st->cpustat.late_wakeups++;
        st->cpustat.late_wakeup_ns += late;
        woken += late;
    }
    return woken;
}

void tahoe_switch_to(struct tahoe_stack *st)
{
    st->cpustat.ctx_switches++;
    tahoe_charge(st, st->cpustat.ctx_switch_ns);
}

/* Processes one received packet: the CPU takes it when free (and not before it arrived). */
static void process_input(struct tahoe_stack *st, struct inpkt *p)
{
    st->inq = p->next;
    if (!st->inq)
        st->inq_tail = NULL;
    st->inq_len--;
    rcvd_release(st, st->intr_free > st->now ? st->intr_free : st->now);
    st->in_intr = 1;
    tahoe_charge(st, tahoe_incost(st, p->data, p->len));
    ip_input_process(st, p->data, p->len);
    st->in_intr = 0;
    free(p);
}

/* When interrupt-level work can start: after earlier interrupt work, or after all work. */
static int64_t intr_level_free(const struct tahoe_stack *st)
{
    return st->cfg.cost.intr_preempts ? st->intr_free : st->cpu_free;
}

static int64_t input_ready_time(const struct tahoe_stack *st)
{
    if (!st->inq)
        return INT64_MAX;
    int64_t free_at = intr_level_free(st);
    return st->inq->arrival_ns > free_at ? st->inq->arrival_ns : free_at;
}

void tahoe_clock(struct tahoe_stack *st, int64_t now_ns)
{
    for (;;) {
        int64_t t_in = input_ready_time(st);
        int64_t t_tick = st->next_fast < st->next_slow ? st->next_fast : st->next_slow;
        if (st->next_hz < t_tick)
            t_tick = st->next_hz;
        int64_t t = t_in < t_tick ? t_in : t_tick;
        /* At a common instant interrupts come first: they would have preempted the copy. */
        if (st->rcvd_so && st->rcvd_at < t && st->rcvd_at <= now_ns) {
            if (st->rcvd_at > st->now)
                st->now = st->rcvd_at;
            if (st->rcvd_room && st->rcvd_so->so_rcv.sb_cc > 0) {
                st->rcvd_at = INT64_MAX;
                st->rcvd_so->so_rcv.sb_held = 0;
                continue;
            }
            /* The update's work goes where the copy ended, before what the process did next. */
            int64_t later = st->cpu_free - st->rcvd_at;
            st->cpu_free = st->rcvd_at;
            tahoe_rcvd_flush(st);
            st->cpu_free += later > 0 ? later : 0;
            continue;
        }
        if (t > now_ns)
            break;
        if (t > st->now)
            st->now = t;
        if (t_in <= t_tick) {
            process_input(st, st->inq);
            continue;
        }
        st->in_intr = 1;
        /* hardclock first: the protocols' ticks are callouts that softclock runs after it. It
         * is not a deadline: work that spans a tick is pushed later when the clock passes it. */
        if (st->next_hz == t) {
            st->next_hz += 1000000000LL / st->cfg.cost.clock_hz;
            st->cpustat.clock_ticks++;
            tahoe_charge(st, st->cfg.cost.clock_tick_ns);
        }
        /* Both ticks come from the one hardware clock; at a common instant fast runs first. */
        if (st->next_fast == t) {
            st->next_fast += FASTTICK_NS;
            tcp_fasttimo(st);
        }
        if (st->next_slow == t) {
            st->next_slow += SLOWTICK_NS;
            ip_slowtimo(st);
            tcp_slowtimo(st);
        }
        st->in_intr = 0;
    }
    if (now_ns > st->now)
        st->now = now_ns;
}

void tahoe_ip_input(struct tahoe_stack *st, const uint8_t *pkt, size_t len)
{
    if (st->inq_len >= IFQ_MAXLEN) {
        st->ipstat.ips_qdrop++;
        return;
    }
    struct inpkt *p = malloc(sizeof *p + len);
    if (!p) {
        st->ipstat.ips_qdrop++;
        return;
    }
    p->next = NULL;
    /* The frame's DMA over the bus, then its interrupt, which may be held off a while. */
    p->arrival_ns = tahoe_bus(st, st->now, len) + draw_uniform(st, st->cfg.cost.intr_jitter_max_ns);
    p->len = len;
    memcpy(p->data, pkt, len);
    if (st->inq_tail)
        st->inq_tail->next = p;
    else
        st->inq = p;
    st->inq_tail = p;
    st->inq_len++;
    /* An idle CPU takes the packet at once; a busy one leaves it for tahoe_clock. */
    if (st->inq == p && intr_level_free(st) <= st->now && p->arrival_ns <= st->now)
        process_input(st, p);
}

/* The slow tick at which a timer holding v ticks expires. */
static int64_t slow_expiry(const struct tahoe_stack *st, int v)
{
    return st->next_slow + (int64_t)(v - 1) * SLOWTICK_NS;
}

int64_t tahoe_next_deadline(const struct tahoe_stack *st)
{
    int64_t dl = input_ready_time(st);
    if (st->rcvd_so && st->rcvd_at < dl)
        dl = st->rcvd_at;
    for (struct inpcb *inp = st->tcb; inp; inp = inp->inp_next) {
        const struct tcpcb *tp = inp->inp_ppcb;
        if (!tp)
            continue;
        if ((tp->t_flags & TF_DELACK) && st->next_fast < dl)
            dl = st->next_fast;
        for (int i = 0; i < TCPT_NTIMERS; i++)
            if (tp->t_timer[i] && slow_expiry(st, tp->t_timer[i]) < dl)
                dl = slow_expiry(st, tp->t_timer[i]);
    }
    if (st->ipq_last && slow_expiry(st, st->ipq_last->ttl) < dl)
        dl = slow_expiry(st, st->ipq_last->ttl);
    return dl;
}

const struct tcpstat *tahoe_tcpstat(const struct tahoe_stack *st) { return &st->tcpstat; }
const struct ipstat *tahoe_ipstat(const struct tahoe_stack *st) { return &st->ipstat; }
const struct udpstat *tahoe_udpstat(const struct tahoe_stack *st) { return &st->udpstat; }
uint64_t tahoe_le_no_tmds(const struct tahoe_stack *st) { return st->le_no_tmds; }
const struct icmpstat *tahoe_icmpstat(const struct tahoe_stack *st) { return &st->icmpstat; }
const struct tahoe_cpustat *tahoe_cpustat(const struct tahoe_stack *st) { return &st->cpustat; }

/* Host model files: the YAML subset configs/hosts/ uses, one `key: value` a line at the left
 * margin, comments, and the indented block of `fitted` (which records how values were chosen
 * and changes none). Every other key is refused, so the schema and this reader cannot drift
 * apart unseen (test_hostcost checks that they name the same keys). */
/* No cost of a host model is above a second, nor its memory above a terabyte: with these a
 * run's costs stay far inside the 64-bit virtual clock (netrepro/limits.py HOST_KEYS, which the
 * validator checks, says why). per_packet_ns 9223372036854775807 wrapped it around. */
#define HOST_MAX_COST 1000000000LL
#define HOST_MAX_BYTES (1LL << 40)
#define HOSTKEY(k, lo, hi) {#k, offsetof(struct tahoe_hostcost, k), lo, hi}
static const struct hostkey {
    const char *name;
    size_t off;
    int64_t min, max;
} hostkeys[] = {
    HOSTKEY(per_packet_ns, 0, HOST_MAX_COST), HOSTKEY(per_byte_ps, 0, HOST_MAX_COST),
    HOSTKEY(per_call_ns, 0, HOST_MAX_COST), HOSTKEY(copy_write_passes, 0, 8),
    HOSTKEY(dma_passes, 0, 8), HOSTKEY(ram_bytes, 0, HOST_MAX_BYTES),
    HOSTKEY(resident_bytes, 0, HOST_MAX_BYTES), HOSTKEY(page_size, 512, 1 << 20),
    HOSTKEY(page_in_ns, 0, HOST_MAX_COST), HOSTKEY(page_out_ns, 0, HOST_MAX_COST),
    HOSTKEY(spin_ps, 1, HOST_MAX_COST), HOSTKEY(print_ns, 0, HOST_MAX_COST),
    HOSTKEY(clock_hz, 1, 1000000000), HOSTKEY(intr_preempts, 0, 1),
    HOSTKEY(soreceive_loop, 0, 1),
    HOSTKEY(wakeup_ns, 0, HOST_MAX_COST), HOSTKEY(ctx_switch_ns, 0, HOST_MAX_COST),
    HOSTKEY(ctx_switch_spread_pct, 0, 100),
    HOSTKEY(clock_tick_ns, 0, HOST_MAX_COST), HOSTKEY(intr_jitter_max_ns, 0, HOST_MAX_COST),
    HOSTKEY(late_wakeup_pct, 0, 100), HOSTKEY(late_wakeup_max_ns, 0, HOST_MAX_COST),
    HOSTKEY(le_tx_ns, 0, HOST_MAX_COST), HOSTKEY(le_rx_ns, 0, HOST_MAX_COST),
    HOSTKEY(le_rx_copy, 0, 1), HOSTKEY(le_tx_tmds, 0, TAHOE_LE_RING_MAX),
    HOSTKEY(atm_tx_ns, 0, HOST_MAX_COST), HOSTKEY(atm_rx_ns, 0, HOST_MAX_COST),
    HOSTKEY(atm_per_buffer_ns, 0, HOST_MAX_COST), HOSTKEY(atm_buffer_bytes, 0, 65535),
    HOSTKEY(atm_rx_per_byte_ps, 0, HOST_MAX_COST), HOSTKEY(streams_hop_ns, 0, HOST_MAX_COST),
    HOSTKEY(streams_tx_hops, 0, 16), HOSTKEY(streams_rx_hops, 0, 16),
    HOSTKEY(sbus_dma_bytes_per_s, 0, HOST_MAX_BYTES),
    HOSTKEY(udp_sendspace_bytes, 0, 65535), HOSTKEY(udp_recvspace_bytes, 0, 262144),
    HOSTKEY(sb_addr_bytes, 0, 128), HOSTKEY(vac_flush_per_byte_ps, 0, HOST_MAX_COST),
    HOSTKEY(udp_no_cksum, 0, 1),
    HOSTKEY(disk_rpm, 0, 100000), HOSTKEY(disk_track_bytes, 0, 1 << 24),
    HOSTKEY(disk_seek_avg_ns, 0, HOST_MAX_COST), HOSTKEY(disk_seek_track_ns, 0, HOST_MAX_COST),
    HOSTKEY(disk_command_ns, 0, HOST_MAX_COST), HOSTKEY(ufs_block_bytes, 512, 1 << 16),
    HOSTKEY(ufs_cluster_bytes, 0, 1 << 20), HOSTKEY(ufs_rotdelay_ns, 0, HOST_MAX_COST),
    HOSTKEY(ufs_writes_limit_bytes, 0, HOST_MAX_BYTES),
    HOSTKEY(ufs_cache_bytes, 0, HOST_MAX_BYTES), HOSTKEY(swap_kluster_bytes, 0, 1 << 20),
};
#define NHOSTKEYS (sizeof hostkeys / sizeof hostkeys[0])

/* The keys that are not costs: the model's name, the models it extends, how it was fitted,
 * and whether it is a part that only models extend. */
static const char *const meta_keys[] = {"name", "extends", "fitted", "part"};
#define NMETAKEYS (sizeof meta_keys / sizeof meta_keys[0])

const char *tahoe_hostcost_key(size_t i)
{
    if (i < NMETAKEYS)
        return meta_keys[i];
    return i - NMETAKEYS < NHOSTKEYS ? hostkeys[i - NMETAKEYS].name : NULL;
}

/* A model may extend one that extends another; a loop of them is an error, not a hang. */
#define EXTENDS_DEPTH_MAX 8
/* The most models one `extends: [a, b]` names (the schema's maxItems), and the most files one
 * model's reading may open in all, so bases that share bases cannot multiply the reads. */
#define EXTENDS_BASES_MAX 4
#define EXTENDS_FILES_MAX 32

/* The three costs every model gives, itself or through the models it extends. */
static const char *const required_keys[] = {"per_packet_ns", "per_byte_ps", "per_call_ns"};

static const struct hostkey *hostkey_find(const char *name)
{
    for (size_t i = 0; i < NHOSTKEYS; i++)
        if (strcmp(hostkeys[i].name, name) == 0)
            return &hostkeys[i];
    return NULL;
}

/* Strips a comment (a # at the start or after a blank) and trailing blanks. */
static void strip_line(char *line)
{
    for (char *p = line; *p; p++)
        if (*p == '#' && (p == line || p[-1] == ' ' || p[-1] == '\t')) {
            *p = '\0';
            break;
        }
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ' ||
                 line[n - 1] == '\t'))
        line[--n] = '\0';
}

/* A host model file is at most this long (netrepro/yamlsrc.py MAX_FILE_BYTES, the most any spec
 * file may have): a longer one, or a device such as /dev/zero, is refused unread. */
#define HOST_MODEL_MAX_BYTES (1 << 20)

/* The file's text, NUL-terminated, in a buffer to free; NULL with *rc a negative errno. */
static char *read_host_model(const char *path, int *rc)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *rc = -errno;
        return NULL;
    }
    struct stat st;
    char *text = NULL;
    if (fstat(fd, &st) < 0) {
        *rc = -errno;
    } else if (!S_ISREG(st.st_mode) || st.st_size > HOST_MODEL_MAX_BYTES) {
        *rc = -EINVAL;
    } else if (!(text = malloc((size_t)st.st_size + 1))) {
        *rc = -ENOMEM;
    } else {
        ssize_t n = read(fd, text, (size_t)st.st_size);
        if (n < 0) {
            *rc = -errno;
            free(text);
            text = NULL;
        } else {
            text[n] = '\0';
        }
    }
    close(fd);
    return text;
}

/* Splits an `extends` value, a name or a flow list `[a, b]`, into names; the count, or -1. */
static int extends_names(char *val, char names[][201])
{
    size_t len = strlen(val);
    int list = val[0] == '[';
    if (list) {
        if (len < 2 || val[len - 1] != ']')
            return -1;
        val[len - 1] = '\0';
        val++;
    }
    int n = 0;
    for (char *item = val, *comma; item; item = comma) {
        comma = strchr(item, ',');
        if (comma)
            *comma++ = '\0';
        while (*item == ' ' || *item == '\t')
            item++;
        size_t ilen = strlen(item);
        while (ilen && (item[ilen - 1] == ' ' || item[ilen - 1] == '\t'))
            item[--ilen] = '\0';
        if (!ilen || ilen > 200 || strchr(item, '/') || n == EXTENDS_BASES_MAX)
            return -1;
        memcpy(names[n++], item, ilen + 1);
    }
    return n;
}

/* Reads path's keys into c, which starts zeroed; set[i] records which of hostkeys the model or
 * the models it extends gave. Each listed base's keys go over those of the bases before it, the
 * model's own over all. *part says whether the file is a part. */
static int hostcost_read_file(const char *path, int depth, int *files,
                              struct tahoe_hostcost *c, int set[NHOSTKEYS], int *part, char *err,
                              size_t errlen)
{
    if (depth > EXTENDS_DEPTH_MAX) {
        snprintf(err, errlen, "%s: more than %d models extend one another (a loop?)", path,
                 EXTENDS_DEPTH_MAX);
        return -ELOOP;
    }
    if (++*files > EXTENDS_FILES_MAX) {
        snprintf(err, errlen, "%s: a model's extends reach more than %d files", path,
                 EXTENDS_FILES_MAX);
        return -ELOOP;
    }
    int rc = 0;
    char *text = read_host_model(path, &rc);
    if (!text) {
        snprintf(err, errlen, "%s: %s", path,
                 rc == -EINVAL ? "not a regular file of at most 1 MiB" : strerror(-rc));
        return rc;
    }
    struct tahoe_hostcost own;
    memset(&own, 0, sizeof own);
    int own_set[NHOSTKEYS] = {0};
    char bases[EXTENDS_BASES_MAX][201];
    int nbases = 0, lineno = 0, in_block = 0;
    *part = 0;
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        strip_line(line);
        if (!line[0])
            continue;
        if (line[0] == ' ' || line[0] == '\t' || line[0] == '-') {
            if (in_block)
                continue;
            snprintf(err, errlen, "%s:%d: an indented line outside `fitted`", path, lineno);
            rc = -EINVAL;
            break;
        }
        in_block = 0;
        char *colon = strchr(line, ':');
        if (!colon) {
            snprintf(err, errlen, "%s:%d: not a `key: value` line", path, lineno);
            rc = -EINVAL;
            break;
        }
        *colon = '\0';
        char *key = line, *val = colon + 1;
        while (*val == ' ' || *val == '\t')
            val++;
        if (strcmp(key, "name") == 0)
            continue;
        if (strcmp(key, "fitted") == 0) {
            in_block = 1;
            continue;
        }
        if (strcmp(key, "part") == 0) {
            if (strcmp(val, "true") != 0) {
                snprintf(err, errlen, "%s:%d: part: only `part: true` (a file only models "
                         "extend)", path, lineno);
                rc = -EINVAL;
                break;
            }
            *part = 1;
            continue;
        }
        if (strcmp(key, "extends") == 0) {
            nbases = extends_names(val, bases);
            if (nbases < 1) {
                snprintf(err, errlen, "%s:%d: extends: give the name of a model in the same "
                         "folder, without .yaml, or a list of at most %d", path, lineno,
                         EXTENDS_BASES_MAX);
                rc = -EINVAL;
                break;
            }
            continue;
        }
        const struct hostkey *k = hostkey_find(key);
        if (!k) {
            snprintf(err, errlen, "%s:%d: %s is not a host model key (configs/schema/"
                     "host.schema.json)", path, lineno, key);
            rc = -EINVAL;
            break;
        }
        long long v;
        if (nr_parse_count(val, k->max, &v) || v < k->min) {
            snprintf(err, errlen, "%s:%d: %s: '%s' is not a whole number from %lld to %lld",
                     path, lineno, key, val, (long long)k->min, (long long)k->max);
            rc = -EINVAL;
            break;
        }
        memcpy((char *)&own + k->off, &(int64_t){v}, sizeof(int64_t));
        own_set[k - hostkeys] = 1;
    }
    free(text);
    if (rc < 0)
        return rc;
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    for (int b = 0; b < nbases; b++) {
        char bpath[1024];
        snprintf(bpath, sizeof bpath, "%.*s%s.yaml", dirlen, path, bases[b]);
        struct tahoe_hostcost base;
        memset(&base, 0, sizeof base);
        int base_set[NHOSTKEYS] = {0}, base_part;
        rc = hostcost_read_file(bpath, depth + 1, files, &base, base_set, &base_part, err,
                                errlen);
        if (rc < 0)
            return rc;
        for (size_t i = 0; i < NHOSTKEYS; i++)
            if (base_set[i]) {
                memcpy((char *)c + hostkeys[i].off, (char *)&base + hostkeys[i].off,
                       sizeof(int64_t));
                set[i] = 1;
            }
    }
    for (size_t i = 0; i < NHOSTKEYS; i++)
        if (own_set[i]) {
            memcpy((char *)c + hostkeys[i].off, (char *)&own + hostkeys[i].off, sizeof(int64_t));
            set[i] = 1;
        }
    return 0;
}

int tahoe_hostcost_read(const char *path, struct tahoe_hostcost *out, char *err, size_t errlen)
{
    struct tahoe_hostcost c;
    memset(&c, 0, sizeof c);
    int set[NHOSTKEYS] = {0}, part, files = 0;
    int rc = hostcost_read_file(path, 0, &files, &c, set, &part, err, errlen);
    if (rc < 0)
        return rc;
    if (part) {
        snprintf(err, errlen, "%s: a part (part: true), not a host: name a model that extends "
                 "it", path);
        return -EINVAL;
    }
    for (size_t i = 0; i < sizeof required_keys / sizeof required_keys[0]; i++)
        if (!set[hostkey_find(required_keys[i]) - hostkeys]) {
            snprintf(err, errlen, "%s: %s is missing (give it, or extend a model that does)",
                     path, required_keys[i]);
            return -EINVAL;
        }
    /* A tick must be a whole number of nanoseconds, so the ticks stay on one grid. */
    if (c.clock_hz > 0 && 1000000000LL % c.clock_hz != 0) {
        snprintf(err, errlen, "%s: clock_hz %lld does not divide 1000000000", path,
                 (long long)c.clock_hz);
        return -EINVAL;
    }
    /* Paging needs all of its keys, and memory left for the process. */
    if (c.ram_bytes && (c.page_size <= 0 || c.resident_bytes + c.page_size > c.ram_bytes)) {
        snprintf(err, errlen, "%s: ram_bytes needs page_size, and resident_bytes at least a "
                 "page below it", path);
        return -EINVAL;
    }
    /* With a disk, paging goes through it: the CPU stand-ins for one would be dead keys. */
    if (c.disk_rpm && c.disk_track_bytes && (c.page_in_ns || c.page_out_ns)) {
        snprintf(err, errlen, "%s: a model with a disk (disk_rpm, disk_track_bytes) pages "
                 "through it; drop page_in_ns and page_out_ns", path);
        return -EINVAL;
    }
    *out = c;
    return 0;
}

int tahoe_hostcost_load(const char *path, struct tahoe_hostcost *out)
{
    char err[256];
    return tahoe_hostcost_read(path, out, err, sizeof err);
}
