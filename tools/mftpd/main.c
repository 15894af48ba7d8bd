/* mftpd: the server side of ishikura's MFTP, an FTP server that also spreads a transfer over
 * N parallel data connections negotiated with MCON. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "nrio.h"
#include "server.h"

int main(int argc, char **argv)
{
    struct mftpd_args a;
    char err[256];
    int rc = mftpd_parse_args(argc, argv, &a, err, sizeof err);
    if (rc == 1) {
        mftpd_usage(stdout);
        return 0;
    }
    if (rc < 0) {
        fprintf(stderr, "mftpd: %s\n", err);
        mftpd_usage(stderr);
        return 2;
    }
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
