/* IP, UDP and ICMP: checksums, fragmentation and reassembly, echo, the host cost model and the
 * host model files. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ip_icmp.h"
#include "ip_var.h"
#include "nrtest.h"
#include "testnet.h"
#include "udp_var.h"

static void test_checksum_vectors(void)
{
    /* RFC 1071's example: the words 0001 f203 f4f5 f6f7 sum to ddf2. */
    const uint8_t w[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
    NRT_EQ_INT(in_cksum(w, sizeof w), 0xffff & ~0xddf2);
    /* An odd length pads with a zero octet. */
    const uint8_t odd[] = { 0x12, 0x34, 0x56 };
    NRT_EQ_INT(in_cksum(odd, 3), 0xffff & ~(0x1234 + 0x5600));
    /* A well-known IPv4 header checks to zero with its checksum in place. */
    const uint8_t hdr[] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                            0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 };
    NRT_EQ_INT(in_cksum(hdr, sizeof hdr), 0);
}

struct udp_pair {
    struct tn_net net;
    int tx, rx;
    struct tahoe_addr to;
};

static void udp_pair_open(struct udp_pair *p, int mtu)
{
    tn_init(&p->net, mtu, 10000000LL, 0);
    tn_host(&p->net, 0, NULL);
    tn_host(&p->net, 1, NULL);
    p->to = (struct tahoe_addr){ tn_ip(10, 0, 0, 2), 7 };
    p->rx = tahoe_socket(p->net.h[1], TAHOE_SOCK_DGRAM);
    NRT_EQ_INT(tahoe_bind(p->net.h[1], p->rx, &p->to), 0);
    p->tx = tahoe_socket(p->net.h[0], TAHOE_SOCK_DGRAM);
}

/* An 8 KB datagram over MTU 1500 leaves as 6 fragments (5 x 1480 + 800 octets of the 8200-octet
 * UDP datagram) and arrives whole. */
static void test_udp_8k_fragmented(void)
{
    struct udp_pair p;
    udp_pair_open(&p, 1500);
    static uint8_t msg[8192], got[9000];
    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t)(i * 13);
    NRT_EQ_INT(tahoe_sendto(p.net.h[0], p.tx, msg, sizeof msg, &p.to), 8192);
    NRT_EQ_INT(p.net.nlog, 6);
    for (size_t i = 0; i < p.net.nlog; i++)
        NRT_CHECK(p.net.log[i].frag);
    tn_run(&p.net, 100 * TN_MS, NULL, NULL);
    struct tahoe_addr from;
    NRT_EQ_INT(tahoe_recvfrom(p.net.h[1], p.rx, got, sizeof got, &from), 8192);
    NRT_CHECK(memcmp(got, msg, sizeof msg) == 0);
    NRT_EQ_INT(from.ip, tn_ip(10, 0, 0, 1));
    const struct ipstat *is = tahoe_ipstat(p.net.h[1]);
    NRT_EQ_INT(is->ips_fragments, 6);
    NRT_EQ_INT(is->ips_reassembled, 1);
    NRT_EQ_INT(tahoe_ipstat(p.net.h[0])->ips_ofragments, 6);
    tn_free(&p.net);
}

/* Drops the packets whose numbers (from 1, in the order they go) the list gives, 0-ended. */
struct drop_list {
    int seen;
    int drop[4];
};

static int drop_listed(void *ctx, int from, const uint8_t *pkt, size_t len)
{
    struct drop_list *d = ctx;
    (void)from;
    (void)pkt;
    (void)len;
    d->seen++;
    for (const int *n = d->drop; *n; n++)
        if (*n == d->seen)
            return 1;
    return 0;
}

/* One fragment lost: the datagram never arrives, and the partial one is thrown away when
 * IPFRAGTTL slow ticks have passed. */
static void test_fragment_lost(void)
{
    struct udp_pair p;
    udp_pair_open(&p, 1500);
    struct drop_list third = {.drop = {3}};
    p.net.drop = drop_listed;
    p.net.drop_ctx = &third;
    static uint8_t msg[8192], got[9000];
    tahoe_sendto(p.net.h[0], p.tx, msg, sizeof msg, &p.to);
    tn_run(&p.net, 100 * TN_MS, NULL, NULL);
    NRT_EQ_INT(tahoe_recvfrom(p.net.h[1], p.rx, got, sizeof got, NULL), -EAGAIN);
    const struct ipstat *is = tahoe_ipstat(p.net.h[1]);
    NRT_EQ_INT(is->ips_fragments, 5);
    NRT_EQ_INT(is->ips_fragtimeout, 0);
    /* The chain was started before the first slow tick; it lives IPFRAGTTL ticks. */
    NRT_EQ_INT(tahoe_next_deadline(p.net.h[1]), IPFRAGTTL * 500 * TN_MS);
    tn_run(&p.net, IPFRAGTTL * 500 * TN_MS - 1, NULL, NULL);
    NRT_EQ_INT(is->ips_fragtimeout, 0);
    tn_run(&p.net, IPFRAGTTL * 500 * TN_MS, NULL, NULL);
    NRT_EQ_INT(is->ips_fragtimeout, 1);
    NRT_EQ_INT(tahoe_next_deadline(p.net.h[1]), INT64_MAX);
    /* The next datagram goes through. */
    tahoe_sendto(p.net.h[0], p.tx, msg, sizeof msg, &p.to);
    tn_run(&p.net, 9 * TN_SEC, NULL, NULL);
    NRT_EQ_INT(tahoe_recvfrom(p.net.h[1], p.rx, got, sizeof got, NULL), 8192);
    tn_free(&p.net);
}

/* Three datagrams a little over a slow tick apart, the first and last each a fragment short: the
 * stack's next deadline is always the oldest incomplete one's expiry, also once the whole one
 * between them was reassembled and the oldest has expired. */
static void test_fragment_deadline_is_the_oldest(void)
{
    struct udp_pair p;
    udp_pair_open(&p, 1500);
    struct drop_list third_of_first_and_last = {.drop = {3, 15}};
    p.net.drop = drop_listed;
    p.net.drop_ctx = &third_of_first_and_last;
    static uint8_t msg[8192], got[9000];
    for (int i = 0; i < 3; i++) {
        tn_run(&p.net, 600 * i * TN_MS, NULL, NULL);
        tahoe_sendto(p.net.h[0], p.tx, msg, sizeof msg, &p.to);
    }
    tn_run(&p.net, 1300 * TN_MS, NULL, NULL);
    const struct ipstat *is = tahoe_ipstat(p.net.h[1]);
    NRT_EQ_INT(is->ips_reassembled, 1);
    NRT_EQ_INT(tahoe_recvfrom(p.net.h[1], p.rx, got, sizeof got, NULL), 8192);
    NRT_EQ_INT(tahoe_next_deadline(p.net.h[1]), IPFRAGTTL * 500 * TN_MS);
    tn_run(&p.net, IPFRAGTTL * 500 * TN_MS, NULL, NULL);
    NRT_EQ_INT(is->ips_fragtimeout, 1);
    /* The last began after the slow tick at 1 s: it lives IPFRAGTTL ticks from there. A
     * deadline left on the freed entry would lie in the past, and the clock would stop at it. */
    int64_t last = (IPFRAGTTL * 500 + 1000) * TN_MS;
    NRT_EQ_INT(tahoe_next_deadline(p.net.h[1]), last);
    if (tahoe_next_deadline(p.net.h[1]) != last) {
        tn_free(&p.net);
        return;
    }
    tn_run(&p.net, last, NULL, NULL);
    NRT_EQ_INT(is->ips_fragtimeout, 2);
    NRT_EQ_INT(tahoe_next_deadline(p.net.h[1]), INT64_MAX);
    tn_free(&p.net);
}

/* A datagram that does not fit the receive buffer is dropped and counted. */
static void test_udp_socket_full(void)
{
    struct udp_pair p;
    udp_pair_open(&p, 9188);
    NRT_EQ_INT(tahoe_setsockopt(p.net.h[1], p.rx, TAHOE_SO_RCVBUF, 10000), 0);
    static uint8_t msg[8192];
    tahoe_sendto(p.net.h[0], p.tx, msg, sizeof msg, &p.to);
    tahoe_sendto(p.net.h[0], p.tx, msg, sizeof msg, &p.to);
    tn_run(&p.net, 100 * TN_MS, NULL, NULL);
    NRT_EQ_INT(tahoe_udpstat(p.net.h[1])->udps_fullsock, 1);
    NRT_EQ_INT(tahoe_udpstat(p.net.h[1])->udps_ipackets, 2);
    tn_free(&p.net);
}

/* A datagram to a port nobody bound brings back ICMP port unreachable. */
static void test_udp_port_unreachable(void)
{
    struct udp_pair p;
    udp_pair_open(&p, 1500);
    int icmp = tahoe_socket(p.net.h[0], TAHOE_SOCK_ICMP);
    struct tahoe_addr closed = { tn_ip(10, 0, 0, 2), 9999 };
    tahoe_sendto(p.net.h[0], p.tx, "x", 1, &closed);
    tn_run(&p.net, 100 * TN_MS, NULL, NULL);
    NRT_EQ_INT(tahoe_udpstat(p.net.h[1])->udps_noport, 1);
    uint8_t got[200];
    NRT_CHECK(tahoe_recvfrom(p.net.h[0], icmp, got, sizeof got, NULL) >= 8);
    NRT_EQ_INT(got[0], ICMP_UNREACH);
    NRT_EQ_INT(got[1], ICMP_UNREACH_PORT);
    tn_free(&p.net);
}

/* in_cksum_add sums 32-bit words; the sum it returns is RFC 1071's word-by-word sum, folded,
 * for every length, start, initial sum and chunking, all-zero and all-ones data too. */
static uint32_t cksum_words(uint32_t sum, const uint8_t *p, size_t len)
{
    for (; len > 1; p += 2, len -= 2) {
        sum += (uint32_t)(p[0] << 8 | p[1]);
        while (sum >> 16)
            sum = (sum & 0xffff) + (sum >> 16);
    }
    if (len)
        sum += (uint32_t)(p[0] << 8);
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return sum;
}

static void test_checksum_as_word_by_word(void)
{
    static uint8_t buf[9300];
    uint64_t x = 99;
    int differ = 0;
    for (int fill = 0; fill < 3; fill++) {
        for (size_t i = 0; i < sizeof buf; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            buf[i] = fill == 0 ? 0 : fill == 1 ? 0xff : (uint8_t)(x >> 56);
        }
        for (size_t len = 0; len < sizeof buf; len += len < 80 ? 1 : 997) {
            const uint32_t starts[] = {0, 1, 0xfffe, 0xffff, 0x1fffe};
            for (size_t k = 0; k < sizeof starts / sizeof *starts; k++) {
                size_t off = len % 7;
                uint32_t want = cksum_words(starts[k], buf + off, len);
                differ += in_cksum_add(starts[k], buf + off, len) != want;
                size_t half = len / 2 & ~(size_t)1;
                differ += in_cksum_add(in_cksum_add(starts[k], buf + off, half), buf + off + half,
                                       len - half) != want;
            }
        }
    }
    NRT_EQ_INT(differ, 0);
}

/* Echo: the reply carries the request's identifier, sequence and data, with a good checksum. */
static void test_icmp_echo(void)
{
    struct tn_net net;
    tn_init(&net, 1500, 10000000LL, 0);
    tn_host(&net, 0, NULL);
    net.h[1] = NULL;
    uint8_t pkt[IP_HDRLEN + 8 + 56];
    memset(pkt, 0, sizeof pkt);
    pkt[IPO_VHL] = 0x45;
    put16(pkt + IPO_LEN, sizeof pkt);
    pkt[IPO_TTL] = 64;
    pkt[IPO_PROTO] = IPPROTO_ICMP;
    putaddr(pkt + IPO_SRC, tn_ip(10, 0, 0, 2));
    putaddr(pkt + IPO_DST, tn_ip(10, 0, 0, 1));
    put16(pkt + IPO_SUM, in_cksum(pkt, IP_HDRLEN));
    uint8_t *icp = pkt + IP_HDRLEN;
    icp[0] = ICMP_ECHO;
    put16(icp + 4, 0x1234);
    put16(icp + 6, 7);
    for (int i = 0; i < 56; i++)
        icp[8 + i] = (uint8_t)i;
    put16(icp + 2, in_cksum(icp, 64));
    tahoe_ip_input(net.h[0], pkt, sizeof pkt);
    NRT_EQ_INT(net.nlog, 1);
    const struct tn_rec *r = &net.log[0];
    NRT_EQ_INT(r->proto, IPPROTO_ICMP);
    NRT_CHECK(tn_checksums_ok(r->data, r->size));
    NRT_EQ_INT(r->size, sizeof pkt);
    const uint8_t *rep = r->data + IP_HDRLEN;
    NRT_EQ_INT(rep[0], ICMP_ECHOREPLY);
    NRT_EQ_INT(get16(rep + 4), 0x1234);
    NRT_EQ_INT(get16(rep + 6), 7);
    NRT_CHECK(memcmp(rep + 8, icp + 8, 56) == 0);
    NRT_EQ_INT(getaddr(r->data + IPO_DST), tn_ip(10, 0, 0, 2));
    NRT_EQ_INT(tahoe_icmpstat(net.h[0])->icps_reflect, 1);
    /* A corrupted request is dropped. */
    icp[9] ^= 0xff;
    tahoe_ip_input(net.h[0], pkt, sizeof pkt);
    NRT_EQ_INT(net.nlog, 1);
    NRT_EQ_INT(tahoe_icmpstat(net.h[0])->icps_checksum, 1);
    tn_free(&net);
}

/* Ping through raw ICMP sockets between two stacks. */
static void test_ping_between_stacks(void)
{
    struct tn_net net;
    tn_init(&net, 1500, 10000000LL, 2 * TN_MS);
    tn_host(&net, 0, NULL);
    tn_host(&net, 1, NULL);
    int s = tahoe_socket(net.h[0], TAHOE_SOCK_ICMP);
    uint8_t req[16] = { ICMP_ECHO, 0, 0, 0, 0, 1, 0, 1, 'p', 'i', 'n', 'g' };
    struct tahoe_addr to = { tn_ip(10, 0, 0, 2), 0 };
    NRT_EQ_INT(tahoe_sendto(net.h[0], s, req, sizeof req, &to), (long)sizeof req);
    tn_run(&net, 100 * TN_MS, NULL, NULL);
    uint8_t got[64];
    struct tahoe_addr from;
    NRT_EQ_INT(tahoe_recvfrom(net.h[0], s, got, sizeof got, &from), (long)sizeof req);
    NRT_EQ_INT(got[0], ICMP_ECHOREPLY);
    NRT_CHECK(memcmp(got + 8, "ping", 4) == 0);
    NRT_EQ_INT(from.ip, tn_ip(10, 0, 0, 2));
    tn_free(&net);
}

/* The host CPU: a send charges the call, the copy and the packet; the packet leaves when the CPU
 * is done, and a packet arriving while the CPU is busy waits in the input queue. */
static void test_host_cost_charging(void)
{
    struct tn_net net;
    tn_init(&net, 1500, 1000000000LL, 0);
    struct tahoe_config cfg;
    tahoe_config_defaults(&cfg);
    cfg.cost = (struct tahoe_hostcost){.per_packet_ns = 100000, .per_byte_ps = 50000, .per_call_ns = 20000}; /* 100 us, 50 ns/B, 20 us */
    tn_host(&net, 0, &cfg);
    cfg.cost.per_packet_ns = 500000; /* a slow receiver */
    tn_host(&net, 1, &cfg);
    struct tahoe_addr to = { tn_ip(10, 0, 0, 2), 7 };
    int rx = tahoe_socket(net.h[1], TAHOE_SOCK_DGRAM);
    tahoe_bind(net.h[1], rx, &to);
    int tx = tahoe_socket(net.h[0], TAHOE_SOCK_DGRAM);
    int64_t t0 = tahoe_cpu_free_ns(net.h[0]); /* after the socket call */
    NRT_EQ_INT(t0, 20000);
    static uint8_t msg[1000];
    tahoe_sendto(net.h[0], tx, msg, sizeof msg, &to);
    /* call 20 us + copy 1000 * 50 ns + packet 100 us + one pass over 1028 octets. */
    int64_t per_send = 20000 + 50000 + 100000 + 1028 * 50;
    NRT_EQ_INT(net.log[0].at_ns, t0 + per_send);
    NRT_EQ_INT(tahoe_cpu_free_ns(net.h[0]), t0 + per_send);
    tahoe_sendto(net.h[0], tx, msg, sizeof msg, &to);
    NRT_EQ_INT(net.log[1].at_ns, t0 + 2 * per_send);
    /* The receiver needs 500 us + 51.4 us per datagram; the second arrives 221.4 us after the
     * first and waits until the first is done. */
    int64_t per_rcv = 500000 + 1028 * 50;
    int64_t arrive1 = net.log[0].arrive_ns, arrive2 = net.log[1].arrive_ns;
    NRT_CHECK(arrive2 < arrive1 + per_rcv);
    tn_run(&net, arrive2, NULL, NULL);
    NRT_EQ_INT(tahoe_ipstat(net.h[1])->ips_delivered, 1);
    NRT_EQ_INT(tahoe_next_deadline(net.h[1]), arrive1 + per_rcv);
    tn_run(&net, arrive1 + per_rcv, NULL, NULL);
    NRT_EQ_INT(tahoe_ipstat(net.h[1])->ips_delivered, 2);
    NRT_EQ_INT(tahoe_cpu_free_ns(net.h[1]), arrive1 + 2 * per_rcv);
    tn_free(&net);
}

/* The memory passes: a copy's stores cost a pass on top of its loads, and the DMA of each packet
 * in or out a pass over the packet beside the checksum's. */
static void test_host_memory_passes(void)
{
    struct tn_net net;
    tn_init(&net, 1500, 1000000000LL, 0);
    struct tahoe_config cfg;
    tahoe_config_defaults(&cfg);
    cfg.cost = (struct tahoe_hostcost){.per_packet_ns = 100000, .per_byte_ps = 50000,
                                       .per_call_ns = 20000, .copy_write_passes = 1,
                                       .dma_passes = 1};
    tn_host(&net, 0, &cfg);
    tn_host(&net, 1, &cfg);
    struct tahoe_addr to = { tn_ip(10, 0, 0, 2), 7 };
    int rx = tahoe_socket(net.h[1], TAHOE_SOCK_DGRAM);
    tahoe_bind(net.h[1], rx, &to);
    int tx = tahoe_socket(net.h[0], TAHOE_SOCK_DGRAM);
    int64_t t0 = tahoe_cpu_free_ns(net.h[0]);
    static uint8_t msg[1000];
    tahoe_sendto(net.h[0], tx, msg, sizeof msg, &to);
    /* call 20 us + copy 2 passes over 1000 octets + packet 100 us + checksum and DMA, 2 passes
     * over 1028 octets. */
    NRT_EQ_INT(net.log[0].at_ns, t0 + 20000 + 2 * 1000 * 50 + 100000 + 2 * 1028 * 50);
    int64_t arrive = net.log[0].arrive_ns;
    tn_run(&net, arrive, NULL, NULL);
    NRT_EQ_INT(tahoe_ipstat(net.h[1])->ips_delivered, 1);
    NRT_EQ_INT(tahoe_cpu_free_ns(net.h[1]), arrive + 100000 + 2 * 1028 * 50);
    /* The copy out to the user: the call and two passes over the 1000 octets. */
    int64_t before = tahoe_cpu_free_ns(net.h[1]);
    uint8_t got[1000];
    NRT_EQ_INT(tahoe_recvfrom(net.h[1], rx, got, sizeof got, NULL), (long)sizeof got);
    NRT_EQ_INT(tahoe_cpu_free_ns(net.h[1]), before + 20000 + 2 * 1000 * 50);
    tn_free(&net);
}

/* Writes text to path and loads it as a host model file. */
static int load_model_text(const char *path, const char *text, struct tahoe_hostcost *c)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    fputs("name: t\nper_packet_ns: 1\nper_byte_ps: 2\nper_call_ns: 3\n", f);
    fputs(text, f);
    fclose(f);
    return tahoe_hostcost_load(path, c);
}

/* The passes are read from a model file, default to none and may not be negative. */
static void test_host_memory_passes_load(void)
{
    char path[] = "/tmp/test_ip_hostXXXXXX";
    int fd = mkstemp(path);
    NRT_CHECK(fd >= 0);
    close(fd);
    struct tahoe_hostcost c;
    NRT_EQ_INT(load_model_text(path, "copy_write_passes: 1\ndma_passes: 2\n", &c), 0);
    NRT_EQ_INT(c.copy_write_passes, 1);
    NRT_EQ_INT(c.dma_passes, 2);
    NRT_EQ_INT(load_model_text(path, "", &c), 0);
    NRT_EQ_INT(c.copy_write_passes, 0);
    NRT_EQ_INT(c.dma_passes, 0);
    NRT_EQ_INT(load_model_text(path, "dma_passes: -1\n", &c), -EINVAL);
    NRT_EQ_INT(load_model_text(path, "copy_write_passes: -1\n", &c), -EINVAL);
    unlink(path);
}

/* The uncalibrated IPC model is the calibrated one but for the values its `fitted` block names
 * (the SBA-200 driver's costs per PDU, the receive buffers' size), which stay at their priors;
 * the fit moved the cost per PDU (the buffers' size may stay at its prior). */
static void test_host_model_uncalibrated(void)
{
    struct tahoe_hostcost fitted, before;
    NRT_EQ_INT(tahoe_hostcost_load("../configs/hosts/sparcstation-ipc.yaml", &fitted), 0);
    NRT_EQ_INT(
        tahoe_hostcost_load("../configs/hosts/sparcstation-ipc-uncalibrated.yaml", &before), 0);
    NRT_CHECK(fitted.atm_tx_ns != before.atm_tx_ns);
    before.atm_tx_ns = fitted.atm_tx_ns;
    before.atm_rx_ns = fitted.atm_rx_ns;
    before.atm_buffer_bytes = fitted.atm_buffer_bytes;
    NRT_CHECK(memcmp(&fitted, &before, sizeof fitted) == 0);
}

/* Every host model file loads and has its three costs. */
static void test_host_model_files(void)
{
    const char *names[] = { "sparcstation-ipc", "sparcstation-ipx", "sparcstation-20", "modern" };
    int64_t prev_pkt = INT64_MAX;
    for (int i = 0; i < 4; i++) {
        char path[256];
        snprintf(path, sizeof path, "../configs/hosts/%s.yaml", names[i]);
        struct tahoe_hostcost c;
        NRT_EQ_INT(tahoe_hostcost_load(path, &c), 0);
        NRT_CHECK(c.per_packet_ns > 0 && c.per_byte_ps > 0 && c.per_call_ns > 0);
        /* Listed from the slowest host to the fastest. */
        NRT_CHECK(c.per_packet_ns < prev_pkt);
        prev_pkt = c.per_packet_ns;
    }
    struct tahoe_hostcost c;
    NRT_EQ_INT(tahoe_hostcost_load("../configs/hosts/no-such-host.yaml", &c), -ENOENT);
}

int main(void)
{
    NRT_RUN(test_checksum_vectors);
    NRT_RUN(test_checksum_as_word_by_word);
    NRT_RUN(test_udp_8k_fragmented);
    NRT_RUN(test_fragment_lost);
    NRT_RUN(test_fragment_deadline_is_the_oldest);
    NRT_RUN(test_udp_socket_full);
    NRT_RUN(test_udp_port_unreachable);
    NRT_RUN(test_icmp_echo);
    NRT_RUN(test_ping_between_stacks);
    NRT_RUN(test_host_cost_charging);
    NRT_RUN(test_host_memory_passes);
    NRT_RUN(test_host_memory_passes_load);
    NRT_RUN(test_host_model_uncalibrated);
    NRT_RUN(test_host_model_files);
    return nrt_summary("tahoe/test_ip");
}
