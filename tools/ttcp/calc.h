/* ttcp's arithmetic: how a transfer is cut into writes and how throughput is computed. */
#ifndef TTCP_CALC_H
#define TTCP_CALC_H

#include <stdint.h>

/* Throughput in bit/s of bytes moved in ns nanoseconds; a negative value when ns <= 0, which
 * the record shows as null (a single write or datagram has no interval to divide by). */
double ttcp_bps(long long bytes, int64_t ns);

/* Length of write number i (from 0) of a transfer of total bytes in writes of write_size:
 * every write is full except possibly the last. 0 past the end. */
long ttcp_write_len(long long total, long write_size, long long i);

/* Number of writes needed for total bytes. */
long long ttcp_write_count(long long total, long write_size);

/* Datagrams lost: sent minus received, never negative (a duplicate must not hide a loss
 * count below zero). */
long long ttcp_lost(long long sent, long long received);

#endif
