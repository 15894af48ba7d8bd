/* End to end on loopback: starts bin/echod, runs bin/pingx in every mode and checks its
 * records; then points pingx at peers that never answer and checks it fails in time. Needs
 * `make` to have built bin/ (make test does). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nrio.h"
#include "nrtest.h"

static char bindir[PATH_MAX + 8];
static char port_arg[16];

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* bin/ is ../../bin from build/tests/<this test>. */
static int find_bindir(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n < 0)
        return -1;
    exe[n] = '\0';
    for (int up = 0; up < 3; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash)
            return -1;
        *slash = '\0';
    }
    snprintf(bindir, sizeof bindir, "%s/bin", exe);
    return 0;
}

/* Starts bindir/prog with argv; its stdout and stderr come back on pipes. */
static pid_t spawn(const char *prog, char **argv, int *out_fd, int *err_fd)
{
    int out[2], err[2];
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", bindir, prog);
    if (pipe(out) != 0 || pipe(err) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], 1);
        dup2(err[1], 2);
        close(out[0]);
        close(err[0]);
        execv(path, argv);
        fprintf(stderr, "exec %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    *out_fd = out[0];
    *err_fd = err[0];
    return pid;
}

/* Reads fd into buf until end of file or the deadline; returns the octets read. */
static size_t slurp(int fd, char *buf, size_t cap, int64_t deadline)
{
    size_t len = 0;
    while (len < cap - 1) {
        int64_t left = (deadline - mono_ns()) / 1000000;
        struct pollfd p = {fd, POLLIN, 0};
        if (left <= 0 || poll(&p, 1, (int)left) <= 0)
            break;
        ssize_t n = read(fd, buf + len, cap - 1 - len);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    return len;
}

struct run {
    char out[1 << 16];
    char err[4096];
    int status; /* exit status, or -1 when it had to be killed */
    int64_t t0, deadline, elapsed_ns;
    pid_t pid;
    int ofd, efd;
};

static void run_start(char **argv, int limit_s, struct run *r)
{
    memset(r, 0, sizeof *r);
    r->t0 = mono_ns();
    r->deadline = r->t0 + (int64_t)limit_s * 1000000000;
    r->pid = spawn("pingx", argv, &r->ofd, &r->efd);
    NRT_CHECK(r->pid > 0);
}

static void run_finish(struct run *r)
{
    if (r->pid <= 0)
        return;
    slurp(r->ofd, r->out, sizeof r->out, r->deadline);
    int st;
    pid_t w;
    /* stdout ends a moment before the process does */
    while ((w = waitpid(r->pid, &st, WNOHANG)) == 0 && mono_ns() < r->deadline)
        usleep(1000);
    if (w == 0) {
        kill(r->pid, SIGKILL);
        waitpid(r->pid, &st, 0);
        r->status = -1;
    } else {
        r->status = w == r->pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }
    r->elapsed_ns = mono_ns() - r->t0;
    slurp(r->efd, r->err, sizeof r->err, mono_ns() + 100000000);
    close(r->ofd);
    close(r->efd);
}

static void run_pingx(char **argv, int limit_s, struct run *r)
{
    run_start(argv, limit_s, r);
    run_finish(r);
}

/* The text after "key": in a record, or NULL. Our records have no spaces and flat keys. */
static const char *field(const char *line, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *p = strstr(line, k);
    return p ? p + strlen(k) : NULL;
}

static long long int_field(const char *line, const char *key)
{
    const char *v = field(line, key);
    return v && (*v == '-' || (*v >= '0' && *v <= '9')) ? strtoll(v, NULL, 10) : LLONG_MIN;
}

static int is(const char *line, const char *key, const char *lit)
{
    const char *v = field(line, key);
    return v && strncmp(v, lit, strlen(lit)) == 0;
}

/* Splits r->out into lines in place; returns their count. */
static int lines(struct run *r, char **line, int max)
{
    int n = 0;
    for (char *s = strtok(r->out, "\n"); s && n < max; s = strtok(NULL, "\n"))
        line[n++] = s;
    return n;
}

static const long sizes[] = {8, 12287, 102400};
#define NSIZES 3
#define COUNT 3

static void check_mode(const char *mode, char *const *extra)
{
    static struct run r;
    char *argv[24] = {"pingx", "--mode", (char *)mode, "--sizes", "8B,12K-1,100K", "--count",
                      "3", "--interval", "5ms", "--timeout", "3s", "--host", "127.0.0.1",
                      "--port", port_arg};
    int argc = 15;
    for (int i = 0; extra && extra[i]; i++)
        argv[argc++] = extra[i];
    argv[argc] = NULL;
    run_pingx(argv, 15, &r);
    NRT_EQ_INT(r.status, 0);
    if (r.status != 0)
        fprintf(stderr, "pingx --mode %s said: %s\n", mode, r.err);
    char *line[64];
    int n = lines(&r, line, 64);
    NRT_EQ_INT(n, 1 + NSIZES * COUNT);
    if (n < 1)
        return;
    NRT_CHECK(is(line[0], "record", "\"meta\""));
    NRT_CHECK(int_field(line[0], "so_rcvbuf") > 0);
    int udp = strncmp(mode, "udp", 3) == 0;
    int complete_udp = 0;
    for (int i = 1; i < n; i++) {
        const char *l = line[i];
        long size = sizes[(i - 1) / COUNT];
        NRT_CHECK(is(l, "record", "\"message\""));
        NRT_EQ_INT(int_field(l, "size"), size);
        NRT_EQ_INT(int_field(l, "seq"), (i - 1) % COUNT);
        NRT_EQ_INT(int_field(l, "index"), i - 1);
        NRT_CHECK(int_field(l, "interval_ns") >= 5000000);
        NRT_CHECK(int_field(l, "t_start_ns") >= 0);
        if (udp) {
            long expect = (size + 8191) / 8192;
            NRT_EQ_INT(int_field(l, "datagrams"), expect);
            NRT_CHECK(int_field(l, "datagrams_returned") <= expect);
            /* Loopback keeps datagrams in order. */
            NRT_EQ_INT(int_field(l, "datagrams_misordered"), 0);
            if (is(l, "complete", "true")) {
                complete_udp++;
                NRT_EQ_INT(int_field(l, "datagrams_returned"), expect);
                NRT_CHECK(int_field(l, "rtt_ns") > 0);
            } else {
                NRT_CHECK(is(l, "rtt_ns", "null"));
            }
        } else {
            NRT_CHECK(is(l, "complete", "true"));
            NRT_CHECK(int_field(l, "rtt_ns") > 0);
            NRT_EQ_INT(int_field(l, "datagrams"), 0);
            NRT_EQ_INT(int_field(l, "datagrams_misordered"), 0);
            NRT_CHECK(is(l, "cool_gap_ns", "null"));
        }
    }
    /* Loopback may in principle drop a datagram, but not most of them. */
    if (udp)
        NRT_CHECK(complete_udp > (n - 1) / 2);
}

/* Messages start on a grid from the first: message k is due k intervals after it, however late
 * earlier timers fired. Were the delays to add up instead (the next start counted from the
 * previous actual start), every start would come at least an interval after the one before,
 * since a timer never fires early. On a grid a start that came late is followed by one less than
 * an interval later, which however loaded the machine some pair of starts shows; and no start
 * comes before its due time. */
static void test_starts_keep_to_the_grid(void)
{
    enum { MESSAGES = 200 };
    const long long interval_ns = 2000000;
    static struct run r;
    char *argv[] = {"pingx", "--mode", "tcp", "--sizes", "8B", "--count", "200", "--interval",
                    "2ms", "--timeout", "3s", "--host", "127.0.0.1", "--port", port_arg, NULL};
    run_pingx(argv, 15, &r);
    NRT_EQ_INT(r.status, 0);
    char *line[MESSAGES + 2];
    int n = lines(&r, line, MESSAGES + 2);
    NRT_EQ_INT(n, 1 + MESSAGES);
    if (n != 1 + MESSAGES)
        return;
    long long first = int_field(line[1], "t_start_ns");
    long long shortest_gap = LLONG_MAX;
    for (int k = 1; k < MESSAGES; k++) {
        long long start = int_field(line[1 + k], "t_start_ns");
        NRT_CHECK(start - first - k * interval_ns >= 0);
        if (start - int_field(line[k], "t_start_ns") < shortest_gap)
            shortest_gap = start - int_field(line[k], "t_start_ns");
    }
    NRT_CHECK(shortest_gap < interval_ns);
}

static void test_tcp_per_message(void) { check_mode("tcp-per-message", NULL); }
static void test_tcp(void) { check_mode("tcp", NULL); }
static void test_tcp_nodelay(void) { check_mode("tcp-nodelay", NULL); }
static void test_udp(void) { check_mode("udp", NULL); }
static void test_udp_cooled_gap(void)
{
    char *extra[] = {"--cool-gap", "100us", NULL};
    check_mode("udp-cooled", extra);
}
static void test_udp_cooled_iterations(void)
{
    char *extra[] = {"--cool-iterations", "1000", NULL};
    check_mode("udp-cooled", extra);
}

/* Several clients at once, one connection each: echod serves them side by side. */
static void test_concurrent_clients(void)
{
    static struct run r[3];
    char *argv[] = {"pingx", "--mode", "tcp", "--sizes", "100K", "--count", "10", "--interval",
                    "2ms", "--port", port_arg, NULL};
    for (int i = 0; i < 3; i++)
        run_start(argv, 15, &r[i]);
    for (int i = 0; i < 3; i++) {
        run_finish(&r[i]);
        NRT_EQ_INT(r[i].status, 0);
        char *line[16];
        int n = lines(&r[i], line, 16);
        NRT_EQ_INT(n, 11);
        for (int k = 1; k < n; k++)
            NRT_CHECK(is(line[k], "complete", "true"));
    }
}

/* pingx against a peer that accepts (TCP) or swallows (UDP) and never answers. */
static void check_silent_peer(const char *mode, int port)
{
    static struct run r;
    char p[16];
    snprintf(p, sizeof p, "%d", port);
    char *argv[] = {"pingx", "--mode", (char *)mode, "--sizes", "1K", "--count", "3",
                    "--interval", "10ms", "--timeout", "1s", "--max-silent", "1", "--host",
                    "127.0.0.1", "--port", p, NULL};
    run_pingx(argv, 8, &r);
    NRT_EQ_INT(r.status, 1);
    NRT_CHECK(r.elapsed_ns >= 1000000000LL);
    NRT_CHECK(r.elapsed_ns < 4000000000LL);
    NRT_CHECK(strstr(r.out, "{\"record\":\"error\"") != NULL);
    NRT_CHECK(strstr(r.out, "\"hint\":") != NULL);
}

static void test_silent_peers(void)
{
    nrio *io = nrio_kernel_new();
    NRT_CHECK(io != NULL);
    if (!io)
        return;
    struct nrio_addr a, tcp_at, udp_at;
    NRT_EQ_INT(nrio_parse_addr("127.0.0.1", 0, &a), 0);
    int l = nrio_open(io, NRIO_TCP, NULL);
    NRT_EQ_INT(nrio_bind(io, l, &a), 0);
    NRT_EQ_INT(nrio_listen(io, l, 8), 0); /* the kernel completes handshakes; nobody reads */
    NRT_EQ_INT(nrio_local_addr(io, l, &tcp_at), 0);
    int u = nrio_open(io, NRIO_UDP, NULL);
    NRT_EQ_INT(nrio_bind(io, u, &a), 0);
    NRT_EQ_INT(nrio_local_addr(io, u, &udp_at), 0);
    check_silent_peer("tcp", tcp_at.port);
    check_silent_peer("udp", udp_at.port);
    nrio_destroy(io);
}

static void test_refused(void)
{
    static struct run r;
    nrio *io = nrio_kernel_new();
    NRT_CHECK(io != NULL);
    if (!io)
        return;
    struct nrio_addr a, at;
    NRT_EQ_INT(nrio_parse_addr("127.0.0.1", 0, &a), 0);
    int s = nrio_open(io, NRIO_TCP, NULL);
    NRT_EQ_INT(nrio_bind(io, s, &a), 0);
    NRT_EQ_INT(nrio_local_addr(io, s, &at), 0);
    nrio_destroy(io); /* the port is free again and nothing listens on it */
    char p[16];
    snprintf(p, sizeof p, "%d", at.port);
    char *argv[] = {"pingx", "--mode", "tcp-per-message", "--sizes", "1K", "--count", "1",
                    "--port", p, NULL};
    run_pingx(argv, 8, &r);
    NRT_EQ_INT(r.status, 1);
    NRT_CHECK(r.elapsed_ns < 1000000000LL);
    NRT_CHECK(strstr(r.out, "{\"record\":\"error\"") != NULL);
}

static void test_bad_size_refused(void)
{
    static struct run r;
    char *argv[] = {"pingx", "--mode", "tcp", "--sizes", "7B", NULL};
    run_pingx(argv, 8, &r);
    NRT_EQ_INT(r.status, 2);
    NRT_CHECK(strstr(r.err, "8B") != NULL);
}

/* echod says "serving" on stderr once its sockets are bound. */
static int wait_banner(int fd, char *buf, size_t cap)
{
    size_t len = 0;
    int64_t deadline = mono_ns() + 3000000000LL;
    buf[0] = '\0';
    while (!strstr(buf, "serving") && mono_ns() < deadline && len < cap - 1) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 100) <= 0)
            continue;
        ssize_t n = read(fd, buf + len, cap - 1 - len);
        if (n <= 0)
            break;
        len += (size_t)n;
        buf[len] = '\0';
    }
    return strstr(buf, "serving") != NULL;
}

/* A port free for both TCP and UDP on loopback, chosen by the kernel. */
static int free_port(void)
{
    nrio *io = nrio_kernel_new();
    if (!io)
        return -1;
    struct nrio_addr a, at;
    int port = -1;
    for (int tries = 0; tries < 20 && port < 0; tries++) {
        nrio_parse_addr("127.0.0.1", 0, &a);
        int t = nrio_open(io, NRIO_TCP, NULL);
        if (t < 0 || nrio_bind(io, t, &a) < 0 || nrio_local_addr(io, t, &at) < 0)
            break;
        int u = nrio_open(io, NRIO_UDP, NULL);
        if (u >= 0 && nrio_bind(io, u, &at) == 0)
            port = at.port;
        nrio_close(io, t);
        if (u >= 0)
            nrio_close(io, u);
    }
    nrio_destroy(io);
    return port;
}

int main(void)
{
    int port = free_port();
    NRT_CHECK(find_bindir() == 0);
    NRT_CHECK(port > 0);
    snprintf(port_arg, sizeof port_arg, "%d", port);
    char *eargv[] = {"echod", "--port", port_arg, "--bind", "127.0.0.1", "--udp-quiet", "200ms",
                     NULL};
    int ofd = -1, efd = -1;
    pid_t echod = spawn("echod", eargv, &ofd, &efd);
    NRT_CHECK(echod > 0);
    char banner[512];
    if (!wait_banner(efd, banner, sizeof banner)) {
        fprintf(stderr, "echod did not start: %s\n", banner);
        NRT_CHECK(0);
    } else {
        NRT_RUN(test_tcp_per_message);
        NRT_RUN(test_tcp);
        NRT_RUN(test_tcp_nodelay);
        NRT_RUN(test_udp);
        NRT_RUN(test_udp_cooled_gap);
        NRT_RUN(test_udp_cooled_iterations);
        NRT_RUN(test_concurrent_clients);
        NRT_RUN(test_starts_keep_to_the_grid);
    }
    NRT_RUN(test_silent_peers);
    NRT_RUN(test_refused);
    NRT_RUN(test_bad_size_refused);
    if (echod > 0) {
        /* echod ends on SIGTERM with one summary record and status 0 */
        static char summary[4096];
        kill(echod, SIGTERM);
        slurp(ofd, summary, sizeof summary, mono_ns() + 3000000000LL);
        int st = 0;
        waitpid(echod, &st, 0);
        NRT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        NRT_CHECK(strncmp(summary, "{\"record\":\"summary\"", 19) == 0);
        NRT_CHECK(int_field(summary, "messages_echoed") >= 6 * NSIZES * COUNT / 2);
        NRT_CHECK(int_field(summary, "tcp_connections") >= NSIZES * COUNT + 2 + 3);
    }
    return nrt_summary("pingx/test_e2e");
}
