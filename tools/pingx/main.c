/* pingx: the extended ping of liu95db and liu95cool. See args.c for the command line. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "client.h"
#include "json.h"
#include "tahoe/if_packet.h"
#include "tahoe/tahoe_drops.h"
#include "nrio.h"

int main(int argc, char **argv)
{
    struct pingx_args a;
    char err[256];
    int rc = pingx_parse_args(argc, argv, &a, err, sizeof err);
    if (rc == 1) {
        pingx_usage(stdout);
        return 0;
    }
    if (rc < 0) {
        fprintf(stderr, "pingx: %s\n", err);
        return 2;
    }
    char hint[256];
    nrio *io = nr_stack_new(&a.net, err, sizeof err, hint, sizeof hint);
    if (!io) {
        fprintf(stderr, "pingx: %s; %s\n", err, hint);
        nr_json_error(stdout, "pingx", err, hint);
        return 1;
    }
    rc = pingx_run(io, &a, stdout, stderr);
    /* The stack's drop counters, which on the Linux stack the kernel keeps for itself. */
    if (strcmp(a.net.name, "tahoe") == 0 && tahoe_emit_drops(stdout, "pingx", io) < 0)
        fprintf(stderr, "pingx: writing the drops record failed; is stdout closed or the disk full?\n");
    nrio_destroy(io);
    return rc;
}
