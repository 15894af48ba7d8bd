/* TCP control blocks: creation, closing, dropping, and bare control segments. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "in_pcb.h"
#include "ip.h"
#include "socketvar.h"
#include "tahoe_var.h"
#include "tcp.h"

#define TCP_TTL 30 /* 4.3BSD */

const unsigned char tcp_outflags[TCP_NSTATES] = {
    TH_RST | TH_ACK, /* CLOSED */
    0,               /* LISTEN */
    TH_SYN,          /* SYN_SENT */
    TH_SYN | TH_ACK, /* SYN_RECEIVED */
    TH_ACK,          /* ESTABLISHED */
    TH_ACK,          /* CLOSE_WAIT */
    TH_FIN | TH_ACK, /* FIN_WAIT_1 */
    TH_FIN | TH_ACK, /* CLOSING */
    TH_FIN | TH_ACK, /* LAST_ACK */
    TH_ACK,          /* FIN_WAIT_2 */
    TH_ACK,          /* TIME_WAIT */
};

const char *tcp_out_reason_name(int reason)
{
    static const char *const names[] = { "none", "S1", "S2", "nodelay", "S3", "rexmt",
                                         "persist", "R1", "R2", "acknow", "ctl", "fin" };
    if (reason < 0 || reason > TCPO_FIN)
        return "?";
    return names[reason];
}

struct tcpcb *tcp_newtcpcb(struct inpcb *inp)
{
    struct tcpcb *tp = calloc(1, sizeof *tp);
    if (!tp)
        return NULL;
    struct socket *so = inp->inp_socket;
    tp->t_maxseg = TCP_MSS;
    tp->t_inpcb = inp;
    /* No RTT estimate yet: srtt + 2 * rttvar gives the initial timeout. */
    tp->t_srtt = TCPTV_SRTTBASE;
    tp->t_rttvar = TCPTV_SRTTDFLT << 2;
    TCPT_RANGESET(tp->t_rxtcur, ((TCPTV_SRTTBASE >> 2) + (TCPTV_SRTTDFLT << 2)) >> 1, TCPTV_MIN,
                  TCPTV_REXMTMAX);
    /* Tahoe opens the congestion window to the whole send buffer of a new connection on the
     * local net; one beyond a gateway starts from one segment (tcp_mss), and any connection
     * slow-starts from one segment after a loss (retransmit timeout, fast retransmit). */
    long space = sbspace(&so->so_snd);
    tp->snd_cwnd = space > 0 ? (uint32_t)space : 0;
    tp->snd_ssthresh = so->so_stack->cfg.window_scale ? (uint32_t)TCP_MAXWIN << TCP_MAX_WINSHIFT
                                                       : TCP_MAXWIN;
    if (so->so_stack->cfg.window_scale)
        tp->t_flags |= TF_REQ_SCALE;
    inp->inp_ppcb = tp;
    return tp;
}

struct tcpcb *tcp_close(struct tcpcb *tp)
{
    struct inpcb *inp = tp->t_inpcb;
    struct socket *so = inp->inp_socket;
    struct tahoe_stack *st = so->so_stack;
    while (tp->seg_next) {
        struct tcpqent *q = tp->seg_next;
        tp->seg_next = q->next;
        free(q);
    }
    free(tp);
    inp->inp_ppcb = NULL;
    soisdisconnected(so);
    st->tcpstat.tcps_closed++;
    in_pcbdetach(inp);
    return NULL;
}

/* Drops a connection with error err, sending a RST if the peer knows of it. */
struct tcpcb *tcp_drop(struct tcpcb *tp, int err)
{
    struct socket *so = tp->t_inpcb->inp_socket;
    struct tahoe_stack *st = so->so_stack;
    if (TCPS_HAVERCVDSYN(tp->t_state)) {
        tp->t_state = TCPS_CLOSED;
        tcp_output(tp);
        st->tcpstat.tcps_drops++;
    } else {
        st->tcpstat.tcps_conndrops++;
    }
    so->so_error = err;
    return tcp_close(tp);
}

/* Sends a segment with no data: a RST for a segment that fits no connection, or a keep-alive
 * probe. Addresses are the ones the segment goes from and to. */
void tcp_respond(struct tahoe_stack *st, struct tcpcb *tp, uint32_t src, uint32_t dst,
                 uint16_t sport, uint16_t dport, tcp_seq seq, tcp_seq ack, int flags)
{
    uint8_t pkt[IP_HDRLEN + TCP_HDRLEN];
    memset(pkt, 0, sizeof pkt);
    pkt[IPO_TTL] = TCP_TTL;
    pkt[IPO_PROTO] = IPPROTO_TCP;
    putaddr(pkt + IPO_SRC, src);
    putaddr(pkt + IPO_DST, dst);
    uint8_t *th = pkt + IP_HDRLEN;
    put16(th + THO_SPORT, sport);
    put16(th + THO_DPORT, dport);
    put32(th + THO_SEQ, seq);
    put32(th + THO_ACK, ack);
    th[THO_OFF] = (TCP_HDRLEN / 4) << 4;
    th[THO_FLAGS] = (uint8_t)(flags ? flags : TH_ACK);
    long win = 0;
    if (tp) {
        win = sbspace(&tp->t_inpcb->inp_socket->so_rcv) >> tp->rcv_scale;
        if (win > TCP_MAXWIN)
            win = TCP_MAXWIN;
        if (win < 0)
            win = 0;
    }
    put16(th + THO_WIN, (uint16_t)win);
    put16(th + THO_SUM, in_pseudo_cksum(src, dst, IPPROTO_TCP, th, TCP_HDRLEN));
    st->tcpstat.tcps_sndtotal++;
    if (flags & TH_RST)
        st->tcpstat.tcps_sndrst++;
    ip_output(st, pkt, sizeof pkt, 0);
    if (st->cfg.trace) {
        struct tahoe_seg_trace ev = { tahoe_cpu_free_ns(st), (flags & TH_RST) ? TCPO_CTL : TCPO_ACKNOW,
                                      th[THO_FLAGS], seq, ack, (uint32_t)win, 0, sport, dport };
        st->cfg.trace(st->cfg.trace_ctx, &ev);
    }
}
