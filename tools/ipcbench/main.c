/* ipcbench: milliner's IPC benchmark (UDP with k-segment acknowledgements and an echo, TCP
 * with equal buffers, ONC RPC over TCP) on the nrio kernel stack. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "bench.h"
#include "nrargs.h"
#include "nrio.h"

_Static_assert(IPC_EXIT_OK == 0 && IPC_EXIT_USAGE == 2,
               "nr_args_status exits 0 after --help and 2 after a bad command line");

int main(int argc, char **argv)
{
    struct ipc_args a;
    char err[256];
    int rc = nr_args_status(ipc_parse_args(argc, argv, &a, err, sizeof err), "ipcbench", err,
                            ipc_usage);
    if (rc >= 0)
        return rc;
    if (a.api == IPC_TLI) {
        ipc_not_reproducible(stdout, &a);
        return IPC_EXIT_NOT_REPRODUCIBLE;
    }
    nrio *io = nrio_kernel_new();
    if (!io) {
        fprintf(stderr, "ipcbench: starting the kernel stack (epoll, timerfd) failed: %s\n",
                strerror(errno));
        return IPC_EXIT_FAIL;
    }
    if (a.api == IPC_RPC)
        rc = ipc_run_rpc(io, &a, stdout);
    else if (a.proto == NRIO_TCP)
        rc = ipc_run_tcp(io, &a, stdout);
    else
        rc = ipc_run_udp(io, &a, stdout);
    nrio_destroy(io);
    return rc;
}
