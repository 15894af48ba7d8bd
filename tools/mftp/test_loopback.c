/* mftp against mftpd on 127.0.0.1: 1, 4 and 16 connections both ways move a generated file
 * intact; N picked by the formula; a plain FTP client (written here, RFC 959 only) fetches
 * the file in stream mode; a server that never answers ends in a timeout. */
#include <arpa/inet.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mftpcore/crc32.h"
#include "mftpcore/ftp.h"
#include "nrtest.h"
#include "nrtest_proc.h"

#define FILE_SIZE (2 * 1024 * 1024 + 12345) /* not a multiple of any block size */
#define DEADLINE_S 12

static char src[PATH_MAX], port[8];
static uint32_t src_crc;

/* A control connection to the server on port p, or -1. */
static int connect_to(int p)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        nrt_die("opening a TCP socket");
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)p),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct timeval tv = {5, 0};
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0)
        nrt_die("setting a receive timeout");
    if (connect(fd, (struct sockaddr *)&sin, sizeof sin) != 0) {
        if (close(fd) != 0)
            nrt_die("closing a socket that did not connect");
        return -1;
    }
    return fd;
}

/* Runs bin/mftp in a child with stdout to the scratch file mftp.out; returns its exit status. */
static int run_mftp(const char *const *argv)
{
    return nrt_reap(nrt_start(argv, "mftp.out"), time(NULL) + DEADLINE_S);
}

static uint32_t crc_of(const char *path)
{
    uint32_t crc = 0;
    if (mftp_crc32_file(path, &crc) < 0)
        return 0xffffffffu;
    return crc;
}

/* Sum of the "conn_bytes" array. */
static long long conn_bytes_sum(const char *text, int *count)
{
    const char *p = strstr(text, "\"conn_bytes\":[");
    long long sum = 0;
    *count = 0;
    if (!p)
        return -1;
    p += strlen("\"conn_bytes\":[");
    while (*p && *p != ']') {
        char *end;
        sum += strtoll(p, &end, 10);
        (*count)++;
        p = *end == ',' ? end + 1 : end;
    }
    return sum;
}

static void check_transfer(const char *out, int n, const char *file)
{
    int cnt;
    NRT_CHECK(strstr(out, "\"record\":\"transfer\"") != NULL);
    NRT_EQ_INT(nrt_field(out, "connections"), n);
    NRT_EQ_INT(nrt_field(out, "bytes"), FILE_SIZE);
    NRT_EQ_INT(conn_bytes_sum(out, &cnt), FILE_SIZE);
    NRT_EQ_INT(cnt, n);
    NRT_CHECK(nrt_field(out, "throughput_bps") > 0);
    NRT_EQ_INT(crc_of(file), src_crc);
}

/* --window 64K on a GET. Both ends set the clamp before connecting, so it starts at 64K. The
 * server only sends, and Linux moves a clamp only as data arrive, so its window stays. The
 * client receives: Linux may re-derive its clamp from the buffer (up to the buffer, which is
 * 2 x 2 x 64K), and every value the record gives must lie in that range; a move that the
 * record shows must have been set back. */
static void check_window(const char *out)
{
    long long start = nrt_field(out, "window_start"), end = nrt_field(out, "window_end");
    long long max = nrt_field(out, "window_max"), rcvbuf = nrt_field(out, "rcvbuf");
    NRT_EQ_INT(nrt_field(out, "window_requested"), 65536);
    NRT_EQ_INT(start, 65536);
    NRT_EQ_INT(nrt_field(out, "window_peer"), 65536);
    NRT_EQ_INT(nrt_field(out, "window_peer_max"), 65536);
    NRT_CHECK(max >= start && max >= end && end > 0);
    NRT_CHECK(max <= rcvbuf);
    if (max > start)
        NRT_CHECK(nrt_field(out, "window_reasserts") > 0);
}

static void test_get(void)
{
    static const char *const ns[] = {"1", "4", "16"};
    for (int i = 0; i < 3; i++) {
        char dest[PATH_MAX + 32];
        snprintf(dest, sizeof dest, "%s/get%s.bin", nrt_scratch_dir(), ns[i]);
        const char *argv[] = {"mftp", "-p", port, "--get", "src.bin", "--dest", dest, "-n", ns[i],
                              "--window", "64K", "--timeout", "5s", "127.0.0.1", NULL};
        NRT_EQ_INT(run_mftp(argv), 0);
        const char *out = nrt_read("mftp.out");
        check_transfer(out, atoi(ns[i]), dest);
        NRT_CHECK(strstr(out, "\"connections_chosen_by\":\"override\"") != NULL);
        check_window(out);
    }
}

/* --reorder-max on the kernel stack: 16 connections on loopback deliver blocks out of order, and
 * the client never holds more than the bound ahead of its first missing octet; connections it
 * leaves unread (their watch dropped from epoll, then added back) still deliver the file
 * intact. */
static void test_get_reorder_bound(void)
{
    char dest[PATH_MAX + 32];
    snprintf(dest, sizeof dest, "%s/get-reorder.bin", nrt_scratch_dir());
    const char *argv[] = {"mftp", "-p", port, "--get", "src.bin", "--dest", dest, "-n", "16",
                          "--block", "8K", "--reorder-max", "16K", "--timeout", "5s",
                          "127.0.0.1", NULL};
    NRT_EQ_INT(run_mftp(argv), 0);
    const char *out = nrt_read("mftp.out");
    check_transfer(out, 16, dest);
    NRT_EQ_INT(nrt_field(out, "reorder_max"), 16384);
    NRT_CHECK(nrt_field(out, "held_ahead_max") <= 16384);
}

static void test_put(void)
{
    static const char *const ns[] = {"1", "4", "16"};
    for (int i = 0; i < 3; i++) {
        char name[32], path[PATH_MAX + 32];
        snprintf(name, sizeof name, "put%s.bin", ns[i]);
        snprintf(path, sizeof path, "%s/%s", nrt_scratch_dir(), name);
        const char *argv[] = {"mftp", "-p", port, "--put", src, "--remote-name", name, "-n", ns[i],
                              "--rtt-method", "tcp", "--timeout", "5s", "127.0.0.1", NULL};
        NRT_EQ_INT(run_mftp(argv), 0);
        const char *out = nrt_read("mftp.out");
        check_transfer(out, atoi(ns[i]), path);
        NRT_CHECK(strstr(out, "\"rtt_method\":\"tcp_connect\"") != NULL);
        NRT_CHECK(nrt_field(out, "rtt_ns") > 0);
    }
}

/* The formula picks N from the measured RTT; whatever loopback's RTT, N is within 1..16 and
 * the record says how it was chosen. */
static void test_formula(void)
{
    const char *argv[] = {"mftp", "-p", port, "--get", "src.bin", "--target-rate", "1Gbit",
                          "--window", "256K", "--repeat", "2", "--pause", "10ms", "127.0.0.1",
                          NULL};
    NRT_EQ_INT(run_mftp(argv), 0);
    const char *out = nrt_read("mftp.out");
    NRT_CHECK(strstr(out, "\"connections_chosen_by\":\"formula\"") != NULL);
    long long n = nrt_field(out, "connections");
    NRT_CHECK(n >= 1 && n <= 16);
    NRT_CHECK(strstr(out, "\"rtt_method\":\"icmp\"") || strstr(out, "\"rtt_method\":\"tcp_connect\""));
    const char *second = strstr(out, "\"index\":1");
    NRT_CHECK(second != NULL);
    NRT_EQ_INT(second ? nrt_field(second, "bytes") : -1, FILE_SIZE);
}

/* Reads one reply; returns its code. */
static int ftp_reply(int fd, char *line, size_t len)
{
    size_t n = 0;
    for (;;) {
        char ch;
        if (recv(fd, &ch, 1, 0) != 1)
            return -1;
        if (ch == '\n') {
            line[n] = 0;
            int last, code = mftp_reply_code(line, &last);
            if (code > 0 && last)
                return code;
            n = 0;
        } else if (ch != '\r' && n + 1 < len) {
            line[n++] = ch;
        }
    }
}

static int ftp_cmd(int fd, const char *cmd, char *line, size_t len)
{
    char buf[256];
    int n = snprintf(buf, sizeof buf, "%s\r\n", cmd);
    if (send(fd, buf, (size_t)n, 0) != n)
        return -1;
    return ftp_reply(fd, line, len);
}

/* A plain RFC 959 client, as ftplib's retrbinary talks: no MCON, one stream-mode connection. */
static void test_plain_client(void)
{
    char line[512];
    int fd = connect_to(atoi(port));
    NRT_CHECK(fd >= 0);
    if (fd < 0)
        return;
    NRT_EQ_INT(ftp_reply(fd, line, sizeof line), 220);
    NRT_EQ_INT(ftp_cmd(fd, "USER anonymous", line, sizeof line), 331);
    NRT_EQ_INT(ftp_cmd(fd, "PASS guest@", line, sizeof line), 230);
    NRT_EQ_INT(ftp_cmd(fd, "TYPE I", line, sizeof line), 200);
    NRT_EQ_INT(ftp_cmd(fd, "PASV", line, sizeof line), 227);
    uint32_t ip;
    uint16_t dport = 0;
    NRT_EQ_INT(mftp_parse_hostport(line + 4, &ip, &dport), 0);
    int d = connect_to(dport);
    NRT_CHECK(d >= 0);
    NRT_EQ_INT(ftp_cmd(fd, "RETR src.bin", line, sizeof line), 150);
    uint32_t crc = 0;
    long long got = 0;
    char buf[65536];
    ssize_t n;
    while (d >= 0 && (n = recv(d, buf, sizeof buf, 0)) > 0) {
        crc = mftp_crc32(crc, buf, (size_t)n);
        got += n;
    }
    if (d >= 0)
        close(d);
    NRT_EQ_INT(ftp_reply(fd, line, sizeof line), 226);
    NRT_EQ_INT(got, FILE_SIZE);
    NRT_EQ_INT(crc, src_crc);
    NRT_EQ_INT(ftp_cmd(fd, "QUIT", line, sizeof line), 221);
    close(fd);
}

/* A server that accepts and then says nothing: the client gives up at --timeout. */
static void test_silent_server(void)
{
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sin;
    NRT_CHECK(bind(l, (struct sockaddr *)&sin, sizeof sin) == 0 && listen(l, 8) == 0 &&
              getsockname(l, (struct sockaddr *)&sin, &len) == 0);
    char p[8];
    snprintf(p, sizeof p, "%d", ntohs(sin.sin_port));
    const char *argv[] = {"mftp", "-p", p, "--get", "x", "--rtt-method", "tcp", "--timeout",
                          "300ms", "--pause", "0s", "127.0.0.1", NULL};
    NRT_EQ_INT(run_mftp(argv), 1);
    const char *out = nrt_read("mftp.out");
    NRT_CHECK(strstr(out, "\"record\":\"error\"") && strstr(out, "timeout"));
    close(l);
}

int main(void)
{
    nrt_setup("mftp");
    snprintf(src, sizeof src, "%s", nrt_scratch("src.bin"));
    FILE *f = fopen(src, "w");
    if (!f)
        nrt_die("creating the file to transfer");
    srand(7);
    for (int i = 0; i < FILE_SIZE; i++)
        fputc(rand() & 0xff, f);
    if (fclose(f) != 0)
        nrt_die("writing the file to transfer");
    src_crc = crc_of(src);
    snprintf(port, sizeof port, "%d", nrt_free_port(SOCK_STREAM));

    const char *server[] = {"mftpd", "-p", port, "--bind", "127.0.0.1", "--root", nrt_scratch_dir(),
                            "--sessions", "9", "--timeout", "5s", "--idle-exit", "10s", NULL};
    pid_t srv = nrt_spawn(nrt_tool_path("mftpd"), server, nrt_scratch("mftpd.out"));
    for (int i = 0; i < 300; i++) {
        int fd = connect_to(atoi(port));
        if (fd >= 0) {
            if (close(fd) != 0)
                nrt_die("closing the probe connection to mftpd");
            break;
        }
        usleep(10000);
    }
    NRT_RUN(test_get);
    NRT_RUN(test_get_reorder_bound);
    NRT_RUN(test_put);
    NRT_RUN(test_formula);
    NRT_RUN(test_plain_client);
    NRT_RUN(test_silent_server);
    /* 9 logged-in sessions: 4 gets, 3 puts, the formula and the plain client. */
    int st = nrt_reap(srv, time(NULL) + DEADLINE_S);
    NRT_EQ_INT(st, 0);
    const char *log = nrt_read("mftpd.out");
    NRT_CHECK(strstr(log, "\"mode\":\"stream\"") != NULL);
    NRT_CHECK(strstr(log, "\"record\":\"error\"") == NULL);
    nrt_scratch_remove();
    return nrt_summary("mftp/test_loopback");
}
