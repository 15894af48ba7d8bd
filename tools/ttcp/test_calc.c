/* ttcp's arithmetic and wire format. */
#include <math.h>

#include "calc.h"
#include "nrtest.h"
#include "wire.h"

static void test_bps(void)
{
    /* 1 MB in 1 s is 8 Mbit/s; half the time, twice the rate. */
    NRT_CHECK(fabs(ttcp_bps(1000000, 1000000000) - 8e6) < 1e-6);
    NRT_CHECK(fabs(ttcp_bps(1000000, 500000000) - 16e6) < 1e-6);
    NRT_CHECK(fabs(ttcp_bps(1, 1) - 8e9) < 1e-3);
    NRT_CHECK(ttcp_bps(100, 0) < 0);
    NRT_CHECK(ttcp_bps(100, -5) < 0);
    NRT_CHECK(ttcp_bps(0, 10) == 0.0);
    /* No overflow for large transfers: 1 TB over 1000 s is 8 Gbit/s. */
    NRT_CHECK(fabs(ttcp_bps(1000000000000LL, 1000000000000LL) - 8e9) < 1.0);
}

static void test_writes(void)
{
    NRT_EQ_INT(ttcp_write_count(8192 * 4, 8192), 4);
    NRT_EQ_INT(ttcp_write_count(8192 * 4 + 1, 8192), 5);
    NRT_EQ_INT(ttcp_write_count(1, 8192), 1);
    NRT_EQ_INT(ttcp_write_len(8192 * 4 + 1, 8192, 0), 8192);
    NRT_EQ_INT(ttcp_write_len(8192 * 4 + 1, 8192, 3), 8192);
    NRT_EQ_INT(ttcp_write_len(8192 * 4 + 1, 8192, 4), 1);
    NRT_EQ_INT(ttcp_write_len(8192 * 4 + 1, 8192, 5), 0);
    NRT_EQ_INT(ttcp_write_len(100, 8192, 0), 100);
    NRT_EQ_INT(ttcp_write_len(100, 8192, -1), 0);
    long long sum = 0;
    for (long long i = 0; i < ttcp_write_count(1000003, 1000); i++)
        sum += ttcp_write_len(1000003, 1000, i);
    NRT_EQ_INT(sum, 1000003);
}

static void test_lost(void)
{
    NRT_EQ_INT(ttcp_lost(100, 97), 3);
    NRT_EQ_INT(ttcp_lost(100, 100), 0);
    NRT_EQ_INT(ttcp_lost(100, 101), 0);
}

static void test_wire(void)
{
    uint8_t b[TTCP_REPORT_LEN];
    struct ttcp_msg in = {.type = TTCP_REPORT, .id = 7, .count = 123456789012ULL,
                          .bytes = 1ULL << 40, .ns = 987654321, .rcvbuf = 65536,
                          .rcvbuf_requested = 32768},
                    out;
    NRT_EQ_INT(ttcp_encode(&in, b, sizeof b), TTCP_REPORT_LEN);
    NRT_EQ_INT(ttcp_decode(b, sizeof b, &out), TTCP_REPORT);
    NRT_EQ_INT(out.id, 7);
    NRT_CHECK(out.count == in.count && out.bytes == in.bytes && out.ns == in.ns);
    NRT_EQ_INT(out.rcvbuf, 65536);
    NRT_EQ_INT(out.rcvbuf_requested, 32768);
    /* Truncated or foreign datagrams are not ttcp messages. */
    NRT_EQ_INT(ttcp_decode(b, TTCP_REPORT_LEN - 1, &out), 0);
    b[0] ^= 1;
    NRT_EQ_INT(ttcp_decode(b, sizeof b, &out), 0);
    /* A buffer too small to encode into is refused. */
    NRT_EQ_INT(ttcp_encode(&in, b, TTCP_REPORT_LEN - 1), 0);

    struct ttcp_msg d = {.type = TTCP_DATA, .id = 2, .seq = 4000000000u};
    NRT_EQ_INT(ttcp_encode(&d, b, sizeof b), TTCP_HDR_LEN);
    NRT_EQ_INT(ttcp_decode(b, TTCP_HDR_LEN, &out), TTCP_DATA);
    NRT_CHECK(out.seq == 4000000000u && out.id == 2);
    struct ttcp_msg e = {.type = TTCP_END, .id = 1, .count = 55, .bytes = 555};
    NRT_EQ_INT(ttcp_encode(&e, b, sizeof b), TTCP_END_LEN);
    NRT_EQ_INT(ttcp_decode(b, TTCP_END_LEN, &out), TTCP_END);
    NRT_CHECK(out.count == 55 && out.bytes == 555);
    struct ttcp_msg bad = {.type = 9};
    NRT_EQ_INT(ttcp_encode(&bad, b, sizeof b), 0);
}

int main(void)
{
    NRT_RUN(test_bps);
    NRT_RUN(test_writes);
    NRT_RUN(test_lost);
    NRT_RUN(test_wire);
    return nrt_summary("ttcp/test_calc");
}
