/* An nrio backend on a tahoe stack. The caller supplies the clock and the packets: time comes
 * from env->now_ns, packets leave through the stack's cfg.if_output and come in through
 * nrio_tahoe_input (typically from env->wait). The same backend therefore runs in virtual time
 * (a simulator advances the clock in wait) and on a real interface (wait polls a raw socket). */
#ifndef NRIO_TAHOE_H
#define NRIO_TAHOE_H

#include "nrio.h"
#include "tahoe.h"
#include "disk.h"
#include "vm_page.h"

struct nrio_tahoe_env {
    /* The host's time: the latest instant it reached, a deadline it waited for or a packet's
     * arrival, not how late a real-time caller got round to it. */
    int64_t (*now_ns)(void *ctx);
    /* Returns once until_ns is reached (INT64_MAX: no deadline) or a packet was handed in with
     * nrio_tahoe_input; 0, or a negative errno that ends nrio_run. */
    int (*wait)(void *ctx, int64_t until_ns);
    void *ctx;
    /* CPU time one busy-loop iteration costs on this host, unless the host model's spin_ps
     * says otherwise. */
    int64_t spin_ps_per_iteration;
    /* Optional: called from nrio_destroy after the stack is freed, to release ctx. */
    void (*destroy)(void *ctx);
};

nrio *nrio_tahoe_new(const struct tahoe_config *cfg, const struct nrio_tahoe_env *env);
/* Hands the stack a packet that arrived at arrival_ns (not later than now_ns): what fell due
 * before it, a tick above all, runs first, and its processing starts then. */
void nrio_tahoe_input(nrio *io, const uint8_t *pkt, size_t len, int64_t arrival_ns);
struct tahoe_stack *nrio_tahoe_stack(nrio *io);
/* The paging counters of the host's application (all zero when its model has no memory). */
const struct vmstat *nrio_tahoe_vmstat(nrio *io);
/* What the host's disk did (all zero when its model has none). */
const struct tahoe_diskstat *nrio_tahoe_diskstat(nrio *io);

#endif
