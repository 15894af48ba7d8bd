/* Finishing an offloaded checksum gives what the sender's stack would have computed. */
#include <stdint.h>
#include <string.h>

#include "csum.h"
#include "nrtest.h"

/* A UDP datagram 10.0.0.1:1234 -> 10.0.0.2:5678 carrying "hello!" inside an Ethernet frame. */
static size_t build(uint8_t *f)
{
    static const uint8_t head[] = {
        0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 6, 0x08, 0x00,                      /* Ethernet */
        0x45, 0, 0, 34, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2, /* IPv4 */
        0x04, 0xd2, 0x16, 0x2e, 0, 14, 0, 0,                                  /* UDP */
        'h', 'e', 'l', 'l', 'o', '!'};
    memcpy(f, head, sizeof head);
    return sizeof head;
}

static uint16_t udp_check(const uint8_t *f, size_t len)
{
    /* Pseudo-header (addresses, protocol, UDP length) plus the UDP datagram, checksum as stored. */
    uint8_t buf[64];
    memcpy(buf, f + 26, 8);
    buf[8] = 0;
    buf[9] = 17;
    buf[10] = 0;
    buf[11] = 14;
    memcpy(buf + 12, f + 34, len - 34);
    return le_inet_csum(buf, 12 + len - 34, 0);
}

static void test_completes_udp(void)
{
    uint8_t f[64];
    size_t len = build(f);
    /* What Linux leaves in the field for CHECKSUM_PARTIAL: the folded pseudo-header sum. */
    uint8_t pseudo[12] = {10, 0, 0, 1, 10, 0, 0, 2, 0, 17, 0, 14};
    uint16_t seed = (uint16_t)~le_inet_csum(pseudo, sizeof pseudo, 0);
    f[40] = (uint8_t)(seed >> 8);
    f[41] = (uint8_t)seed;
    NRT_EQ_INT(le_csum_complete(f, len, 34, 6), 0);
    /* A correct checksum makes the whole sum verify to zero. */
    NRT_EQ_INT(udp_check(f, len), 0);
    NRT_CHECK(f[40] != 0 || f[41] != 0);
}

static void test_odd_length_and_bounds(void)
{
    uint8_t data[3] = {0x01, 0x02, 0x03};
    /* 0x0102 + 0x0300 = 0x0402, complemented 0xfbfd. */
    NRT_EQ_INT(le_inet_csum(data, 3, 0), 0xfbfd);
    uint8_t f[64];
    size_t len = build(f);
    NRT_EQ_INT(le_csum_complete(f, len, 34, 39), -1);
    NRT_EQ_INT(le_csum_complete(f, len, 100, 0), -1);
}

int main(void)
{
    NRT_RUN(test_completes_udp);
    NRT_RUN(test_odd_length_and_bounds);
    return nrt_summary("linkemu/test_csum");
}
