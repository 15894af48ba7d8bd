/* echod: the extended ping's echo server. See args.c for the command line. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "json.h"
#include "tahoe/if_packet.h"
#include "tahoe/tahoe_drops.h"
#include "nrio.h"
#include "server.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

int main(int argc, char **argv)
{
    struct echod_args a;
    char err[256];
    int rc = echod_parse_args(argc, argv, &a, err, sizeof err);
    if (rc == 1) {
        echod_usage(stdout);
        return 0;
    }
    if (rc < 0) {
        fprintf(stderr, "echod: %s\n", err);
        return 2;
    }
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGINT, &sa, NULL) != 0) {
        nr_json_error(stdout, "echod", strerror(errno), "sigaction failed; cannot stop cleanly");
        return 1;
    }
    char hint[256];
    nrio *io = nr_stack_new(&a.net, err, sizeof err, hint, sizeof hint);
    if (!io) {
        fprintf(stderr, "echod: %s; %s\n", err, hint);
        nr_json_error(stdout, "echod", err, hint);
        return 1;
    }
    rc = echod_run(io, &a, &stop_requested, stdout, stderr, 1);
    /* The stack's drop counters, which on the Linux stack the kernel keeps for itself. */
    if (strcmp(a.net.name, "tahoe") == 0 && tahoe_emit_drops(stdout, "echod", io) < 0)
        fprintf(stderr, "echod: writing the drops record failed; is stdout closed or the disk full?\n");
    nrio_destroy(io);
    return rc;
}
