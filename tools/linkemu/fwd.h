/* The forwarder: a packet socket on each interface and one thread per direction that reads
 * frames, asks the link model when each may leave, and sends it out of the other interface
 * at that time; with --medium shared, one thread for both directions, whose frames take turns
 * on the shared medium (shared.h) before they leave. */
#ifndef LINKEMU_FWD_H
#define LINKEMU_FWD_H

#include <stdio.h>

#include "cli.h"

/* Forwards until SIGTERM or SIGINT, then prints the JSON record to stdout and to
 * opts->stats_path. Returns the process exit status; errors are explained on err. */
int le_run(const struct le_opts *opts, FILE *err);

#endif
