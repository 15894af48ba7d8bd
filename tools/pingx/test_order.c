/* The count of UDP echoes that come back out of order (px_note_returned). */
#include <string.h>

#include "client.h"
#include "nrtest.h"

static struct px_msg returned(const long *order, int n)
{
    struct px_msg m;
    memset(&m, 0, sizeof m);
    for (int i = 0; i < n; i++)
        px_note_returned(&m, order[i]);
    return m;
}

static void test_in_order_counts_none(void)
{
    const long order[] = {0, 1, 2, 3};
    struct px_msg m = returned(order, 4);
    NRT_EQ_INT(m.dg_returned, 4);
    NRT_EQ_INT(m.dg_misordered, 0);
}

static void test_a_gap_from_loss_is_not_misordering(void)
{
    const long order[] = {1, 3, 6};
    struct px_msg m = returned(order, 3);
    NRT_EQ_INT(m.dg_returned, 3);
    NRT_EQ_INT(m.dg_misordered, 0);
}

static void test_each_late_datagram_counts_once(void)
{
    /* 2 and 1 arrive after 3; 4 then continues in order, 0 is late again. */
    const long order[] = {3, 2, 1, 4, 0};
    struct px_msg m = returned(order, 5);
    NRT_EQ_INT(m.dg_returned, 5);
    NRT_EQ_INT(m.dg_misordered, 3);
    NRT_EQ_INT(m.dg_top_index, 4);
}

static void test_the_first_datagram_is_never_late(void)
{
    const long order[] = {5};
    struct px_msg m = returned(order, 1);
    NRT_EQ_INT(m.dg_misordered, 0);
    NRT_EQ_INT(m.dg_top_index, 5);
}

int main(void)
{
    NRT_RUN(test_in_order_counts_none);
    NRT_RUN(test_a_gap_from_loss_is_not_misordering);
    NRT_RUN(test_each_late_datagram_counts_once);
    NRT_RUN(test_the_first_datagram_is_never_late);
    return nrt_summary("pingx/test_order");
}
