/* tahoe: a user-space TCP/IP stack that behaves as 4.3BSD-Tahoe (SunOS 4.1) did.
 *
 * A stack owns no thread, clock or device. It takes time only from tahoe_clock() and packets
 * only from tahoe_ip_input(), and hands every IPv4 packet it sends to the if_output callback.
 * The caller keeps time moving: call tahoe_clock(st, now) before any other call made at time
 * now (time never goes back), and again at tahoe_next_deadline(st). Several stacks may live in
 * one process; if_output must not call back into any stack (queue the packet instead).
 *
 * Host processing costs (configs/hosts/) are charged to the stack's CPU: every packet sent or
 * received, every octet copied or checksummed and every socket call keeps the CPU busy. Packets
 * leave at the time the CPU finishes them (the at_ns passed to if_output); packets that arrive
 * while the CPU is busy wait in the input queue.
 *
 * Every call returns a non-negative value on success or a negative errno; socket calls never
 * block (-EAGAIN). */
#ifndef TAHOE_H
#define TAHOE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tahoe_stack;
struct tcpstat;
struct ipstat;
struct udpstat;
struct icmpstat;
struct tcpcb;

/* Processing costs of one host model, the same for every run on that host. Every field that
 * a model leaves out is 0, and 0 means the mechanism is absent: a model with none of the
 * mechanism keys below runs the stack exactly as one with the first five costs alone. */
struct tahoe_hostcost {
    int64_t per_packet_ns; /* protocol and interrupt work per IP packet in or out */
    int64_t per_byte_ps;   /* one pass of the memory over one octet (a checksum, a copy's loads) */
    /* Further passes, per_byte_ps each; 0 when the model does not say. */
    int64_t copy_write_passes; /* a copy's stores (user <-> kernel), on top of its read pass */
    int64_t dma_passes;        /* the interface's DMA of each frame in or out, which holds the
                                * memory the CPU needs */
    int64_t per_call_ns;   /* entering and leaving one socket call */
    /* Paging (vm_page.h); ram_bytes 0: the process never pages. */
    int64_t ram_bytes;      /* the host's memory */
    int64_t resident_bytes; /* held by the kernel and other processes, never the process's */
    int64_t page_size;      /* octets */
    int64_t page_in_ns;     /* reading one page back from swap */
    int64_t page_out_ns;    /* writing one dirty page to swap */
    /* The application's own CPU time; 0 when the model does not say. */
    int64_t spin_ps;  /* one iteration of an empty busy loop, picoseconds */
    int64_t print_ns; /* printing one line to the terminal */
    /* The kernel's clock interrupts a second (hz); the application's alarms fire only on them.
     * 0: the model does not say, and alarms fire at the instant asked for. */
    int64_t clock_hz;
    /* 1: interrupt-level work (input, timers) runs before the process's, which it delays;
     * 0: one queue of work in order of arrival. */
    int64_t intr_preempts;
    /* 1 (with intr_preempts): a stream read copies on with what arrives during its copy,
     * frees the space as it copies, and issues PRU_RCVD (the window update) after its loop
     * (SunOS 4.1.3's and 4.3BSD's soreceive); 0: it frees its space at once and PRU_RCVD
     * follows at once. */
    int64_t soreceive_loop;
    /* The receive path: a process that slept waiting for data is woken from interrupt level
     * (wakeup_ns there), runs once interrupt-level work is done, and pays ctx_switch_ns at
     * process level before it runs (SunOS 4 kern_synch.c: a process woken from a kernel sleep
     * outranks user mode; the host runs no other process). */
    int64_t wakeup_ns;
    int64_t ctx_switch_ns;
    /* One process's switches cost ctx_switch_ns raised by a uniform draw of up to this
     * percentage, made from the run's seed when the stack starts and again at each
     * tahoe_process_begins: lmbench's lat_ctx saw switch times differ by 10-15 % from run to
     * run (the processes' layout in the caches and TLB, its author suspects). 0: every process
     * pays ctx_switch_ns. */
    int64_t ctx_switch_spread_pct;
    /* hardclock's work at each of the clock_hz ticks, at interrupt level from the boot's tick
     * phase (kern_clock.c); 0: the ticks cost nothing. */
    int64_t clock_tick_ns;
    /* A hardware interrupt waits a uniform draw in 0..intr_jitter_max_ns (spl sections). */
    int64_t intr_jitter_max_ns;
    /* Another process on the host: late_wakeup_pct of the wakeups find it inside a system call,
     * which SunOS 4's kernel does not preempt, and the woken process waits what is left of it, a
     * uniform draw in 0..late_wakeup_max_ns. 0: the host runs no other process. */
    int64_t late_wakeup_pct;
    int64_t late_wakeup_max_ns;
    /* The driver's work per frame, by the interface the stack attaches (tahoe_config.iface). */
    int64_t le_tx_ns, le_rx_ns;   /* the LANCE Ethernet driver */
    /* 1: every frame received is copied out of the LANCE's buffer into mbufs (SunOS's le with no
     * spare receive buffer to loan up: a kernel with one interface and no NFS server). */
    int64_t le_rx_copy;
    /* The LANCE's transmit ring, in descriptors (0: no limit). SunOS's le (if_le.c lestart)
     * moves each frame off the interface queue at once, one descriptor per mbuf of its chain,
     * and drops it when the ring is full; a frame's descriptors come back once it has left. */
    int64_t le_tx_tmds;
    int64_t atm_tx_ns, atm_rx_ns; /* the ATM adapter's driver, per PDU */
    int64_t atm_per_buffer_ns;    /* per host buffer of atm_buffer_bytes a PDU occupies */
    int64_t atm_buffer_bytes;
    int64_t atm_rx_per_byte_ps;   /* a receive-only pass over each octet (programmed I/O) */
    /* sun4c's virtual cache is flushed by software over what a device wrote into memory: the
     * LANCE driver over each frame received, the ATM driver a page per receive buffer; this
     * much per octet flushed (0: no cache to flush). */
    int64_t vac_flush_per_byte_ps;
    /* Solaris 2.x STREAMS: each packet passes streams_tx_hops / streams_rx_hops module
     * boundaries (putnext with its mblk work) of streams_hop_ns each. */
    int64_t streams_hop_ns;
    int64_t streams_tx_hops, streams_rx_hops;
    /* The I/O bus: every frame in or out is moved at this rate, one at a time; 0: no limit. */
    int64_t sbus_dma_bytes_per_s;
    /* Socket buffers: the UDP defaults (0: tahoe_config's), and the octets a datagram's source
     * address takes in a receive buffer beside its data (SunOS: a 16-octet sockaddr). */
    int64_t udp_sendspace_bytes;
    int64_t udp_recvspace_bytes;
    int64_t sb_addr_bytes;
    /* 1: UDP datagrams are neither checksummed when sent nor checked when received (SunOS
     * 4.1's udp_cksum = 0), so the checksum pass is not charged for them. */
    int64_t udp_no_cksum;
    /* The disk and its file system (disk.h): a model without disk_rpm and disk_track_bytes
     * has no disk. The drive turns disk_rpm times a minute with disk_track_bytes a track (the
     * media rate), seeks disk_seek_avg_ns to another area and disk_seek_track_ns within one,
     * and takes disk_command_ns to start each I/O. UFS: ufs_block_bytes blocks (0: 8192), laid
     * in runs of ufs_cluster_bytes (0: one block) a ufs_rotdelay_ns turn apart; a writer waits
     * while more than ufs_writes_limit_bytes of its writes are pending (0: never); the memory
     * keeps ufs_cache_bytes of file blocks (0: only the blocks being read and read ahead). */
    int64_t disk_rpm, disk_track_bytes;
    int64_t disk_seek_avg_ns, disk_seek_track_ns, disk_command_ns;
    int64_t ufs_block_bytes, ufs_cluster_bytes, ufs_rotdelay_ns;
    int64_t ufs_writes_limit_bytes, ufs_cache_bytes;
    /* Paging through the disk (vm_page.h): swap_kluster_bytes is the swap device's kluster;
     * 0 or a page: one page an I/O. */
    int64_t swap_kluster_bytes;
};

/* What the host's CPU did beside the protocols: the receive path's wakeups and the time at
 * interrupt level, and the I/O bus. */
struct tahoe_cpustat {
    uint64_t wakeups;       /* a process that slept on a socket or a timer was woken */
    uint64_t ctx_switches;  /* ... and switched to */
    int64_t ctx_switch_ns;  /* what one switch costs the current process (ctx_switch_spread_pct) */
    uint64_t late_wakeups;  /* ... and found another process in a system call */
    int64_t late_wakeup_ns; /* what those waited for it */
    uint64_t clock_ticks;   /* clock interrupts whose work was charged (clock_tick_ns) */
    int64_t intr_ns;        /* CPU time charged at interrupt level */
    int64_t bus_ns;         /* time the I/O bus spent on DMA */
};

/* Hands a packet to the interface. at_ns is when the host CPU has finished with it (never before
 * the current clock). Returns 0, or a negative errno (-ENOBUFS: interface queue full). */
typedef int (*tahoe_if_output_fn)(void *ctx, const uint8_t *pkt, size_t len, int64_t at_ns);

/* Optional hook told about every TCP segment sent, with the rule that sent it. */
struct tahoe_seg_trace {
    int64_t at_ns;
    int reason; /* enum tcp_out_reason (tcp_var.h) */
    int flags;  /* TH_* */
    uint32_t seq, ack, win;
    uint32_t len; /* data octets */
    uint16_t sport, dport;
};
typedef void (*tahoe_trace_fn)(void *ctx, const struct tahoe_seg_trace *ev);

/* Begins ev's {"record":"segment",...} JSON Lines record in j (common/json.h), the one form
 * netsim's --trace and the emulated --segment-log share; host ("a" or "b") is left out when
 * NULL. The caller emits it. */
struct nr_json;
void tahoe_seg_json(struct nr_json *j, const char *host, const struct tahoe_seg_trace *ev);

/* Optional hook told a connection's send state after each segment taken in, each timer that
 * ran out and each dropped segment (4.3BSD's TCP_DEBUG records, tcp_debug.c): how cwnd and
 * ssthresh move ACK by ACK. */
struct tahoe_tcp_debug {
    int64_t at_ns;
    int act;    /* TA_* (tcp_debug.h) */
    int req;    /* TA_USER: the timer that ran out (TCPT_*) */
    int ostate; /* TCPS_* before the event, and after it */
    int state;
    uint16_t sport, dport;
    uint32_t snd_una, snd_max, snd_wnd, snd_cwnd, snd_ssthresh, maxseg;
};
typedef void (*tahoe_debug_fn)(void *ctx, const struct tahoe_tcp_debug *td);

/* A host of the era had been up long before a tool started, so its ticks stood at no fixed
 * phase to the tool: a stack boots at a random time up to this long before it is first used. */
#define TAHOE_BOOT_SPREAD_NS 1000000000LL

struct tahoe_config {
    uint32_t addr;     /* our IPv4 address, network byte order */
    uint32_t netmask;  /* network byte order; peers off this net get MSS 512; 0: all local */
    int mtu;           /* interface MTU; MSS = MTU - 40 */
    int64_t boot_ns;   /* fixes the phase of the 200 ms and 500 ms ticks */
    struct tahoe_hostcost cost;
    int sb_max;        /* largest socket buffer (SunOS 4.1's: NR_SB_MAX, common/stackopt.h) */
    int tcp_sendspace; /* default TCP buffers; a new connection's cwnd starts at sendspace */
    int tcp_recvspace;
    int udp_sendspace; /* largest UDP datagram a socket may send by default */
    int udp_recvspace;
    int window_scale;  /* 1: offer RFC 1323 window scaling (off in Tahoe) */
    int udp_cksum;     /* 1: send UDP checksums */
    int iface;         /* TAHOE_IF_*: which driver's costs the host model charges */
    /* The interrupt and scheduling jitter's random stream (common/rng.h): the run's seed and
     * a stream of this host's own, so that every backend running the host draws alike. */
    uint64_t jitter_seed;
    uint64_t jitter_stream;
    uint32_t iss;      /* first initial send sequence number */
    tahoe_if_output_fn if_output;
    void *ctx;
    tahoe_trace_fn trace;
    void *trace_ctx;
    tahoe_debug_fn debug;
    void *debug_ctx;
};

/* The interface the stack attaches, which decides the driver costs a host model charges. */
enum { TAHOE_IF_ETHER = 0, TAHOE_IF_ATM = 1 };

/* Fills cfg with Tahoe defaults: MTU 1500, 4.3BSD's TCP buffers, SunOS's sb_max, zero costs. */
void tahoe_config_defaults(struct tahoe_config *cfg);
/* Reads a host model file (configs/hosts, schema configs/schema/host.schema.json): its keys,
 * over those of the models it `extends` (files beside it, named without .yaml; a list's later
 * ones over its earlier ones). A part (`part: true`) is refused: only models extend it. Returns 0, or
 * a negative errno with what was wrong (file, line, key) in err. */
int tahoe_hostcost_read(const char *path, struct tahoe_hostcost *out, char *err, size_t errlen);
/* tahoe_hostcost_read without the message. */
int tahoe_hostcost_load(const char *path, struct tahoe_hostcost *out);
/* The i-th key a host model file may hold, NULL past the last: the schema lists the same. */
const char *tahoe_hostcost_key(size_t i);

struct tahoe_stack *tahoe_new(const struct tahoe_config *cfg);
void tahoe_free(struct tahoe_stack *st);
/* A new process of the application begins on this host (a tool's next run): its context
 * switches cost a new draw within ctx_switch_spread_pct, from the host's jitter stream. */
void tahoe_process_begins(struct tahoe_stack *st);

/* Advances the stack to now_ns, running every tick and queued input that is due. */
void tahoe_clock(struct tahoe_stack *st, int64_t now_ns);
/* Delivers one IPv4 packet (copied) at the current clock. */
void tahoe_ip_input(struct tahoe_stack *st, const uint8_t *pkt, size_t len);
/* The next time tahoe_clock has work (INT64_MAX when none). */
int64_t tahoe_next_deadline(const struct tahoe_stack *st);
int64_t tahoe_now_ns(const struct tahoe_stack *st);
/* When the host CPU finishes the work charged so far. */
int64_t tahoe_cpu_free_ns(const struct tahoe_stack *st);
/* Charges ns of application work (a busy loop, say) to the host CPU. */
void tahoe_cpu_charge(struct tahoe_stack *st, int64_t ns);
/* The process slept and what it waited for has come: charges the wakeup at interrupt level
 * (host model: wakeup_ns). Returns the time from which the process may run, once the
 * interrupt-level work queued before it is done; it then pays the context switch
 * (tahoe_switch_to). */
int64_t tahoe_wakeup(struct tahoe_stack *st);
void tahoe_switch_to(struct tahoe_stack *st);

enum { TAHOE_SOCK_STREAM = 1, TAHOE_SOCK_DGRAM = 2, TAHOE_SOCK_ICMP = 3 };
enum {
    TAHOE_SO_SNDBUF = 1,
    TAHOE_SO_RCVBUF,
    TAHOE_SO_REUSEADDR,
    TAHOE_SO_KEEPALIVE,
    TAHOE_SO_ERROR,
    TAHOE_TCP_NODELAY,
    TAHOE_TCP_WINDOW_CLAMP,
    TAHOE_TCP_MAXSEG, /* read only */
};
enum {
    TAHOE_POLLIN = 1,     /* data, a pending connection, end of stream or an error */
    TAHOE_POLLOUT = 2,    /* send() would accept data (TCP: >= 1K of buffer space) */
    TAHOE_POLLERR = 4,    /* so_error set */
    TAHOE_POLLHUP = 8,    /* peer closed its side */
    TAHOE_CONNECTED = 16, /* TCP connection established */
};

struct tahoe_addr {
    uint32_t ip;   /* network byte order */
    uint16_t port; /* host byte order */
};

int tahoe_socket(struct tahoe_stack *st, int type);
int tahoe_bind(struct tahoe_stack *st, int s, const struct tahoe_addr *addr);
int tahoe_listen(struct tahoe_stack *st, int s, int backlog);
int tahoe_accept(struct tahoe_stack *st, int s, struct tahoe_addr *peer);
/* TCP: -EINPROGRESS, then TAHOE_CONNECTED or TAHOE_POLLERR. UDP: sets the default peer. */
int tahoe_connect(struct tahoe_stack *st, int s, const struct tahoe_addr *addr);
ssize_t tahoe_send(struct tahoe_stack *st, int s, const void *buf, size_t len);
ssize_t tahoe_recv(struct tahoe_stack *st, int s, void *buf, size_t len); /* 0 at EOF */
ssize_t tahoe_sendto(struct tahoe_stack *st, int s, const void *buf, size_t len,
                     const struct tahoe_addr *to);
ssize_t tahoe_recvfrom(struct tahoe_stack *st, int s, void *buf, size_t len,
                       struct tahoe_addr *from);
int tahoe_shutdown(struct tahoe_stack *st, int s); /* no more sends: FIN */
int tahoe_close(struct tahoe_stack *st, int s);
int tahoe_setsockopt(struct tahoe_stack *st, int s, int opt, int val);
int tahoe_getsockopt(struct tahoe_stack *st, int s, int opt, int *val);
int tahoe_getsockname(struct tahoe_stack *st, int s, struct tahoe_addr *addr);
int tahoe_getpeername(struct tahoe_stack *st, int s, struct tahoe_addr *addr);
/* TAHOE_POLL* and TAHOE_CONNECTED bits that hold now. */
int tahoe_poll(struct tahoe_stack *st, int s);

/* Counters (field layout in tcp_var.h, ip_var.h, udp_var.h, ip_icmp.h). */
const struct tcpstat *tahoe_tcpstat(const struct tahoe_stack *st);
const struct ipstat *tahoe_ipstat(const struct tahoe_stack *st);
const struct udpstat *tahoe_udpstat(const struct tahoe_stack *st);
/* Frames the LANCE's transmit ring dropped for want of descriptors (also in ips_odropped). */
uint64_t tahoe_le_no_tmds(const struct tahoe_stack *st);
const struct icmpstat *tahoe_icmpstat(const struct tahoe_stack *st);
const struct tahoe_cpustat *tahoe_cpustat(const struct tahoe_stack *st);
/* The control block of a TCP socket (for inspection), or NULL. */
const struct tcpcb *tahoe_tcpcb(struct tahoe_stack *st, int s);

#endif
