/* mftpd's command line. */
#include <string.h>

#include "args.h"
#include "nrtest.h"
#include "server.h"

static void test_server_args(void)
{
    struct mftpd_args a;
    char err[256];
    const char *ok[] = {"mftpd", "-p", "2100", "--window", "24K", "--sessions", "3",
                        "--idle-exit", "30s", "--blocking-writes", NULL};
    NRT_EQ_INT(mftpd_parse_args(10, (char **)ok, &a, err, sizeof err), 0);
    NRT_EQ_INT(a.blocking_writes, 1);
    NRT_EQ_INT(a.port, 2100);
    NRT_EQ_INT(a.window, 24576);
    NRT_EQ_INT(a.sessions, 3);
    NRT_EQ_INT(a.idle_exit_ns, 30000000000LL);
    NRT_EQ_STR(a.root, ".");
    NRT_EQ_STR(a.stack, "kernel");
    const char *bad[] = {"mftpd", "--block", "0B", NULL};
    NRT_EQ_INT(mftpd_parse_args(3, (char **)bad, &a, err, sizeof err), -1);
    NRT_CHECK(strstr(err, "--block") != NULL);
    const char *extra[] = {"mftpd", "somewhere", NULL};
    NRT_EQ_INT(mftpd_parse_args(2, (char **)extra, &a, err, sizeof err), -1);
}

/* The shared checks (common/nrargs.h, mftpcore/flags.h) name the flag and what is accepted. */
static void test_messages(void)
{
    static const struct {
        const char *argv[4];
        const char *says;
    } bad[] = {
        {{"mftpd", "--block", "32M"}, "--block 32M: give a size from 1B to 16M, e.g. 32K"},
        {{"mftpd", "--window", "1G"}, "--window 1G: give a size from 0B to 512M, e.g. 24K"},
        {{"mftpd", "--sessions", "-1"}, "--sessions -1: give a count from 0 to 1000000000"},
        {{"mftpd", "--timeout", "0s"}, "--timeout 0s: give a time above 0, at most 3600s, e.g. 30s"},
        /* Issue 32: a deadline of now + this wrapped around, and mftpd exited at once. */
        {{"mftpd", "--timeout", "9223372036854775807ns"},
         "--timeout 9223372036854775807ns: give a time above 0, at most 3600s, e.g. 30s"},
        {{"mftpd", "--idle-exit", "10"}, "--idle-exit 10: give a time, at most 3600s, e.g. 30s"},
        {{"mftpd", "-p", "65536"}, "--port 65536: give a port from 1 to 65535"},
        {{"mftpd", "--bind", "localhost"}, "--bind localhost: not a dotted IPv4 address"},
        {{"mftpd", "--frob"}, "--frob: unknown option or missing value; see mftpd --help"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct mftpd_args a;
        char err[256] = "";
        int argc = bad[i].argv[2] ? 3 : 2;
        NRT_EQ_INT(mftpd_parse_args(argc, (char **)bad[i].argv, &a, err, sizeof err), -1);
        NRT_EQ_STR(err, bad[i].says);
    }
}

/* The Tahoe stack's flags reach the args; Tahoe flags without --stack tahoe are refused. */
static void test_tahoe(void)
{
    struct mftpd_args a;
    char err[256] = "";
    const char *ok[] = {"mftpd", "--stack", "tahoe", "--if", "h2-eth0", "--addr", "10.0.0.2/24",
                        "--host-model", "ss20.yaml", "--mtu", "9188B", "--bind", "10.0.0.2",
                        "--sessions", "1", NULL};
    NRT_EQ_INT(mftpd_parse_args(15, (char **)ok, &a, err, sizeof err), 0);
    NRT_EQ_STR(a.stack, "tahoe");
    NRT_EQ_STR(a.net.ifname, "h2-eth0");
    NRT_EQ_INT(a.net.mtu, 9188);
    NRT_EQ_STR(a.bind_ip, "10.0.0.2");
    const char *no_model[] = {"mftpd", "--stack", "tahoe", "--if", "h2-eth0", "--addr",
                              "10.0.0.2/24", NULL};
    NRT_EQ_INT(mftpd_parse_args(7, (char **)no_model, &a, err, sizeof err), -1);
    NRT_CHECK(strstr(err, "--host-model FILE") != NULL);
    const char *kernel_if[] = {"mftpd", "--if", "h2-eth0", NULL};
    NRT_EQ_INT(mftpd_parse_args(3, (char **)kernel_if, &a, err, sizeof err), -1);
    NRT_CHECK(strstr(err, "apply to --stack tahoe only") != NULL);
    const char *other[] = {"mftpd", "--stack", "sim", NULL};
    NRT_EQ_INT(mftpd_parse_args(3, (char **)other, &a, err, sizeof err), -1);
    NRT_CHECK(strstr(err, "--stack sim: give kernel (Linux) or tahoe") != NULL);
}

/* Names resolve under the root as RETR, STOR and SIZE see them; ".." cannot leave it. */
static void test_resolve(void)
{
    char path[64];
    NRT_EQ_INT(mftpd_resolve("/srv", "/a/b.bin", path, sizeof path), 0);
    NRT_EQ_STR(path, "/srv/a/b.bin");
    NRT_EQ_INT(mftpd_resolve("/srv", "/dev/null", path, sizeof path), 0);
    NRT_EQ_STR(path, "/dev/null");
    NRT_EQ_INT(mftpd_resolve("/srv", "a/../b", path, sizeof path), -1);
    NRT_EQ_INT(mftpd_resolve("/srv", "///", path, sizeof path), -1);
    NRT_EQ_INT(mftpd_resolve("/srv", "a..b", path, sizeof path), 0);
    NRT_EQ_INT(mftpd_resolve("/a-long-root", "name", path, 8), -1);
}

int main(void)
{
    NRT_RUN(test_server_args);
    NRT_RUN(test_messages);
    NRT_RUN(test_tahoe);
    NRT_RUN(test_resolve);
    return nrt_summary("mftpd/test_args");
}
