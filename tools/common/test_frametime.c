/* Frame-time trailers: written after an IPv4 packet, found only past it, and never on other
 * frames. */
#include <stdint.h>
#include <string.h>

#include "frametime.h"
#include "nrtest.h"

/* An Ethernet frame holding an IPv4 packet of iplen octets, followed by pad octets. */
static size_t ipv4_frame(uint8_t *f, size_t iplen, size_t pad, uint8_t fill)
{
    memset(f, fill, NR_FRAMETIME_ETHER_HDR + iplen + pad);
    f[12] = 0x08;
    f[13] = 0x00;
    f[14] = 0x45;
    f[16] = (uint8_t)(iplen >> 8);
    f[17] = (uint8_t)iplen;
    return NR_FRAMETIME_ETHER_HDR + iplen + pad;
}

static void test_round_trip(void)
{
    uint8_t f[9300];
    size_t len = ipv4_frame(f, 9188, 0, 0xab);
    int64_t t = 0x0123456789abcdefLL;
    size_t with = nr_frametime_put(f, len, t);
    NRT_EQ_INT(with, len + NR_FRAMETIME_LEN);
    int64_t got = -1;
    NRT_EQ_INT(nr_frametime_take(f, with, &got), len);
    NRT_CHECK(got == t);
    /* The packet's own octets are untouched. */
    NRT_EQ_INT(f[len - 1], 0xab);
}

static void test_padding_before_the_trailer(void)
{
    uint8_t f[128];
    size_t len = ipv4_frame(f, 40, 6, 0);
    size_t with = nr_frametime_put(f, len, 5000);
    int64_t got = -1;
    NRT_EQ_INT(nr_frametime_take(f, with, &got), len);
    NRT_CHECK(got == 5000);
}

static void test_no_trailer_leaves_the_frame(void)
{
    uint8_t f[128];
    size_t len = ipv4_frame(f, 40, 0, 0);
    int64_t got = -1;
    NRT_EQ_INT(nr_frametime_take(f, len, &got), len);
    NRT_CHECK(got == -1);
    /* Padding that is not a trailer is left alone. */
    len = ipv4_frame(f, 40, NR_FRAMETIME_LEN, 0);
    NRT_EQ_INT(nr_frametime_take(f, len, &got), len);
    NRT_CHECK(got == -1);
}

static void test_a_mark_inside_the_packet_is_not_a_trailer(void)
{
    uint8_t f[128];
    size_t len = ipv4_frame(f, 60, 0, 0);
    /* The packet's last octets look like a trailer; they are still the packet's. */
    memcpy(f + len - NR_FRAMETIME_LEN, "NRft\0\0\0\0\0\0\0\1", NR_FRAMETIME_LEN);
    int64_t got = -1;
    NRT_EQ_INT(nr_frametime_take(f, len, &got), len);
    NRT_CHECK(got == -1);
}

static void test_other_frames_get_none(void)
{
    uint8_t f[128];
    size_t len = ipv4_frame(f, 40, 0, 0);
    f[12] = 0x08;
    f[13] = 0x06; /* ARP */
    NRT_EQ_INT(nr_frametime_put(f, len, 1), len);
    len = ipv4_frame(f, 40, 0, 0);
    f[13] = 0xdd; /* 0x08dd is no IPv4 */
    NRT_EQ_INT(nr_frametime_put(f, len, 1), len);
    /* A frame shorter than its IPv4 header says is not trusted either way. */
    len = ipv4_frame(f, 40, 0, 0);
    NRT_EQ_INT(nr_frametime_put(f, len - 1, 1), len - 1);
    NRT_EQ_INT(nr_frametime_put(f, 10, 1), 10);
}

int main(void)
{
    NRT_RUN(test_round_trip);
    NRT_RUN(test_padding_before_the_trailer);
    NRT_RUN(test_no_trailer_leaves_the_frame);
    NRT_RUN(test_a_mark_inside_the_packet_is_not_a_trailer);
    NRT_RUN(test_other_frames_get_none);
    return nrt_summary("common/test_frametime");
}
