/* The flags mftp and mftpd share, with the same limits at both ends: the per-connection window
 * and the block size. */
#ifndef MFTP_FLAGS_H
#define MFTP_FLAGS_H

#include <getopt.h>
#include <stddef.h>

/* getopt_long codes, below common/nrargs.h's and above the tools' own. */
enum { MFTP_OPT_WINDOW = 2900, MFTP_OPT_BLOCK };
#define MFTP_XFER_LONGOPTS                                  \
    {"window", required_argument, 0, MFTP_OPT_WINDOW},      \
    {"block", required_argument, 0, MFTP_OPT_BLOCK}

/* Takes --window (0, the stack's default, to MFTP_MAX_WINDOW octets) or --block (1 to
 * MFTP_MAX_BLOCK octets) by its code. Returns 0, or -1 with "FLAG TEXT: give ..." in err. */
int mftp_xfer_opt(int code, const char *val, long *window, long *block, char *err,
                  size_t errlen);

#endif
