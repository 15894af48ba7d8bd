/* mftpd: the server side of ishikura's MFTP, an FTP server that also spreads a transfer over
 * N parallel data connections negotiated with MCON, on any nrio stack. */
#include <stdio.h>

#include "args.h"
#include "nrmain.h"
#include "server.h"
#include "tahoe/if_packet.h"

static int parse(int argc, char **argv, void *a, char *err, size_t errlen)
{
    return mftpd_parse_args(argc, argv, a, err, errlen);
}

static int run(nrio *io, void *a)
{
    return mftpd_run(io, a, stdout, stderr);
}

int main(int argc, char **argv)
{
    static const struct nr_tool tool = {"mftpd", parse, mftpd_usage, run, nr_stack_new};
    struct mftpd_args a = {0};
    return nr_tool_main(&tool, &a, &a.net, argc, argv);
}
