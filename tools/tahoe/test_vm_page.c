/* The paging model: zero-fill, LRU eviction, page-outs of dirty pages and page-ins, and
 * klustered paging through a disk. */
#include <stdint.h>
#include <string.h>

#include "disk.h"
#include "nrtest.h"
#include "vm_page.h"

#define PG 4096
#define IN_NS 10
#define OUT_NS 3

/* Addresses only: the model never dereferences what it is told was touched. */
static const void *page(uintptr_t n) { return (const void *)((n + 1) * PG); }

static void test_no_memory_size_never_pages(void)
{
    struct tahoe_vm vm;
    vm_init(&vm, 0, PG, IN_NS, OUT_NS);
    NRT_EQ_INT(vm_touch(&vm, page(0), 100 * PG, 1), 0);
    NRT_EQ_INT((int)vm.st.v_zfod, 0);
    vm_free(&vm);
}

static void test_a_message_that_fits_costs_nothing(void)
{
    struct tahoe_vm vm;
    vm_init(&vm, 4, PG, IN_NS, OUT_NS);
    NRT_EQ_INT(vm_touch(&vm, page(0), 4 * PG, 1), 0);
    NRT_EQ_INT(vm_touch(&vm, page(0), 4 * PG, 0), 0);
    NRT_EQ_INT((int)vm.st.v_zfod, 4);
    NRT_EQ_INT((int)vm.st.v_pgin, 0);
    vm_free(&vm);
}

static void test_a_sequential_rescan_of_too_much_faults_every_page(void)
{
    struct tahoe_vm vm;
    vm_init(&vm, 4, PG, IN_NS, OUT_NS);
    /* Writing 5 pages into 4 frames writes the first one out. */
    NRT_EQ_INT(vm_touch(&vm, page(0), 5 * PG, 1), OUT_NS);
    /* Reading them again in order: each is gone when it is wanted (LRU). */
    NRT_EQ_INT(vm_touch(&vm, page(0), 5 * PG, 0), 5 * IN_NS + 4 * OUT_NS);
    NRT_EQ_INT((int)vm.st.v_pgin, 5);
    NRT_EQ_INT((int)vm.st.v_pgout, 5);
    NRT_EQ_INT((int)vm.st.v_maxres, 4);
    vm_free(&vm);
}

static void test_clean_pages_are_dropped_without_io(void)
{
    struct tahoe_vm vm;
    vm_init(&vm, 2, PG, IN_NS, OUT_NS);
    NRT_EQ_INT(vm_touch(&vm, page(0), 3 * PG, 0), 0);
    NRT_EQ_INT((int)vm.st.v_frees, 1);
    NRT_EQ_INT((int)vm.st.v_pgout, 0);
    vm_free(&vm);
}

/* One pattern of a process's touches: a message of 5 pages and 100 octets written, then read
 * twice, and a small buffer of 300 octets written after each read, on 4 frames. */
static void run_pattern(struct tahoe_vm *vm, uintptr_t msg, uintptr_t small, int64_t *cost)
{
    vm_init(vm, 4, PG, IN_NS, OUT_NS);
    *cost = vm_touch(vm, (const void *)msg, 5 * PG + 100, 1);
    for (int i = 0; i < 2; i++) {
        for (size_t off = 0; off < 5 * PG + 100; off += 1000)
            *cost += vm_touch(vm, (const void *)(msg + off), off + 1000 > 5 * PG + 100 ? 5 * PG + 100 - off : 1000, 0);
        *cost += vm_touch(vm, (const void *)small, 300, 1);
    }
}

/* Where this machine's allocator put the buffers changes nothing: the same touches at other
 * addresses, other offsets within a page, the buffers in the other order or sharing a page,
 * give the same counts and costs, as each stretch is laid out from a page of its own. */
static void test_counts_follow_the_modelled_layout_not_the_heap(void)
{
    const uintptr_t heaps[][2] = {
        {PG, 100 * PG},                     /* both page-aligned */
        {7 * PG + 16, 3 * PG + 4000},       /* a malloc header's offset; small below msg */
        {50 * PG + 2048, 50 * PG + 2048 + 5 * PG + 100 + 16}, /* small right after msg */
    };
    struct tahoe_vm vm;
    int64_t want_cost;
    run_pattern(&vm, heaps[0][0], heaps[0][1], &want_cost);
    struct vmstat want = vm.st;
    vm_free(&vm);
    NRT_CHECK(want.v_pgin > 0 && want.v_pgout > 0);
    /* 6 pages of message and 1 of the small buffer, as if each began on a page. */
    NRT_EQ_INT(want.v_zfod, 7);
    for (size_t h = 1; h < sizeof heaps / sizeof heaps[0]; h++) {
        int64_t cost;
        run_pattern(&vm, heaps[h][0], heaps[h][1], &cost);
        NRT_EQ_INT(cost, want_cost);
        NRT_EQ_INT(vm.st.v_zfod, want.v_zfod);
        NRT_EQ_INT(vm.st.v_pgin, want.v_pgin);
        NRT_EQ_INT(vm.st.v_pgout, want.v_pgout);
        NRT_EQ_INT(vm.st.v_frees, want.v_frees);
        NRT_EQ_INT(vm.st.v_maxres, want.v_maxres);
        vm_free(&vm);
    }
}

/* A touch that runs from a new stretch into one already touched maps each part into its own
 * stretch's pages; one that continues a stretch extends it. */
static void test_a_touch_across_stretches(void)
{
    struct tahoe_vm vm;
    vm_init(&vm, 100, PG, IN_NS, OUT_NS);
    NRT_EQ_INT(vm_touch(&vm, (const void *)(uintptr_t)(10 * PG + 500), 100, 1), 0);
    NRT_EQ_INT(vm.st.v_zfod, 1);
    NRT_EQ_INT(vm_touch(&vm, (const void *)(uintptr_t)(10 * PG + 600), PG, 1), 0);
    NRT_EQ_INT(vm.nseg, 1);
    NRT_EQ_INT(vm.st.v_zfod, 2);
    NRT_EQ_INT(vm_touch(&vm, (const void *)(uintptr_t)(10 * PG), 500 + 2 * PG + 1, 0), 0);
    NRT_EQ_INT(vm.nseg, 2);
    /* the new stretch of 500 octets has a page; the old one's third page is new */
    NRT_EQ_INT(vm.st.v_zfod, 4);
    vm_free(&vm);
}

/* A drive of 3600 rpm and 18432 octets a track, as the sun-4c hosts' swap disk. */
static void swap_disk(struct tahoe_disk *d)
{
    struct tahoe_hostcost c;
    memset(&c, 0, sizeof c);
    c.disk_rpm = 3600;
    c.disk_track_bytes = 18432;
    c.disk_seek_avg_ns = 15000000;
    c.disk_seek_track_ns = 4000000;
    c.disk_command_ns = 1000000;
    disk_init(d, &c, 1, 0);
}

/* Writes n pages from page(0) on frames frames, then reads them again in order, through a
 * disk with a kluster of kluster octets. */
static void rescan(struct tahoe_vm *vm, struct tahoe_disk *d, long frames, long n, long kluster)
{
    swap_disk(d);
    vm_init(vm, frames, PG, 0, 0);
    vm_set_kluster(vm, kluster);
    int64_t t = vm_touch_disk(vm, page(0), (size_t)n * PG, 1, d, 0);
    NRT_CHECK(t >= 0);
    NRT_CHECK(vm_touch_disk(vm, page(0), (size_t)n * PG, 0, d, t) >= t);
}

/* One page an I/O without klustering; with a kluster of 4 pages, each page-out takes the
 * dirty pages next to it and each page-in its run's pages that are out: the same pages move,
 * in a quarter of the I/Os. */
static void test_klustering_moves_the_same_pages_in_fewer_ios(void)
{
    struct tahoe_vm vm;
    struct tahoe_disk d;
    rescan(&vm, &d, 16, 32, PG);
    struct vmstat one = vm.st;
    NRT_EQ_INT((int64_t)d.st.ios, (int64_t)(one.v_pgin + one.v_pgout));
    NRT_CHECK(one.v_pgin == 32 && one.v_pgout == 32);
    vm_free(&vm);
    rescan(&vm, &d, 16, 32, 4 * PG);
    NRT_EQ_INT((int64_t)vm.st.v_pgin, (int64_t)one.v_pgin);
    NRT_EQ_INT((int64_t)vm.st.v_pgout, (int64_t)one.v_pgout);
    NRT_EQ_INT((int64_t)d.st.ios * 4, (int64_t)(one.v_pgin + one.v_pgout));
    vm_free(&vm);
}

/* A page-out klusters only pages next to it in the address space too: two buffers whose
 * slots follow one another are written apart. */
static void test_a_kluster_stays_in_one_stretch(void)
{
    struct tahoe_vm vm;
    struct tahoe_disk d;
    swap_disk(&d);
    vm_init(&vm, 4, PG, 0, 0);
    vm_set_kluster(&vm, 4 * PG);
    int64_t t = vm_touch_disk(&vm, page(0), 2 * PG, 1, &d, 0);   /* slots 0, 1 */
    t = vm_touch_disk(&vm, page(10), 2 * PG, 1, &d, t);          /* slots 2, 3 */
    t = vm_touch_disk(&vm, page(20), PG, 1, &d, t);              /* evicts the first buffer */
    NRT_EQ_INT((int64_t)d.st.ios, 1);
    NRT_EQ_INT((int64_t)vm.st.v_pgout, 2);
    t = vm_touch_disk(&vm, page(21), PG, 1, &d, t);              /* a frame is free */
    NRT_EQ_INT((int64_t)d.st.ios, 1);
    NRT_CHECK(vm_touch_disk(&vm, page(30), PG, 1, &d, t) > t);   /* evicts the second */
    NRT_EQ_INT((int64_t)d.st.ios, 2);
    NRT_EQ_INT((int64_t)vm.st.v_pgout, 4);
    vm_free(&vm);
}

/* A fault in order reads the next run ahead: the process waits for its own run only, and
 * waits for the run read ahead when it first touches one of its pages. */
static void test_read_ahead_runs_while_the_process_goes_on(void)
{
    struct tahoe_vm vm;
    struct tahoe_disk d;
    swap_disk(&d);
    vm_init(&vm, 16, PG, 0, 0);
    vm_set_kluster(&vm, 4 * PG);
    int64_t t = vm_touch_disk(&vm, page(0), 24 * PG, 1, &d, 0);
    int64_t ios = (int64_t)d.st.ios;
    t = vm_touch_disk(&vm, page(0), PG, 0, &d, t);
    /* A write for room, the run of page 0, a write for room, the run read ahead. */
    NRT_EQ_INT((int64_t)d.st.ios - ios, 4);
    NRT_EQ_INT((int64_t)vm.st.v_pgin, 8);
    NRT_CHECK(d.free_at > t);
    int64_t ahead = d.free_at;
    NRT_EQ_INT(vm_touch_disk(&vm, page(1), 3 * PG, 0, &d, t), t);
    NRT_CHECK(vm_touch_disk(&vm, page(4), PG, 0, &d, t) >= ahead);
    vm_free(&vm);
}

int main(void)
{
    NRT_RUN(test_no_memory_size_never_pages);
    NRT_RUN(test_a_message_that_fits_costs_nothing);
    NRT_RUN(test_a_sequential_rescan_of_too_much_faults_every_page);
    NRT_RUN(test_clean_pages_are_dropped_without_io);
    NRT_RUN(test_counts_follow_the_modelled_layout_not_the_heap);
    NRT_RUN(test_a_touch_across_stretches);
    NRT_RUN(test_klustering_moves_the_same_pages_in_fewer_ios);
    NRT_RUN(test_a_kluster_stays_in_one_stretch);
    NRT_RUN(test_read_ahead_runs_while_the_process_goes_on);
    return nrt_summary("tahoe/test_vm_page");
}
