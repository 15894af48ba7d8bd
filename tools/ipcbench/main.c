/* ipcbench: milliner's IPC benchmark (UDP with k-segment acknowledgements and an echo, TCP
 * with equal buffers) on any nrio stack; ONC RPC over TCP on the kernel stack only. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "bench.h"
#include "nrargs.h"
#include "nrio.h"
#include "tahoe/if_packet.h"
#include "tahoe/nrio_tahoe.h"

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
    char what[256], hint[256];
    nrio *io = nr_stack_new(&a.net, what, sizeof what, hint, sizeof hint);
    if (!io) {
        fprintf(stderr, "ipcbench: %s; %s\n", what, hint);
        return IPC_EXIT_FAIL;
    }
    if (a.api == IPC_RPC)
        rc = ipc_run_rpc(io, &a, stdout);
    else if (a.proto == NRIO_TCP)
        rc = ipc_run_tcp(io, &a, stdout);
    else
        rc = ipc_run_udp(io, &a, stdout);
    if (strcmp(a.stack, "tahoe") == 0)
        ipc_vmstat(stdout, &a, nrio_tahoe_vmstat(io));
    nrio_destroy(io);
    return rc;
}
