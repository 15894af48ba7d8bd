/* ttcp: a source-to-sink throughput test (comer94), TCP or UDP, on any nrio stack. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "nrargs.h"
#include "tahoe/if_packet.h"
#include "nrio.h"
#include "ttcp.h"

int main(int argc, char **argv)
{
    struct ttcp_args a;
    char err[256];
    int rc = nr_args_status(ttcp_parse_args(argc, argv, &a, err, sizeof err), "ttcp", err,
                            ttcp_usage);
    if (rc >= 0)
        return rc;
    char what[256], hint[256];
    nrio *io = nr_stack_new(&a.net, what, sizeof what, hint, sizeof hint);
    if (!io) {
        fprintf(stderr, "ttcp: %s; %s\n", what, hint);
        return 1;
    }
    rc = ttcp_run(io, &a, stdout, stderr);
    nrio_destroy(io);
    return rc;
}
