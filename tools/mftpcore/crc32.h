/* CRC-32 (IEEE 802.3, as zlib and cksum -a crc32b compute it), to compare a file's two ends. */
#ifndef MFTP_CRC32_H
#define MFTP_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continues crc over len octets; start with 0. */
uint32_t mftp_crc32(uint32_t crc, const void *buf, size_t len);
/* CRC-32 of a whole file; returns 0 and sets *out, or a negative errno. */
int mftp_crc32_file(const char *path, uint32_t *out);

#endif
