/* The file netsim --file-size writes for mftp to send: octets drawn from the seed, so that the
 * same seed moves the same data, and a block written at the wrong offset changes the CRC-32
 * the records give. */
#ifndef NETSIM_DATAFILE_H
#define NETSIM_DATAFILE_H

#include <stdint.h>
#include <stdio.h>

/* Writes size octets to path, replacing it. Returns 0, or -1 with the reason printed to err. */
int ns_write_data(const char *path, long long size, uint64_t seed, FILE *err);

#endif
