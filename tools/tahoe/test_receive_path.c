/* The host mechanisms of issue #35 on the tahoe stack: interrupt level before the process, the
 * receive path's wakeup and context switch, another process's system call in front of it, the
 * clock interrupt's work, seeded interrupt jitter, per-interface driver costs, the I/O bus, the
 * socket buffer's count of a datagram's source address, and soreceive's loop, which holds the
 * window update. */
#include <stdlib.h>
#include <unistd.h>

#include "nrio_tahoe.h"
#include "nrtest.h"
#include "rng.h"
#include "socketvar.h"
#include "tahoe_var.h"
#include "testnet.h"
#include "udp_var.h"

#define US 1000LL
#define PORT 7000

/* A UDP reader (nrio, host 0) and a bare stack that sends it datagrams (host 1). */
struct world {
    struct tn_net net;
    nrio *io;
    int s;
    int64_t read_at; /* when the reader's callback ran */
    size_t got;
};

static void on_read(void *arg, int s, int ev)
{
    struct world *w = arg;
    (void)ev;
    static uint8_t buf[9000];
    w->read_at = nrio_now_ns(w->io);
    ssize_t n;
    while ((n = nrio_recv(w->io, s, buf, sizeof buf)) > 0)
        w->got += (size_t)n;
}

static void on_stop(void *arg) { nrio_stop(((struct world *)arg)->io); }

/* Sends one datagram of len octets from host 1 at the current time, to the reader. */
static void send_datagram(struct world *w, size_t len)
{
    static const uint8_t data[9000];
    int s = tahoe_socket(w->net.h[1], TAHOE_SOCK_DGRAM);
    struct tahoe_addr to = {tn_ip(10, 0, 0, 1), PORT};
    NRT_EQ_INT(tahoe_sendto(w->net.h[1], s, data, len, &to), (long)len);
    tahoe_close(w->net.h[1], s);
}

/* The reader's stack attaches iface (TAHOE_IF_*). */
static void world_start_on(struct world *w, const struct tahoe_hostcost *cost, uint64_t seed,
                           int iface)
{
    memset(w, 0, sizeof *w);
    tn_init(&w->net, 1500, 10000000LL, 100 * US);
    tn_host(&w->net, 1, NULL);
    struct tahoe_config cfg;
    tahoe_config_defaults(&cfg);
    cfg.cost = *cost;
    cfg.iface = iface;
    cfg.jitter_seed = seed;
    cfg.jitter_stream = 5;
    struct nrio_tahoe_env env = {tn_env_now, tn_env_wait, &w->net, 40000, NULL};
    w->io = tn_nrio_host(&w->net, &cfg, &env);
    NRT_CHECK(w->io != NULL);
    w->s = nrio_open(w->io, NRIO_UDP, NULL);
    struct nrio_addr a = {tn_ip(10, 0, 0, 1), PORT};
    NRT_EQ_INT(nrio_bind(w->io, w->s, &a), 0);
    NRT_EQ_INT(nrio_watch(w->io, w->s, NRIO_IN, on_read, w), 0);
}

/* Starts the world on the interface, sends the reader one datagram of len octets and runs until a
 * second has passed. */
static void receive_on(struct world *w, const struct tahoe_hostcost *cost, uint64_t seed,
                       int iface, size_t len)
{
    world_start_on(w, cost, seed, iface);
    send_datagram(w, len);
    nrio_timer_at(w->io, 1 * TN_SEC, on_stop, w);
    NRT_EQ_INT(nrio_run(w->io), 0);
}

/* receive_on the Ethernet with a 100-octet datagram. */
static void receive_one(struct world *w, const struct tahoe_hostcost *cost, uint64_t seed)
{
    receive_on(w, cost, seed, TAHOE_IF_ETHER, 100);
}

/* The time the first datagram reaches host 0's interface. */
static int64_t first_arrival(const struct world *w)
{
    for (size_t i = 0; i < w->net.nlog; i++)
        if (w->net.log[i].from == 1)
            return w->net.log[i].arrive_ns;
    return -1;
}

/* A reader that slept is woken at interrupt level, then switched to: its read comes after the
 * input's interrupt work, the wakeup and the context switch, and each is counted. */
static void test_a_sleeping_reader_pays_wakeup_and_switch(void)
{
    static struct world w;
    struct tahoe_hostcost c = {.per_packet_ns = 100 * US, .le_rx_ns = 10 * US,
                               .intr_preempts = 1, .wakeup_ns = 20 * US,
                               .ctx_switch_ns = 50 * US};
    receive_one(&w, &c, 1);
    NRT_EQ_INT(w.got, 100);
    int64_t arrive = first_arrival(&w);
    NRT_EQ_INT(w.read_at - arrive, (100 + 10 + 20 + 50) * US);
    const struct tahoe_cpustat *cs = tahoe_cpustat(w.net.h[0]);
    /* The datagram woke the reader, and so did the timer that stops it. */
    NRT_EQ_INT((long)cs->wakeups, 2);
    NRT_EQ_INT((long)cs->ctx_switches, 2);
    NRT_EQ_INT(cs->intr_ns, (100 + 10 + 20 + 20) * US);
    tn_nrio_free(&w.net, w.io);
}

/* Without the mechanism keys the read comes when the input's work ends, as it always did. */
static void test_without_the_keys_the_read_follows_the_input(void)
{
    static struct world w;
    struct tahoe_hostcost c = {.per_packet_ns = 100 * US};
    receive_one(&w, &c, 1);
    NRT_EQ_INT(w.read_at - first_arrival(&w), 100 * US);
    NRT_EQ_INT((long)tahoe_cpustat(w.net.h[0])->clock_ticks, 0);
    tn_nrio_free(&w.net, w.io);
}

/* A received frame's interrupt waits a uniform draw from the host's jitter stream: the same
 * seed gives the same wait, which common/rng.h reproduces, and another seed another one. */
static void test_the_interrupt_jitter_is_drawn_from_the_seed(void)
{
    static struct world w;
    struct tahoe_hostcost c = {.per_packet_ns = 100 * US, .intr_jitter_max_ns = 1000 * US};
    int64_t wait[2];
    for (int k = 0; k < 2; k++) {
        receive_one(&w, &c, 42 + (uint64_t)k);
        wait[k] = w.read_at - first_arrival(&w) - 100 * US;
        tn_nrio_free(&w.net, w.io);
    }
    struct nr_rng r;
    nr_rng_seed(&r, 42, 5);
    NRT_EQ_INT(wait[0], (int64_t)(nr_rng_unit(&r) * (double)(1000 * US + 1)));
    NRT_CHECK(wait[1] != wait[0]);
}

/* Another process inside a system call holds the CPU when the reader is woken: the read waits
 * for a uniform draw up to late_wakeup_max_ns, after the draw that decided it was late, both
 * from the host's jitter stream; each such wakeup is counted with its wait. */
static void test_a_wakeup_that_finds_another_process_in_a_system_call_waits(void)
{
    static struct world w;
    struct tahoe_hostcost c = {.per_packet_ns = 100 * US, .le_rx_ns = 10 * US,
                               .intr_preempts = 1, .wakeup_ns = 20 * US, .ctx_switch_ns = 50 * US,
                               .late_wakeup_pct = 100, .late_wakeup_max_ns = 3000 * US};
    receive_one(&w, &c, 7);
    struct nr_rng r;
    nr_rng_seed(&r, 7, 5);
    NRT_CHECK(nr_rng_unit(&r) * 100.0 < 100.0);
    int64_t late = (int64_t)(nr_rng_unit(&r) * (double)(3000 * US + 1));
    NRT_CHECK(late > 0);
    NRT_EQ_INT(w.read_at - first_arrival(&w), (100 + 10 + 20 + 50) * US + late);
    const struct tahoe_cpustat *cs = tahoe_cpustat(w.net.h[0]);
    /* The datagram's wakeup and the stop timer's, both late at 100 %. */
    NRT_EQ_INT((long)cs->late_wakeups, 2);
    NRT_CHECK(cs->late_wakeup_ns >= late && cs->late_wakeup_ns <= late + 3000 * US);
    tn_nrio_free(&w.net, w.io);

    /* At 0 % no wakeup is late and no draw is taken. */
    c.late_wakeup_pct = 0;
    receive_one(&w, &c, 7);
    NRT_EQ_INT(w.read_at - first_arrival(&w), (100 + 10 + 20 + 50) * US);
    NRT_EQ_INT((long)tahoe_cpustat(w.net.h[0])->late_wakeups, 0);
    tn_nrio_free(&w.net, w.io);
}

/* The first process's context switches all cost ctx_switch_ns raised by one draw of up to
 * ctx_switch_spread_pct, the host's first from its jitter stream: the same seed gives the same
 * cost, another seed another one, each inside the spread, and the record says what it was. */
static void test_the_first_process_draws_its_switch_cost_at_start(void)
{
    static struct world w;
    struct tahoe_hostcost c = {.per_packet_ns = 100 * US, .le_rx_ns = 10 * US,
                               .intr_preempts = 1, .wakeup_ns = 20 * US, .ctx_switch_ns = 50 * US,
                               .ctx_switch_spread_pct = 20};
    int64_t cost[2];
    for (int k = 0; k < 2; k++) {
        receive_one(&w, &c, 42 + (uint64_t)k);
        const struct tahoe_cpustat *cs = tahoe_cpustat(w.net.h[0]);
        cost[k] = cs->ctx_switch_ns;
        NRT_EQ_INT(w.read_at - first_arrival(&w), (100 + 10 + 20) * US + cost[k]);
        NRT_CHECK(cost[k] >= 50 * US && cost[k] <= 60 * US);
        tn_nrio_free(&w.net, w.io);
    }
    struct nr_rng r;
    nr_rng_seed(&r, 42, 5);
    NRT_EQ_INT(cost[0], 50 * US + (int64_t)(nr_rng_unit(&r) * (double)(50 * US * 20 / 100 + 1)));
    NRT_CHECK(cost[1] != cost[0]);

    /* Without the spread every run pays the key's value. */
    c.ctx_switch_spread_pct = 0;
    receive_one(&w, &c, 42);
    NRT_EQ_INT(tahoe_cpustat(w.net.h[0])->ctx_switch_ns, 50 * US);
    NRT_EQ_INT(w.read_at - first_arrival(&w), (100 + 10 + 20 + 50) * US);
    tn_nrio_free(&w.net, w.io);
}

/* A tool's next run (nrio_process_begins) is a process of its own: each draws its switch cost
 * anew from the host's jitter stream, in the order of the seed's draws, inside the spread, and
 * the reader's next read pays the new cost. */
static void test_each_process_draws_its_own_switch_cost(void)
{
    static struct world w;
    struct tahoe_hostcost c = {.per_packet_ns = 100 * US, .le_rx_ns = 10 * US,
                               .intr_preempts = 1, .wakeup_ns = 20 * US, .ctx_switch_ns = 50 * US,
                               .ctx_switch_spread_pct = 20};
    receive_one(&w, &c, 42);
    struct nr_rng r;
    nr_rng_seed(&r, 42, 5);
    int64_t span = 50 * US * 20 / 100 + 1;
    NRT_EQ_INT(tahoe_cpustat(w.net.h[0])->ctx_switch_ns,
               50 * US + (int64_t)(nr_rng_unit(&r) * (double)span));
    int64_t cost[3];
    for (int k = 0; k < 3; k++) {
        nrio_process_begins(w.io);
        cost[k] = tahoe_cpustat(w.net.h[0])->ctx_switch_ns;
        NRT_EQ_INT(cost[k], 50 * US + (int64_t)(nr_rng_unit(&r) * (double)span));
        NRT_CHECK(cost[k] >= 50 * US && cost[k] <= 60 * US);
    }
    NRT_CHECK(cost[0] != cost[1] || cost[1] != cost[2]);

    size_t nlog = w.net.nlog;
    send_datagram(&w, 100);
    nrio_timer_at(w.io, 2 * TN_SEC, on_stop, &w);
    NRT_EQ_INT(nrio_run(w.io), 0);
    NRT_CHECK(w.net.nlog > nlog);
    NRT_EQ_INT(w.read_at - w.net.log[nlog].arrive_ns, (100 + 10 + 20) * US + cost[2]);
    tn_nrio_free(&w.net, w.io);
}

/* hardclock's work comes at each clock interrupt, on the grid the boot fixes, at interrupt
 * level: the process's work that spans ticks ends later by theirs; no key, no cost. */
static void test_the_clock_interrupt_takes_its_time_from_the_process(void)
{
    for (int cost = 0; cost < 2; cost++) {
        static struct tn_net net;
        tn_init(&net, 1500, 10000000LL, 100 * US);
        struct tahoe_config cfg;
        tahoe_config_defaults(&cfg);
        cfg.boot_ns = -3 * TN_MS; /* ticks at 7, 17, 27 ms */
        cfg.cost = (struct tahoe_hostcost){.per_packet_ns = 100 * US, .intr_preempts = 1,
                                           .clock_hz = 100, .clock_tick_ns = cost * 50 * US};
        struct tahoe_stack *h = tn_host(&net, 0, &cfg);
        tahoe_clock(h, 0);
        tahoe_cpu_charge(h, 25 * TN_MS);
        tahoe_clock(h, 25 * TN_MS);
        NRT_EQ_INT(tahoe_cpu_free_ns(h), 25 * TN_MS + cost * 100 * US);
        NRT_EQ_INT((long)tahoe_cpustat(h)->clock_ticks, cost ? 2 : 0);
        /* An idle CPU spends the tick's time too. */
        tahoe_clock(h, 40 * TN_MS);
        NRT_EQ_INT((long)tahoe_cpustat(h)->clock_ticks, cost ? 4 : 0);
        NRT_EQ_INT(tahoe_cpustat(h)->intr_ns, cost * 200 * US);
        tn_free(&net);
    }
}

/* With interrupt level first, a frame that arrives while the process computes is taken at
 * once and answered before the process's work ends; in one queue it waits for that work. */
static void test_interrupt_level_runs_before_the_process(void)
{
    for (int preempt = 0; preempt < 2; preempt++) {
        static struct tn_net net;
        tn_init(&net, 1500, 10000000LL, 100 * US);
        struct tahoe_config cfg;
        tahoe_config_defaults(&cfg);
        cfg.cost = (struct tahoe_hostcost){.per_packet_ns = 100 * US, .intr_preempts = preempt};
        struct tahoe_stack *srv = tn_host(&net, 0, &cfg);
        tn_host(&net, 1, NULL);
        struct tahoe_addr a = {tn_ip(10, 0, 0, 1), PORT};
        int ls = tahoe_socket(srv, TAHOE_SOCK_STREAM);
        tahoe_bind(srv, ls, &a);
        tahoe_listen(srv, ls, 5);
        tahoe_cpu_charge(srv, 10 * TN_MS); /* the process computes for 10 ms */
        int s = tahoe_socket(net.h[1], TAHOE_SOCK_STREAM);
        NRT_EQ_INT(tahoe_connect(net.h[1], s, &a), -EINPROGRESS);
        tn_run(&net, 50 * TN_MS, NULL, NULL);
        int64_t syn_at = -1, synack_at = -1;
        for (size_t i = 0; i < net.nlog; i++) {
            if (net.log[i].from == 1 && syn_at < 0)
                syn_at = net.log[i].arrive_ns;
            if (net.log[i].from == 0 && synack_at < 0)
                synack_at = net.log[i].at_ns;
        }
        /* The SYN's input and the SYN-ACK's output, 100 us each. */
        NRT_EQ_INT(synack_at, (preempt ? syn_at : 10 * TN_MS) + 200 * US);
        /* The process's work ends later by what the interrupt took from it. */
        if (preempt)
            NRT_EQ_INT(tahoe_cpu_free_ns(srv) >= 10 * TN_MS + 200 * US, 1);
        tn_free(&net);
    }
}

/* The driver's cost follows the interface: LANCE per frame, ATM per PDU and per buffer;
 * STREAMS hops come on top; the bus spaces frames by their DMA. */
static void test_driver_costs_follow_the_interface_and_the_bus_spaces_frames(void)
{
    for (int atm = 0; atm < 2; atm++) {
        static struct tn_net net;
        tn_init(&net, 1500, 10000000LL, 100 * US);
        struct tahoe_config cfg;
        tahoe_config_defaults(&cfg);
        cfg.iface = atm ? TAHOE_IF_ATM : TAHOE_IF_ETHER;
        cfg.cost = (struct tahoe_hostcost){.per_packet_ns = 100 * US, .le_tx_ns = 7 * US,
                                           .atm_tx_ns = 30 * US, .atm_per_buffer_ns = 5 * US,
                                           .atm_buffer_bytes = 512, .streams_hop_ns = 3 * US,
                                           .streams_tx_hops = 2,
                                           .sbus_dma_bytes_per_s = 1000000};
        struct tahoe_stack *h = tn_host(&net, 0, &cfg);
        net.h[1] = NULL; /* capture */
        static const uint8_t data[972];
        int s = tahoe_socket(h, TAHOE_SOCK_DGRAM);
        struct tahoe_addr to = {tn_ip(10, 0, 0, 2), PORT};
        NRT_EQ_INT(tahoe_sendto(h, s, data, sizeof data, &to), (long)sizeof data);
        NRT_EQ_INT(tahoe_sendto(h, s, data, sizeof data, &to), (long)sizeof data);
        NRT_EQ_INT((long)net.nlog, 2);
        /* 1000 octets: 2 buffers of 512, two STREAMS hops; the CPU's work, then 1 ms of DMA
         * at 1 MB/s. */
        int64_t driver = (atm ? (30 + 2 * 5) * US : 7 * US) + 2 * 3 * US;
        NRT_EQ_INT(net.log[0].at_ns, 100 * US + driver + 1 * TN_MS);
        NRT_EQ_INT(net.log[1].at_ns - net.log[0].at_ns, 1 * TN_MS);
        NRT_EQ_INT(tahoe_cpustat(h)->bus_ns, 2 * TN_MS);
        tn_free(&net);
    }
}

/* The receiving driver flushes the virtual cache over what the device wrote: an Ethernet frame's
 * octets, a 4096-octet page per ATM receive buffer; the input's work grows by it, the output's
 * not. */
static void test_the_virtual_cache_is_flushed_over_what_was_received(void)
{
    for (int atm = 0; atm < 2; atm++) {
        static struct world w;
        struct tahoe_hostcost c = {.per_packet_ns = 100 * US, .vac_flush_per_byte_ps = 1000,
                                   .atm_buffer_bytes = 512};
        /* 972 octets of UDP are 1000 of IP: two 512-octet buffers. */
        receive_on(&w, &c, 1, atm ? TAHOE_IF_ATM : TAHOE_IF_ETHER, 972);
        NRT_EQ_INT(w.read_at - first_arrival(&w), 100 * US + (atm ? 2 * 4096 : 1000));
        tn_nrio_free(&w.net, w.io);
    }
}

/* A LANCE with no spare buffer to loan up copies each frame into mbufs: a copy's passes over
 * the frame at interrupt level, on Ethernet only. */
static void test_a_lance_without_spare_buffers_copies_each_frame(void)
{
    for (int copy = 0; copy < 2; copy++) {
        static struct world w;
        struct tahoe_hostcost c = {.per_packet_ns = 100 * US, .per_byte_ps = 1000,
                                   .copy_write_passes = 1, .le_rx_copy = copy};
        receive_on(&w, &c, 1, TAHOE_IF_ETHER, 972);
        /* The checksum's pass over 1000 octets, and the copy's two when the driver copies. */
        NRT_EQ_INT(w.read_at - first_arrival(&w), 100 * US + 1000 + copy * 2000);
        tn_nrio_free(&w.net, w.io);
    }
}

/* SunOS 4.1 neither checksums UDP nor checks it (udp_cksum = 0): no checksum pass is charged
 * on either side, and a datagram whose checksum is wrong is taken. */
static void test_a_host_without_udp_checksums_charges_no_pass_and_checks_none(void)
{
    for (int off = 0; off < 2; off++) {
        static struct tn_net net;
        tn_init(&net, 1500, 10000000LL, 100 * US);
        struct tahoe_config cfg;
        tahoe_config_defaults(&cfg);
        cfg.cost = (struct tahoe_hostcost){.per_packet_ns = 100 * US, .per_byte_ps = 1000,
                                           .udp_no_cksum = off};
        struct tahoe_stack *h = tn_host(&net, 0, &cfg);
        tn_host(&net, 1, &cfg);
        int r = tahoe_socket(h, TAHOE_SOCK_DGRAM);
        struct tahoe_addr a = {tn_ip(10, 0, 0, 1), PORT};
        tahoe_bind(h, r, &a);
        static const uint8_t data[972];
        int s = tahoe_socket(net.h[1], TAHOE_SOCK_DGRAM);
        NRT_EQ_INT(tahoe_sendto(net.h[1], s, data, sizeof data, &a), (long)sizeof data);
        /* The copy of 972 octets in, then 1000 octets of IP and the checksum's pass over them
         * unless it is off. */
        NRT_EQ_INT(net.log[0].at_ns, 972 + 100 * US + (off ? 0 : 1) * 1000);
        NRT_EQ_INT(get16(net.q->data + IP_HDRLEN + 6) == 0, off);
        put16(net.q->data + IP_HDRLEN + 6, 0x1234); /* a wrong checksum */
        tn_run(&net, 50 * TN_MS, NULL, NULL);
        NRT_EQ_INT((long)tahoe_udpstat(h)->udps_badsum, off ? 0 : 1);
        NRT_EQ_INT((long)tahoe_udpstat(h)->udps_ipackets, 1);
        tn_free(&net);
    }
}

/* A datagram's source address takes room in the receive buffer (SunOS's sockaddr mbuf). */
static void test_the_source_address_counts_in_the_receive_buffer(void)
{
    for (int addr = 0; addr < 2; addr++) {
        static struct tn_net net;
        tn_init(&net, 1500, 10000000LL, 100 * US);
        struct tahoe_config cfg;
        tahoe_config_defaults(&cfg);
        cfg.cost.sb_addr_bytes = addr ? 16 : 0;
        struct tahoe_stack *rx = tn_host(&net, 0, &cfg);
        tn_host(&net, 1, NULL);
        int r = tahoe_socket(rx, TAHOE_SOCK_DGRAM);
        struct tahoe_addr a = {tn_ip(10, 0, 0, 1), PORT};
        tahoe_bind(rx, r, &a);
        NRT_EQ_INT(tahoe_setsockopt(rx, r, TAHOE_SO_RCVBUF, 2000), 0);
        static const uint8_t data[1000];
        int s = tahoe_socket(net.h[1], TAHOE_SOCK_DGRAM);
        for (int i = 0; i < 2; i++)
            NRT_EQ_INT(tahoe_sendto(net.h[1], s, data, sizeof data, &a), (long)sizeof data);
        tn_run(&net, 50 * TN_MS, NULL, NULL);
        NRT_EQ_INT((long)tahoe_udpstat(rx)->udps_fullsock, addr ? 1 : 0);
        tn_free(&net);
    }
}

/* The UDP buffer defaults come from the host model when it gives them. */
static void test_udp_space_from_the_host_model(void)
{
    static struct tn_net net;
    tn_init(&net, 1500, 10000000LL, 100 * US);
    struct tahoe_config cfg;
    tahoe_config_defaults(&cfg);
    cfg.cost.udp_recvspace_bytes = 18032;
    cfg.cost.udp_sendspace_bytes = 9000;
    struct tahoe_stack *h = tn_host(&net, 0, &cfg);
    int s = tahoe_socket(h, TAHOE_SOCK_DGRAM);
    int v = 0;
    NRT_EQ_INT(tahoe_getsockopt(h, s, TAHOE_SO_RCVBUF, &v), 0);
    NRT_EQ_INT(v, 18032);
    NRT_EQ_INT(tahoe_getsockopt(h, s, TAHOE_SO_SNDBUF, &v), 0);
    NRT_EQ_INT(v, 9000);
    tn_free(&net);
}

/* A TCP sender (host 0, no costs) and a reader (host 1) on 10 Mb/s Ethernet whose copy of a
 * segment outlasts the segment's time on the wire. The sender has sent four segments' worth;
 * at READ_AT it sends a fifth, which arrives early in the reader's copy of the first four. */
#define READ_AT (20 * TN_MS)
#define SEG 1460
struct stream {
    int ls, snd, rcv;
    size_t rlen, sent;
    int reads, more; /* more: the reader reads on, as a reader with room does */
    int64_t read_at;
    uint8_t buf[65536];
};

static void stream_app(struct tn_net *net, struct stream *t)
{
    struct tahoe_stack *a = net->h[0], *b = net->h[1];
    static const uint8_t data[5 * SEG];
    if (t->rcv < 0)
        t->rcv = tahoe_accept(b, t->ls, NULL);
    if (tahoe_poll(a, t->snd) & TAHOE_CONNECTED) {
        size_t want = net->now >= READ_AT ? 5 * SEG : 4 * SEG;
        ssize_t n;
        while (t->sent < want && (n = tahoe_send(a, t->snd, data, want - t->sent)) > 0)
            t->sent += (size_t)n;
    }
    /* The process runs only once the CPU has done its earlier work. */
    if (t->rcv >= 0 && net->now >= READ_AT && (t->more || !t->reads) &&
        tahoe_cpu_free_ns(b) <= net->now) {
        if (!t->reads)
            t->read_at = net->now;
        if (tahoe_recv(b, t->rcv, t->buf, t->rlen) > 0)
            t->reads++;
    }
}

/* Runs the pair for 100 ms (before the first delayed-ACK tick), host 1 with a receive buffer
 * of rcvbuf octets and copies of 1 + passes passes of pass_ps an octet; returns how long
 * after the first read began host 1 first sent a segment without data. */
static int64_t stream_run_on(struct stream *t, size_t rlen, int more, int loop, size_t rcvbuf,
                             int64_t passes, int64_t pass_ps)
{
    static struct tn_net net;
    tn_init(&net, 1500, 10000000LL, 100 * US);
    struct tahoe_config cfg;
    tahoe_config_defaults(&cfg);
    cfg.tcp_sendspace = cfg.tcp_recvspace = 16384;
    tn_host(&net, 0, &cfg);
    cfg.tcp_recvspace = rcvbuf;
    cfg.cost = (struct tahoe_hostcost){.per_packet_ns = 50 * US, .per_byte_ps = pass_ps,
                                       .copy_write_passes = passes, .intr_preempts = 1,
                                       .soreceive_loop = loop};
    tn_host(&net, 1, &cfg);
    memset(t, 0, offsetof(struct stream, buf));
    t->rlen = rlen;
    t->more = more;
    t->rcv = -1;
    struct tahoe_addr addr = {tn_ip(10, 0, 0, 2), 5001};
    t->ls = tahoe_socket(net.h[1], TAHOE_SOCK_STREAM);
    NRT_EQ_INT(tahoe_bind(net.h[1], t->ls, &addr), 0);
    NRT_EQ_INT(tahoe_listen(net.h[1], t->ls, 5), 0);
    t->snd = tahoe_socket(net.h[0], TAHOE_SOCK_STREAM);
    NRT_EQ_INT(tahoe_setsockopt(net.h[0], t->snd, TAHOE_TCP_NODELAY, 1), 0);
    tahoe_connect(net.h[0], t->snd, &addr);
    /* As tn_run, with READ_AT and the reader's CPU coming free as events of their own. */
    while (net.now < 100 * TN_MS) {
        stream_app(&net, t);
        int64_t next = net.q ? net.q->arrive : 100 * TN_MS;
        for (int i = 0; i < 2; i++)
            if (tahoe_next_deadline(net.h[i]) < next)
                next = tahoe_next_deadline(net.h[i]);
        int64_t free_at = tahoe_cpu_free_ns(net.h[1]);
        if (free_at > net.now && free_at < next)
            next = free_at;
        if (net.now < READ_AT && READ_AT < next)
            next = READ_AT;
        tn_clock(&net, next);
        tn_deliver(&net, next);
    }
    NRT_EQ_INT(t->sent, 5 * SEG);
    int64_t after = -1;
    for (size_t i = 0; i < net.nlog && after < 0; i++) {
        const struct tn_rec *r = &net.log[i];
        if (r->proto == IPPROTO_TCP && r->from == 1 && r->len == 0 && r->at_ns > t->read_at)
            after = r->at_ns - t->read_at;
    }
    tn_free(&net);
    return after;
}

static int64_t stream_run(struct stream *t, size_t rlen, int more, int loop)
{
    return stream_run_on(t, rlen, more, loop, 16384, 8, 150000);
}

/* Host 1's costs in stream_run: copying n octets (9 passes of 150 ns), and the interrupt work
 * of a full segment (the protocol's 50 us and the checksum pass). */
static int64_t copy_ns(size_t n) { return (int64_t)n * 9 * 150; }
#define SEG_INTR_NS (50 * US + SEG * 150)

/* soreceive frees the space as it copies and issues PRU_RCVD after its copy: the fifth
 * segment's interrupt, early in the copy, finds too little space freed for an update (R2 asks
 * 35 % of 16K), and the update comes after the copy, which that interrupt made later. */
static void test_the_window_update_follows_the_copy_and_its_interrupts(void)
{
    static struct stream t;
    int64_t after = stream_run(&t, 4 * SEG, 0, 1);
    NRT_EQ_INT(t.reads, 1);
    NRT_CHECK(after >= copy_ns(4 * SEG) + SEG_INTR_NS);
    NRT_CHECK(after < copy_ns(4 * SEG) + SEG_INTR_NS + 100 * US);
}

/* A reader with room goes on with the segment that came during its copy, in the same loop,
 * and the window update waits for the end of both copies. */
static void test_a_read_with_room_goes_on_before_the_update(void)
{
    static struct stream t;
    int64_t after = stream_run(&t, 65536, 1, 1);
    NRT_EQ_INT(t.reads, 2);
    NRT_CHECK(after >= copy_ns(5 * SEG) + SEG_INTR_NS);
}

/* soreceive frees an mbuf only once its uiomove is done (a LANCE frame is one loaned mbuf).
 * With copies of 3 x 160 ns an octet the fifth segment's interrupt comes about 2770 octets
 * into the copy of four frames, when only the first frame's mbuf (1460 octets) is free,
 * short of R2's 35 % of 7680 (2688): no update leaves from its tcp_input (space freed in
 * proportion to the copy would send one, 1.6 ms after the read began) and the update waits
 * for the end of the copy. */
static void test_the_space_comes_free_an_mbuf_at_a_time(void)
{
    static struct stream t;
    int64_t copy = (int64_t)4 * SEG * 3 * 160;
    int64_t after = stream_run_on(&t, 4 * SEG, 0, 1, 7680, 2, 160000);
    NRT_EQ_INT(t.reads, 1);
    int64_t intr = 50 * US + SEG * 160;
    NRT_CHECK(after >= copy + intr);
    NRT_CHECK(after < copy + intr + 100 * US);
}

/* Where a received segment's data sit: an ATM PDU in the driver's 1024-octet buffers with the
 * 40 octets of headers at the front of the first (HARP; 8232 octets take 9), a LANCE frame in one loaned buffer,
 * a copied frame in copy_to_mbufs's small mbuf (88 octets), a cluster and the rest. */
static void test_a_segment_sits_in_the_drivers_mbufs(void)
{
    static struct tn_net net;
    tn_init(&net, 9188, 100000000LL, 0);
    struct tahoe_config cfg;
    tahoe_config_defaults(&cfg);
    cfg.iface = TAHOE_IF_ATM;
    cfg.cost.atm_buffer_bytes = 1024;
    tn_host(&net, 0, &cfg);
    cfg.iface = TAHOE_IF_ETHER;
    tn_host(&net, 1, &cfg);
    size_t m[16];
    NRT_EQ_INT(tahoe_rcv_mbufs(net.h[0], 40, 8192, m, 16), 9);
    NRT_EQ_INT(m[0], 984);
    NRT_EQ_INT(m[1], 1024);
    NRT_EQ_INT(m[7], 1024);
    NRT_EQ_INT(m[8], 40);
    NRT_EQ_INT(tahoe_rcv_mbufs(net.h[0], 40, 8192, m, 3), 3);
    NRT_EQ_INT(m[2], 8192 - 984 - 1024);
    NRT_EQ_INT(tahoe_rcv_mbufs(net.h[1], 40, 1460, m, 16), 1);
    NRT_EQ_INT(m[0], 1460);
    tn_free(&net);
    tn_init(&net, 1500, 10000000LL, 0);
    cfg.cost.le_rx_copy = 1;
    tn_host(&net, 0, &cfg);
    NRT_EQ_INT(tahoe_rcv_mbufs(net.h[0], 40, 1460, m, 16), 3);
    NRT_EQ_INT(m[0], 48);
    NRT_EQ_INT(m[1], 1024);
    NRT_EQ_INT(m[2], 388);
    tn_free(&net);
}

/* A read frees the mbufs it empties at their ends and the part of the next at its own end;
 * the part left is the front of what the next read frees. */
static void test_a_read_frees_the_mbufs_it_empties(void)
{
    static const uint8_t data[3000];
    struct sockbuf sb = {0};
    sbreserve(&sb, 16384);
    size_t first[] = {984, 1016}, second[] = {1000};
    sbappendm(&sb, data, 2000, first, 2);
    sbappendm(&sb, data, 1000, second, 1);
    size_t e[8];
    NRT_EQ_INT(sbmbuf_ends(&sb, 2500, e, 8), 3);
    NRT_EQ_INT(e[0], 984);
    NRT_EQ_INT(e[1], 2000);
    NRT_EQ_INT(e[2], 2500);
    NRT_EQ_INT(sbmbuf_ends(&sb, 2500, e, 2), 2);
    NRT_EQ_INT(e[1], 2500);
    sbdrop(&sb, 2500);
    NRT_EQ_INT(sbmbuf_ends(&sb, 500, e, 8), 1);
    NRT_EQ_INT(e[0], 500);
    sbrelease(&sb);
}

/* Without soreceive_loop, as the stack always did: PRU_RCVD follows the read at once, and its
 * update leaves when the copy as charged ends, not later by the interrupt taken during it. */
static void test_without_the_key_the_update_does_not_wait(void)
{
    static struct stream t;
    int64_t after = stream_run(&t, 4 * SEG, 0, 0);
    NRT_EQ_INT(t.reads, 1);
    NRT_CHECK(after >= copy_ns(4 * SEG) && after < copy_ns(4 * SEG) + SEG_INTR_NS);
}

int main(void)
{
    NRT_RUN(test_a_sleeping_reader_pays_wakeup_and_switch);
    NRT_RUN(test_without_the_keys_the_read_follows_the_input);
    NRT_RUN(test_the_interrupt_jitter_is_drawn_from_the_seed);
    NRT_RUN(test_a_wakeup_that_finds_another_process_in_a_system_call_waits);
    NRT_RUN(test_the_first_process_draws_its_switch_cost_at_start);
    NRT_RUN(test_each_process_draws_its_own_switch_cost);
    NRT_RUN(test_the_clock_interrupt_takes_its_time_from_the_process);
    NRT_RUN(test_interrupt_level_runs_before_the_process);
    NRT_RUN(test_driver_costs_follow_the_interface_and_the_bus_spaces_frames);
    NRT_RUN(test_the_virtual_cache_is_flushed_over_what_was_received);
    NRT_RUN(test_a_lance_without_spare_buffers_copies_each_frame);
    NRT_RUN(test_a_host_without_udp_checksums_charges_no_pass_and_checks_none);
    NRT_RUN(test_the_source_address_counts_in_the_receive_buffer);
    NRT_RUN(test_udp_space_from_the_host_model);
    NRT_RUN(test_the_window_update_follows_the_copy_and_its_interrupts);
    NRT_RUN(test_a_read_with_room_goes_on_before_the_update);
    NRT_RUN(test_the_space_comes_free_an_mbuf_at_a_time);
    NRT_RUN(test_a_segment_sits_in_the_drivers_mbufs);
    NRT_RUN(test_a_read_frees_the_mbufs_it_empties);
    NRT_RUN(test_without_the_key_the_update_does_not_wait);
    return nrt_summary("tahoe/test_receive_path");
}
