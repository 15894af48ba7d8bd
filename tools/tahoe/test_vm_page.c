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

int main(void)
{
    NRT_RUN(test_no_memory_size_never_pages);
    NRT_RUN(test_a_message_that_fits_costs_nothing);
    NRT_RUN(test_a_sequential_rescan_of_too_much_faults_every_page);
    NRT_RUN(test_clean_pages_are_dropped_without_io);
    return nrt_summary("tahoe/test_vm_page");
}
