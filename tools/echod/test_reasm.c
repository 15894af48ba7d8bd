#include <stdlib.h>

#include "nrtest.h"
#include "pingwire.h"
#include "reasm.h"

#define MS 1000000LL

static enum reasm_status add(struct reasm *r, const struct nrio_addr *peer, uint32_t id,
                             int index, int count, size_t len, int64_t now,
                             struct reasm_msg **m)
{
    uint8_t buf[64] = {0};
    struct pw_udp_hdr h = {id, (uint16_t)index, (uint16_t)count};
    pw_udp_encode(buf, &h);
    buf[PW_HDR_LEN] = (uint8_t)index; /* payload marks the datagram */
    return reasm_add(r, peer, buf, len, now, m);
}

static void free_list(struct reasm_dgram *d)
{
    while (d) {
        struct reasm_dgram *n = d->next;
        free(d);
        d = n;
    }
}

static void test_complete_out_of_order_with_duplicate(void)
{
    struct reasm r;
    struct reasm_msg *m;
    struct nrio_addr p = {0x0100007f, 5000};
    reasm_init(&r, 500 * MS, 4 << 20, 16);
    NRT_EQ_INT(add(&r, &p, 7, 2, 3, 20, 0, &m), REASM_STORED);
    NRT_EQ_INT(add(&r, &p, 7, 0, 3, 30, 1, &m), REASM_STORED);
    NRT_EQ_INT(add(&r, &p, 7, 0, 3, 30, 2, &m), REASM_DUPLICATE);
    NRT_EQ_INT(r.npending, 1);
    NRT_EQ_INT(add(&r, &p, 7, 1, 3, 40, 3, &m), REASM_COMPLETE);
    NRT_CHECK(m != NULL);
    struct reasm_dgram *head = NULL, *tail = NULL;
    NRT_EQ_INT(reasm_take(&r, m, &head, &tail), 3);
    NRT_EQ_INT(r.npending, 0);
    /* echoed in index order, each as received */
    NRT_CHECK(head && head->len == 30 && head->data[PW_HDR_LEN] == 0);
    NRT_CHECK(head && head->next && head->next->len == 40);
    NRT_CHECK(tail && tail->len == 20 && tail->data[PW_HDR_LEN] == 2 && !tail->next);
    /* a late copy of an echoed message does not open a new one */
    NRT_EQ_INT(add(&r, &p, 7, 1, 3, 40, 4, &m), REASM_LATE);
    NRT_EQ_INT(r.npending, 0);
    free_list(head);
    reasm_free(&r);
}

static void test_bad_datagrams(void)
{
    struct reasm r;
    struct reasm_msg *m;
    struct nrio_addr p = {0x0100007f, 5000};
    reasm_init(&r, 500 * MS, 100, 16);
    NRT_EQ_INT(add(&r, &p, 1, 3, 3, 20, 0, &m), REASM_BAD); /* index out of range */
    NRT_EQ_INT(add(&r, &p, 1, 0, 0, 20, 0, &m), REASM_BAD); /* count 0 */
    NRT_EQ_INT(add(&r, &p, 1, 0, 3, 7, 0, &m), REASM_BAD);  /* shorter than the header */
    NRT_EQ_INT(r.npending, 0);
    NRT_EQ_INT(add(&r, &p, 1, 0, 3, 60, 0, &m), REASM_STORED);
    NRT_EQ_INT(add(&r, &p, 1, 1, 4, 20, 0, &m), REASM_BAD); /* count disagrees */
    NRT_EQ_INT(add(&r, &p, 1, 1, 3, 60, 0, &m), REASM_BAD); /* over --max-message */
    NRT_EQ_INT(add(&r, &p, 2, 0, 1, 64, 0, &m), REASM_COMPLETE); /* the limit is per message */
    NRT_EQ_INT(r.npending, 2);
    reasm_free(&r);
}

static void test_peers_and_limits(void)
{
    struct reasm r;
    struct reasm_msg *m;
    struct nrio_addr a = {0x0100007f, 5000}, b = {0x0100007f, 5001};
    reasm_init(&r, 500 * MS, 4 << 20, 2);
    NRT_EQ_INT(add(&r, &a, 1, 0, 2, 20, 0, &m), REASM_STORED);
    NRT_EQ_INT(add(&r, &b, 1, 0, 2, 20, 0, &m), REASM_STORED); /* same id, other peer */
    NRT_EQ_INT(r.npending, 2);
    NRT_EQ_INT(add(&r, &a, 2, 0, 2, 20, 0, &m), REASM_FULL);
    reasm_free(&r);
    NRT_EQ_INT(r.npending, 0);
}

static void test_quiet_timeout(void)
{
    struct reasm r;
    struct reasm_msg *m, *m2;
    struct nrio_addr p = {0x0100007f, 5000};
    reasm_init(&r, 500 * MS, 4 << 20, 16);
    NRT_EQ_INT(reasm_next_deadline(&r), -1);
    NRT_EQ_INT(add(&r, &p, 9, 0, 4, 20, 100 * MS, &m), REASM_STORED);
    NRT_EQ_INT(add(&r, &p, 9, 2, 4, 20, 300 * MS, &m), REASM_STORED);
    NRT_EQ_INT(add(&r, &p, 10, 0, 2, 20, 200 * MS, &m2), REASM_STORED);
    NRT_EQ_INT(reasm_next_deadline(&r), 700 * MS);
    NRT_CHECK(reasm_expired(&r, 699 * MS) == NULL);
    NRT_CHECK(reasm_expired(&r, 700 * MS) == m2);
    struct reasm_dgram *head = NULL, *tail = NULL;
    NRT_EQ_INT(reasm_take(&r, m2, &head, &tail), 1);
    /* message 9's quiet time runs from its latest datagram, not its first */
    NRT_EQ_INT(reasm_next_deadline(&r), 800 * MS);
    NRT_CHECK(reasm_expired(&r, 799 * MS) == NULL);
    NRT_CHECK(reasm_expired(&r, 800 * MS) == m);
    NRT_EQ_INT(reasm_take(&r, m, &head, &tail), 2);
    NRT_CHECK(head && head->next && head->next->next == tail && tail->data[PW_HDR_LEN] == 2);
    NRT_EQ_INT(reasm_next_deadline(&r), -1);
    free_list(head);
    reasm_free(&r);
}

int main(void)
{
    NRT_RUN(test_complete_out_of_order_with_duplicate);
    NRT_RUN(test_bad_datagrams);
    NRT_RUN(test_peers_and_limits);
    NRT_RUN(test_quiet_timeout);
    return nrt_summary("echod/test_reasm");
}
