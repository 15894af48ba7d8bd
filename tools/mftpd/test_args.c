/* mftpd's command line. */
#include <string.h>

#include "args.h"
#include "nrtest.h"

static void test_server_args(void)
{
    struct mftpd_args a;
    char err[256];
    const char *ok[] = {"mftpd", "-p", "2100", "--window", "24K", "--sessions", "3",
                        "--idle-exit", "30s", NULL};
    NRT_EQ_INT(mftpd_parse_args(9, (char **)ok, &a, err, sizeof err), 0);
    NRT_EQ_INT(a.port, 2100);
    NRT_EQ_INT(a.window, 24576);
    NRT_EQ_INT(a.sessions, 3);
    NRT_EQ_INT(a.idle_exit_ns, 30000000000LL);
    NRT_EQ_STR(a.root, ".");
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
        {{"mftpd", "--timeout", "0s"}, "--timeout 0s: give a time above 0, e.g. 30s"},
        {{"mftpd", "--idle-exit", "10"}, "--idle-exit 10: give a time, e.g. 30s"},
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

int main(void)
{
    NRT_RUN(test_server_args);
    NRT_RUN(test_messages);
    return nrt_summary("mftpd/test_args");
}
