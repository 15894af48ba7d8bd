/* mftpd: the server side of ishikura's MFTP, an FTP server that also spreads a transfer over
 * N parallel data connections negotiated with MCON. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "nrargs.h"
#include "nrio.h"
#include "server.h"

int main(int argc, char **argv)
{
    struct mftpd_args a;
    char err[256];
    int rc = nr_args_status(mftpd_parse_args(argc, argv, &a, err, sizeof err), "mftpd", err,
                            mftpd_usage);
    if (rc >= 0)
        return rc;
    nrio *io = nrio_kernel_new();
    if (!io) {
        fprintf(stderr, "mftpd: starting the kernel stack (epoll, timerfd) failed: %s\n",
                strerror(errno));
        return 1;
    }
    rc = mftpd_run(io, &a, stdout);
    nrio_destroy(io);
    return rc;
}
