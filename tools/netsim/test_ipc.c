/* netsim --app ipcbench: milliner's client and server on two Tahoe stacks over a 10 Mb/s
 * Ethernet, in virtual time. Each message's time must end on an event that proves the server
 * has all of it, so no message may move faster than the line. The bound comes from the link's
 * rate, never from the paper's measurements. */
#include "simtest.h"

#define RATE_BPS 10e6
#define ETHERNET "--rate", "10Mbit", "--framing", "ethernet", "--mtu", "1500B", \
                 "--host-model-a", "../configs/hosts/sun-4c-20mb.yaml", \
                 "--host-model-b", "../configs/hosts/sun-4c-16mb.yaml", "--seed", "1"
#define CLIENT "\"role\":\"client\""
#define SERVER "\"role\":\"server\""

/* The time the line takes to carry size octets, without any header: a floor for any transfer. */
static double line_floor_ns(double size) { return size * 8 * 1e9 / RATE_BPS; }

/* Fig 5's smallest message with the paper's largest buffers: 64K fits in the two ends' 50000
 * octets of buffers with room to spare, so the last write returns long before the server has
 * read it all (that alone would "run" faster than the line); the time to the server's octet
 * cannot. */
static void test_tcp_timed_to_the_receiver(void)
{
    char *args[] = {"--app", "ipcbench", ETHERNET, "--",
                    "--proto", "tcp", "--buf", "50000B", "--size", "64K", "--repeat", "2",
                    "--pause", "1s", NS_ADDR_B, "--", "--proto", "tcp", "--buf", "50000B", NULL};
    struct st_run r = st_run_sim(args);
    NRT_EQ_INT(r.rc, 0);
    NRT_EQ_INT(r.status, 0);
    NRT_EQ_INT(st_count(&r, "\"timing_end\":\"receiver_ack\""), 2);
    NRT_EQ_INT(st_count(&r, "\"intact\":true"), 2);
    for (int i = 0; i < 2; i++) {
        double elapsed = st_field(&r, CLIENT, i, "elapsed_ns");
        double write = st_field(&r, CLIENT, i, "write_ns");
        NRT_CHECK(elapsed >= line_floor_ns(65536));
        NRT_CHECK(st_field(&r, CLIENT, i, "throughput_bps") < RATE_BPS);
        /* The case tells the two end points apart: the write returned inside the floor. */
        NRT_CHECK(write > 0 && write < line_floor_ns(65536));
        /* The server read the last octet before its answer reached the client. */
        NRT_CHECK(st_field(&r, SERVER, i, "elapsed_ns") < elapsed);
    }
    st_free(&r);
}

/* UDP's clock stops on the acknowledgement of the last group, after the whole message. */
static void test_udp_timed_to_the_last_ack(void)
{
    char *args[] = {"--app", "ipcbench", ETHERNET, "--",
                    "--proto", "udp", "--segment", "9000B", "--unack", "6", "--size", "256K",
                    NS_ADDR_B, "--", "--proto", "udp", NULL};
    struct st_run r = st_run_sim(args);
    NRT_EQ_INT(r.rc, 0);
    NRT_EQ_INT(r.status, 0);
    NRT_EQ_INT(st_count(&r, "\"timing_end\":\"receiver_ack\""), 1);
    NRT_EQ_INT(st_count(&r, "\"echo_equal\":true"), 1);
    NRT_CHECK(st_field(&r, CLIENT, 0, "elapsed_ns") >= line_floor_ns(262144));
    NRT_CHECK(st_field(&r, CLIENT, 0, "throughput_bps") < RATE_BPS);
    st_free(&r);
}

int main(void)
{
    NRT_RUN(test_tcp_timed_to_the_receiver);
    NRT_RUN(test_udp_timed_to_the_last_ack);
    return nrt_summary("netsim/test_ipc");
}
