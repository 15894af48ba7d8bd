/* ipcbench's three transports and its records. UDP and TCP are nrio callbacks; RPC uses
 * libtirpc's own blocking calls and sockets, so it runs on the kernel stack only. */
#ifndef IPCBENCH_BENCH_H
#define IPCBENCH_BENCH_H

#include <stdio.h>

#include "args.h"
#include "json.h"
#include "nrio.h"
#include "tahoe/vm_page.h"

/* Each returns the exit status. */
int ipc_run_udp(nrio *io, const struct ipc_args *a, FILE *out);
int ipc_run_tcp(nrio *io, const struct ipc_args *a, FILE *out);
int ipc_run_rpc(nrio *io, const struct ipc_args *a, FILE *out);

/* Starts a "message" record with the fields every transport shares. */
void ipc_record_begin(struct nr_json *j, const struct ipc_args *a, int index);
/* Adds elapsed_ns and throughput_bps for size octets in ns, and writes the record. */
void ipc_record_finish(struct nr_json *j, FILE *out, long long size, int64_t ns);
/* The server's line on stderr once it listens, for a harness to start the client after. */
void ipc_announce(const struct ipc_args *a);
/* Writes an error record and says it on stderr. */
void ipc_error(FILE *out, const struct ipc_args *a, int index, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A "vmstat" record: the paging of the process's pages on the Tahoe stack's host model
 * (tahoe/vm_page.h), all messages of the run together, as netsim reports it per host. */
void ipc_vmstat(FILE *out, const struct ipc_args *a, const struct vmstat *v);
/* The record for --api tli: TLI is System V's and Linux has none. */
void ipc_not_reproducible(FILE *out, const struct ipc_args *a);

#endif
