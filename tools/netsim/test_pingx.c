/* netsim --app pingx: the real pingx and echod on two Tahoe stacks over the link model, in
 * virtual time. Every expected round trip is worked out here from the link's rate, framing
 * and delay and the host model's costs, never taken from the papers' measurements. */
#include <stdio.h>
#include <unistd.h>

#include "simtest.h"
#include "tahoe/tahoe.h"

#define META "\"record\":\"meta\""
#define MSG "\"record\":\"message\""
#define SUMMARY "\"record\":\"summary\""
#define SIM "\"record\":\"sim\""

#define RATE_BPS 10e6
#define DELAY_NS 1000000.0
#define MTU 1500
/* Ethernet on the line: header 14, FCS 4, preamble 8, gap 12; payloads under 46 are padded. */
#define ETH_OVERHEAD 38
#define ETH_MIN_PAYLOAD 46
#define IP_HDR 20
#define UDP_HDR 8
#define TCP_HDR 20

/* A 10 Mbit/s Ethernet with 1 ms of delay each way. */
#define LAN "--rate", "10Mbit", "--delay", "1ms"

/* Line time of one IP packet of ip octets at rate bit/s. */
static double wire_ns(long ip, double rate)
{
    return (double)((ip < ETH_MIN_PAYLOAD ? ETH_MIN_PAYLOAD : ip) + ETH_OVERHEAD) * 8 * 1e9 /
           rate;
}

/* Line time of one UDP datagram of len octets, in IP fragments of at most MTU octets (all but
 * the last carry a multiple of 8 octets). */
static double udp_wire_ns(long len, double rate)
{
    long rest = len + UDP_HDR, per = (MTU - IP_HDR) / 8 * 8;
    double ns = 0;
    for (; rest > per; rest -= per)
        ns += wire_ns(IP_HDR + per, rate);
    return ns + wire_ns(IP_HDR + rest, rate);
}

/* On an idle line between hosts that cost nothing, a message's round trip: all of it crosses
 * the line and the delay, and echod, which echoes only whole messages, sends it back alike. */
static double udp_rtt_ns(long size, long datagram)
{
    double ns = 0;
    for (long off = 0; off < size; off += datagram)
        ns += udp_wire_ns(size - off < datagram ? size - off : datagram, RATE_BPS);
    return 2 * (ns + DELAY_NS);
}

static int near(double got, double want) { return fabs(got - want) <= 2; }

/* Every message record of r is complete and its echo came back whole. */
static void check_complete(const struct st_run *r, int messages)
{
    NRT_EQ_INT(r->rc, 0);
    NRT_EQ_INT(r->status, 0);
    NRT_EQ_INT(st_count(r, META), 1);
    NRT_EQ_INT(st_count(r, MSG), messages);
    NRT_EQ_INT(st_count(r, "\"complete\":true"), messages);
    for (int i = 0; i < messages; i++)
        NRT_CHECK(st_field(r, MSG, i, "datagrams_returned") == st_field(r, MSG, i, "datagrams"));
    NRT_CHECK(st_count(r, "\"record\":\"error\"") == 0);
}

/* One connection, one segment each way: after the first message, whose data waits on the line
 * behind the handshake's last ACK, the round trip is two crossings of one segment. */
static void test_tcp_rtt_from_link(void)
{
    char *args[] = {LAN, "--app", "pingx", "--no-wall", "--",
                    "--mode", "tcp", "--sizes", "512B", "--count", "4", "--interval", "50ms",
                    "--", NULL};
    struct st_run r = st_run_sim(args);
    check_complete(&r, 4);
    double one = 2 * (wire_ns(IP_HDR + TCP_HDR + 512, RATE_BPS) + DELAY_NS);
    double ack = wire_ns(IP_HDR + TCP_HDR, RATE_BPS);
    double first = st_field(&r, MSG, 0, "rtt_ns");
    NRT_CHECK(first >= one - 2 && first <= one + ack + 2);
    for (int i = 1; i < 4; i++)
        NRT_CHECK(near(st_field(&r, MSG, i, "rtt_ns"), one));
    NRT_CHECK(strstr(r.text, "\"stack\":\"" NS_STACK "\"") != NULL);
    NRT_CHECK(strstr(r.text, "\"clock\":\"" NS_CLOCK "\"") != NULL);
    /* echod saw it all on one connection, and ended once pingx was done. */
    NRT_EQ_INT(st_field(&r, SUMMARY, 0, "tcp_connections"), 1);
    NRT_EQ_INT(st_field(&r, SUMMARY, 0, "tcp_messages_echoed"), 4);
    NRT_CHECK(st_pos(&r, MSG, 3) < st_pos(&r, SUMMARY, 0));
    NRT_CHECK(st_pos(&r, SUMMARY, 0) < st_pos(&r, SIM, 0));
    st_free(&r);
}

/* The other TCP modes echo every message too: tcp-nodelay with TCP_NODELAY at both ends (echod
 * sets it on its connection when pingx asks), tcp-per-message with a connection each. */
static void test_tcp_modes_complete(void)
{
    char *modes[] = {"tcp-nodelay", "tcp-per-message"};
    for (int m = 0; m < 2; m++) {
        char *args[] = {LAN, "--app", "pingx", "--no-wall", "--",
                        "--mode", modes[m], "--sizes", "512B,12K-1", "--count", "2",
                        "--interval", "100ms", "--", NULL};
        struct st_run r = st_run_sim(args);
        check_complete(&r, 4);
        NRT_CHECK(strstr(r.text, m == 0 ? "\"tcp_nodelay\":true" : "\"tcp_nodelay\":false"));
        NRT_EQ_INT(st_field(&r, SUMMARY, 0, "tcp_connections"), m == 0 ? 1 : 4);
        NRT_EQ_INT(st_field(&r, SUMMARY, 0, "tcp_errors"), 0);
        /* A connection per message costs its handshake inside the round trip. */
        double one = 2 * (wire_ns(IP_HDR + TCP_HDR + 512, RATE_BPS) + DELAY_NS);
        double rtt = st_field(&r, MSG, 1, "rtt_ns");
        NRT_CHECK(m == 0 ? near(rtt, one) : rtt > one + 2 * DELAY_NS);
        st_free(&r);
    }
}

static void test_udp_rtt_from_link(void)
{
    char *args[] = {LAN, "--app", "pingx", "--no-wall", "--",
                    "--mode", "udp", "--sizes", "512B,12K-1", "--datagram", "8K",
                    "--count", "2", "--interval", "100ms", "--", "--proto", "udp", NULL};
    struct st_run r = st_run_sim(args);
    check_complete(&r, 4);
    for (int i = 0; i < 4; i++) {
        double size = st_field(&r, MSG, i, "size");
        NRT_CHECK(near(st_field(&r, MSG, i, "rtt_ns"), udp_rtt_ns((long)size, 8192)));
    }
    NRT_EQ_INT(st_field(&r, MSG, 2, "datagrams"), 2);
    NRT_EQ_INT(st_field(&r, SUMMARY, 0, "udp_messages_echoed"), 4);
    st_free(&r);
}

/* A host model puts its costs on the round trip: on each host, a socket call and a copy of the
 * datagram to send it and to read it (its loads and stores), and a packet's processing with the
 * checksum's pass and the DMA's passes over it. */
static void test_host_model_costs(void)
{
    char model[] = "/tmp/test_pingx_costsXXXXXX";
    st_cost_model(model);
    struct tahoe_hostcost c;
    NRT_EQ_INT(tahoe_hostcost_load(model, &c), 0);
    char *args[] = {LAN, "--app", "pingx", "--no-wall", "--host-model-a", model,
                    "--host-model-b", model, "--",
                    "--mode", "udp", "--sizes", "512B", "--count", "3", "--interval", "100ms",
                    "--", NULL};
    struct st_run r = st_run_sim(args);
    check_complete(&r, 3);
    double len = 512, ip = IP_HDR + UDP_HDR + len;
    double per_side = c.per_call_ns + (1 + c.copy_write_passes) * len * c.per_byte_ps / 1e3 +
                      c.per_packet_ns + (1 + c.dma_passes) * ip * c.per_byte_ps / 1e3;
    double least = udp_rtt_ns(512, 8192) + 4 * per_side;
    for (int i = 0; i < 3; i++) {
        double rtt = st_field(&r, MSG, i, "rtt_ns");
        /* Beyond that, at most the calls that find nothing more to read. */
        NRT_CHECK(rtt >= least - 2 && rtt <= least + 2 * c.per_call_ns + 2);
    }
    st_free(&r);
    unlink(model);
}

/* udp-cooled: on a line fast enough that a datagram crosses it within the gap, a gap after each
 * of the request's datagrams but the last, and one between the echo's (echod --echo-gap), each
 * lengthen the round trip by the gap less the line time of the datagram it follows, which back
 * to back would have filled it. */
static void test_cooling_takes_virtual_time(void)
{
    const long size = 32768, datagram = 8192, n = size / datagram;
    const double gap = 2e6;
    char *plain[] = {"--rate", "100Mbit", "--delay", "1ms", "--app", "pingx", "--no-wall", "--",
                     "--mode", "udp", "--sizes", "32K", "--count", "1", "--", NULL};
    char *cooled[] = {"--rate", "100Mbit", "--delay", "1ms", "--app", "pingx", "--no-wall", "--",
                      "--mode", "udp-cooled", "--cool-gap", "2ms", "--sizes", "32K",
                      "--count", "1", "--", "--echo-gap", "2ms", NULL};
    /* 50000 iterations of 40 ns (the default --spin-ps of 40000): the same 2 ms. */
    char *spun[] = {"--rate", "100Mbit", "--delay", "1ms", "--app", "pingx", "--no-wall", "--",
                    "--mode", "udp-cooled", "--cool-iterations", "50000", "--sizes", "32K",
                    "--count", "1", "--", "--echo-gap", "2ms", NULL};
    struct st_run p = st_run_sim(plain), c = st_run_sim(cooled), s = st_run_sim(spun);
    check_complete(&p, 1);
    check_complete(&c, 1);
    check_complete(&s, 1);
    double base = st_field(&p, MSG, 0, "rtt_ns");
    double rtt_c = st_field(&c, MSG, 0, "rtt_ns"), rtt_s = st_field(&s, MSG, 0, "rtt_ns");
    double added = 2 * (n - 1) * (gap - udp_wire_ns(datagram, 100e6));
    /* pingx's busy-wait overshoots by less than one slice of 64 iterations of 40 ns. */
    NRT_CHECK(rtt_c >= base + added - 2 && rtt_c <= base + added + (n - 1) * 64 * 40 + 2);
    NRT_EQ_INT(st_field(&c, MSG, 0, "cool_gap_ns"), gap);
    NRT_CHECK(st_field(&s, META, 0, "calib_ns_per_iteration") == 40.0);
    NRT_EQ_INT(st_field(&s, MSG, 0, "cool_gap_ns"), gap);
    NRT_CHECK(fabs(rtt_s - rtt_c) <= 2 * (n - 1) * 64 * 40);
    NRT_EQ_INT(st_field(&c, SUMMARY, 0, "echo_gap_ns"), gap);
    st_free(&p);
    st_free(&c);
    st_free(&s);
}

/* --medium shared: the stack hands a cooled blast's frames over ahead of the simulator's
 * clock; the interface queue holds only those whose time has come, so a gap longer than what
 * one datagram and its echo take on the wire loses nothing, however many frames the message
 * has (300 here, against a queue of 50). */
static void test_shared_medium_queues_frames_at_their_time(void)
{
    char *args[] = {LAN, "--medium", "shared", "--queue-packets", "50", "--app", "pingx",
                    "--no-wall", "--", "--mode", "udp-cooled", "--cool-gap", "16ms",
                    "--sizes", "400K", "--count", "1", "--", "--echo-gap", "16ms", NULL};
    struct st_run r = st_run_sim(args);
    check_complete(&r, 1);
    NRT_EQ_INT(st_field(&r, SIM, 0, "medium_a_offered"), 300);
    NRT_EQ_INT(st_field(&r, SIM, 0, "medium_a_drop_queue"), 0);
    NRT_CHECK(st_field(&r, SIM, 0, "medium_a_queue_max_packets") < 50);
    st_free(&r);
}

/* On a lossy link the same seed gives the same bytes, another seed other losses; Tahoe
 * retransmits what TCP lost, and UDP messages that lost a datagram are reported incomplete. */
static void test_seeds_on_a_lossy_link(void)
{
    for (int udp = 0; udp < 2; udp++) {
        char *args[] = {LAN, "--loss-pct", "5", "--seed", "11", "--app", "pingx", "--no-wall",
                        "--", "--mode", udp ? "udp" : "tcp", "--sizes", "512B,12K-1",
                        "--count", "6", "--interval", "100ms", "--timeout", "60s",
                        "--udp-quiet", "50ms", "--", NULL};
        struct st_run r = st_check_seed(args, "12");
        NRT_EQ_INT(r.rc, 0);
        NRT_EQ_INT(r.status, 0);
        NRT_CHECK(st_field(&r, SIM, 0, "forward_drop_loss") +
                  st_field(&r, SIM, 0, "reverse_drop_loss") > 0);
        if (udp)
            NRT_CHECK(st_count(&r, "\"complete\":false") > 0);
        else
            NRT_EQ_INT(st_count(&r, "\"complete\":true"), 12);
        st_free(&r);
    }
}

static void test_bad_command_lines(void)
{
    FILE *null = fopen("/dev/null", "w");
    NRT_CHECK(null != NULL);
    if (!null)
        return;
    static struct ns_args a;
    char *good[] = {"netsim", "--app", "pingx", "--rate", "1Mbit", "--", "--mode", "udp",
                    "--sizes", "512B", "--", NULL};
    NRT_EQ_INT(ns_parse_args(11, good, &a, null, null), 0);
    NRT_EQ_INT(a.app, NS_APP_PINGX);
    NRT_EQ_STR(a.ping.host, NS_ADDR_B); /* netsim's default for pingx */
    NRT_EQ_STR(a.echo.stack, NS_STACK);
    char *refused[][16] = {
        {"--app", "ping"},
        {"--", "--mode", "udp", "--sizes", "512B", "--host", "10.0.0.9", "--"},
        {"--", "--mode", "udp", "--sizes", "512B", "--port", "7", "--"},
        {"--", "--mode", "udp", "--sizes", "512B", "--", "--proto", "tcp"},
        {"--", "--mode", "tcp", "--sizes", "512B", "--", "--bind", "10.0.0.1"},
        {"--", "--mode", "tcp", "--sizes", "512B", "--stack", "tahoe", "--if", "x", "--addr",
         "10.0.0.1/24", "--host-model", "m", "--"},
        {"--spin-ps", "0", "--", "--mode", "udp-cooled", "--cool-gap", "1ms", "--sizes", "8K",
         "--"},
        {"--", "--mode", "tcp", "--sizes", "512B"},
        {"--", "--mode", "tcp", "--sizes", "512B", "--", "--help"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char *argv[24] = {"netsim", "--app", "pingx", "--rate", "1Mbit"};
        int argc = 5;
        for (int k = 0; refused[i][k]; k++)
            argv[argc++] = refused[i][k];
        NRT_EQ_INT(ns_parse_args(argc, argv, &a, null, null), -1);
    }
    fclose(null);
}

/* Writes a host model that costs nothing but the extra line given, e.g. "print_ns: 20000000". */
static void write_model(char *path, const char *extra)
{
    int fd = mkstemp(path);
    NRT_CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    NRT_CHECK(f != NULL);
    fprintf(f, "name: t\nper_packet_ns: 0\nper_byte_ps: 0\nper_call_ns: 0\n%s\n", extra);
    fclose(f);
}

/* --print-each: a printed line costs the host model's print_ns. A 16K message is two 8K
 * datagrams; the first echo datagram's line keeps pingx busy past the second's arrival (one
 * datagram's line time later), so the round trip grows by the print less that line time. The
 * line printed for the last datagram comes after the clock was read, and TCP prints only once
 * the echo is whole: its round trip does not change. */
static void test_print_each_costs_host_time(void)
{
    char model[] = "/tmp/netsim-print-XXXXXX";
    write_model(model, "print_ns: 20000000");
    double rtt[2][2];
    for (int printed = 0; printed < 2; printed++) {
        for (int tcp = 0; tcp < 2; tcp++) {
            char *args[] = {LAN, "--app", "pingx", "--no-wall", "--host-model-a", model,
                            "--host-model-b", model, "--", "--mode", tcp ? "tcp" : "udp",
                            "--sizes", "16K", "--count", "2", "--interval", "1s", "--",
                            NULL, NULL};
            if (printed) /* before the '--' that ends pingx's arguments */
                args[20] = "--print-each", args[21] = "--";
            struct st_run r = st_run_sim(args);
            check_complete(&r, 2);
            NRT_CHECK(strstr(st_line(&r, META, 0), printed ? "\"print_each\":true"
                                                             : "\"print_each\":false") != NULL);
            rtt[printed][tcp] = st_field(&r, MSG, 1, "rtt_ns");
            st_free(&r);
        }
    }
    NRT_CHECK(near(rtt[1][0] - rtt[0][0], 20e6 - udp_wire_ns(8192, RATE_BPS)));
    NRT_CHECK(near(rtt[1][1], rtt[0][1]));
    unlink(model);
}

/* A host model's spin_ps times its busy loop, whatever --spin-ps says: pingx calibrates
 * --cool-iterations against the clock and finds the model's iteration. */
static void test_host_model_spin(void)
{
    char model[] = "/tmp/netsim-spin-XXXXXX";
    write_model(model, "spin_ps: 1000000");
    char *args[] = {LAN, "--app", "pingx", "--no-wall", "--spin-ps", "40000", "--host-model-a",
                    model, "--host-model-b", model, "--", "--mode", "udp-cooled",
                    "--cool-iterations", "100", "--sizes", "16K", "--count", "1", "--",
                    "--echo-gap", "100us", NULL};
    struct st_run r = st_run_sim(args);
    check_complete(&r, 1);
    NRT_CHECK(fabs(st_field(&r, META, 0, "calib_ns_per_iteration") - 1000) < 1e-6);
    st_free(&r);
    unlink(model);
}

/* 8 KB over ATM with 16 KB buffers: each direction's second 4 KB waits for the delayed ACK of
 * the first, sent on the receiver's next 200 ms tick. With --pacing alarm each message starts
 * one clock tick more than a second after the last (the host model's clock_hz), so it meets
 * the peers' ticks a tick later and its round trip falls by a tick, until it wraps round;
 * with --pacing grid every message meets them alike. */
static void test_alarm_pacing_drifts_against_the_delayed_ack_tick(void)
{
    char model[] = "/tmp/test_pingx_alarmXXXXXX";
    st_cost_model(model);
    struct tahoe_hostcost c;
    NRT_EQ_INT(tahoe_hostcost_load(model, &c), 0);
    NRT_CHECK(c.clock_hz > 0);
    if (c.clock_hz <= 0)
        return;
    double tick = 1e9 / (double)c.clock_hz;
    const char *pacing[2] = {"alarm", "grid"};
    for (int k = 0; k < 2; k++) {
        char *args[] = {"--framing", "aal5-vc-mux", "--mtu", "9188B", "--rate", "100Mbit",
                        "--app", "pingx", "--no-wall", "--host-model-a", model,
                        "--host-model-b", model, "--boot-b", "123456789ns", "--",
                        "--mode", "tcp", "--sizes", "8K", "--count", "25", "--interval", "1s",
                        "--pacing", (char *)pacing[k], "--sndbuf", "16K", "--rcvbuf", "16K",
                        "--", "--sndbuf", "16K", "--rcvbuf", "16K", NULL};
        struct st_run r = st_run_sim(args);
        check_complete(&r, 25);
        int down = 0, up = 0, flat = 0;
        for (int i = 2; i < 25; i++) {
            double step = st_field(&r, MSG, i, "rtt_ns") - st_field(&r, MSG, i - 1, "rtt_ns");
            down += fabs(step + tick) < 1000;
            flat += fabs(step) < 1000;
            up += step > 0;
        }
        if (k == 0) {
            /* Of each 200 ms / tick steps, one is the wrap back up. */
            int period = (int)(200e6 / tick);
            NRT_CHECK(up >= 1 && up <= (23 + period - 1) / period && down + up == 23);
        } else {
            NRT_EQ_INT(flat, 23);
        }
        st_free(&r);
    }
    unlink(model);
}

int main(void)
{
    NRT_RUN(test_bad_command_lines);
    NRT_RUN(test_tcp_rtt_from_link);
    NRT_RUN(test_tcp_modes_complete);
    NRT_RUN(test_udp_rtt_from_link);
    NRT_RUN(test_host_model_costs);
    NRT_RUN(test_cooling_takes_virtual_time);
    NRT_RUN(test_shared_medium_queues_frames_at_their_time);
    NRT_RUN(test_seeds_on_a_lossy_link);
    NRT_RUN(test_print_each_costs_host_time);
    NRT_RUN(test_host_model_spin);
    NRT_RUN(test_alarm_pacing_drifts_against_the_delayed_ack_tick);
    return nrt_summary("netsim/test_pingx");
}
