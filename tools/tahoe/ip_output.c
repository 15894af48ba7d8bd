/* IP output: completes the header, fragments to the MTU and charges the CPU per packet. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ip.h"
#include "tahoe_var.h"

/* Hands one finished packet to the interface at the time the CPU is done with it. */
static int if_send(struct tahoe_stack *st, const uint8_t *pkt, size_t len)
{
    int64_t at = tahoe_bus(st, tahoe_charge(st, tahoe_outcost(st, pkt, len)), len);
    /* The LANCE's ring drops a frame it cannot take after the frame was queued: the sender is
     * not told (if_le.c lestart). */
    if (tahoe_le_ring(st, pkt, len, at) < 0) {
        st->ipstat.ips_odropped++;
        return 0;
    }
    int err = st->cfg.if_output(st->cfg.ctx, pkt, len, at);
    if (err < 0) {
        st->ipstat.ips_odropped++;
        return err;
    }
    return 0;
}

static void finish_header(uint8_t *ip, size_t len, uint16_t id, uint16_t off)
{
    ip[IPO_VHL] = 0x45;
    put16(ip + IPO_LEN, (uint16_t)len);
    put16(ip + IPO_ID, id);
    put16(ip + IPO_OFF, off);
    put16(ip + IPO_SUM, 0);
    put16(ip + IPO_SUM, in_cksum(ip, IP_HDRLEN));
}

int ip_output(struct tahoe_stack *st, uint8_t *pkt, size_t len, int dont_fragment)
{
    size_t mtu = (size_t)st->cfg.mtu;
    if (len > IP_MAXPACKET)
        return -EMSGSIZE;
    st->ipstat.ips_localout++;
    uint16_t id = st->ip_id++;
    if (len <= mtu) {
        finish_header(pkt, len, id, dont_fragment ? IP_DF : 0);
        return if_send(st, pkt, len);
    }
    if (dont_fragment) {
        st->ipstat.ips_cantfrag++;
        return -EMSGSIZE;
    }
    /* Every fragment but the last carries a multiple of 8 octets. */
    size_t per = (mtu - IP_HDRLEN) & ~(size_t)7;
    size_t payload = len - IP_HDRLEN;
    uint8_t *frag = malloc(IP_HDRLEN + per);
    if (!frag)
        return -ENOBUFS;
    int err = 0;
    for (size_t off = 0; off < payload; off += per) {
        size_t n = payload - off < per ? payload - off : per;
        memcpy(frag, pkt, IP_HDRLEN);
        memcpy(frag + IP_HDRLEN, pkt + IP_HDRLEN + off, n);
        uint16_t flags = off + n < payload ? IP_MF : 0;
        finish_header(frag, IP_HDRLEN + n, id, (uint16_t)(flags | (off >> 3)));
        st->ipstat.ips_ofragments++;
        int e = if_send(st, frag, IP_HDRLEN + n);
        if (e < 0 && !err)
            err = e;
    }
    st->ipstat.ips_fragmented++;
    free(frag);
    return err;
}
