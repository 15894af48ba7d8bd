/* mftp against mftpd on 127.0.0.1: 1, 4 and 16 connections both ways move a generated file
 * intact; N picked by the formula; a plain FTP client (written here, RFC 959 only) fetches
 * the file in stream mode; a server that never answers ends in a timeout. */
#include <arpa/inet.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "client.h"
#include "mftpcore/crc32.h"
#include "mftpcore/ftp.h"
#include "nrtest.h"

#define FILE_SIZE (2 * 1024 * 1024 + 12345) /* not a multiple of any block size */
#define DEADLINE_S 12

static char dir[PATH_MAX], src[PATH_MAX + 16], port[8], out_path[PATH_MAX + 16],
    srv_path[PATH_MAX + 16];
static uint32_t src_crc;

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sin;
    if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof sin) != 0 ||
        getsockname(fd, (struct sockaddr *)&sin, &len) != 0) {
        perror("test_loopback: finding a free port");
        exit(1);
    }
    close(fd);
    return ntohs(sin.sin_port);
}

static int connect_to(int p)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)p),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&sin, sizeof sin) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int reap(pid_t pid, time_t deadline)
{
    int st;
    while (time(NULL) < deadline) {
        if (waitpid(pid, &st, WNOHANG) == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    fprintf(stderr, "test_loopback: child %d hung and was killed\n", (int)pid);
    return -1;
}

/* Runs mftp in a child with stdout to out; returns its exit status. */
static int run_mftp(const char *const *argv, const char *out)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(out, "w", stdout))
            _exit(99);
        int argc = 0;
        while (argv[argc])
            argc++;
        struct mftp_args a;
        char err[256];
        if (mftp_parse_args(argc, (char **)argv, &a, err, sizeof err) != 0) {
            fprintf(stderr, "test_loopback: %s\n", err);
            _exit(98);
        }
        nrio *io = nrio_kernel_new();
        if (!io)
            _exit(97);
        int rc = mftp_run(io, &a, stdout);
        nrio_destroy(io);
        fflush(stdout);
        _exit(rc);
    }
    return reap(pid, time(NULL) + DEADLINE_S);
}

static const char *slurp(const char *path)
{
    static char buf[1 << 16];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    return buf;
}

static long long field(const char *text, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *k = strstr(text, pat);
    return k ? strtoll(k + strlen(pat), NULL, 10) : -1;
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
    NRT_EQ_INT(field(out, "connections"), n);
    NRT_EQ_INT(field(out, "bytes"), FILE_SIZE);
    NRT_EQ_INT(conn_bytes_sum(out, &cnt), FILE_SIZE);
    NRT_EQ_INT(cnt, n);
    NRT_CHECK(field(out, "throughput_bps") > 0);
    NRT_EQ_INT(crc_of(file), src_crc);
}

/* --window 64K on a GET. Both ends set the clamp before connecting, so it starts at 64K. The
 * server only sends, and Linux moves a clamp only as data arrive, so its window stays. The
 * client receives: Linux may re-derive its clamp from the buffer (up to the buffer, which is
 * 2 x 2 x 64K), and every value the record gives must lie in that range; a move that the
 * record shows must have been set back. */
static void check_window(const char *out)
{
    long long start = field(out, "window_start"), end = field(out, "window_end");
    long long max = field(out, "window_max"), rcvbuf = field(out, "rcvbuf");
    NRT_EQ_INT(field(out, "window_requested"), 65536);
    NRT_EQ_INT(start, 65536);
    NRT_EQ_INT(field(out, "window_peer"), 65536);
    NRT_EQ_INT(field(out, "window_peer_max"), 65536);
    NRT_CHECK(max >= start && max >= end && end > 0);
    NRT_CHECK(max <= rcvbuf);
    if (max > start)
        NRT_CHECK(field(out, "window_reasserts") > 0);
}

static void test_get(void)
{
    static const char *const ns[] = {"1", "4", "16"};
    for (int i = 0; i < 3; i++) {
        char dest[PATH_MAX + 32];
        snprintf(dest, sizeof dest, "%s/get%s.bin", dir, ns[i]);
        const char *argv[] = {"mftp", "-p", port, "--get", "src.bin", "--dest", dest, "-n", ns[i],
                              "--window", "64K", "--timeout", "5s", "127.0.0.1", NULL};
        NRT_EQ_INT(run_mftp(argv, out_path), 0);
        const char *out = slurp(out_path);
        check_transfer(out, atoi(ns[i]), dest);
        NRT_CHECK(strstr(out, "\"connections_chosen_by\":\"override\"") != NULL);
        check_window(out);
    }
}

static void test_put(void)
{
    static const char *const ns[] = {"1", "4", "16"};
    for (int i = 0; i < 3; i++) {
        char name[32], path[PATH_MAX + 32];
        snprintf(name, sizeof name, "put%s.bin", ns[i]);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        const char *argv[] = {"mftp", "-p", port, "--put", src, "--remote-name", name, "-n", ns[i],
                              "--rtt-method", "tcp", "--timeout", "5s", "127.0.0.1", NULL};
        NRT_EQ_INT(run_mftp(argv, out_path), 0);
        const char *out = slurp(out_path);
        check_transfer(out, atoi(ns[i]), path);
        NRT_CHECK(strstr(out, "\"rtt_method\":\"tcp_connect\"") != NULL);
        NRT_CHECK(field(out, "rtt_ns") > 0);
    }
}

/* The formula picks N from the measured RTT; whatever loopback's RTT, N is within 1..16 and
 * the record says how it was chosen. */
static void test_formula(void)
{
    const char *argv[] = {"mftp", "-p", port, "--get", "src.bin", "--target-rate", "1Gbit",
                          "--window", "256K", "--repeat", "2", "--pause", "10ms", "127.0.0.1",
                          NULL};
    NRT_EQ_INT(run_mftp(argv, out_path), 0);
    const char *out = slurp(out_path);
    NRT_CHECK(strstr(out, "\"connections_chosen_by\":\"formula\"") != NULL);
    long long n = field(out, "connections");
    NRT_CHECK(n >= 1 && n <= 16);
    NRT_CHECK(strstr(out, "\"rtt_method\":\"icmp\"") || strstr(out, "\"rtt_method\":\"tcp_connect\""));
    const char *second = strstr(out, "\"index\":1");
    NRT_CHECK(second != NULL);
    NRT_EQ_INT(second ? field(second, "bytes") : -1, FILE_SIZE);
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
    NRT_EQ_INT(run_mftp(argv, out_path), 1);
    const char *out = slurp(out_path);
    NRT_CHECK(strstr(out, "\"record\":\"error\"") && strstr(out, "timeout"));
    close(l);
}

int main(int argc, char **argv)
{
    (void)argc;
    snprintf(dir, sizeof dir, "/tmp/mftp_test.%d", (int)getpid());
    snprintf(src, sizeof src, "%s/src.bin", dir);
    snprintf(out_path, sizeof out_path, "%s/mftp.out", dir);
    snprintf(srv_path, sizeof srv_path, "%s/mftpd.out", dir);
    if (mkdir(dir, 0755) != 0) {
        perror("test_loopback: mkdir");
        return 1;
    }
    FILE *f = fopen(src, "w");
    srand(7);
    for (int i = 0; i < FILE_SIZE; i++)
        fputc(rand() & 0xff, f);
    fclose(f);
    src_crc = crc_of(src);
    snprintf(port, sizeof port, "%d", free_port());

    char self[PATH_MAX], server[PATH_MAX + 32];
    snprintf(self, sizeof self, "%s", argv[0]);
    snprintf(server, sizeof server, "%s/../../bin/mftpd", dirname(self));
    fflush(NULL);
    pid_t srv = fork();
    if (srv == 0) {
        if (!freopen(srv_path, "w", stdout))
            _exit(99);
        execl(server, "mftpd", "-p", port, "--bind", "127.0.0.1", "--root", dir, "--sessions",
              "8", "--timeout", "5s", "--idle-exit", "10s", (char *)NULL);
        fprintf(stderr, "test_loopback: cannot run %s: %s\n", server, strerror(errno));
        _exit(96);
    }
    for (int i = 0; i < 300; i++) {
        int fd = connect_to(atoi(port));
        if (fd >= 0) {
            close(fd);
            break;
        }
        usleep(10000);
    }
    NRT_RUN(test_get);
    NRT_RUN(test_put);
    NRT_RUN(test_formula);
    NRT_RUN(test_plain_client);
    NRT_RUN(test_silent_server);
    /* 8 logged-in sessions: 3 gets, 3 puts, the formula and the plain client. */
    int st = reap(srv, time(NULL) + DEADLINE_S);
    NRT_EQ_INT(st, 0);
    const char *log = slurp(srv_path);
    NRT_CHECK(strstr(log, "\"mode\":\"stream\"") != NULL);
    NRT_CHECK(strstr(log, "\"record\":\"error\"") == NULL);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_loopback: could not remove %s\n", dir);
    return nrt_summary("mftp/test_loopback");
}
