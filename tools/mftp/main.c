/* mftp: the client side of ishikura's MFTP, an FTP client that spreads a transfer over N
 * parallel data connections and picks N from the measured RTT. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "client.h"
#include "nrio.h"

int main(int argc, char **argv)
{
    struct mftp_args a;
    char err[256];
    int rc = mftp_parse_args(argc, argv, &a, err, sizeof err);
    if (rc == 1) {
        mftp_usage(stdout);
        return 0;
    }
    if (rc < 0) {
        fprintf(stderr, "mftp: %s\n", err);
        mftp_usage(stderr);
        return 2;
    }
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
