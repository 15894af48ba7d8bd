/* linkemu's command line: flags with explicit units, parsed into le_opts. The link flags and
 * the unit parsers are linkopt.h's, shared with netsim. */
#ifndef LINKEMU_CLI_H
#define LINKEMU_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "linkopt.h"
#include "model.h"

struct le_opts {
    const char *if_a;
    const char *if_b;
    enum le_framing framing;
    uint32_t mtu;
    struct le_dir_cfg forward; /* a -> b, imposed on frames leaving if_b */
    struct le_dir_cfg reverse; /* b -> a */
    uint64_t seed;
    const char *stats_path;
    const char *ready_path;
    int64_t spin_ns;
    int priority; /* SCHED_FIFO priority of the forwarding threads; 0: normal scheduling */
    uint32_t sock_buf;
    int frame_times; /* frames carry their modelled times in a trailer (common/frametime.h) */
    bool shared_medium; /* --medium shared: one half-duplex Ethernet for both directions */
    double background_fps;     /* --background-fps: other stations' frames a second */
    uint32_t background_octets; /* --background-size */
};

/* Parses argv. Returns 0 on success, 1 when --help was given (usage printed to out), and -1 on
 * a bad command line (the reason printed to err). */
int le_parse_args(int argc, char **argv, struct le_opts *opts, FILE *out, FILE *err);
void le_usage(FILE *out);

#endif
