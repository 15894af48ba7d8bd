/* pingx: the extended ping of liu95db and liu95cool. See args.c for the command line. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "client.h"
#include "json.h"
#include "tahoe/if_packet.h"
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
    struct px_client c;
    if (px_start(&c, io, &a, stdout) == 0) {
        rc = nrio_run(io);
        if (rc < 0 && !c.failed) {
            snprintf(c.what, sizeof c.what, "the event loop failed: %s", strerror(-rc));
            snprintf(c.hint, sizeof c.hint, "this should not happen; report it");
            c.failed = 1;
        }
    }
    if (c.failed) {
        fprintf(stderr, "pingx: %s; %s\n", c.what, c.hint);
        nr_json_error(stdout, "pingx", c.what, c.hint);
    }
    px_free(&c);
    nrio_destroy(io);
    return c.failed ? 1 : 0;
}
