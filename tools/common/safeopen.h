/* Opening a file to write without following a symbolic link. The tools run as root and write
 * where netrepro points them (results/, logs/): a link planted there, or a second hard link to
 * a file elsewhere, would make root overwrite whatever it names. */
#ifndef NR_SAFEOPEN_H
#define NR_SAFEOPEN_H

#include <stdio.h>

/* open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), except that a symbolic link at path is refused
 * (-ELOOP) and so is a regular file with other hard links (-EMLINK), before anything is
 * truncated; a device such as /dev/null is opened as it is. Returns the descriptor
 * (close-on-exec) or a negative errno. */
int nr_open_write(const char *path);
/* nr_open_write as a stdio stream, mode "w" or "wb"; NULL with errno set. */
FILE *nr_fopen_write(const char *path, const char *mode);
/* Why nr_open_write refused (its negative errno) in words, for "writing PATH: %s". */
const char *nr_open_write_error(int rc);

#endif
