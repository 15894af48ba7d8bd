/* mftp: the client side of ishikura's MFTP, an FTP client that spreads a transfer over N
 * parallel data connections and picks N from the measured RTT. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "client.h"
#include "nrargs.h"
#include "nrio.h"

int main(int argc, char **argv)
{
    struct mftp_args a;
    char err[256];
    int rc = nr_args_status(mftp_parse_args(argc, argv, &a, err, sizeof err), "mftp", err,
                            mftp_usage);
    if (rc >= 0)
        return rc;
    nrio *io = nrio_kernel_new();
    if (!io) {
        fprintf(stderr, "mftp: starting the kernel stack (epoll, timerfd) failed: %s\n",
                strerror(errno));
        return 1;
    }
    rc = mftp_run(io, &a, stdout);
    nrio_destroy(io);
    return rc;
}
