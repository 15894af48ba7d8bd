/* mftp: the client side of ishikura's MFTP, an FTP client that spreads a transfer over N
 * parallel data connections and picks N from the measured RTT, on any nrio stack. */
#include <stdio.h>

#include "args.h"
#include "client.h"
#include "nrargs.h"
#include "nrio.h"
#include "tahoe/if_packet.h"

int main(int argc, char **argv)
{
    struct mftp_args a;
    char err[256];
    int rc = nr_args_status(mftp_parse_args(argc, argv, &a, err, sizeof err), "mftp", err,
                            mftp_usage);
    if (rc >= 0)
        return rc;
    char what[256], hint[256];
    nrio *io = nr_stack_new(&a.net, what, sizeof what, hint, sizeof hint);
    if (!io) {
        fprintf(stderr, "mftp: %s; %s\n", what, hint);
        return 1;
    }
    rc = mftp_run(io, &a, stdout);
    nrio_destroy(io);
    return rc;
}
