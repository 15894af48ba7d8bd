/* The link model: framing arithmetic (must match netrepro/linkspec.py), the queue, the line's
 * schedule, delay, jitter order and the loss draws. */
#include <math.h>

#include "model.h"
#include "nrtest.h"

static struct le_dir_cfg cfg10(void)
{
    return (struct le_dir_cfg){.rate_bps = 10e6, .queue_packets = 50};
}

static void test_ethernet_wire(void)
{
    NRT_EQ_INT(le_wire_octets(LE_FRAMING_ETHERNET, 1500), 1538);
    NRT_EQ_INT(le_wire_octets(LE_FRAMING_ETHERNET, 40), 84); /* padded to the 46-octet minimum */
    NRT_EQ_INT(le_wire_octets(LE_FRAMING_NONE, 40), 40);
}

static void test_atm_cells(void)
{
    NRT_EQ_INT(le_cells(LE_FRAMING_AAL5_LLC_SNAP, 9188), 192);
    NRT_EQ_INT(le_wire_octets(LE_FRAMING_AAL5_LLC_SNAP, 9188), 192 * 53);
    /* 32 + 8 + 8 = 48 fits one cell exactly; one more octet needs a second. */
    NRT_EQ_INT(le_cells(LE_FRAMING_AAL5_LLC_SNAP, 32), 1);
    NRT_EQ_INT(le_cells(LE_FRAMING_AAL5_LLC_SNAP, 33), 2);
    NRT_EQ_INT(le_cells(LE_FRAMING_AAL5_VC_MUX, 40), 1);
    NRT_EQ_INT(le_cells(LE_FRAMING_AAL5_VC_MUX, 41), 2);
    NRT_EQ_INT(le_cells(LE_FRAMING_ETHERNET, 1500), 0);
    NRT_EQ_INT(le_error_bits(LE_FRAMING_AAL5_LLC_SNAP, 9188), 73728); /* ishikura's 72 kbit */
    NRT_EQ_INT(le_error_bits(LE_FRAMING_ETHERNET, 1500), 8 * 1518);
}

static void test_unit_loss_prob(void)
{
    NRT_CHECK(le_unit_loss_prob(0.0, 192) == 0.0);
    NRT_CHECK(le_unit_loss_prob(1.0, 1) == 1.0);
    double p = le_unit_loss_prob(1e-4, 192);
    NRT_CHECK(fabs(p - (1 - pow(1 - 1e-4, 192))) < 1e-12);
    /* Tiny ratios must not round to zero. */
    NRT_CHECK(fabs(le_unit_loss_prob(1e-12, 1000) - 1e-9) < 1e-15);
}

static void test_line_schedule(void)
{
    struct le_dir d;
    struct le_dir_cfg c = cfg10();
    c.delay_ns = 5000000;
    NRT_EQ_INT(le_dir_init(&d, &c, LE_FRAMING_ETHERNET, 1500, 1, 0), 0);
    int64_t rel;
    /* 1514-octet frame: 1538 octets on the line, 1230.4 us at 10 Mb/s, then 5 ms. */
    NRT_EQ_INT(le_admit(&d, 1000, 1514, &rel), LE_PASS);
    NRT_EQ_INT(rel, 1000 + 1230400 + 5000000);
    /* A second frame at the same time waits for the line. */
    NRT_EQ_INT(le_admit(&d, 1000, 1514, &rel), LE_PASS);
    NRT_EQ_INT(rel, 1000 + 2 * 1230400 + 5000000);
    /* After the line has gone idle a frame starts at once. */
    NRT_EQ_INT(le_admit(&d, 10000000, 60, &rel), LE_PASS);
    NRT_EQ_INT(rel, 10000000 + 67200 + 5000000); /* 84 octets: 67.2 us */
    NRT_EQ_INT(d.count.rx_packets, 3);
    NRT_EQ_INT(d.count.queued_packets, 3);
    le_dir_free(&d);
}

static void test_fractional_ns_accumulate(void)
{
    struct le_dir d;
    struct le_dir_cfg c = cfg10();
    c.rate_bps = 3e9; /* 84 octets: 224 ns; 85 octets would be 226.67 ns */
    c.queue_packets = 0;
    NRT_EQ_INT(le_dir_init(&d, &c, LE_FRAMING_NONE, 1500, 1, 0), 0);
    int64_t rel = 0;
    for (int i = 0; i < 3000; i++)
        NRT_EQ_INT(le_admit(&d, 0, 14 + 85, &rel), LE_PASS);
    /* 3000 * 85 * 8 / 3e9 s = 680000 ns exactly, without rounding drift. */
    NRT_EQ_INT(rel, 680000);
    le_dir_free(&d);
}

static void test_queue_packets(void)
{
    struct le_dir d;
    struct le_dir_cfg c = cfg10();
    c.queue_packets = 2;
    NRT_EQ_INT(le_dir_init(&d, &c, LE_FRAMING_ETHERNET, 1500, 1, 0), 0);
    int64_t rel;
    /* One in service and two waiting fit; the fourth is dropped. */
    NRT_EQ_INT(le_admit(&d, 0, 1514, &rel), LE_PASS);
    NRT_EQ_INT(le_admit(&d, 0, 1514, &rel), LE_PASS);
    NRT_EQ_INT(le_admit(&d, 0, 1514, &rel), LE_PASS);
    NRT_EQ_INT(le_admit(&d, 0, 1514, &rel), LE_DROP_QUEUE);
    NRT_EQ_INT(d.count.drop_queue, 1);
    /* Once the first has been sent, the second is in service and there is room for one. */
    NRT_EQ_INT(le_admit(&d, 1230400, 1514, &rel), LE_PASS);
    NRT_EQ_INT(le_admit(&d, 1230400, 1514, &rel), LE_DROP_QUEUE);
    NRT_EQ_INT(d.count.queue_max_packets, 2);
    le_dir_free(&d);
}

static void test_queue_bytes(void)
{
    struct le_dir d;
    struct le_dir_cfg c = cfg10();
    c.queue_packets = 0;
    c.queue_bytes = 3000;
    NRT_EQ_INT(le_dir_init(&d, &c, LE_FRAMING_ETHERNET, 1500, 1, 0), 0);
    int64_t rel;
    NRT_EQ_INT(le_admit(&d, 0, 1514, &rel), LE_PASS);  /* in service */
    NRT_EQ_INT(le_admit(&d, 0, 1514, &rel), LE_PASS);  /* 1500 waiting */
    NRT_EQ_INT(le_admit(&d, 0, 1514, &rel), LE_PASS);  /* 3000 waiting */
    NRT_EQ_INT(le_admit(&d, 0, 15, &rel), LE_DROP_QUEUE); /* one octet more */
    le_dir_free(&d);
}

/* The waiting packets' ring grows past its first 64 slots after it has wrapped: each packet
 * leaves the queue when its turn on the line begins, oldest first, whatever the slot. */
static void test_queue_grows_after_wrapping(void)
{
    struct le_dir d;
    struct le_dir_cfg c = cfg10();
    c.queue_packets = 0;
    c.delay_ns = 0;
    NRT_EQ_INT(le_dir_init(&d, &c, LE_FRAMING_ETHERNET, 1500, 1, 0), 0);
    int64_t rel;
    const int64_t frame_ns = 1230400; /* 1538 octets on the line at 10 Mb/s */
    for (int i = 0; i < 40; i++)      /* 39 wait behind the first, in slots 0-38 */
        NRT_EQ_INT(le_admit(&d, 0, 1514, &rel), LE_PASS);
    /* 31 have begun by 30 frame times: the head moves to slot 30 */
    NRT_EQ_INT(le_admit(&d, 30 * frame_ns, 1514, &rel), LE_PASS);
    for (int i = 0; i < 100; i++)     /* wraps round slot 63, then grows */
        NRT_EQ_INT(le_admit(&d, 30 * frame_ns, 1514, &rel), LE_PASS);
    NRT_EQ_INT(rel, 141 * frame_ns);
    NRT_EQ_INT(d.count.queue_max_packets, 110);
    /* at 100 frame times 101 of the 141 have begun: 40 wait, and the next makes 41 */
    NRT_EQ_INT(le_admit(&d, 100 * frame_ns, 1514, &rel), LE_PASS);
    NRT_EQ_INT(d.wait.len, 41);
    NRT_EQ_INT(d.wait.bytes, 41 * 1500);
    le_dir_free(&d);
}

static void test_oversize(void)
{
    struct le_dir d;
    struct le_dir_cfg c = cfg10();
    NRT_EQ_INT(le_dir_init(&d, &c, LE_FRAMING_ETHERNET, 1500, 1, 0), 0);
    int64_t rel;
    NRT_EQ_INT(le_admit(&d, 0, 1515, &rel), LE_DROP_OVERSIZE);
    NRT_EQ_INT(le_admit(&d, 0, 1514, &rel), LE_PASS);
    NRT_EQ_INT(d.count.drop_oversize, 1);
    NRT_EQ_INT(d.count.rx_bytes, 1515 + 1514);
    le_dir_free(&d);
}

static double loss_fraction(struct le_dir_cfg c, enum le_framing f, uint32_t frame, int n,
                            uint64_t *dropped_by_cell)
{
    struct le_dir d;
    c.queue_packets = 0;
    if (le_dir_init(&d, &c, f, 9188, 7, 0) < 0)
        return -1;
    int64_t rel;
    int lost = 0;
    for (int i = 0; i < n; i++)
        lost += le_admit(&d, (int64_t)i * 1000000000LL, frame, &rel) != LE_PASS;
    if (dropped_by_cell)
        *dropped_by_cell = d.count.drop_cell_loss;
    le_dir_free(&d);
    return (double)lost / n;
}

static void test_loss_rates(void)
{
    int n = 200000;
    struct le_dir_cfg c = cfg10();
    c.loss_pct = 5;
    double f = loss_fraction(c, LE_FRAMING_ETHERNET, 1514, n, NULL);
    /* Within 5 standard errors of 5%. */
    NRT_CHECK(fabs(f - 0.05) < 5 * sqrt(0.05 * 0.95 / n));

    c = cfg10();
    c.cell_loss_ratio = 1e-4;
    uint64_t by_cell = 0;
    double p = le_unit_loss_prob(1e-4, 192);
    f = loss_fraction(c, LE_FRAMING_AAL5_LLC_SNAP, 14 + 9188, n, &by_cell);
    NRT_CHECK(fabs(f - p) < 5 * sqrt(p * (1 - p) / n));
    NRT_EQ_INT(by_cell, (uint64_t)llround(f * n));

    c = cfg10();
    c.bit_error_ratio = 3e-7;
    p = le_unit_loss_prob(3e-7, 8 * 1518);
    f = loss_fraction(c, LE_FRAMING_ETHERNET, 1514, n, NULL);
    NRT_CHECK(fabs(f - p) < 5 * sqrt(p * (1 - p) / n));
}

static void test_seed_reproducible(void)
{
    struct le_dir a, b, e;
    struct le_dir_cfg c = cfg10();
    c.loss_pct = 30;
    c.queue_packets = 0;
    NRT_EQ_INT(le_dir_init(&a, &c, LE_FRAMING_ETHERNET, 1500, 42, 0), 0);
    NRT_EQ_INT(le_dir_init(&b, &c, LE_FRAMING_ETHERNET, 1500, 42, 0), 0);
    NRT_EQ_INT(le_dir_init(&e, &c, LE_FRAMING_ETHERNET, 1500, 43, 0), 0);
    int64_t rel;
    int same = 1, differ = 0;
    for (int i = 0; i < 1000; i++) {
        enum le_verdict va = le_admit(&a, i * 10000000LL, 100, &rel);
        enum le_verdict vb = le_admit(&b, i * 10000000LL, 100, &rel);
        enum le_verdict ve = le_admit(&e, i * 10000000LL, 100, &rel);
        same &= va == vb;
        differ |= va != ve;
    }
    NRT_CHECK(same);
    NRT_CHECK(differ);
    le_dir_free(&a);
    le_dir_free(&b);
    le_dir_free(&e);
}

static void test_jitter_keeps_order(void)
{
    struct le_dir d;
    struct le_dir_cfg c = cfg10();
    c.rate_bps = 1e9;
    c.delay_ns = 10000000;
    c.jitter_ns = 5000000;
    c.queue_packets = 0;
    NRT_EQ_INT(le_dir_init(&d, &c, LE_FRAMING_ETHERNET, 1500, 3, 0), 0);
    int64_t rel, last = 0, lo = INT64_MAX, hi = 0;
    int in_order = 1;
    for (int i = 0; i < 10000; i++) {
        int64_t now = (int64_t)i * 100000;
        NRT_EQ_INT(le_admit(&d, now, 100, &rel), LE_PASS);
        in_order &= rel >= last;
        last = rel;
        if (rel - now < lo)
            lo = rel - now;
        if (rel - now > hi)
            hi = rel - now;
    }
    /* Keeping order holds a frame back behind a later-drawn predecessor, never before delay - jitter. */
    NRT_CHECK(in_order);
    NRT_CHECK(lo >= 5000000);
    NRT_CHECK(hi <= 15000000 + 1000);
    le_dir_free(&d);

    c.reorder = true;
    NRT_EQ_INT(le_dir_init(&d, &c, LE_FRAMING_ETHERNET, 1500, 3, 0), 0);
    last = 0;
    in_order = 1;
    lo = INT64_MAX;
    hi = 0;
    for (int i = 0; i < 10000; i++) {
        int64_t now = (int64_t)i * 100000;
        NRT_EQ_INT(le_admit(&d, now, 100, &rel), LE_PASS);
        in_order &= rel >= last;
        last = rel;
        if (rel - now < lo)
            lo = rel - now;
        if (rel - now > hi)
            hi = rel - now;
    }
    NRT_CHECK(!in_order);
    NRT_CHECK(lo >= 5000000 && lo < 5100000); /* the spread reaches delay - jitter */
    NRT_CHECK(hi <= 15000000 + 1000 && hi > 14900000);
    le_dir_free(&d);
}

int main(void)
{
    NRT_RUN(test_ethernet_wire);
    NRT_RUN(test_atm_cells);
    NRT_RUN(test_unit_loss_prob);
    NRT_RUN(test_line_schedule);
    NRT_RUN(test_fractional_ns_accumulate);
    NRT_RUN(test_queue_packets);
    NRT_RUN(test_queue_bytes);
    NRT_RUN(test_queue_grows_after_wrapping);
    NRT_RUN(test_oversize);
    NRT_RUN(test_loss_rates);
    NRT_RUN(test_seed_reproducible);
    NRT_RUN(test_jitter_keeps_order);
    return nrt_summary("linkemu/test_model");
}
