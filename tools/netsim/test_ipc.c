/* netsim --app ipcbench: milliner's client and server on two Tahoe stacks over a 10 Mb/s
 * Ethernet, in virtual time. Each message's time must end on an event that proves the server
 * has all of it, so no message may move faster than the line. The bound comes from the link's
 * rate, never from the paper's measurements. */
#include <stdio.h>
#include <unistd.h>

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

/* The records are a function of the command line, not of where this machine's allocator puts
 * the processes' buffers: a second run after the heap has been rearranged (blocks held, a
 * large one freed, which moves glibc's mmap threshold) pages the same and writes the same
 * octets. A host with 512K of memory for the process pages a 1M message. */
static void test_paging_does_not_follow_the_heap(void)
{
    char model[] = "/tmp/netsim-test-ipc-XXXXXX";
    int fd = mkstemp(model);
    NRT_CHECK(fd >= 0);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    NRT_CHECK(f != NULL);
    if (!f)
        return;
    fputs("name: small-ram\nper_packet_ns: 90000\nper_byte_ps: 50000\nper_call_ns: 21000\n"
          "ram_bytes: 1048576\nresident_bytes: 524288\npage_size: 4096\n"
          "page_in_ns: 12000000\npage_out_ns: 3000000\n", f);
    fclose(f);
    char *args[] = {"--app", "ipcbench", "--rate", "10Mbit", "--framing", "ethernet", "--mtu",
                    "1500B", "--host-model-a", model, "--host-model-b", model, "--seed", "1",
                    "--no-wall", "--", "--proto", "udp", "--segment", "9000B", "--unack", "6",
                    "--size", "1M", NS_ADDR_B, "--", "--proto", "udp", NULL};
    struct st_run first = st_run_sim(args);
    NRT_EQ_INT(first.rc, 0);
    NRT_CHECK(st_field(&first, CLIENT, 0, "pageouts") > 0);
    void *held[3] = {malloc(70001), malloc(123), malloc(3 << 20)};
    free(held[2]);
    held[2] = malloc(1000);
    struct st_run second = st_run_sim(args);
    NRT_EQ_INT(second.rc, 0);
    NRT_EQ_INT((long long)second.len, (long long)first.len);
    NRT_CHECK(first.text && second.text && strcmp(first.text, second.text) == 0);
    for (int i = 0; i < 3; i++)
        free(held[i]);
    st_free(&first);
    st_free(&second);
    unlink(model);
}

int main(void)
{
    NRT_RUN(test_tcp_timed_to_the_receiver);
    NRT_RUN(test_udp_timed_to_the_last_ack);
    NRT_RUN(test_paging_does_not_follow_the_heap);
    return nrt_summary("netsim/test_ipc");
}
