/* The host mechanisms of issue #35 on the tahoe stack: interrupt level before the process, the
 * receive path's wakeup and context switch, the clock interrupt's work, seeded interrupt
 * jitter, per-interface driver costs, the I/O bus, and the socket buffer's count of a
 * datagram's source address. */
#include <stdlib.h>
#include <unistd.h>

#include "nrio_tahoe.h"
#include "nrtest.h"
#include "rng.h"
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

static void world_start(struct world *w, const struct tahoe_hostcost *cost, uint64_t seed)
{
    world_start_on(w, cost, seed, TAHOE_IF_ETHER);
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
    world_start(&w, &c, 1);
    send_datagram(&w, 100);
    nrio_timer_at(w.io, 1 * TN_SEC, on_stop, &w);
    NRT_EQ_INT(nrio_run(w.io), 0);
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
    world_start(&w, &c, 1);
    send_datagram(&w, 100);
    nrio_timer_at(w.io, 1 * TN_SEC, on_stop, &w);
    NRT_EQ_INT(nrio_run(w.io), 0);
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
        world_start(&w, &c, 42 + (uint64_t)k);
        send_datagram(&w, 100);
        nrio_timer_at(w.io, 1 * TN_SEC, on_stop, &w);
        NRT_EQ_INT(nrio_run(w.io), 0);
        wait[k] = w.read_at - first_arrival(&w) - 100 * US;
        tn_nrio_free(&w.net, w.io);
    }
    struct nr_rng r;
    nr_rng_seed(&r, 42, 5);
    NRT_EQ_INT(wait[0], (int64_t)(nr_rng_unit(&r) * (double)(1000 * US + 1)));
    NRT_CHECK(wait[1] != wait[0]);
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
        world_start_on(&w, &c, 1, atm ? TAHOE_IF_ATM : TAHOE_IF_ETHER);
        send_datagram(&w, 972); /* 1000 octets of IP: two 512-octet buffers */
        nrio_timer_at(w.io, 1 * TN_SEC, on_stop, &w);
        NRT_EQ_INT(nrio_run(w.io), 0);
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
        world_start(&w, &c, 1);
        send_datagram(&w, 972);
        nrio_timer_at(w.io, 1 * TN_SEC, on_stop, &w);
        NRT_EQ_INT(nrio_run(w.io), 0);
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

int main(void)
{
    NRT_RUN(test_a_sleeping_reader_pays_wakeup_and_switch);
    NRT_RUN(test_without_the_keys_the_read_follows_the_input);
    NRT_RUN(test_the_interrupt_jitter_is_drawn_from_the_seed);
    NRT_RUN(test_the_clock_interrupt_takes_its_time_from_the_process);
    NRT_RUN(test_interrupt_level_runs_before_the_process);
    NRT_RUN(test_driver_costs_follow_the_interface_and_the_bus_spaces_frames);
    NRT_RUN(test_the_virtual_cache_is_flushed_over_what_was_received);
    NRT_RUN(test_a_lance_without_spare_buffers_copies_each_frame);
    NRT_RUN(test_a_host_without_udp_checksums_charges_no_pass_and_checks_none);
    NRT_RUN(test_the_source_address_counts_in_the_receive_buffer);
    NRT_RUN(test_udp_space_from_the_host_model);
    return nrt_summary("tahoe/test_receive_path");
}
