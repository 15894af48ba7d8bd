#include <errno.h>
#include <stdlib.h>

#include "nrtest.h"
#include "pingwire.h"

static void test_tcp_roundtrip(void)
{
    uint8_t b[PW_HDR_LEN];
    struct pw_tcp_hdr h = {PW_FLAG_NODELAY, 200, 12287}, d;
    pw_tcp_encode(b, &h);
    NRT_EQ_INT(b[0], 'P');
    NRT_EQ_INT(b[4], 0);
    NRT_EQ_INT(b[6], 0x2f);
    NRT_EQ_INT(b[7], 0xff);
    NRT_EQ_INT(pw_tcp_decode(b, &d), 0);
    NRT_EQ_INT(d.flags, PW_FLAG_NODELAY);
    NRT_EQ_INT(d.seq8, 200);
    NRT_EQ_INT(d.length, 12287);
    h.length = 4194304;
    pw_tcp_encode(b, &h);
    NRT_EQ_INT(pw_tcp_decode(b, &d), 0);
    NRT_EQ_INT(d.length, 4194304);
}

static void test_tcp_refuses(void)
{
    uint8_t b[PW_HDR_LEN];
    struct pw_tcp_hdr h = {0, 0, 7}, d;
    pw_tcp_encode(b, &h);
    NRT_EQ_INT(pw_tcp_decode(b, &d), -EINVAL);
    h.length = 100;
    pw_tcp_encode(b, &h);
    b[1] = 'Y';
    NRT_EQ_INT(pw_tcp_decode(b, &d), -EPROTO);
    b[1] = 'X';
    b[2] = 0x02;
    NRT_EQ_INT(pw_tcp_decode(b, &d), -EPROTO);
}

static void test_udp_roundtrip(void)
{
    uint8_t b[PW_HDR_LEN];
    struct pw_udp_hdr h = {0xdeadbeef, 511, 512}, d;
    pw_udp_encode(b, &h);
    NRT_EQ_INT(pw_udp_decode(b, sizeof b, &d), 0);
    NRT_EQ_INT(d.msg_id, 0xdeadbeef);
    NRT_EQ_INT(d.index, 511);
    NRT_EQ_INT(d.count, 512);
    NRT_EQ_INT(pw_udp_decode(b, 7, &d), -EINVAL);
    h.index = 512;
    pw_udp_encode(b, &h);
    NRT_EQ_INT(pw_udp_decode(b, sizeof b, &d), -EINVAL);
    h.index = 0;
    h.count = 0;
    pw_udp_encode(b, &h);
    NRT_EQ_INT(pw_udp_decode(b, sizeof b, &d), -EINVAL);
}

static void test_udp_count(void)
{
    NRT_EQ_INT(pw_udp_count(8, 8192), 1);
    NRT_EQ_INT(pw_udp_count(8192, 8192), 1);
    NRT_EQ_INT(pw_udp_count(8193, 8192), 2);
    NRT_EQ_INT(pw_udp_count(102400, 8192), 13);
    NRT_EQ_INT(pw_udp_count(4194304, 8192), 512);
    NRT_EQ_INT(pw_udp_count(7, 8192), -EINVAL);
    NRT_EQ_INT(pw_udp_count(100, 15), -EINVAL);
    NRT_EQ_INT(pw_udp_count(100, 16), 7);
    NRT_EQ_INT(pw_udp_count(100, 65508), -EINVAL);
    NRT_EQ_INT(pw_udp_count(65536L * 16, 16), -ERANGE);
    NRT_EQ_INT(pw_udp_count(65535L * 16, 16), 65535);
}

/* Every octet belongs to exactly one datagram and every datagram holds a header. */
static void check_layout(long size, long dgram)
{
    long n = pw_udp_count(size, dgram), next = 0;
    NRT_CHECK(n > 0);
    for (long i = 0; i < n; i++) {
        long off, len;
        pw_udp_slice(size, dgram, i, &off, &len);
        NRT_EQ_INT(off, next);
        NRT_CHECK(len >= PW_HDR_LEN && len <= dgram);
        next = off + len;
    }
    NRT_EQ_INT(next, size);
}

static void test_udp_slices(void)
{
    long off, len;
    pw_udp_slice(102400, 8192, 12, &off, &len);
    NRT_EQ_INT(off, 98304);
    NRT_EQ_INT(len, 4096);
    /* 8195 = 8192 + 3: the 3-octet tail borrows 5 octets */
    pw_udp_slice(8195, 8192, 0, &off, &len);
    NRT_EQ_INT(len, 8187);
    pw_udp_slice(8195, 8192, 1, &off, &len);
    NRT_EQ_INT(off, 8187);
    NRT_EQ_INT(len, 8);
    long sizes[] = {8, 9, 23, 24, 8192, 8193, 8199, 8200, 12287, 12288, 102400, 16391};
    check_layout(4194304, 8192);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        check_layout(sizes[i], 8192);
        check_layout(sizes[i], 16);
        check_layout(sizes[i], 17);
        check_layout(sizes[i], 1472);
    }
}

static void test_fill(void)
{
    uint8_t a[64], b[64];
    pw_fill(a, sizeof a, 1);
    pw_fill(b, sizeof b, 1);
    NRT_CHECK(memcmp(a, b, sizeof a) == 0);
    pw_fill(b, sizeof b, 2);
    NRT_CHECK(memcmp(a, b, sizeof a) != 0);
}

int main(void)
{
    NRT_RUN(test_tcp_roundtrip);
    NRT_RUN(test_tcp_refuses);
    NRT_RUN(test_udp_roundtrip);
    NRT_RUN(test_udp_count);
    NRT_RUN(test_udp_slices);
    NRT_RUN(test_fill);
    return nrt_summary("common/test_pingwire");
}
