/* ICMP: answers echo requests, reports unreachable ports, and hands every message to raw ICMP
 * sockets (the way a ping program reads replies). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "in_pcb.h"
#include "ip.h"
#include "socketvar.h"
#include "tahoe_var.h"

/* Builds and sends an ICMP message of len octets to dst. */
static int icmp_send(struct tahoe_stack *st, uint32_t dst, const uint8_t *msg, size_t len)
{
    uint8_t *pkt = malloc(IP_HDRLEN + len);
    if (!pkt)
        return -ENOBUFS;
    memset(pkt, 0, IP_HDRLEN);
    pkt[IPO_TTL] = MAXTTL;
    pkt[IPO_PROTO] = IPPROTO_ICMP;
    putaddr(pkt + IPO_SRC, st->cfg.addr);
    putaddr(pkt + IPO_DST, dst);
    memcpy(pkt + IP_HDRLEN, msg, len);
    put16(pkt + IP_HDRLEN + 2, 0);
    put16(pkt + IP_HDRLEN + 2, in_cksum(pkt + IP_HDRLEN, len));
    if (msg[0] <= ICMP_MAXTYPE)
        st->icmpstat.icps_outhist[msg[0]]++;
    int err = ip_output(st, pkt, IP_HDRLEN + len, 0);
    free(pkt);
    return err;
}

void icmp_error(struct tahoe_stack *st, const uint8_t *ip, size_t len, int type, int code)
{
    st->icmpstat.icps_error++;
    size_t hlen = (size_t)(ip[IPO_VHL] & 0x0f) << 2;
    /* Never about an ICMP error, a later fragment, or a broadcast. */
    if (ip[IPO_PROTO] == IPPROTO_ICMP && len >= hlen + 1 && ip[hlen] != ICMP_ECHO &&
        ip[hlen] != ICMP_ECHOREPLY) {
        st->icmpstat.icps_oldicmp++;
        return;
    }
    if ((get16(ip + IPO_OFF) & IP_OFFMASK) || in_broadcast(st, getaddr(ip + IPO_DST)))
        return;
    /* The header and the first 8 octets of the offending datagram. */
    size_t quote = hlen + 8 < len ? hlen + 8 : len;
    uint8_t msg[ICMP_MINLEN + 60 + 8];
    memset(msg, 0, ICMP_MINLEN);
    msg[0] = (uint8_t)type;
    msg[1] = (uint8_t)code;
    memcpy(msg + ICMP_MINLEN, ip, quote);
    icmp_send(st, getaddr(ip + IPO_SRC), msg, ICMP_MINLEN + quote);
}

void icmp_input(struct tahoe_stack *st, const uint8_t *ip, size_t hlen, size_t len)
{
    size_t icmplen = len - hlen;
    const uint8_t *icp = ip + hlen;
    if (icmplen < ICMP_MINLEN) {
        st->icmpstat.icps_tooshort++;
        return;
    }
    if (in_cksum(icp, icmplen) != 0) {
        st->icmpstat.icps_checksum++;
        return;
    }
    if (icp[0] <= ICMP_MAXTYPE)
        st->icmpstat.icps_inhist[icp[0]]++;
    uint32_t src = getaddr(ip + IPO_SRC);
    if (icp[0] == ICMP_ECHO) {
        uint8_t *reply = malloc(icmplen);
        if (reply) {
            memcpy(reply, icp, icmplen);
            reply[0] = ICMP_ECHOREPLY;
            st->icmpstat.icps_reflect++;
            icmp_send(st, src, reply, icmplen);
            free(reply);
        }
    }
    struct tahoe_addr from = { src, 0 };
    for (struct inpcb *inp = st->ripcb; inp; inp = inp->inp_next) {
        if (inp->inp_faddr && inp->inp_faddr != src)
            continue;
        sbappendaddr(&inp->inp_socket->so_rcv, &from, icp, icmplen,
                     (size_t)st->cfg.cost.sb_addr_bytes);
    }
}

int rip_attach(struct tahoe_stack *st, struct socket *so)
{
    int err = soreserve(so, (size_t)st->cfg.udp_sendspace, (size_t)st->cfg.udp_recvspace);
    if (err < 0)
        return err;
    return in_pcballoc(so, &st->ripcb);
}

long rip_output(struct socket *so, const void *msg, size_t len, uint32_t faddr)
{
    struct tahoe_stack *st = so->so_stack;
    if (!faddr)
        faddr = so->so_pcb->inp_faddr;
    if (!faddr)
        return -EDESTADDRREQ;
    if (len < ICMP_MINLEN)
        return -EINVAL;
    int err = icmp_send(st, faddr, msg, len);
    return err < 0 ? err : (long)len;
}
