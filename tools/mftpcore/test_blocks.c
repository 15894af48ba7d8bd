/* Block assignment, framing and reassembly: out of order, duplicated, split anywhere, gaps. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "nrtest.h"

static void test_sched(void)
{
    struct mftp_sched s;
    long long off;
    long len;
    mftp_sched_init(&s, 10000, 4096);
    NRT_EQ_INT(mftp_sched_next(&s, &off, &len), 1);
    NRT_CHECK(off == 0 && len == 4096);
    NRT_EQ_INT(mftp_sched_next(&s, &off, &len), 1);
    NRT_CHECK(off == 4096 && len == 4096);
    NRT_EQ_INT(mftp_sched_next(&s, &off, &len), 1);
    NRT_CHECK(off == 8192 && len == 10000 - 8192);
    NRT_EQ_INT(mftp_sched_next(&s, &off, &len), 0);
    NRT_EQ_INT(mftp_sched_next(&s, &off, &len), 0);
    mftp_sched_init(&s, 0, 4096);
    NRT_EQ_INT(mftp_sched_next(&s, &off, &len), 0);
}

static void test_header(void)
{
    uint8_t h[MFTP_HDR_LEN];
    long long off;
    long len;
    mftp_hdr_encode(h, 5000000000LL, 65536);
    NRT_EQ_INT(mftp_hdr_decode(h, &off, &len), 0);
    NRT_EQ_INT(off, 5000000000LL);
    NRT_EQ_INT(len, 65536);
    mftp_hdr_encode(h, 0, 0); /* an empty block is never sent, so it is malformed */
    NRT_EQ_INT(mftp_hdr_decode(h, &off, &len), -1);
    mftp_hdr_encode(h, 0, 10);
    h[1] ^= 0xff;
    NRT_EQ_INT(mftp_hdr_decode(h, &off, &len), -1);
}

static void test_ranges_out_of_order(void)
{
    struct mftp_ranges r;
    mftp_ranges_init(&r);
    long long off, len;
    NRT_EQ_INT(mftp_ranges_add(&r, 200, 100), 100);
    NRT_EQ_INT(mftp_ranges_add(&r, 0, 100), 100);
    NRT_EQ_INT(r.n, 2);
    NRT_EQ_INT(mftp_ranges_complete(&r, 300), 0);
    NRT_EQ_INT(mftp_ranges_first_gap(&r, 300, &off, &len), 1);
    NRT_CHECK(off == 100 && len == 100);
    NRT_EQ_INT(mftp_ranges_add(&r, 100, 100), 100); /* fills the gap, merging all three */
    NRT_EQ_INT(r.n, 1);
    NRT_EQ_INT(r.total, 300);
    NRT_EQ_INT(mftp_ranges_complete(&r, 300), 1);
    NRT_EQ_INT(mftp_ranges_first_gap(&r, 300, &off, &len), 0);
    /* The tail is missing when the file is longer than what arrived. */
    NRT_EQ_INT(mftp_ranges_complete(&r, 400), 0);
    NRT_EQ_INT(mftp_ranges_first_gap(&r, 400, &off, &len), 1);
    NRT_CHECK(off == 300 && len == 100);
    mftp_ranges_free(&r);
}

static void test_ranges_duplicates(void)
{
    struct mftp_ranges r;
    mftp_ranges_init(&r);
    NRT_EQ_INT(mftp_ranges_add(&r, 0, 100), 100);
    NRT_EQ_INT(mftp_ranges_add(&r, 0, 100), 0);    /* exact duplicate */
    NRT_EQ_INT(mftp_ranges_add(&r, 50, 100), 50);  /* overlaps the end */
    NRT_EQ_INT(mftp_ranges_add(&r, 300, 50), 50);
    NRT_EQ_INT(mftp_ranges_add(&r, 400, 50), 50);
    NRT_EQ_INT(r.n, 3);
    NRT_EQ_INT(mftp_ranges_add(&r, 100, 400), 400 - 50 - 50 - 50); /* spans the two islands */
    NRT_EQ_INT(r.n, 1);
    NRT_EQ_INT(r.total, 500);
    NRT_EQ_INT(mftp_ranges_complete(&r, 500), 1);
    NRT_EQ_INT(mftp_ranges_add(&r, 10, 0), 0);
    mftp_ranges_free(&r);
}

static void test_ranges_leading_gap(void)
{
    struct mftp_ranges r;
    mftp_ranges_init(&r);
    long long off, len;
    NRT_EQ_INT(mftp_ranges_add(&r, 10, 10), 10);
    NRT_EQ_INT(mftp_ranges_first_gap(&r, 20, &off, &len), 1);
    NRT_CHECK(off == 0 && len == 10);
    NRT_EQ_INT(mftp_ranges_complete(&r, 20), 0);
    NRT_EQ_INT(mftp_ranges_complete(&r, 0), 0);
    mftp_ranges_free(&r);
    mftp_ranges_init(&r);
    NRT_EQ_INT(mftp_ranges_complete(&r, 0), 1); /* an empty file is complete with nothing */
    /* Many scattered blocks, added in reverse, end as one range. */
    for (int i = 99; i >= 0; i--)
        NRT_EQ_INT(mftp_ranges_add(&r, i * 1000LL, 1000), 1000);
    NRT_EQ_INT(r.n, 1);
    NRT_EQ_INT(mftp_ranges_complete(&r, 100000), 1);
    mftp_ranges_free(&r);
}

/* A receiver rebuilding a file in memory from a sink. */
struct image {
    uint8_t *data;
    long long size;
    struct mftp_ranges have;
};

static int to_image(void *arg, long long offset, const uint8_t *p, long len)
{
    struct image *im = arg;
    if (offset + len > im->size)
        return -ERANGE;
    memcpy(im->data + offset, p, (size_t)len);
    return mftp_ranges_add(&im->have, offset, len) < 0 ? -ENOMEM : 0;
}

/* Three connections' streams, blocks dealt round-robin, block 2 sent twice, each stream fed
 * in random-sized pieces and the streams interleaved: the file comes back intact. */
static void test_reassembly(void)
{
    enum { SIZE = 50000, BLOCK = 4096, CONNS = 3 };
    uint8_t *file = malloc(SIZE);
    for (int i = 0; i < SIZE; i++)
        file[i] = (uint8_t)(i * 7 + (i >> 8));
    uint8_t *stream[CONNS];
    size_t slen[CONNS] = {0};
    for (int c = 0; c < CONNS; c++)
        stream[c] = malloc(2 * SIZE);
    struct mftp_sched s;
    mftp_sched_init(&s, SIZE, BLOCK);
    long long off;
    long len;
    for (int b = 0; mftp_sched_next(&s, &off, &len); b++) {
        int reps = b == 2 ? 2 : 1;
        for (int k = 0; k < reps; k++) {
            int c = (b + k) % CONNS;
            mftp_hdr_encode(stream[c] + slen[c], off, len);
            memcpy(stream[c] + slen[c] + MFTP_HDR_LEN, file + off, (size_t)len);
            slen[c] += MFTP_HDR_LEN + (size_t)len;
        }
    }
    struct image im = {calloc(1, SIZE), SIZE, {0}};
    mftp_ranges_init(&im.have);
    struct mftp_rx rx[CONNS];
    size_t at[CONNS] = {0};
    for (int c = 0; c < CONNS; c++)
        mftp_rx_init(&rx[c]);
    srand(42);
    for (int left = CONNS; left > 0;) {
        int c = rand() % CONNS;
        if (at[c] == slen[c])
            continue;
        size_t n = 1 + (size_t)(rand() % 5000);
        if (n > slen[c] - at[c])
            n = slen[c] - at[c];
        NRT_EQ_INT(mftp_rx_feed(&rx[c], stream[c] + at[c], n, to_image, &im), 0);
        at[c] += n;
        if (at[c] == slen[c]) {
            NRT_EQ_INT(mftp_rx_at_boundary(&rx[c]), 1);
            left--;
        }
    }
    NRT_EQ_INT(mftp_ranges_complete(&im.have, SIZE), 1);
    NRT_CHECK(memcmp(im.data, file, SIZE) == 0);
    NRT_EQ_INT(rx[0].blocks + rx[1].blocks + rx[2].blocks, (SIZE + BLOCK - 1) / BLOCK + 1);
    mftp_ranges_free(&im.have);
    free(im.data);
    for (int c = 0; c < CONNS; c++)
        free(stream[c]);
    free(file);
}

static void test_rx_errors(void)
{
    struct image im = {calloc(1, 100), 100, {0}};
    mftp_ranges_init(&im.have);
    struct mftp_rx rx;
    uint8_t buf[MFTP_HDR_LEN + 10];
    mftp_rx_init(&rx);
    mftp_hdr_encode(buf, 0, 10);
    memset(buf + MFTP_HDR_LEN, 1, 10);
    /* Cut inside the header, then inside the payload: not at a boundary. */
    NRT_EQ_INT(mftp_rx_feed(&rx, buf, 5, to_image, &im), 0);
    NRT_EQ_INT(mftp_rx_at_boundary(&rx), 0);
    NRT_EQ_INT(mftp_rx_feed(&rx, buf + 5, 15, to_image, &im), 0);
    NRT_EQ_INT(mftp_rx_at_boundary(&rx), 0);
    NRT_EQ_INT(mftp_rx_feed(&rx, buf + 20, 6, to_image, &im), 0);
    NRT_EQ_INT(mftp_rx_at_boundary(&rx), 1);
    /* Garbage instead of a header. */
    memset(buf, 0xab, sizeof buf);
    NRT_EQ_INT(mftp_rx_feed(&rx, buf, sizeof buf, to_image, &im), -EPROTO);
    /* A block beyond the file: the sink's refusal comes back. */
    mftp_rx_init(&rx);
    mftp_hdr_encode(buf, 95, 10);
    NRT_EQ_INT(mftp_rx_feed(&rx, buf, sizeof buf, to_image, &im), -ERANGE);
    mftp_ranges_free(&im.have);
    free(im.data);
}

int main(void)
{
    NRT_RUN(test_sched);
    NRT_RUN(test_header);
    NRT_RUN(test_ranges_out_of_order);
    NRT_RUN(test_ranges_duplicates);
    NRT_RUN(test_ranges_leading_gap);
    NRT_RUN(test_reassembly);
    NRT_RUN(test_rx_errors);
    return nrt_summary("mftpcore/test_blocks");
}
