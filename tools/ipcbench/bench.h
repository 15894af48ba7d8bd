/* ipcbench's three transports and its records. UDP and TCP are nrio callbacks; RPC uses
 * libtirpc's own blocking calls and sockets, so it runs on the kernel stack only. */
#ifndef IPCBENCH_BENCH_H
#define IPCBENCH_BENCH_H

#include <stdio.h>

#include "args.h"
#include "json.h"
#include "nrio.h"

/* Each returns the exit status. */
int ipc_run_udp(nrio *io, const struct ipc_args *a, FILE *out);
int ipc_run_tcp(nrio *io, const struct ipc_args *a, FILE *out);
int ipc_run_rpc(nrio *io, const struct ipc_args *a, FILE *out);

/* Starts a "message" record with the fields every transport shares. */
void ipc_record_begin(struct nr_json *j, const struct ipc_args *a, int index);
/* Adds elapsed_ns and throughput_bps for size octets in ns, and writes the record. */
void ipc_record_finish(struct nr_json *j, FILE *out, long long size, int64_t ns);
/* Writes an error record and says it on stderr. */
void ipc_error(FILE *out, const struct ipc_args *a, int index, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The record for --api tli: TLI is System V's and Linux has none. */
void ipc_not_reproducible(FILE *out, const struct ipc_args *a);

#endif
