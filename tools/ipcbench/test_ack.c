/* ipcbench's ack schedule: groups of k, the 2-octet acknowledgement, and the receiver's
 * answers to segments out of order, duplicated and missing. */
#include <string.h>

#include "ack.h"
#include "nrtest.h"

static void test_schedule(void)
{
    NRT_EQ_INT(ipc_segments(10000, 1000), 10);
    NRT_EQ_INT(ipc_segments(10001, 1000), 11);
    NRT_EQ_INT(ipc_segments(1, 1000), 1);
    NRT_EQ_INT(ipc_groups(11, 1), 11);  /* one acknowledgement per segment */
    NRT_EQ_INT(ipc_groups(11, 6), 2);   /* 6 then 5 */
    NRT_EQ_INT(ipc_groups(12, 6), 2);
    NRT_EQ_INT(ipc_groups(13, 6), 3);
    NRT_EQ_INT(ipc_group_of(5, 6), 0);
    NRT_EQ_INT(ipc_group_of(6, 6), 1);
    long first, end;
    ipc_group_range(1, 6, 11, &first, &end);
    NRT_CHECK(first == 6 && end == 11);
    ipc_group_range(0, 6, 11, &first, &end);
    NRT_CHECK(first == 0 && end == 6);
    ipc_group_range(3, 1, 11, &first, &end);
    NRT_CHECK(first == 3 && end == 4);
}

static void test_ack_encoding(void)
{
    uint16_t a = ipc_ack_encode(5, IPC_FORWARD, 3);
    NRT_CHECK(ipc_ack_matches(a, 5, IPC_FORWARD, 3));
    NRT_CHECK(!ipc_ack_matches(a, 5, IPC_FORWARD, 4));
    NRT_CHECK(!ipc_ack_matches(a, 5, IPC_ECHO, 3));   /* the other phase */
    NRT_CHECK(!ipc_ack_matches(a, 4, IPC_FORWARD, 3)); /* the message before */
    /* Groups wrap at 2^14, which stop-and-wait cannot confuse. */
    NRT_CHECK(ipc_ack_matches(ipc_ack_encode(1, IPC_ECHO, 20000), 1, IPC_ECHO, 20000));
}

static void test_segment_header(void)
{
    uint8_t b[IPC_HDR_LEN];
    struct ipc_seg in = {.phase = IPC_ECHO, .k = 6, .msg_id = 9, .seq = 123456,
                         .msg_len = 5000000, .payload = 8980},
                   out;
    ipc_seg_encode(&in, b);
    NRT_EQ_INT(ipc_seg_decode(b, sizeof b, &out), 0);
    NRT_CHECK(out.phase == IPC_ECHO && out.k == 6 && out.msg_id == 9 && out.seq == 123456 &&
              out.msg_len == 5000000 && out.payload == 8980);
    NRT_EQ_INT(ipc_seg_decode(b, IPC_HDR_LEN - 1, &out), -1);
    b[0] ^= 1;
    NRT_EQ_INT(ipc_seg_decode(b, sizeof b, &out), -1);
}

/* 6UnAck over 14 segments of 10 octets (the last one 5): acknowledgements come exactly when
 * a group completes, again for a retransmitted group, and never for an incomplete one. */
static void test_receiver(void)
{
    enum { PAY = 10, LEN = 135, K = 6 };
    uint8_t msg[LEN];
    for (int i = 0; i < LEN; i++)
        msg[i] = ipc_pattern(3, i);
    struct ipc_rx rx;
    NRT_EQ_INT(ipc_rx_init(&rx, 3, IPC_FORWARD, K, LEN, PAY), 0);
    NRT_EQ_INT(rx.nseg, 14);
    NRT_EQ_INT(rx.ngroups, 3);
#define SEG(s) ipc_rx_segment(&rx, (s), msg + (s) * PAY, (s) == 13 ? 5 : PAY)
    /* Group 0 out of order, segment 2 missing until last. */
    int order[] = {5, 0, 4, 1, 3};
    for (int i = 0; i < 5; i++)
        NRT_EQ_INT(SEG(order[i]), -1);
    NRT_EQ_INT(SEG(2), 0);
    /* A duplicate of a complete group is acknowledged again (its ack may have been lost). */
    NRT_EQ_INT(SEG(4), 0);
    /* Group 1 with one segment duplicated before completion. */
    for (int s = 6; s < 11; s++)
        NRT_EQ_INT(SEG(s), -1);
    NRT_EQ_INT(SEG(10), -1);
    NRT_EQ_INT(SEG(11), 1);
    NRT_EQ_INT(ipc_rx_complete(&rx), 0);
    /* The short last group: 12 and 13. A wrong-length segment is refused. */
    NRT_EQ_INT(ipc_rx_segment(&rx, 13, msg + 130, 4), -1);
    NRT_EQ_INT(SEG(13), -1);
    NRT_EQ_INT(SEG(12), 2);
    NRT_EQ_INT(ipc_rx_complete(&rx), 1);
    NRT_CHECK(memcmp(rx.msg, msg, LEN) == 0);
    NRT_EQ_INT(ipc_rx_segment(&rx, 14, msg, PAY), -1); /* beyond the message */
#undef SEG
    ipc_rx_free(&rx);
}

static void test_one_unack(void)
{
    struct ipc_rx rx;
    uint8_t d[4] = {1, 2, 3, 4};
    NRT_EQ_INT(ipc_rx_init(&rx, 0, IPC_ECHO, 1, 10, 4), 0);
    NRT_EQ_INT(ipc_rx_segment(&rx, 1, d, 4), 1);
    NRT_EQ_INT(ipc_rx_segment(&rx, 0, d, 4), 0);
    NRT_EQ_INT(ipc_rx_segment(&rx, 2, d, 2), 2);
    NRT_EQ_INT(ipc_rx_complete(&rx), 1);
    ipc_rx_free(&rx);
}

int main(void)
{
    NRT_RUN(test_schedule);
    NRT_RUN(test_ack_encoding);
    NRT_RUN(test_segment_header);
    NRT_RUN(test_receiver);
    NRT_RUN(test_one_unack);
    return nrt_summary("ipcbench/test_ack");
}
