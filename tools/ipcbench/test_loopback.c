/* ipcbench end to end on 127.0.0.1: UDP 1UnAck and 6UnAck echoes compare equal (also through
 * a relay that drops datagrams, which retransmission must repair, and one that loses the
 * acknowledgement of the echo's last group), TCP, TCP timed until a slow receiver has read the
 * message, RPC, TLI's refusal, and a client whose server never answers. */
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "nrtest.h"
#include "nrtest_proc.h"

#define DEADLINE_S 10

/* Forwards datagrams between a client and the server on sport, dropping every drop-th one in
 * each direction (0: none) and, with first_acks, the first copy of every acknowledgement the
 * client sends, so that the one for the echo's last group is lost too; until nothing has
 * passed for a second. */
static pid_t lossy_relay(int rport, int sport, int drop, int first_acks)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        nrt_die("forking the relay");
    if (pid != 0)
        return pid;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in me = {.sin_family = AF_INET, .sin_port = htons((uint16_t)rport),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct sockaddr_in srv = me, client = {0};
    srv.sin_port = htons((uint16_t)sport);
    struct timeval tv = {1, 0};
    if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof me) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0)
        _exit(1);
    static char buf[65536];
    static uint8_t acked[65536];
    for (long n = 1;; n++) {
        struct sockaddr_in from;
        socklen_t len = sizeof from;
        ssize_t r = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &len);
        if (r < 0)
            _exit(0);
        int from_server = from.sin_port == srv.sin_port;
        if (!from_server)
            client = from;
        if ((drop && n % drop == 0) || (from_server && client.sin_port == 0))
            continue;
        if (first_acks && !from_server && r == 2) {
            uint16_t ack = (uint16_t)((uint8_t)buf[0] << 8 | (uint8_t)buf[1]);
            if (!acked[ack]++)
                continue;
        }
        sendto(fd, buf, (size_t)r, 0, (struct sockaddr *)(from_server ? &client : &srv),
               sizeof srv);
    }
}

static void udp_case(const char *unack, const char *segment, int drop, int first_acks)
{
    char sport[8], cport[8];
    int relayed = drop || first_acks;
    snprintf(sport, sizeof sport, "%d", nrt_free_port(SOCK_DGRAM));
    snprintf(cport, sizeof cport, "%d", relayed ? nrt_free_port(SOCK_DGRAM) : atoi(sport));
    const char *srv[] = {"ipcbench", "--server", "-p", sport, "--bind", "127.0.0.1", "--count",
                         "2", "--rto", "20ms", "--timeout", "5s", NULL};
    const char *cli[] = {"ipcbench", "-p", cport, "--size", "300K", "--segment", segment,
                         "--unack", unack, "--repeat", "2", "--pause", "10ms", "--rto", "20ms",
                         "--timeout", "5s", "127.0.0.1", NULL};
    /* The relay listens before the server starts, so it is there for the client; it ends a
     * second after the last datagram. */
    pid_t relay = relayed ? lossy_relay(atoi(cport), atoi(sport), drop, first_acks) : 0;
    if (relayed)
        nrt_wait_udp_bound(atoi(cport));
    NRT_EQ_INT(nrt_run_pair(srv, "udp_s.out", cli, "udp_c.out", atoi(sport)), 0);
    if (relay)
        nrt_reap(relay, time(NULL) + DEADLINE_S);
    const char *out = nrt_read("udp_c.out");
    NRT_EQ_INT(nrt_count(out, "\"echo_equal\":true"), 2);
    NRT_EQ_INT(nrt_count(out, "\"timing_end\":\"receiver_ack\""), 2);
    NRT_EQ_INT(nrt_field(out, "unack"), atoi(unack));
    NRT_CHECK(nrt_field(out, "elapsed_ns") > 0);
    long long segs = nrt_field(out, "segments");
    NRT_EQ_INT(nrt_field(out, "acks"), (segs + atoi(unack) - 1) / atoi(unack));
    if (drop)
        NRT_CHECK(nrt_field(out, "retransmissions") > 0);
    else
        NRT_CHECK(nrt_field(out, "retransmissions") >= 0);
    long long seg = nrt_field(out, "segment");
    out = nrt_read("udp_s.out");
    NRT_EQ_INT(nrt_count(out, "\"intact\":true"), 2);
    NRT_EQ_INT(nrt_field(out, "segment"), seg); /* the client's, which the echo used */
    if (first_acks)
        NRT_CHECK(nrt_field(out, "echo_retransmissions") > 0);
}

static void test_udp_1unack(void) { udp_case("1", "1472B", 0, 0); }
static void test_udp_6unack(void) { udp_case("6", "9000B", 0, 0); }
static void test_udp_lossy(void) { udp_case("6", "4K", 7, 0); }
/* The client must still answer after its last echo: the server needs that acknowledgement. */
static void test_udp_last_ack_lost(void) { udp_case("6", "4K", 0, 1); }

static void stream_case(const char *api, const char *const *extra)
{
    char port[8];
    snprintf(port, sizeof port, "%d", nrt_free_port(SOCK_STREAM));
    const char *srv[24] = {"ipcbench", "--server", "--api", api, "-p", port, "--bind",
                           "127.0.0.1", "--count", "2", "--timeout", "5s"};
    const char *cli[24] = {"ipcbench", "--api", api, "-p", port, "--size", "2M", "--repeat", "2",
                           "--pause", "10ms", "--timeout", "5s"};
    int ns = 12, nc = 13;
    for (int i = 0; extra[i]; i++) {
        srv[ns++] = extra[i];
        cli[nc++] = extra[i];
    }
    cli[nc++] = "127.0.0.1";
    NRT_EQ_INT(nrt_run_pair(srv, "st_s.out", cli, "st_c.out", 0), 0);
    const char *out = nrt_read("st_c.out");
    NRT_EQ_INT(nrt_count(out, "\"record\":\"message\""), 2);
    NRT_EQ_INT(nrt_field(out, "size"), 2 << 20);
    NRT_CHECK(nrt_field(out, "elapsed_ns") > 0);
    out = nrt_read("st_s.out");
    NRT_EQ_INT(nrt_count(out, "\"intact\":true"), 2);
}

static void test_tcp(void)
{
    const char *extra[] = {"--proto", "tcp", "--buf", "16K", NULL};
    stream_case("sockets", extra);
    const char *out = nrt_read("st_c.out");
    NRT_EQ_INT(nrt_field(out, "buf_requested"), 16384);
    NRT_CHECK(nrt_field(out, "elapsed_ns") >= nrt_field(out, "write_ns"));
    NRT_EQ_INT(nrt_count(out, "\"timing_end\":\"receiver_ack\""), 2);
}

/* A TCP receiver on ipcbench's wire protocol (tcp.c) that lets each message wait in the socket
 * buffers for stall_ns after its length arrived, then reads it and answers its octet; until
 * the client closes, or nothing has come for DEADLINE_S. */
static pid_t slow_receiver(int port, int64_t stall_ns)
{
    struct sockaddr_in me = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int one = 1, lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(lfd, (struct sockaddr *)&me, sizeof me) != 0 || listen(lfd, 1) != 0)
        nrt_die("listening for the slow receiver");
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        nrt_die("forking the slow receiver");
    if (pid != 0) {
        close(lfd);
        return pid;
    }
    struct timeval tv = {DEADLINE_S, 0};
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0)
        _exit(1);
    static uint8_t buf[1 << 16];
    for (;;) {
        uint8_t hdr[8];
        if (recv(fd, hdr, sizeof hdr, MSG_WAITALL) != (ssize_t)sizeof hdr)
            _exit(0); /* the client closed */
        uint64_t left = 0;
        for (int i = 0; i < 8; i++)
            left = left << 8 | hdr[i];
        struct timespec ts = {(time_t)(stall_ns / 1000000000), (long)(stall_ns % 1000000000)};
        nanosleep(&ts, NULL);
        while (left > 0) {
            ssize_t r = recv(fd, buf, left < sizeof buf ? (size_t)left : sizeof buf, 0);
            if (r <= 0)
                _exit(1);
            left -= (uint64_t)r;
        }
        uint8_t ack = 1;
        if (send(fd, &ack, 1, 0) != 1)
            _exit(1);
    }
}

/* The message fits in the socket buffers, so the client's write returns at once, while the
 * receiver has not read a byte yet: the time must run until the receiver's octet, past the
 * stall, not stop with the write. */
static void test_tcp_slow_receiver(void)
{
    const int64_t stall_ns = 300000000;
    char port[8];
    snprintf(port, sizeof port, "%d", nrt_free_port(SOCK_STREAM));
    pid_t rx = slow_receiver(atoi(port), stall_ns);
    const char *cli[] = {"ipcbench", "--proto", "tcp", "-p", port, "--size", "16K", "--repeat",
                         "2", "--pause", "10ms", "--timeout", "5s", "127.0.0.1", NULL};
    NRT_EQ_INT(nrt_reap(nrt_start(cli, "slow_c.out"), time(NULL) + DEADLINE_S), 0);
    NRT_EQ_INT(nrt_reap(rx, time(NULL) + DEADLINE_S), 0);
    const char *out = nrt_read("slow_c.out");
    NRT_EQ_INT(nrt_count(out, "\"timing_end\":\"receiver_ack\""), 2);
    /* The write's own return came before the stall was over: without it the case would not
     * tell the two end points apart. */
    NRT_CHECK(nrt_field(out, "write_ns") >= 0 && nrt_field(out, "write_ns") < stall_ns);
    NRT_CHECK(nrt_field(out, "elapsed_ns") >= stall_ns);
    const char *second = strstr(out, "\"index\":1");
    NRT_CHECK(second && nrt_field(second, "elapsed_ns") >= stall_ns);
}

static void test_rpc(void)
{
    const char *extra[] = {NULL};
    stream_case("rpc", extra);
    NRT_EQ_INT(nrt_count(nrt_read("st_c.out"), "\"timing_end\":\"rpc_return\""), 2);
}

static void test_tli(void)
{
    const char *argv[] = {"ipcbench", "--api", "tli", "127.0.0.1", NULL};
    NRT_EQ_INT(nrt_reap(nrt_start(argv, "tli.out"), time(NULL) + DEADLINE_S),
               IPC_EXIT_NOT_REPRODUCIBLE);
    const char *out = nrt_read("tli.out");
    NRT_CHECK(strstr(out, "\"record\":\"error\"") != NULL);
    NRT_CHECK(strstr(out, "not reproducible on Linux") != NULL);
}

static void test_no_server(void)
{
    char port[8];
    snprintf(port, sizeof port, "%d", nrt_free_port(SOCK_DGRAM));
    const char *cli[] = {"ipcbench", "-p", port, "--size", "10K", "--rto", "50ms", "--timeout",
                         "400ms", "--pause", "0s", "127.0.0.1", NULL};
    NRT_EQ_INT(nrt_reap(nrt_start(cli, "none.out"), time(NULL) + DEADLINE_S), 1);
    const char *out = nrt_read("none.out");
    NRT_CHECK(strstr(out, "\"record\":\"error\"") && strstr(out, "timeout"));
}

int main(void)
{
    nrt_setup("ipcbench");
    NRT_RUN(test_udp_1unack);
    NRT_RUN(test_udp_6unack);
    NRT_RUN(test_udp_lossy);
    NRT_RUN(test_udp_last_ack_lost);
    NRT_RUN(test_tcp);
    NRT_RUN(test_tcp_slow_receiver);
    NRT_RUN(test_rpc);
    NRT_RUN(test_tli);
    NRT_RUN(test_no_server);
    nrt_scratch_remove();
    return nrt_summary("ipcbench/test_loopback");
}
