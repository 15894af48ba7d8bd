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

int main(void)
{
    NRT_RUN(test_server_args);
    return nrt_summary("mftpd/test_args");
}
