/* A process's pages on a host with little memory, as SunOS 4.1's VM paged them: a page first
 * touched is zero-filled; once the process holds more pages than fit, the least recently used
 * one is evicted (written to swap first if dirty) and a later touch pages it back in. Each
 * page-in and page-out keeps the host CPU busy for the host model's cost (milliner calls paging
 * "a non-interruptible process"), or, on a host with a disk (disk.h), goes through its swap
 * as I/Os (klustered as below) that the process sleeps on while the CPU serves interrupts; the
 * process writes each page-out itself (SunOS's pageout daemon, which writes ahead of it, is not
 * modelled). A model with no memory size never pages.
 *
 * Pages are the process's modelled addresses, not this machine's: each stretch of memory the
 * process touches is laid out, in the order it was first touched, from a page boundary of its
 * own modelled region, so where this machine's allocator put a buffer (a rebuild, another
 * libc, another heap layout) changes no count.
 *
 * Klustering, as SunOS 4.1.3 paged anonymous memory through its swap device (read for
 * behaviour only): a page gets its swap slot when first touched, the next free one in order
 * (sys/vm/vm_swap.c swap_alloc, a sorted free list), so pages touched in order lie in order
 * in swap. With a kluster of k pages (specfs klustsize, 56K; sys/specfs/spec_vnodeops.c) a
 * page-out writes the chosen page and the dirty resident pages next to it in swap, inside its
 * k-aligned run, as one I/O, and frees them all (spec_putpage, pvn_range_dirty in
 * sys/vm/vm_pvn.c); a page-in reads the pages of its run that are out and lie next to it both
 * in swap and in the address space (spec_getapage, pvn_kluster, segvn_kluster), and when the
 * fault is at the swap place after the last one (s_nextr; a first touch of a page read in
 * with others counts, as SunOS's minor fault on it did) reads the next run ahead without
 * waiting for it. A page-out forgets the order (spec_putpage clears s_nextr). */
#ifndef TAHOE_VM_PAGE_H
#define TAHOE_VM_PAGE_H

#include <stddef.h>
#include <stdint.h>

struct vmstat {
    uint64_t v_zfod;    /* pages zero-filled on first touch */
    uint64_t v_pgin;    /* pages read back from swap */
    uint64_t v_pgout;   /* dirty pages written to swap to free a frame */
    uint64_t v_frees;   /* clean pages dropped to free a frame */
    uint64_t v_maxres;  /* most pages resident at once */
};

/* A stretch of this machine's memory the process touched, [start, end), and where it lies in
 * the modelled address space: model + (p - start). */
struct vm_seg {
    uintptr_t start, end;
    uint64_t model;
};

struct vm_pent {
    uint64_t page;      /* modelled address / page_size */
    int32_t prev, next; /* LRU list of resident pages; -1 ends it */
    uint8_t resident, dirty, swapped; /* swapped: its contents are in swap */
    uint8_t klust;      /* read in with another page's fault, not yet touched */
    int32_t slot;       /* its place in swap, in pages; -1 before it was first touched */
    int64_t ready;      /* when its page-in ends (a read-ahead may still run) */
};

struct tahoe_vm {
    long frames;        /* pages that fit; 0: no paging */
    long page_size;
    int64_t page_in_ns, page_out_ns;
    struct vm_pent *pe;
    long npe, cappe;
    int32_t *hash;      /* open addressing: index into pe, or -1 */
    long hcap;
    int32_t lru_head, lru_tail; /* head: least recently used */
    long resident;
    int32_t next_slot;  /* the next free swap slot */
    int32_t *slotpe;    /* per swap slot: the entry of its page */
    long capslot;
    long kluster;       /* pages a paging I/O may take; 1: one page an I/O */
    int32_t nextr;      /* the swap slot after the last fault (SunOS's s_nextr) */
    struct vm_seg *seg; /* sorted by start; none overlap */
    long nseg, capseg;
    struct vmstat st;
};

/* frames 0 makes a model that never pages. */
void vm_init(struct tahoe_vm *vm, long frames, long page_size, int64_t page_in_ns,
             int64_t page_out_ns);
/* Paging through a disk klusters kluster_bytes (rounded down to pages; under two pages: one
 * page an I/O). */
void vm_set_kluster(struct tahoe_vm *vm, long kluster_bytes);
void vm_free(struct tahoe_vm *vm);
/* The process touches [p, p+len), writing when write is 1. Returns the time paging kept the
 * CPU busy, in ns, or -ENOMEM. */
int64_t vm_touch(struct tahoe_vm *vm, const void *p, size_t len, int write);
struct tahoe_disk;
/* vm_touch on a host with a disk: each page-out and page-in is an I/O handed to disk at at_ns.
 * Returns when the last of them ends (at_ns when none), or -ENOMEM. */
int64_t vm_touch_disk(struct tahoe_vm *vm, const void *p, size_t len, int write,
                      struct tahoe_disk *disk, int64_t at_ns);

#endif
