/* mftpd's sessions: an FTP server PI and DTP as nrio callbacks, one session at a time (a
 * measurement wants the host to itself; later clients wait in the listen backlog). */
#ifndef MFTPD_SERVER_H
#define MFTPD_SERVER_H

#include <stdio.h>

#include "args.h"
#include "nrio.h"

/* Resolves a client's file name under root into out, as RETR, STOR and SIZE do; /dev/null
 * stands for itself. Returns 0, or -1 for an empty name, one with a ".." component, or a path
 * longer than len. */
int mftpd_resolve(const char *root, const char *name, char *out, size_t len);

/* Serves until --sessions is reached (0), --idle-exit passes or the loop fails (1). Writes one
 * "mftpd: serving ..." line to announce (unless NULL) once it listens. */
int mftpd_run(nrio *io, const struct mftpd_args *a, FILE *out, FILE *announce);

#endif
