/* Helpers for the tools' end-to-end tests on 127.0.0.1: a scratch folder for the files of a
 * run, free ports, a built tool run in a child with its stdout in a file, the child reaped by a
 * deadline, and the JSON Lines records it wrote read back. A test of one tool calls
 * nrt_setup("tool") first, then nrt_start and nrt_read with names of scratch files.
 *
 * Header-only: each test binary is one file, and the module `common` links into every program.
 * A setup failure (no socket, no fork, no scratch folder) ends the test with a message, as
 * nothing after it could mean anything. */
#ifndef NRTEST_PROC_H
#define NRTEST_PROC_H

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Ends the test: "WHAT failed: <errno's text>". */
static inline void nrt_die(const char *what)
{
    fprintf(stderr, "%s failed: %s\n", what, strerror(errno));
    exit(1);
}

#define NRT_DIR_LEN 64

/* The scratch folder, /tmp/<name>_test.<pid>, so parallel runs do not collide. */
static inline char *nrt_scratch_dir(void)
{
    static char dir[NRT_DIR_LEN];
    return dir;
}

/* Makes the scratch folder; ends the test when it cannot. */
static inline void nrt_scratch_make(const char *name)
{
    snprintf(nrt_scratch_dir(), NRT_DIR_LEN, "/tmp/%s_test.%d", name, (int)getpid());
    if (mkdir(nrt_scratch_dir(), 0755) != 0)
        nrt_die("making the test's scratch folder under /tmp");
}

/* A file in the scratch folder. Four buffers turn, so a call's result outlives three more. */
static inline const char *nrt_scratch(const char *file)
{
    static char p[4][PATH_MAX];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof p[i], "%s/%s", nrt_scratch_dir(), file);
    return p[i];
}

/* Removes the scratch folder and the files in it; a failure is told, not fatal, as the tests
 * have run by then. */
static inline void nrt_scratch_remove(void)
{
    DIR *d = opendir(nrt_scratch_dir());
    if (!d) {
        fprintf(stderr, "cannot list %s to remove it: %s\n", nrt_scratch_dir(), strerror(errno));
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            unlink(nrt_scratch(e->d_name)) != 0)
            fprintf(stderr, "cannot remove %s: %s\n", nrt_scratch(e->d_name), strerror(errno));
    }
    if (closedir(d) != 0 || rmdir(nrt_scratch_dir()) != 0)
        fprintf(stderr, "cannot remove %s: %s\n", nrt_scratch_dir(), strerror(errno));
}

/* The built program bin/<tool>, found from this test binary's own path build/tests/<name>
 * (whatever the working folder); a copy of its own, so a test may hold several. */
static inline const char *nrt_tool_path(const char *tool)
{
    char self[PATH_MAX], path[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0)
        nrt_die("reading /proc/self/exe to find the built tools");
    self[n] = 0;
    snprintf(path, sizeof path, "%s/../../bin/%s", dirname(self), tool);
    char *copy = strdup(path);
    if (!copy)
        nrt_die("copying a tool's path");
    return copy;
}

/* A loopback port the kernel just handed out, free again once the probe socket is closed. */
static inline int nrt_free_port(int type)
{
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sin;
    int fd = socket(AF_INET, type, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof sin) != 0 ||
        getsockname(fd, (struct sockaddr *)&sin, &len) != 0 || close(fd) != 0)
        nrt_die("finding a free loopback port");
    return ntohs(sin.sin_port);
}

/* Waits up to 5 s until something is bound to the UDP port, so that no datagram goes out
 * before the receiver listens. */
static inline void nrt_wait_udp_bound(int port)
{
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    for (int i = 0; i < 500; i++) {
        int fd = socket(AF_INET, SOCK_DGRAM, 0);
        if (fd < 0)
            nrt_die("opening a UDP socket to probe a port");
        int rc = bind(fd, (struct sockaddr *)&sin, sizeof sin);
        int err = errno;
        if (close(fd) != 0)
            nrt_die("closing the UDP probe socket");
        if (rc != 0 && err == EADDRINUSE)
            return;
        usleep(10000);
    }
}

/* Runs the program bin with argv (NULL-terminated, argv[0] its name) in a child whose stdout
 * goes to the file out. Returns the child's pid. */
static inline pid_t nrt_spawn(const char *bin, const char *const *argv, const char *out)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        nrt_die("forking a child for the tool");
    if (pid > 0)
        return pid;
    if (!freopen(out, "w", stdout)) {
        fprintf(stderr, "cannot write %s: %s\n", out, strerror(errno));
        _exit(99);
    }
    execv(bin, (char *const *)argv);
    fprintf(stderr, "cannot run %s: %s; build it first (make -C tools all)\n", bin,
            strerror(errno));
    _exit(96);
}

/* The exit status of pid, or -1 when it was killed by a signal, or at the deadline for hanging. */
static inline int nrt_reap(pid_t pid, time_t deadline)
{
    int st;
    while (time(NULL) < deadline) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        if (r < 0)
            nrt_die("waiting for a child");
        usleep(10000);
    }
    if (kill(pid, SIGKILL) != 0 || waitpid(pid, &st, 0) != pid)
        nrt_die("killing a hung child");
    fprintf(stderr, "child %d hung and was killed\n", (int)pid);
    return -1;
}

/* The file's text, in a buffer the next call reuses; "" when it cannot be read. */
static inline const char *nrt_slurp(const char *path)
{
    static char buf[1 << 16];
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot read %s: %s\n", path, strerror(errno));
        buf[0] = 0;
        return buf;
    }
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    int failed = ferror(f);
    if (fclose(f) != 0 || failed)
        fprintf(stderr, "reading %s failed\n", path);
    buf[n] = 0;
    return buf;
}

/* The tool under test, set by nrt_setup. */
static inline const char **nrt_tool_(void)
{
    static const char *tool;
    return &tool;
}

/* Finds bin/<tool> for nrt_start and makes the scratch folder; ends the test when it cannot. */
static inline void nrt_setup(const char *tool)
{
    *nrt_tool_() = nrt_tool_path(tool);
    nrt_scratch_make(tool);
}

/* Runs the tool under test with argv in a child whose stdout goes to the scratch file out. */
static inline pid_t nrt_start(const char *const *argv, const char *out)
{
    return nrt_spawn(*nrt_tool_(), argv, nrt_scratch(out));
}

/* Seconds a server and its client may take together in nrt_run_pair. */
#define NRT_PAIR_DEADLINE_S 10

/* Runs the tool under test as a server (srv, its stdout in the scratch file srv_out) and then
 * as its client (cli, in cli_out), and reaps both by one deadline. With udp_port, the client
 * starts once the server has bound that UDP port; a TCP client retries its connect itself.
 * Returns 0 when both exited 0, else -1 after saying how each ended. */
static inline int nrt_run_pair(const char *const *srv, const char *srv_out,
                               const char *const *cli, const char *cli_out, int udp_port)
{
    time_t deadline = time(NULL) + NRT_PAIR_DEADLINE_S;
    pid_t s = nrt_start(srv, srv_out);
    if (udp_port)
        nrt_wait_udp_bound(udp_port);
    int cst = nrt_reap(nrt_start(cli, cli_out), deadline);
    int sst = nrt_reap(s, deadline);
    if (cst == 0 && sst == 0)
        return 0;
    fprintf(stderr, "server (%s) ended with %d, client (%s) with %d; see their stderr above\n",
            srv_out, sst, cli_out, cst);
    return -1;
}

/* The text of the scratch file out, as nrt_slurp. */
static inline const char *nrt_read(const char *out) { return nrt_slurp(nrt_scratch(out)); }

/* How many times needle occurs in text. */
static inline int nrt_count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* The integer after the first "key": in text before end (NULL: anywhere); -1 if absent. */
static inline long long nrt_field_before(const char *text, const char *key, const char *end)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *k = text ? strstr(text, pat) : NULL;
    if (!k || (end && k > end))
        return -1;
    return strtoll(k + strlen(pat), NULL, 10);
}

/* The integer after the first "key": in text; -1 if absent. */
static inline long long nrt_field(const char *text, const char *key)
{
    return nrt_field_before(text, key, NULL);
}

#endif
