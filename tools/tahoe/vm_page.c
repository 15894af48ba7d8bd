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
}

void vm_free(struct tahoe_vm *vm)
{
    free(vm->pe);
    free(vm->hash);
    free(vm->seg);
    vm->pe = NULL;
    vm->hash = NULL;
    vm->seg = NULL;
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
    if (vm->nseg == vm->capseg) {
        long cap = vm->capseg ? 2 * vm->capseg : 16;
        struct vm_seg *seg = realloc(vm->seg, (size_t)cap * sizeof *seg);
        if (!seg)
            return -ENOMEM;
        vm->seg = seg;
        vm->capseg = cap;
    }
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
    if (vm->npe == vm->cappe) {
        long cap = vm->cappe ? 2 * vm->cappe : 1024;
        struct vm_pent *pe = realloc(vm->pe, (size_t)cap * sizeof *pe);
        if (!pe)
            return -ENOMEM;
        vm->pe = pe;
        vm->cappe = cap;
    }
    vm->pe[vm->npe] = (struct vm_pent){page, -1, -1, 0, 0, 0, -1};
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
 * summed in t) or the host's disk (each page an I/O handed over at `at`; t the last to end). */
struct vm_io {
    struct tahoe_disk *disk;
    int64_t at, t;
};

/* A page's I/O of the given kind to or from its swap slot. */
static void page_io(struct tahoe_vm *vm, struct vm_pent *e, int write, struct vm_io *io)
{
    if (!io->disk) {
        io->t += write ? vm->page_out_ns : vm->page_in_ns;
        return;
    }
    /* A page keeps the slot it was first written to; new slots follow one another. */
    if (e->slot < 0)
        e->slot = vm->next_slot++;
    int64_t done = disk_io(io->disk, io->at, DISK_AREA_SWAP, (int64_t)e->slot * vm->page_size,
                           vm->page_size, write);
    if (done > io->t)
        io->t = done;
}

/* Frees the least recently used frame, writing it to swap first if dirty. */
static void evict(struct tahoe_vm *vm, struct vm_io *io)
{
    long v = vm->lru_head;
    unlink_lru(vm, v);
    struct vm_pent *e = &vm->pe[v];
    e->resident = 0;
    vm->resident--;
    if (!e->dirty) {
        vm->st.v_frees++;
        return;
    }
    e->dirty = 0;
    e->swapped = 1;
    vm->st.v_pgout++;
    page_io(vm, e, 1, io);
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
        } else {
            if (vm->resident >= vm->frames)
                evict(vm, io);
            e = &vm->pe[i];
            /* A page written out before comes back from swap; any other is zero-filled. */
            if (e->swapped) {
                vm->st.v_pgin++;
                page_io(vm, e, 0, io);
            } else {
                vm->st.v_zfod++;
            }
            e->resident = 1;
            vm->resident++;
            if ((uint64_t)vm->resident > vm->st.v_maxres)
                vm->st.v_maxres = (uint64_t)vm->resident;
        }
        if (write)
            e->dirty = 1;
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
