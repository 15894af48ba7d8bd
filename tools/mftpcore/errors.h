/* The error record mftp and mftpd write when something fails, so the two read alike. */
#ifndef MFTP_ERRORS_H
#define MFTP_ERRORS_H

#include <stdarg.h>
#include <stdio.h>

/* Writes {"record":"error","tool":tool,"stack":stack,"index":index,"error":message} to out,
 * without "index" when index < 0, and "tool: message" on stderr. */
void mftp_verror(FILE *out, const char *tool, const char *stack, int index, const char *fmt,
                 va_list ap) __attribute__((format(printf, 5, 0)));

#endif
