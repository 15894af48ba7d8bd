#include "vm_page.h"

#include "disk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void vm_init(struct tahoe_vm *vm, long frames, long page_size, int64_t page_in_ns,
             int64_t page_out_ns)
{
    memset(vm, 0, sizeof *vm);
    vm->frames = frames;
    vm->page_size = page_size > 0 ? page_size : 4096;
    vm->page_in_ns = page_in_ns;
    vm->page_out_ns = page_out_ns;
    vm->lru_head = vm->lru_tail = -1;
    vm->kluster = 1;
}

void vm_set_kluster(struct tahoe_vm *vm, long kluster_bytes)
{
    long k = kluster_bytes / vm->page_size;
    vm->kluster = k > 1 ? k : 1;
}

void vm_free(struct tahoe_vm *vm)
{
    free(vm->pe);
    free(vm->hash);
    free(vm->seg);
    free(vm->slotpe);
    vm->pe = NULL;
    vm->hash = NULL;
    vm->seg = NULL;
    vm->slotpe = NULL;
}

/* Each stretch gets a modelled region of its own this large, far more than any process of the
 * era could touch, so stretches that grow never meet. */
#define VM_REGION_SHIFT 40

/* The stretch that holds a, or that a continues (it ends at a); -1 if none. One that holds a
 * wins over one that ends there. */
static long seg_at(const struct tahoe_vm *vm, uintptr_t a)
{
    long ends_at = -1;
    for (long k = 0; k < vm->nseg; k++) {
        if (vm->seg[k].start <= a && a < vm->seg[k].end)
            return k;
        if (vm->seg[k].end == a)
            ends_at = k;
    }
    return ends_at;
}

/* arr (cap elements of elem octets, len in use) with room for one more: doubled when full,
 * first elements at the start; NULL when memory ran out (arr is then left as it was). */
static void *room_for_one(void *arr, long *cap, long len, long first, size_t elem)
{
    if (len < *cap)
        return arr;
    long n = *cap ? 2 * *cap : first;
    void *grown = realloc(arr, (size_t)n * elem);
    if (grown)
        *cap = n;
    return grown;
}

/* The start of the first stretch above a; UINTPTR_MAX if none. */
static uintptr_t seg_above(const struct tahoe_vm *vm, uintptr_t a)
{
    uintptr_t next = UINTPTR_MAX;
    for (long k = 0; k < vm->nseg; k++)
        if (vm->seg[k].start > a && vm->seg[k].start < next)
            next = vm->seg[k].start;
    return next;
}

/* A new stretch from a, in the next modelled region; -ENOMEM when memory ran out. */
static long seg_new(struct tahoe_vm *vm, uintptr_t a)
{
    struct vm_seg *seg = room_for_one(vm->seg, &vm->capseg, vm->nseg, 16, sizeof *seg);
    if (!seg)
        return -ENOMEM;
    vm->seg = seg;
    vm->seg[vm->nseg] = (struct vm_seg){a, a, (uint64_t)(vm->nseg + 1) << VM_REGION_SHIFT};
    return vm->nseg++;
}

static size_t slot_of(uint64_t page, long hcap)
{
    return (size_t)((page * 0x9E3779B97F4A7C15ull) >> 17) & (size_t)(hcap - 1);
}

static int rehash(struct tahoe_vm *vm, long hcap)
{
    int32_t *h = malloc((size_t)hcap * sizeof *h);
    if (!h)
        return -ENOMEM;
    memset(h, 0xff, (size_t)hcap * sizeof *h);
    for (long i = 0; i < vm->npe; i++) {
        size_t s = slot_of(vm->pe[i].page, hcap);
        while (h[s] >= 0)
            s = (s + 1) & (size_t)(hcap - 1);
        h[s] = (int32_t)i;
    }
    free(vm->hash);
    vm->hash = h;
    vm->hcap = hcap;
    return 0;
}

/* The entry of page, created (not resident) if new; -ENOMEM when memory ran out. */
static long lookup(struct tahoe_vm *vm, uint64_t page)
{
    if (2 * (vm->npe + 1) > vm->hcap && rehash(vm, vm->hcap ? 2 * vm->hcap : 1024) < 0)
        return -ENOMEM;
    size_t s = slot_of(page, vm->hcap);
    while (vm->hash[s] >= 0) {
        if (vm->pe[vm->hash[s]].page == page)
            return vm->hash[s];
        s = (s + 1) & (size_t)(vm->hcap - 1);
    }
    struct vm_pent *pe = room_for_one(vm->pe, &vm->cappe, vm->npe, 1024, sizeof *pe);
    if (!pe)
        return -ENOMEM;
    vm->pe = pe;
    vm->pe[vm->npe] = (struct vm_pent){page, -1, -1, 0, 0, 0, 0, -1, 0};
    vm->hash[s] = (int32_t)vm->npe;
    return vm->npe++;
}

static void unlink_lru(struct tahoe_vm *vm, long i)
{
    struct vm_pent *e = &vm->pe[i];
    if (e->prev >= 0)
        vm->pe[e->prev].next = e->next;
    else
        vm->lru_head = e->next;
    if (e->next >= 0)
        vm->pe[e->next].prev = e->prev;
    else
        vm->lru_tail = e->prev;
    e->prev = e->next = -1;
}

static void push_mru(struct tahoe_vm *vm, long i)
{
    struct vm_pent *e = &vm->pe[i];
    e->prev = vm->lru_tail;
    e->next = -1;
    if (vm->lru_tail >= 0)
        vm->pe[vm->lru_tail].next = (int32_t)i;
    else
        vm->lru_head = (int32_t)i;
    vm->lru_tail = (int32_t)i;
}

/* Where paging's I/O goes: the CPU (disk NULL: each page costs its page_in_ns or page_out_ns,
 * summed in t) or the host's disk (I/Os handed over at `at`; t the last the process waits for). */
struct vm_io {
    struct tahoe_disk *disk;
    int64_t at, t;
};

/* Klustering applies to paging through a disk. */
static int klustered(const struct tahoe_vm *vm, const struct vm_io *io)
{
    return io->disk && vm->kluster > 1;
}

/* Gives entry i the next free swap slot (SunOS allocates it with the page). */
static int slot_new(struct tahoe_vm *vm, long i)
{
    int32_t *sp = room_for_one(vm->slotpe, &vm->capslot, vm->next_slot, 1024, sizeof *sp);
    if (!sp)
        return -ENOMEM;
    vm->slotpe = sp;
    vm->slotpe[vm->next_slot] = (int32_t)i;
    vm->pe[i].slot = vm->next_slot++;
    return 0;
}

/* The entry in swap slot s when it holds the page d pages from entry i's in the address space
 * too (segvn_kluster: the run must be one stretch of memory), else -1. */
static long neighbour(const struct tahoe_vm *vm, long i, long s, long d)
{
    if (s < 0 || s >= vm->next_slot)
        return -1;
    long j = vm->slotpe[s];
    return vm->pe[j].page == vm->pe[i].page + (uint64_t)d ? j : -1;
}

/* One I/O of the pages in swap slots [lo, hi]; returns when it ends. */
static int64_t swap_io(struct tahoe_vm *vm, struct vm_io *io, long lo, long hi, int write)
{
    return disk_io(io->disk, io->at, DISK_AREA_SWAP, (int64_t)lo * vm->page_size,
                   (int64_t)(hi - lo + 1) * vm->page_size, write);
}

static void wait_for(struct vm_io *io, int64_t done)
{
    if (done > io->t)
        io->t = done;
}

static void page_gone(struct tahoe_vm *vm, long i)
{
    unlink_lru(vm, i);
    vm->pe[i].resident = 0;
    vm->pe[i].klust = 0;
    vm->resident--;
}

/* Frees the least recently used frame, writing it to swap first if dirty, with the dirty
 * pages next to it in its kluster when klustering. */
static void evict(struct tahoe_vm *vm, struct vm_io *io)
{
    long v = vm->lru_head;
    struct vm_pent *e = &vm->pe[v];
    if (!e->dirty) {
        page_gone(vm, v);
        vm->st.v_frees++;
        return;
    }
    if (!io->disk) {
        page_gone(vm, v);
        e->dirty = 0;
        e->swapped = 1;
        vm->st.v_pgout++;
        io->t += vm->page_out_ns;
        return;
    }
    long lo = e->slot, hi = e->slot;
    if (klustered(vm, io)) {
        long w0 = e->slot / vm->kluster * vm->kluster, w1 = w0 + vm->kluster;
        long j;
        while (lo - 1 >= w0 && (j = neighbour(vm, v, lo - 1, lo - 1 - e->slot)) >= 0 &&
               vm->pe[j].resident && vm->pe[j].dirty)
            lo--;
        while (hi + 1 < w1 && (j = neighbour(vm, v, hi + 1, hi + 1 - e->slot)) >= 0 &&
               vm->pe[j].resident && vm->pe[j].dirty)
            hi++;
        vm->nextr = 0;
    }
    for (long s = lo; s <= hi; s++) {
        long j = vm->slotpe[s];
        page_gone(vm, j);
        vm->pe[j].dirty = 0;
        vm->pe[j].swapped = 1;
        vm->st.v_pgout++;
    }
    wait_for(io, swap_io(vm, io, lo, hi, 1));
}

/* Makes room for n more resident pages. */
static void make_room(struct tahoe_vm *vm, long n, struct vm_io *io)
{
    while (vm->resident + n > vm->frames && vm->lru_head >= 0)
        evict(vm, io);
}

/* Reads the pages in swap slots [lo, hi] into memory as one I/O; returns when it ends. */
static int64_t read_in(struct tahoe_vm *vm, long lo, long hi, struct vm_io *io)
{
    int64_t done = swap_io(vm, io, lo, hi, 0);
    for (long s = lo; s <= hi; s++) {
        long j = vm->slotpe[s];
        struct vm_pent *e = &vm->pe[j];
        e->resident = 1;
        e->klust = 1;
        e->ready = done;
        vm->resident++;
        vm->st.v_pgin++;
        push_mru(vm, j);
    }
    if ((uint64_t)vm->resident > vm->st.v_maxres)
        vm->st.v_maxres = (uint64_t)vm->resident;
    return done;
}

/* Reads ahead, without waiting, the run after the one holding entry i's slot: its pages from
 * the run's first on while they are out (none when the first is in memory), as pvn_kluster
 * does for read-ahead. Room for them is made without the process waiting either. */
static void read_ahead(struct tahoe_vm *vm, long i, const struct vm_io *io)
{
    long s0 = (vm->pe[i].slot / vm->kluster + 1) * vm->kluster, hi = s0 - 1, j;
    while (hi + 1 < s0 + vm->kluster &&
           (j = neighbour(vm, i, hi + 1, hi + 1 - vm->pe[i].slot)) >= 0 &&
           !vm->pe[j].resident && vm->pe[j].swapped)
        hi++;
    if (hi < s0)
        return;
    struct vm_io ra = *io;
    make_room(vm, hi - s0 + 1, &ra);
    read_in(vm, s0, hi, &ra);
}

/* Entry i, out of memory and in swap, faults: with klustering the pages of its run next to it
 * come in with it (the process waits for that read) and the next run is read ahead when the
 * faults follow one another. */
static void page_in(struct tahoe_vm *vm, long i, struct vm_io *io)
{
    if (!io->disk) {
        make_room(vm, 1, io);
        vm->st.v_pgin++;
        io->t += vm->page_in_ns;
        vm->pe[i].resident = 1;
        vm->resident++;
        if ((uint64_t)vm->resident > vm->st.v_maxres)
            vm->st.v_maxres = (uint64_t)vm->resident;
        return;
    }
    long slot = vm->pe[i].slot, lo = slot, hi = slot, j;
    int dora = klustered(vm, io) && slot == vm->nextr;
    if (klustered(vm, io)) {
        long w0 = slot / vm->kluster * vm->kluster, w1 = w0 + vm->kluster;
        while (lo - 1 >= w0 && (j = neighbour(vm, i, lo - 1, lo - 1 - slot)) >= 0 &&
               !vm->pe[j].resident && vm->pe[j].swapped)
            lo--;
        while (hi + 1 < w1 && (j = neighbour(vm, i, hi + 1, hi + 1 - slot)) >= 0 &&
               !vm->pe[j].resident && vm->pe[j].swapped)
            hi++;
    }
    make_room(vm, hi - lo + 1, io);
    wait_for(io, read_in(vm, lo, hi, io));
    vm->pe[i].klust = 0;
    unlink_lru(vm, i);
    if (klustered(vm, io)) {
        vm->nextr = (int32_t)(hi + 1);
        if (dora)
            read_ahead(vm, i, io);
    }
}

/* The process touches the modelled [m, m + len). */
static int touch_model(struct tahoe_vm *vm, uint64_t m, uint64_t len, int write, struct vm_io *io)
{
    uint64_t first = m / (uint64_t)vm->page_size;
    uint64_t last = (m + len - 1) / (uint64_t)vm->page_size;
    for (uint64_t page = first; page <= last; page++) {
        long i = lookup(vm, page);
        if (i < 0)
            return -ENOMEM;
        struct vm_pent *e = &vm->pe[i];
        if (e->resident) {
            unlink_lru(vm, i);
            /* A page read in with another's fault: its first touch is a fault of its own,
             * served from memory, that may read ahead (spec_getapage's minor fault). */
            if (e->klust) {
                e->klust = 0;
                int dora = e->slot == vm->nextr;
                vm->nextr = e->slot + 1;
                if (dora)
                    read_ahead(vm, i, io);
            }
            wait_for(io, vm->pe[i].ready);
        } else if (e->swapped) {
            /* A page written out before comes back from swap. */
            page_in(vm, i, io);
        } else {
            /* Any other is zero-filled, and gets its swap slot. */
            make_room(vm, 1, io);
            e = &vm->pe[i];
            if (e->slot < 0 && slot_new(vm, i) < 0)
                return -ENOMEM;
            vm->st.v_zfod++;
            e->resident = 1;
            vm->resident++;
            if ((uint64_t)vm->resident > vm->st.v_maxres)
                vm->st.v_maxres = (uint64_t)vm->resident;
        }
        if (write)
            vm->pe[i].dirty = 1;
        push_mru(vm, i);
    }
    return 0;
}

/* Touches [p, p + len) piece by piece: what a stretch holds or continues maps into its
 * region, what none does starts a stretch of its own; no piece runs into the next stretch. */
static int touch(struct tahoe_vm *vm, const void *p, size_t len, int write, struct vm_io *io)
{
    if (vm->frames <= 0 || len == 0)
        return 0;
    uintptr_t a = (uintptr_t)p, end = a + len;
    while (a < end) {
        long k = seg_at(vm, a);
        if (k < 0 && (k = seg_new(vm, a)) < 0)
            return -ENOMEM;
        uintptr_t above = seg_above(vm, a);
        uintptr_t stop = end < above ? end : above;
        struct vm_seg *sg = &vm->seg[k];
        if (stop > sg->end)
            sg->end = stop;
        int rc = touch_model(vm, sg->model + (a - sg->start), stop - a, write, io);
        if (rc < 0)
            return rc;
        a = stop;
    }
    return 0;
}

int64_t vm_touch(struct tahoe_vm *vm, const void *p, size_t len, int write)
{
    struct vm_io io = {NULL, 0, 0};
    int rc = touch(vm, p, len, write, &io);
    return rc < 0 ? rc : io.t;
}

int64_t vm_touch_disk(struct tahoe_vm *vm, const void *p, size_t len, int write,
                      struct tahoe_disk *disk, int64_t at_ns)
{
    struct vm_io io = {disk, at_ns, at_ns};
    int rc = touch(vm, p, len, write, &io);
    return rc < 0 ? rc : io.t;
}
