/* mftp: the client side of ishikura's MFTP, an FTP client that spreads a transfer over N
 * parallel data connections and picks N from the measured RTT, on any nrio stack. */
#include <stdio.h>

#include "args.h"
#include "client.h"
#include "nrmain.h"
#include "tahoe/if_packet.h"

static int parse(int argc, char **argv, void *a, char *err, size_t errlen)
{
    return mftp_parse_args(argc, argv, a, err, errlen);
}

static int run(nrio *io, void *a)
{
    return mftp_run(io, a, stdout);
}

int main(int argc, char **argv)
{
    static const struct nr_tool tool = {"mftp", parse, mftp_usage, run, nr_stack_new};
    struct mftp_args a = {0};
    return nr_tool_main(&tool, &a, &a.net, argc, argv);
}
