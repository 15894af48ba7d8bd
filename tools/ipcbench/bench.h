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

/* What stopped a message's clock, a record's timing_end. Each client's end point proves that
 * the server has the whole message. */
/* TCP and UDP clients: the server's acknowledgement of the message's last octets arrived (TCP:
 * its one octet after reading the whole message; UDP: its acknowledgement of the last group). */
#define IPC_END_RECEIVER_ACK "receiver_ack"
/* RPC client: the call returned, on the reply the server sends once it decoded the message. */
#define IPC_END_RPC_RETURN "rpc_return"
/* Servers: from the message's first octets to its last, read at the server. */
#define IPC_END_LAST_OCTET "last_octet_read"

/* Starts a "message" record with the fields every transport shares. */
void ipc_record_begin(struct nr_json *j, const struct ipc_args *a, int index);
/* Adds elapsed_ns and throughput_bps for size octets in ns, the clock having stopped on
 * timing_end (an IPC_END_*), and writes the record. */
void ipc_record_finish(struct nr_json *j, FILE *out, long long size, int64_t ns,
                       const char *timing_end);
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
