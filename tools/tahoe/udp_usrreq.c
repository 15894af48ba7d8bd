/* UDP: datagram in, datagram out, with the pseudo-header checksum. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "in_pcb.h"
#include "ip.h"
#include "socketvar.h"
#include "tahoe_var.h"

void udp_input(struct tahoe_stack *st, const uint8_t *ip, size_t hlen, size_t len)
{
    st->udpstat.udps_ipackets++;
    if (len < hlen + UDP_HDRLEN) {
        st->udpstat.udps_hdrops++;
        return;
    }
    const uint8_t *uh = ip + hlen;
    size_t ulen = get16(uh + 4);
    if (ulen < UDP_HDRLEN || ulen > len - hlen) {
        st->udpstat.udps_badlen++;
        return;
    }
    uint32_t src = getaddr(ip + IPO_SRC), dst = getaddr(ip + IPO_DST);
    if (st->cfg.udp_cksum && get16(uh + 6) &&
        in_pseudo_cksum(src, dst, IPPROTO_UDP, uh, ulen) != 0) {
        st->udpstat.udps_badsum++;
        return;
    }
    uint16_t sport = get16(uh), dport = get16(uh + 2);
    struct inpcb *inp = in_pcblookup(st->udb, src, sport, dst, dport, INPLOOKUP_WILDCARD);
    if (!inp) {
        st->udpstat.udps_noport++;
        if (!in_broadcast(st, dst))
            icmp_error(st, ip, len, ICMP_UNREACH, ICMP_UNREACH_PORT);
        return;
    }
    struct tahoe_addr from = { src, sport };
    if (!sbappendaddr(&inp->inp_socket->so_rcv, &from, uh + UDP_HDRLEN, ulen - UDP_HDRLEN,
                      (size_t)st->cfg.cost.sb_addr_bytes))
        st->udpstat.udps_fullsock++;
}

int udp_attach(struct tahoe_stack *st, struct socket *so)
{
    int err = soreserve(so, (size_t)st->cfg.udp_sendspace, (size_t)st->cfg.udp_recvspace);
    if (err < 0)
        return err;
    return in_pcballoc(so, &st->udb);
}

long udp_output(struct socket *so, const void *data, size_t len, uint32_t faddr, uint16_t fport)
{
    struct tahoe_stack *st = so->so_stack;
    struct inpcb *inp = so->so_pcb;
    if (!faddr) {
        faddr = inp->inp_faddr;
        fport = inp->inp_fport;
    }
    if (!faddr || !fport)
        return -EDESTADDRREQ;
    if (len > IP_MAXPACKET - IP_HDRLEN - UDP_HDRLEN)
        return -EMSGSIZE;
    if (!inp->inp_lport) {
        int err = in_pcbbind(inp, 0, 0, 0);
        if (err < 0)
            return err;
    }
    size_t ulen = UDP_HDRLEN + len;
    uint8_t *pkt = malloc(IP_HDRLEN + ulen);
    if (!pkt)
        return -ENOBUFS;
    memset(pkt, 0, IP_HDRLEN);
    pkt[IPO_TTL] = UDP_TTL;
    pkt[IPO_PROTO] = IPPROTO_UDP;
    putaddr(pkt + IPO_SRC, st->cfg.addr);
    putaddr(pkt + IPO_DST, faddr);
    uint8_t *uh = pkt + IP_HDRLEN;
    put16(uh, inp->inp_lport);
    put16(uh + 2, fport);
    put16(uh + 4, (uint16_t)ulen);
    put16(uh + 6, 0);
    memcpy(uh + UDP_HDRLEN, data, len);
    if (st->cfg.udp_cksum) {
        uint16_t sum = in_pseudo_cksum(st->cfg.addr, faddr, IPPROTO_UDP, uh, ulen);
        put16(uh + 6, sum ? sum : 0xffff); /* 0 means "no checksum" */
    }
    st->udpstat.udps_opackets++;
    int err = ip_output(st, pkt, IP_HDRLEN + ulen, 0);
    free(pkt);
    if (err < 0) {
        st->udpstat.udps_odropped++;
        return err;
    }
    return (long)len;
}
