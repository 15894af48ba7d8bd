/* The paging model: zero-fill, LRU eviction, page-outs of dirty pages and page-ins. */
#include <stdint.h>

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

int main(void)
{
    NRT_RUN(test_no_memory_size_never_pages);
    NRT_RUN(test_a_message_that_fits_costs_nothing);
    NRT_RUN(test_a_sequential_rescan_of_too_much_faults_every_page);
    NRT_RUN(test_clean_pages_are_dropped_without_io);
    NRT_RUN(test_counts_follow_the_modelled_layout_not_the_heap);
    NRT_RUN(test_a_touch_across_stretches);
    return nrt_summary("tahoe/test_vm_page");
}
