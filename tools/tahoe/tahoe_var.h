/* The stack object: everything one host's kernel would hold. No global state. */
#ifndef TAHOE_VAR_H
#define TAHOE_VAR_H

#include "ip_icmp.h"
#include "rng.h"
#include "ip_var.h"
#include "tahoe.h"
#include "tcp_var.h"
#include "udp_var.h"

struct inpcb;
struct socket;

/* A received packet waiting for the CPU. */
struct inpkt {
    struct inpkt *next;
    int64_t arrival_ns;
    size_t len;
    uint8_t data[];
};

#define IFQ_MAXLEN 50 /* 4.3BSD ipintrq limit */
#define FASTTICK_NS (1000000000LL / PR_FASTHZ)
#define SLOWTICK_NS (1000000000LL / PR_SLOWHZ)
/* A boot drawn over a whole number of both ticks gives each tick every phase alike. */
_Static_assert(TAHOE_BOOT_SPREAD_NS % FASTTICK_NS == 0 && TAHOE_BOOT_SPREAD_NS % SLOWTICK_NS == 0,
               "TAHOE_BOOT_SPREAD_NS must hold whole fast and slow ticks");

/* The LANCE's rings hold at most 128 descriptors (Am7990; SunOS 4.1.3 le_conf.c uses all). */
#define TAHOE_LE_RING_MAX 128
/* The mbuf ends of one read the stack follows (tahoe_defer_rcvd); past them the rest of the
 * read comes free at its end. */
#define TAHOE_RCVD_ENDS 256

struct tahoe_stack {
    struct tahoe_config cfg;
    int64_t now;      /* the clock as last given */
    int64_t cpu_free; /* when the CPU finishes what it was charged */
    /* intr_preempts: when interrupt-level work ends; it runs before process-level work, which
     * it pushes later (cpu_free). in_intr: the work being charged is at interrupt level. */
    int64_t intr_free;
    int in_intr;
    /* The process sleeps on its disk until sleep_end (tahoe_proc_sleep, disk.c): interrupt
     * work before then does not delay it. */
    int64_t sleep_end;
    int64_t bus_free; /* when the I/O bus finishes the DMA it was given */
    /* A stream read's PRU_RCVD waits for the end of its copy (tahoe_defer_rcvd): the socket,
     * or NULL; when the process's copy ends, pushed like cpu_free by interrupt work, or
     * INT64_MAX while the read goes on with what arrived during it; whether the reader's
     * buffer had room for more. */
    struct socket *rcvd_so;
    int64_t rcvd_at;
    int rcvd_room;
    /* The octets of the copy under way and its process-level time, and where within them
     * each mbuf the copy empties comes free: soreceive frees an mbuf once its uiomove is
     * done, so the space comes free an mbuf at a time as the copy goes. */
    size_t rcvd_bytes;
    int64_t rcvd_copy_ns;
    size_t rcvd_ends[TAHOE_RCVD_ENDS];
    size_t rcvd_nends;
    /* The LANCE's transmit ring (cost.le_tx_tmds): the frames in it, oldest first, each with
     * when it has left the wire and the descriptors it holds. */
    struct le_tmd_frame {
        int64_t done_ns;
        int tmds;
    } le_ring[TAHOE_LE_RING_MAX];
    int le_ring_head, le_ring_len, le_ring_tmds;
    int64_t le_wire_free; /* when the LANCE's last frame has left the wire */
    uint64_t le_no_tmds;  /* frames dropped for want of descriptors (if_le.c es_no_tmds) */
    struct nr_rng jitter; /* interrupt delays (tahoe_config.jitter_seed) */
    struct tahoe_cpustat cpustat;
    int64_t next_fast, next_slow;
    int64_t next_hz; /* the next clock interrupt whose work is charged; INT64_MAX: none */

    struct inpkt *inq, *inq_tail;
    int inq_len;

    uint16_t ip_id;
    /* Newest first: each enters with IPFRAGTTL and all age together, so ttl falls along the
     * list and the last is the first to expire (tahoe_next_deadline reads it each event). */
    struct ipq *ipq, *ipq_last;
    struct inpcb *tcb, *udb, *ripcb;
    struct socket **fds;
    int nfds;
    tcp_seq tcp_iss;
    uint16_t last_port;

    struct ipstat ipstat;
    struct icmpstat icmpstat;
    struct udpstat udpstat;
    struct tcpstat tcpstat;
};

/* Charges ns of CPU work starting when the CPU is free (not before now); returns the time the
 * work ends. */
int64_t tahoe_charge(struct tahoe_stack *st, int64_t ns);
/* PRU_RCVD for so once the process's work charged so far is done (soreceive_loop), else now;
 * room: the read could have taken more, so it goes on if more arrives during its copy; n
 * octets taken, whose copy takes copy_ns, come free as it goes, an mbuf at a time: the first
 * ends[i] octets once the copy has passed them (sbmbuf_ends; nends of them, the last n). */
void tahoe_defer_rcvd(struct socket *so, int room, size_t n, int64_t copy_ns,
                      const size_t *ends, size_t nends);
/* The data lengths of the mbufs the receiving driver and tcp_input leave a segment's dlen
 * octets in, lead octets of the first receive buffer (headers, octets trimmed) before them:
 * their number, at most max (the last taking the rest). */
size_t tahoe_rcv_mbufs(const struct tahoe_stack *st, size_t lead, size_t dlen, size_t *mlen,
                       size_t max);
/* Whether a read of so goes on with the read whose PRU_RCVD waits (soreceive's loop). */
int tahoe_rcvd_continues(const struct socket *so);
/* Runs a PRU_RCVD still waiting: the process makes another call before its time came. */
void tahoe_rcvd_flush(struct tahoe_stack *st);
/* Cost of nbytes passes over memory. */
int64_t tahoe_bytecost(const struct tahoe_stack *st, size_t nbytes);
/* Cost of copying nbytes between user space and the kernel: the read pass and the stores. */
int64_t tahoe_copycost(const struct tahoe_stack *st, size_t nbytes);
/* Cost of one IP packet pkt of len octets sent (tahoe_outcost) or received (tahoe_incost): the
 * protocol work, the checksum pass (unless a UDP one goes unchecksummed), the memory the
 * interface's DMA of the frame takes from the CPU, and the driver's work for the interface the
 * stack attaches. */
int64_t tahoe_outcost(const struct tahoe_stack *st, const uint8_t *pkt, size_t len);
int64_t tahoe_incost(const struct tahoe_stack *st, const uint8_t *pkt, size_t len);
/* A frame of len octets the CPU finished at at_ns crosses the I/O bus: when its DMA ends. */
int64_t tahoe_bus(struct tahoe_stack *st, int64_t at_ns, size_t len);
/* The LANCE's transmit ring takes the IP packet pkt handed to it at at_ns: 0, or -ENOBUFS when
 * its descriptors are all held by frames still to leave (the frame is dropped). */
int tahoe_le_ring(struct tahoe_stack *st, const uint8_t *pkt, size_t len, int64_t at_ns);
/* Releases a socket's descriptor slot. */
void tahoe_fd_release(struct tahoe_stack *st, struct socket *so);
int tahoe_fd_alloc(struct tahoe_stack *st, struct socket *so);

#endif
