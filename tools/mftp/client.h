/* mftp's user PI and DTP as nrio callbacks: RTT probe, login, MCON negotiation, N data
 * connections, the transfer, and one record per transfer. */
#ifndef MFTP_CLIENT_H
#define MFTP_CLIENT_H

#include <stdio.h>

#include "args.h"
#include "nrio.h"

/* Runs the session. Returns the exit status: 0, or 1 after an error record. */
int mftp_run(nrio *io, const struct mftp_args *a, FILE *out);

#endif
