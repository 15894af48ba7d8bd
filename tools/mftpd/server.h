/* mftpd's sessions: an FTP server PI and DTP as nrio callbacks, one session at a time (a
 * measurement wants the host to itself; later clients wait in the listen backlog). */
#ifndef MFTPD_SERVER_H
#define MFTPD_SERVER_H

#include <stdio.h>

#include "args.h"
#include "nrio.h"

/* Serves until --sessions is reached (0), --idle-exit passes or the loop fails (1). */
int mftpd_run(nrio *io, const struct mftpd_args *a, FILE *out);

#endif
