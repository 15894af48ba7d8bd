/* ipcbench end to end on 127.0.0.1: UDP 1UnAck and 6UnAck echoes compare equal (also through
 * a relay that drops datagrams, which retransmission must repair, and one that loses the
 * acknowledgement of the echo's last group), TCP, RPC, TLI's refusal, and a client whose
 * server never answers. */
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
#include "bench.h"
#include "nrtest.h"

#define DEADLINE_S 10

static char outdir[64];

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

static const char *path(const char *name)
{
    static char p[4][128];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof p[i], "%s/%s", outdir, name);
    return p[i];
}

static pid_t spawn(const char *const *argv, const char *out)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    if (!freopen(out, "w", stdout))
        _exit(99);
    int argc = 0;
    while (argv[argc])
        argc++;
    struct ipc_args a;
    char err[256];
    if (ipc_parse_args(argc, (char **)argv, &a, err, sizeof err) != 0) {
        fprintf(stderr, "test_loopback: %s\n", err);
        _exit(98);
    }
    nrio *io = nrio_kernel_new();
    if (!io)
        _exit(97);
    int rc = a.api == IPC_RPC ? ipc_run_rpc(io, &a, stdout)
             : a.proto == NRIO_TCP ? ipc_run_tcp(io, &a, stdout) : ipc_run_udp(io, &a, stdout);
    nrio_destroy(io);
    fflush(stdout);
    _exit(rc);
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

static const char *slurp(const char *p)
{
    static char buf[1 << 16];
    FILE *f = fopen(p, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    return buf;
}

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

static long long field(const char *text, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *k = strstr(text, pat);
    return k ? strtoll(k + strlen(pat), NULL, 10) : -1;
}

/* Forwards datagrams between a client and the server on sport, dropping every drop-th one in
 * each direction (0: none) and, with first_acks, the first copy of every acknowledgement the
 * client sends, so that the one for the echo's last group is lost too; until nothing has
 * passed for a second. */
static pid_t lossy_relay(int rport, int sport, int drop, int first_acks)
{
    fflush(NULL);
    pid_t pid = fork();
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
    snprintf(sport, sizeof sport, "%d", free_port(SOCK_DGRAM));
    snprintf(cport, sizeof cport, "%d", relayed ? free_port(SOCK_DGRAM) : atoi(sport));
    const char *srv[] = {"ipcbench", "--server", "-p", sport, "--bind", "127.0.0.1", "--count",
                         "2", "--rto", "20ms", "--timeout", "5s", NULL};
    const char *cli[] = {"ipcbench", "-p", cport, "--size", "300K", "--segment", segment,
                         "--unack", unack, "--repeat", "2", "--pause", "10ms", "--rto", "20ms",
                         "--timeout", "5s", "127.0.0.1", NULL};
    time_t deadline = time(NULL) + DEADLINE_S;
    pid_t s = spawn(srv, path("udp_s.out"));
    wait_udp_bound(atoi(sport));
    pid_t relay = relayed ? lossy_relay(atoi(cport), atoi(sport), drop, first_acks) : 0;
    if (relayed)
        wait_udp_bound(atoi(cport));
    pid_t c = spawn(cli, path("udp_c.out"));
    NRT_EQ_INT(reap(c, deadline), 0);
    NRT_EQ_INT(reap(s, deadline), 0);
    if (relay)
        reap(relay, deadline);
    const char *out = slurp(path("udp_c.out"));
    NRT_EQ_INT(count(out, "\"echo_equal\":true"), 2);
    NRT_EQ_INT(field(out, "unack"), atoi(unack));
    NRT_CHECK(field(out, "elapsed_ns") > 0);
    long long segs = field(out, "segments");
    NRT_EQ_INT(field(out, "acks"), (segs + atoi(unack) - 1) / atoi(unack));
    if (drop)
        NRT_CHECK(field(out, "retransmissions") > 0);
    else
        NRT_CHECK(field(out, "retransmissions") >= 0);
    long long seg = field(out, "segment");
    out = slurp(path("udp_s.out"));
    NRT_EQ_INT(count(out, "\"intact\":true"), 2);
    NRT_EQ_INT(field(out, "segment"), seg); /* the client's, which the echo used */
    if (first_acks)
        NRT_CHECK(field(out, "echo_retransmissions") > 0);
}

static void test_udp_1unack(void) { udp_case("1", "1472B", 0, 0); }
static void test_udp_6unack(void) { udp_case("6", "9000B", 0, 0); }
static void test_udp_lossy(void) { udp_case("6", "4K", 7, 0); }
/* The client must still answer after its last echo: the server needs that acknowledgement. */
static void test_udp_last_ack_lost(void) { udp_case("6", "4K", 0, 1); }

static void stream_case(const char *api, const char *const *extra)
{
    char port[8];
    snprintf(port, sizeof port, "%d", free_port(SOCK_STREAM));
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
    time_t deadline = time(NULL) + DEADLINE_S;
    pid_t s = spawn(srv, path("st_s.out"));
    pid_t c = spawn(cli, path("st_c.out"));
    NRT_EQ_INT(reap(c, deadline), 0);
    NRT_EQ_INT(reap(s, deadline), 0);
    const char *out = slurp(path("st_c.out"));
    NRT_EQ_INT(count(out, "\"record\":\"message\""), 2);
    NRT_EQ_INT(field(out, "size"), 2 << 20);
    NRT_CHECK(field(out, "elapsed_ns") > 0);
    out = slurp(path("st_s.out"));
    NRT_EQ_INT(count(out, "\"intact\":true"), 2);
}

static void test_tcp(void)
{
    const char *extra[] = {"--proto", "tcp", "--buf", "16K", NULL};
    stream_case("sockets", extra);
    const char *out = slurp(path("st_c.out"));
    NRT_EQ_INT(field(out, "buf_requested"), 16384);
    NRT_CHECK(field(out, "acked_ns") >= field(out, "elapsed_ns"));
}

static void test_rpc(void)
{
    const char *extra[] = {NULL};
    stream_case("rpc", extra);
}

static void test_tli(const char *bin)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(path("tli.out"), "w", stdout))
            _exit(99);
        execl(bin, "ipcbench", "--api", "tli", "127.0.0.1", (char *)NULL);
        _exit(96);
    }
    NRT_EQ_INT(reap(pid, time(NULL) + DEADLINE_S), IPC_EXIT_NOT_REPRODUCIBLE);
    const char *out = slurp(path("tli.out"));
    NRT_CHECK(strstr(out, "\"record\":\"error\"") != NULL);
    NRT_CHECK(strstr(out, "not reproducible on Linux") != NULL);
}

static void test_no_server(void)
{
    char port[8];
    snprintf(port, sizeof port, "%d", free_port(SOCK_DGRAM));
    const char *cli[] = {"ipcbench", "-p", port, "--size", "10K", "--rto", "50ms", "--timeout",
                         "400ms", "--pause", "0s", "127.0.0.1", NULL};
    NRT_EQ_INT(reap(spawn(cli, path("none.out")), time(NULL) + DEADLINE_S), 1);
    const char *out = slurp(path("none.out"));
    NRT_CHECK(strstr(out, "\"record\":\"error\"") && strstr(out, "timeout"));
}

static char bin[PATH_MAX + 32];

static void test_tli_run(void) { test_tli(bin); }

int main(int argc, char **argv)
{
    (void)argc;
    char self[PATH_MAX];
    snprintf(self, sizeof self, "%s", argv[0]);
    snprintf(bin, sizeof bin, "%s/../../bin/ipcbench", dirname(self));
    snprintf(outdir, sizeof outdir, "/tmp/ipcbench_test.%d", (int)getpid());
    if (mkdir(outdir, 0755) != 0) {
        perror("test_loopback: mkdir");
        return 1;
    }
    NRT_RUN(test_udp_1unack);
    NRT_RUN(test_udp_6unack);
    NRT_RUN(test_udp_lossy);
    NRT_RUN(test_udp_last_ack_lost);
    NRT_RUN(test_tcp);
    NRT_RUN(test_rpc);
    NRT_RUN(test_tli_run);
    NRT_RUN(test_no_server);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", outdir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_loopback: could not remove %s\n", outdir);
    return nrt_summary("ipcbench/test_loopback");
}
