/* Where a Tahoe host lost datagrams, as the records of netsim and of the tools give it. */
#ifndef TAHOE_DROPS_H
#define TAHOE_DROPS_H

#include <stdio.h>

#include "json.h"
#include "nrio.h"
#include "tahoe.h"

/* The host's UDP and IP counters under "<prefix>_<counter>" (a_udps_fullsock, ...): the socket
 * buffer (udps_fullsock), the IP input queue (ips_qdrop), reassembly (ips_fragdropped,
 * ips_fragtimeout), the interface (ips_odropped, of which le_no_tmds the LANCE's full transmit
 * ring). */
void tahoe_json_drops(struct nr_json *j, const char *prefix, const struct tahoe_stack *st);

/* A tool's "drops" record at its end on the Tahoe stack (nrio_tahoe): the counters above with
 * prefix "host". Returns as nr_json_emit. */
int tahoe_emit_drops(FILE *out, const char *tool, nrio *io);

#endif
