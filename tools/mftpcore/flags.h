/* The flags mftp and mftpd share, with the same limits at both ends: the per-connection window,
 * the block size, the receiver's bound on out-of-order octets and the sender's blocking writes. */
#ifndef MFTP_FLAGS_H
#define MFTP_FLAGS_H

#include <getopt.h>
#include <stddef.h>

#include "nrio.h"

/* getopt_long codes, below common/nrargs.h's and above the tools' own. */
enum { MFTP_OPT_WINDOW = 2900, MFTP_OPT_BLOCK, MFTP_OPT_REORDER, MFTP_OPT_BLOCKING };
#define MFTP_XFER_LONGOPTS                                  \
    {"window", required_argument, 0, MFTP_OPT_WINDOW},      \
    {"block", required_argument, 0, MFTP_OPT_BLOCK},        \
    {"reorder-max", required_argument, 0, MFTP_OPT_REORDER}, \
    {"blocking-writes", no_argument, 0, MFTP_OPT_BLOCKING}

/* Takes --window (0, the stack's default, to MFTP_MAX_WINDOW octets), --block (1 to
 * MFTP_MAX_BLOCK octets), --reorder-max (0 to MFTP_MAX_REORDER octets) or --blocking-writes by
 * its code. Returns 0, or -1 with "FLAG TEXT: give ..." in err. */
int mftp_xfer_opt(int code, const char *val, long *window, long *block, long long *reorder_max,
                  int *blocking_writes, char *err, size_t errlen);

/* The options that give a data connection a per-connection window of `window` octets (0: none).
 * On the Tahoe stack, as on SunOS 4.1, the window is the socket buffers: SO_SNDBUF and SO_RCVBUF
 * of `window` each, the receiver offering what its buffer holds and the sender keeping as much
 * unacknowledged (SunOS had no window clamp). On Linux, which keeps part of a buffer for its own
 * overhead, TCP_WINDOW_CLAMP of `window` with buffers twice as large. */
struct nrio_sockopts mftp_window_opts(const nrio *io, long window);
/* The window in force on a data connection whose options are o, as mftp_window_opts set it. */
int mftp_window_in_force(const nrio *io, const struct nrio_sockopts *o);

#endif
