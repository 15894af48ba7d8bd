/* ttcp end to end on 127.0.0.1: receiver and transmitter in forked processes on a free port. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "nrtest.h"
#include "ttcp.h"

#define DEADLINE_S 10

/* A port the kernel just handed out, free again once the probe socket is closed. */
static int free_port(int type)
{
    int fd = socket(AF_INET, type, 0);
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

/* Waits until something is bound to the UDP port, so no datagram goes out before the
 * receiver listens. */
static void wait_udp_bound(int port)
{
    for (int i = 0; i < 500; i++) {
        int fd = socket(AF_INET, SOCK_DGRAM, 0);
        struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        int rc = bind(fd, (struct sockaddr *)&sin, sizeof sin);
        int err = errno;
        close(fd);
        if (rc != 0 && err == EADDRINUSE)
            return;
        usleep(10000);
    }
}

/* A file for a child's records, named after this process so parallel runs do not collide. */
static const char *path(const char *name)
{
    static char p[4][96];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof p[i], "/tmp/ttcp_test.%d.%s", (int)getpid(), name);
    return p[i];
}

/* Runs ttcp with argv in a child whose stdout goes to path. */
static pid_t spawn(const char *const *argv, const char *path)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    if (!freopen(path, "w", stdout))
        _exit(99);
    int argc = 0;
    while (argv[argc])
        argc++;
    struct ttcp_args a;
    char err[256];
    if (ttcp_parse_args(argc, (char **)argv, &a, err, sizeof err) != 0) {
        fprintf(stderr, "test_loopback: %s\n", err);
        _exit(98);
    }
    nrio *io = nrio_kernel_new();
    if (!io)
        _exit(97);
    int rc = ttcp_run(io, &a, stdout);
    nrio_destroy(io);
    fflush(stdout);
    _exit(rc);
}

/* Exit status of pid, or -1 if it had to be killed at the deadline. */
static int reap(pid_t pid, time_t deadline)
{
    int st;
    while (time(NULL) < deadline) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    fprintf(stderr, "test_loopback: child %d hung and was killed\n", (int)pid);
    return -1;
}

/* Reads the file into a static buffer. */
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

/* The integer after "key": in the n-th line holding "record":"transfer"; -1 if absent. */
static long long field(const char *text, int n, const char *key)
{
    const char *p = text;
    for (int i = 0; i <= n; i++) {
        p = strstr(p, "\"record\":\"transfer\"");
        if (!p)
            return -1;
        if (i < n)
            p++;
    }
    const char *eol = strchr(p, '\n');
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *k = strstr(p, pat);
    if (!k || (eol && k > eol))
        return -1;
    return strtoll(k + strlen(pat), NULL, 10);
}

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

static void test_tcp(void)
{
    char port[8];
    snprintf(port, sizeof port, "%d", free_port(SOCK_STREAM));
    const char *rx[] = {"ttcp", "-r", "-p", port, "--bind", "127.0.0.1", "--repeat", "2",
                        "--pause", "50ms", "--timeout", "5s", NULL};
    const char *tx[] = {"ttcp", "-t", "-p", port, "--bytes", "1M", "-l", "8K", "--repeat", "2",
                        "--pause", "50ms", "--timeout", "5s", "-D", "--sndbuf", "32K",
                        "127.0.0.1", NULL};
    time_t deadline = time(NULL) + DEADLINE_S;
    pid_t r = spawn(rx, path("rx.out"));
    pid_t t = spawn(tx, path("tx.out"));
    NRT_EQ_INT(reap(t, deadline), 0);
    NRT_EQ_INT(reap(r, deadline), 0);
    const char *out = slurp(path("tx.out"));
    NRT_EQ_INT(count(out, "\"record\":\"transfer\""), 2);
    for (int i = 0; i < 2; i++) {
        NRT_EQ_INT(field(out, i, "index"), i);
        NRT_EQ_INT(field(out, i, "bytes"), 1 << 20);
        NRT_EQ_INT(field(out, i, "receiver_bytes"), 1 << 20);
        NRT_EQ_INT(field(out, i, "writes"), 128);
        NRT_CHECK(field(out, i, "sender_bps") > 0);
        NRT_CHECK(field(out, i, "receiver_bps") > 0);
        NRT_CHECK(field(out, i, "elapsed_ns") > 0);
        NRT_EQ_INT(field(out, i, "sndbuf_requested"), 32768);
        NRT_CHECK(field(out, i, "sndbuf") >= 32768);
    }
    NRT_CHECK(strstr(out, "\"nodelay\":true") != NULL);
    out = slurp(path("rx.out"));
    NRT_EQ_INT(count(out, "\"record\":\"transfer\""), 2);
    NRT_EQ_INT(field(out, 1, "receiver_bytes"), 1 << 20);
    NRT_CHECK(strstr(out, "\"role\":\"receiver\"") != NULL);
}

static void test_udp(void)
{
    char port[8];
    snprintf(port, sizeof port, "%d", free_port(SOCK_DGRAM));
    const char *rx[] = {"ttcp", "-r", "-u", "-p", port, "--bind", "127.0.0.1", "--timeout",
                        "5s", NULL};
    const char *tx[] = {"ttcp", "-t", "-u", "-p", port, "-n", "200", "-l", "1K", "--cool-gap",
                        "100us", "--timeout", "5s", "127.0.0.1", NULL};
    time_t deadline = time(NULL) + DEADLINE_S;
    pid_t r = spawn(rx, path("urx.out"));
    wait_udp_bound(atoi(port));
    pid_t t = spawn(tx, path("utx.out"));
    NRT_EQ_INT(reap(t, deadline), 0);
    NRT_EQ_INT(reap(r, deadline), 0);
    const char *out = slurp(path("utx.out"));
    NRT_EQ_INT(field(out, 0, "datagrams_sent"), 200);
    long long got = field(out, 0, "datagrams_received");
    NRT_CHECK(got > 0);
    NRT_EQ_INT(got + field(out, 0, "datagrams_lost"), 200);
    NRT_EQ_INT(field(out, 0, "receiver_bytes"), got * 1024);
    NRT_EQ_INT(field(out, 0, "cool_gap_ns"), 100000);
    out = slurp(path("urx.out"));
    NRT_EQ_INT(field(out, 0, "datagrams_received"), got);
    NRT_EQ_INT(field(out, 0, "datagrams_sent"), 200);
}

/* No receiver: both protocols give up at --timeout with an error record and status 1. */
static void test_no_peer(void)
{
    char port[8];
    snprintf(port, sizeof port, "%d", free_port(SOCK_DGRAM));
    const char *udp[] = {"ttcp", "-t", "-u", "-p", port, "-n", "5", "-l", "1K", "--timeout",
                         "400ms", "--pause", "0s", "127.0.0.1", NULL};
    const char *tcp[] = {"ttcp", "-t", "-p", port, "-n", "5", "--timeout", "400ms", "--pause",
                         "0s", "127.0.0.1", NULL};
    const char *const *cases[] = {udp, tcp};
    for (int i = 0; i < 2; i++) {
        time_t deadline = time(NULL) + DEADLINE_S;
        NRT_EQ_INT(reap(spawn(cases[i], path("none.out")), deadline), 1);
        const char *out = slurp(path("none.out"));
        NRT_CHECK(strstr(out, "\"record\":\"error\"") != NULL);
        NRT_CHECK(strstr(out, "timeout") != NULL);
    }
}

int main(void)
{
    NRT_RUN(test_tcp);
    NRT_RUN(test_udp);
    NRT_RUN(test_no_peer);
    static const char *const names[] = {"rx.out", "tx.out", "urx.out", "utx.out", "none.out"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unlink(path(names[i]));
    return nrt_summary("ttcp/test_loopback");
}
