/* The LANCE's transmit ring as SunOS's le driver fills it: one descriptor per mbuf of a frame,
 * a frame dropped when too few are free, descriptors back once the frame has left the wire. */
#include <errno.h>
#include <string.h>

#include "ip.h"
#include "nrtest.h"
#include "tahoe_var.h"
#include "udp_var.h"

#define US 1000LL
/* A full 1500-octet frame on a 10 Mb/s wire with its preamble, FCS and gap. */
#define FULL_FRAME_NS ((1500 + 14 + 4 + 8) * 800 + 9600)

static struct tahoe_stack st;

static void ring_of(int64_t tmds)
{
    memset(&st, 0, sizeof st);
    st.cfg.cost.le_tx_tmds = tmds;
    st.cfg.iface = TAHOE_IF_ETHER;
}

/* Fragment k of a UDP datagram of data_len octets, 1480 octets of IP payload a fragment. */
static size_t fragment(uint8_t *pkt, size_t data_len, int k)
{
    size_t ip_payload = data_len + UDP_HDRLEN, off = (size_t)k * 1480;
    size_t len = ip_payload - off < 1480 ? ip_payload - off : 1480;
    memset(pkt, 0, IP_HDRLEN);
    pkt[IPO_VHL] = 0x45;
    pkt[IPO_PROTO] = IPPROTO_UDP;
    put16(pkt + IPO_OFF, (uint16_t)(off / 8));
    put16(pkt + IPO_LEN, (uint16_t)(IP_HDRLEN + len));
    return IP_HDRLEN + len;
}

/* Sends a 9000-octet datagram's 7 fragments at at_ns; returns how many the ring dropped. */
static int datagram_9000(int64_t at_ns)
{
    static uint8_t pkt[1600];
    int dropped = 0;
    for (int k = 0; k < 7; k++) {
        size_t len = fragment(pkt, 9000, k);
        dropped += tahoe_le_ring(&st, pkt, len, at_ns) == -ENOBUFS;
    }
    return dropped;
}

/* A 9000-octet datagram's fragments take 22 descriptors: each a header mbuf and the clusters
 * of 1024 its data span past the 102 octets pulled into the first (3 3 4 3 4 3 2). */
static void test_a_9000_octet_datagram_takes_22(void)
{
    ring_of(128);
    NRT_EQ_INT(datagram_9000(0), 0);
    NRT_EQ_INT(st.le_ring_tmds, 22);
    NRT_EQ_INT(st.le_ring_len, 7);
}

/* Handed over at once, five datagrams fit in 127 descriptors and the sixth loses what does not:
 * five of its fragments fit (127 descriptors), the last two are dropped and counted. */
static void test_a_full_ring_drops_the_frame(void)
{
    ring_of(128);
    for (int i = 0; i < 5; i++)
        NRT_EQ_INT(datagram_9000(0), 0);
    NRT_EQ_INT(st.le_ring_tmds, 110);
    NRT_EQ_INT(datagram_9000(0), 2);
    NRT_EQ_INT(st.le_no_tmds, 2);
    NRT_EQ_INT(st.le_ring_tmds, 127);
}

/* Frames leave one after another at the wire's pace and give their descriptors back: the
 * first frame's once it has left, the whole datagram's once all 7 have. */
static void test_descriptors_come_back_as_frames_leave(void)
{
    ring_of(128);
    NRT_EQ_INT(datagram_9000(0), 0);
    static uint8_t pkt[1600];
    size_t len = fragment(pkt, 9000, 1);
    NRT_EQ_INT(tahoe_le_ring(&st, pkt, len, FULL_FRAME_NS - 1), 0);
    NRT_EQ_INT(st.le_ring_len, 8);
    NRT_EQ_INT(tahoe_le_ring(&st, pkt, len, FULL_FRAME_NS), 0);
    NRT_EQ_INT(st.le_ring_len, 8);
    NRT_EQ_INT(tahoe_le_ring(&st, pkt, len, 100 * FULL_FRAME_NS), 0);
    NRT_EQ_INT(st.le_ring_len, 1);
    NRT_EQ_INT(st.le_ring_tmds, 3);
}

/* Small frames take one descriptor (all pulled into the first mbuf); no ring, or an ATM
 * interface, takes every frame. */
static void test_small_frames_and_no_ring(void)
{
    static uint8_t pkt[1600];
    ring_of(2);
    size_t len = fragment(pkt, 2, 0);
    NRT_EQ_INT(tahoe_le_ring(&st, pkt, len, 0), 0);
    NRT_EQ_INT(st.le_ring_tmds, 1);
    NRT_EQ_INT(tahoe_le_ring(&st, pkt, len, 0), -ENOBUFS);
    ring_of(0);
    NRT_EQ_INT(datagram_9000(0), 0);
    NRT_EQ_INT(st.le_ring_len, 0);
    ring_of(2);
    st.cfg.iface = TAHOE_IF_ATM;
    NRT_EQ_INT(datagram_9000(0), 0);
}

int main(void)
{
    NRT_RUN(test_a_9000_octet_datagram_takes_22);
    NRT_RUN(test_a_full_ring_drops_the_frame);
    NRT_RUN(test_descriptors_come_back_as_frames_leave);
    NRT_RUN(test_small_frames_and_no_ring);
    return nrt_summary("tahoe/test_le_ring");
}
