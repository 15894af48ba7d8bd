/* How many parallel connections MFTP opens: ishikura's Tm = N * W / D solved for N. */
#ifndef MFTP_CONNCOUNT_H
#define MFTP_CONNCOUNT_H

#include <stdint.h>

/* N for a target rate (bit/s), a per-connection window (octets) and a round-trip time:
 * the smallest N with N * W / D >= Tm, clamped to 1..MFTP_MAX_CONNS. *exact, when not NULL,
 * gets Tm * D / W before rounding and clamping. Returns -1 when an input is not positive. */
int mftp_conn_count(double target_bps, long window_octets, int64_t rtt_ns, double *exact);

#endif
