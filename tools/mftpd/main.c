/* mftpd: the server side of ishikura's MFTP, an FTP server that also spreads a transfer over
 * N parallel data connections negotiated with MCON, on any nrio stack. */
#include <stdio.h>

#include "args.h"
#include "nrargs.h"
#include "nrio.h"
#include "server.h"
#include "tahoe/if_packet.h"

int main(int argc, char **argv)
{
    struct mftpd_args a;
    char err[256];
    int rc = nr_args_status(mftpd_parse_args(argc, argv, &a, err, sizeof err), "mftpd", err,
                            mftpd_usage);
    if (rc >= 0)
        return rc;
    char what[256], hint[256];
    nrio *io = nr_stack_new(&a.net, what, sizeof what, hint, sizeof hint);
    if (!io) {
        fprintf(stderr, "mftpd: %s; %s\n", what, hint);
        return 1;
    }
    rc = mftpd_run(io, &a, stdout, stderr);
    nrio_destroy(io);
    return rc;
}
