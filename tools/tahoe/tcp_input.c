/* TCP input (RFC 793 event processing as 4.3BSD-Tahoe does it): connection set-up, ACK
 * processing with Tahoe congestion control and fast retransmit, window updates, data and FIN. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "in_pcb.h"
#include "ip.h"
#include "socketvar.h"
#include "tahoe_var.h"
#include "tcp.h"
#include "tcp_debug.h"

/* The MSS this host can take from or send to the connection's peer: MTU - 40 on a local net
 * (comer94, liu95db: 9188 -> 9148, 1500 -> 1460), TCP_MSS beyond a gateway. Unlike the Tahoe
 * sources, SunOS 4.1 neither rounded it down to a multiple of the 1K cluster nor capped the
 * offer at half the receive buffer: the papers report MSS 9148 with 16K buffers. As in Tahoe, a
 * connection beyond a gateway also starts its congestion window at one segment: it slow-starts
 * from its first segment, where a local one may send its whole buffer at once. */
uint32_t tcp_mss(struct tcpcb *tp)
{
    struct tahoe_stack *st = tp->t_inpcb->inp_socket->so_stack;
    uint32_t mss = (uint32_t)st->cfg.mtu - IP_HDRLEN - TCP_HDRLEN;
    if (!in_localaddr(st, tp->t_inpcb->inp_faddr)) {
        if (mss > TCP_MSS)
            mss = TCP_MSS;
        tp->snd_cwnd = mss;
    }
    return mss;
}

static void tcp_dooptions(struct tcpcb *tp, const uint8_t *cp, size_t cnt, int tiflags)
{
    while (cnt > 0) {
        int opt = cp[0];
        size_t optlen;
        if (opt == TCPOPT_EOL)
            break;
        if (opt == TCPOPT_NOP) {
            optlen = 1;
        } else {
            if (cnt < 2 || cp[1] < 2 || cp[1] > cnt)
                break;
            optlen = cp[1];
        }
        if (opt == TCPOPT_MAXSEG && optlen == 4 && (tiflags & TH_SYN)) {
            uint32_t mss = get16(cp + 2);
            uint32_t ours = tcp_mss(tp);
            tp->t_maxseg = mss < ours ? mss : ours;
            if (tp->t_maxseg < 32)
                tp->t_maxseg = 32;
        } else if (opt == TCPOPT_WINDOW && optlen == 3 && (tiflags & TH_SYN)) {
            tp->t_flags |= TF_RCVD_SCALE;
            tp->requested_s_scale = cp[2] < TCP_MAX_WINSHIFT ? cp[2] : TCP_MAX_WINSHIFT;
        }
        cp += optlen;
        cnt -= optlen;
    }
}

/* Scaling is used only when both SYNs asked for it. */
static void tcp_settle_scale(struct tcpcb *tp)
{
    if ((tp->t_flags & (TF_REQ_SCALE | TF_RCVD_SCALE)) == (TF_REQ_SCALE | TF_RCVD_SCALE)) {
        tp->snd_scale = tp->requested_s_scale;
        tp->rcv_scale = tp->request_r_scale;
    }
}

/* Jacobson's estimator with Tahoe's fixed point: srtt x8, rttvar x4, timeout srtt + 2*rttvar.
 * t_rtt counts from 1, so a smoothed sample is t_rtt - 1 (Tahoe: "adjust t_rtt to origin 0");
 * the first sample is taken as t_rtt, as in Tahoe. */
static void tcp_xmit_timer(struct tcpcb *tp)
{
    struct tahoe_stack *st = tp->t_inpcb->inp_socket->so_stack;
    st->tcpstat.tcps_rttupdated++;
    if (tp->t_srtt != 0) {
        int delta = tp->t_rtt - 1 - (tp->t_srtt >> 3);
        if ((tp->t_srtt += delta) <= 0)
            tp->t_srtt = 1;
        if (delta < 0)
            delta = -delta;
        delta -= tp->t_rttvar >> 2;
        if ((tp->t_rttvar += delta) <= 0)
            tp->t_rttvar = 1;
    } else {
        /* First sample: take it whole, variance half of it (first timeout at 2 * rtt). */
        tp->t_srtt = tp->t_rtt << 3;
        tp->t_rttvar = tp->t_rtt << 1;
    }
    tp->t_rtt = 0;
    tp->t_rxtshift = 0;
    TCPT_RANGESET(tp->t_rxtcur, ((tp->t_srtt >> 2) + tp->t_rttvar) >> 1, TCPTV_MIN,
                  TCPTV_REXMTMAX);
}

/* Queues an out-of-order segment (seg may be NULL; lead: the octets of its first receive
 * buffer before data) and hands the user whatever is now in sequence. Returns TH_FIN when
 * the in-sequence data reached the peer's FIN. */
static int tcp_reass(struct tcpcb *tp, tcp_seq seq, const uint8_t *data, uint32_t len,
                     uint32_t lead, int fin, int have_seg)
{
    struct socket *so = tp->t_inpcb->inp_socket;
    struct tcpstat *ts = &so->so_stack->tcpstat;
    if (have_seg) {
        struct tcpqent **pp = &tp->seg_next;
        struct tcpqent *prev = NULL;
        while (*pp && SEQ_LEQ((*pp)->seq, seq)) {
            prev = *pp;
            pp = &(*pp)->next;
        }
        /* Drop what the preceding segment already holds. */
        if (prev) {
            int32_t i = (int32_t)(prev->seq + prev->len - seq);
            if (i > 0) {
                if ((uint32_t)i >= len && !fin) {
                    ts->tcps_rcvduppack++;
                    ts->tcps_rcvdupbyte += len;
                    return 0;
                }
                if ((uint32_t)i > len)
                    i = (int32_t)len;
                seq += (uint32_t)i;
                data += i;
                len -= (uint32_t)i;
                lead += (uint32_t)i;
            }
        }
        ts->tcps_rcvoopack++;
        ts->tcps_rcvoobyte += len;
        /* Trim or remove the following segments we overlap. */
        while (*pp) {
            struct tcpqent *q = *pp;
            int32_t i = (int32_t)(seq + len - q->seq);
            if (i <= 0)
                break;
            if ((uint32_t)i < q->len) {
                memmove(q->data, q->data + i, q->len - (uint32_t)i);
                q->seq += (uint32_t)i;
                q->len -= (uint32_t)i;
                q->lead += (uint32_t)i;
                break;
            }
            *pp = q->next;
            free(q);
        }
        struct tcpqent *e = malloc(sizeof *e + len);
        if (!e)
            return 0;
        e->seq = seq;
        e->len = len;
        e->lead = lead;
        e->fin = fin;
        memcpy(e->data, data, len);
        e->next = *pp;
        *pp = e;
    }
    if (!TCPS_HAVERCVDSYN(tp->t_state))
        return 0;
    struct tcpqent *q = tp->seg_next;
    if (!q || q->seq != tp->rcv_nxt)
        return 0;
    if (tp->t_state == TCPS_SYN_RECEIVED && q->len)
        return 0;
    int flags = 0;
    do {
        tp->rcv_nxt += q->len;
        flags = q->fin ? TH_FIN : 0;
        tp->seg_next = q->next;
        if (!(so->so_state & SS_CANTRCVMORE)) {
            size_t mlen[TAHOE_RCVD_ENDS];
            size_t nm = tahoe_rcv_mbufs(so->so_stack, q->lead, q->len, mlen, TAHOE_RCVD_ENDS);
            sbappendm(&so->so_rcv, q->data, q->len, mlen, nm);
        }
        free(q);
        q = tp->seg_next;
    } while (q && q->seq == tp->rcv_nxt && !flags);
    return flags;
}

void tcp_input(struct tahoe_stack *st, const uint8_t *ip, size_t hlen, size_t len)
{
    struct tcpstat *ts = &st->tcpstat;
    ts->tcps_rcvtotal++;
    size_t tlen = len - hlen;
    if (tlen < TCP_HDRLEN) {
        ts->tcps_rcvshort++;
        return;
    }
    const uint8_t *th = ip + hlen;
    uint32_t src = getaddr(ip + IPO_SRC), dst = getaddr(ip + IPO_DST);
    if (in_pseudo_cksum(src, dst, IPPROTO_TCP, th, tlen) != 0) {
        ts->tcps_rcvbadsum++;
        return;
    }
    size_t off = (size_t)(th[THO_OFF] >> 4) << 2;
    if (off < TCP_HDRLEN || off > tlen) {
        ts->tcps_rcvbadoff++;
        return;
    }
    tcp_seq seq = get32(th + THO_SEQ), ack = get32(th + THO_ACK);
    uint32_t tiwin = get16(th + THO_WIN);
    int tiflags = th[THO_FLAGS] & 0x3f;
    uint16_t sport = get16(th + THO_SPORT), dport = get16(th + THO_DPORT);
    const uint8_t *optp = th + TCP_HDRLEN;
    size_t optlen = off - TCP_HDRLEN;
    const uint8_t *data = th + off;
    uint32_t dlen = (uint32_t)(tlen - off);

    struct socket *so = NULL;
    struct tcpcb *tp = NULL;
    int dropsocket = 0, needoutput = 0, ourfinisacked = 0;
    int ostate = TCPS_CLOSED;
    tcp_seq iss = 0;

findpcb:;
    struct inpcb *inp = in_pcblookup(st->tcb, src, sport, dst, dport, INPLOOKUP_WILDCARD);
    if (!inp || !inp->inp_ppcb)
        goto dropwithreset;
    tp = inp->inp_ppcb;
    if (tp->t_state == TCPS_CLOSED)
        goto drop;
    so = inp->inp_socket;
    if (so->so_options & SO_ACCEPTCONN) {
        /* A listener takes only a bare SYN; anything else is refused or ignored. */
        if (tiflags & TH_RST)
            goto drop;
        if (tiflags & TH_ACK)
            goto dropwithreset;
        if (!(tiflags & TH_SYN))
            goto drop;
        so = sonewconn(so);
        if (!so)
            goto drop;
        dropsocket = 1;
        inp = so->so_pcb;
        inp->inp_laddr = dst;
        inp->inp_lport = dport;
        tp = inp->inp_ppcb;
        tp->t_state = TCPS_LISTEN;
    }

    ostate = tp->t_state;
    tp->t_idle = 0;
    tp->t_timer[TCPT_KEEP] = TCPTV_KEEP_IDLE;
    if (!(tiflags & TH_SYN))
        tiwin <<= tp->snd_scale;
    if (optlen && tp->t_state != TCPS_LISTEN)
        tcp_dooptions(tp, optp, optlen, tiflags);

    /* The receive window is the buffer space, but never less than already offered. */
    {
        long win = sbspace(&so->so_rcv);
        long offered = (long)(int32_t)(tp->rcv_adv - tp->rcv_nxt);
        if (win < 0)
            win = 0;
        tp->rcv_wnd = (uint32_t)(win > offered ? win : offered);
    }

    switch (tp->t_state) {
    case TCPS_LISTEN:
        if (in_broadcast(st, dst))
            goto drop;
        if (in_pcbconnect(inp, src, sport) < 0)
            goto drop;
        if (optlen)
            tcp_dooptions(tp, optp, optlen, tiflags);
        while (tp->request_r_scale < TCP_MAX_WINSHIFT &&
               ((uint32_t)TCP_MAXWIN << tp->request_r_scale) < so->so_rcv.sb_hiwat)
            tp->request_r_scale++;
        tp->iss = iss ? iss : st->tcp_iss;
        st->tcp_iss += TCP_ISSINCR / 2;
        tp->irs = seq;
        tcp_sendseqinit(tp);
        tcp_rcvseqinit(tp);
        tp->t_flags |= TF_ACKNOW;
        tp->t_state = TCPS_SYN_RECEIVED;
        tp->t_timer[TCPT_KEEP] = TCPTV_KEEP_INIT;
        dropsocket = 0;
        ts->tcps_accepts++;
        goto trimthenstep6;

    case TCPS_SYN_SENT:
        if ((tiflags & TH_ACK) && (SEQ_LEQ(ack, tp->iss) || SEQ_GT(ack, tp->snd_max)))
            goto dropwithreset;
        if (tiflags & TH_RST) {
            if (tiflags & TH_ACK)
                tp = tcp_drop(tp, ECONNREFUSED);
            goto drop;
        }
        if (!(tiflags & TH_SYN))
            goto drop;
        if (tiflags & TH_ACK) {
            tp->snd_una = ack;
            if (SEQ_LT(tp->snd_nxt, tp->snd_una))
                tp->snd_nxt = tp->snd_una;
        }
        tp->t_timer[TCPT_REXMT] = 0;
        tp->irs = seq;
        tcp_rcvseqinit(tp);
        tp->t_flags |= TF_ACKNOW;
        if ((tiflags & TH_ACK) && SEQ_GT(tp->snd_una, tp->iss)) {
            ts->tcps_connects++;
            soisconnected(so);
            tp->t_state = TCPS_ESTABLISHED;
            tp->t_maxseg = tp->t_maxseg < tcp_mss(tp) ? tp->t_maxseg : tcp_mss(tp);
            tcp_settle_scale(tp);
            tcp_reass(tp, 0, NULL, 0, 0, 0, 0);
            /* The SYN was not resent, so its round trip is a fair first sample. */
            if (tp->t_rtt)
                tcp_xmit_timer(tp);
        } else {
            tp->t_state = TCPS_SYN_RECEIVED;
        }
    trimthenstep6:
        /* Step past the SYN; keep only data that fits the window. */
        seq++;
        if (dlen > tp->rcv_wnd) {
            ts->tcps_rcvpackafterwin++;
            ts->tcps_rcvbyteafterwin += dlen - tp->rcv_wnd;
            dlen = tp->rcv_wnd;
            tiflags &= ~TH_FIN;
        }
        tp->snd_wl1 = seq - 1;
        tp->rcv_up = seq;
        goto step6;
    default:
        break;
    }

    /* Trim what we already have off the front; a whole duplicate is answered with an ACK. A
     * resent FIN just left of the window is acknowledged and its ACK still taken, or FINs that
     * crossed (both ends CLOSING) would wait for a retransmission timeout. */
    {
        int32_t todrop = (int32_t)(tp->rcv_nxt - seq);
        if (todrop > 0) {
            if (tiflags & TH_SYN) {
                tiflags &= ~TH_SYN;
                seq++;
                todrop--;
            }
            if ((uint32_t)todrop > dlen || ((uint32_t)todrop == dlen && !(tiflags & TH_FIN))) {
                ts->tcps_rcvduppack++;
                ts->tcps_rcvdupbyte += dlen;
                if (!(tiflags & TH_FIN) || (uint32_t)todrop != dlen + 1)
                    goto dropafterack;
                todrop = (int32_t)dlen;
                tiflags &= ~TH_FIN;
                tp->t_flags |= TF_ACKNOW;
            } else {
                ts->tcps_rcvpartduppack++;
                ts->tcps_rcvpartdupbyte += (uint32_t)todrop;
            }
            data += todrop;
            seq += (uint32_t)todrop;
            dlen -= (uint32_t)todrop;
        }
    }
    /* Data for a socket nobody can read any more: reset the peer. */
    if ((so->so_state & SS_NOFDREF) && tp->t_state > TCPS_CLOSE_WAIT && dlen) {
        tp = tcp_close(tp);
        ts->tcps_rcvafterclose++;
        goto dropwithreset;
    }
    /* Trim what lies beyond the window; a probe of a closed window is acknowledged. */
    {
        int32_t todrop = (int32_t)(seq + dlen - (tp->rcv_nxt + tp->rcv_wnd));
        if (todrop > 0) {
            if ((uint32_t)todrop >= dlen) {
                if ((tiflags & TH_SYN) && tp->t_state == TCPS_TIME_WAIT &&
                    SEQ_GT(seq, tp->rcv_nxt)) {
                    /* A new connection reusing a TIME_WAIT pair starts above the old one. */
                    iss = tp->rcv_nxt + TCP_ISSINCR;
                    tp = tcp_close(tp);
                    goto findpcb;
                }
                if (tp->rcv_wnd == 0 && seq == tp->rcv_nxt) {
                    tp->t_flags |= TF_ACKNOW;
                    ts->tcps_rcvwinprobe++;
                } else {
                    ts->tcps_rcvpackafterwin++;
                    ts->tcps_rcvbyteafterwin += dlen;
                    goto dropafterack;
                }
            } else {
                ts->tcps_rcvpackafterwin++;
                ts->tcps_rcvbyteafterwin += (uint32_t)todrop;
            }
            dlen -= (uint32_t)todrop < dlen ? (uint32_t)todrop : dlen;
            tiflags &= ~(TH_PUSH | TH_FIN);
        }
    }

    /* A RST closes the connection; it is not answered (tcp_drop would send one back). */
    if (tiflags & TH_RST) {
        switch (tp->t_state) {
        case TCPS_SYN_RECEIVED:
        case TCPS_ESTABLISHED:
        case TCPS_FIN_WAIT_1:
        case TCPS_FIN_WAIT_2:
        case TCPS_CLOSE_WAIT:
            so->so_error = tp->t_state == TCPS_SYN_RECEIVED ? ECONNREFUSED : ECONNRESET;
            tp->t_state = TCPS_CLOSED;
            ts->tcps_drops++;
            tp = tcp_close(tp);
            goto drop;
        default:
            tp = tcp_close(tp);
            goto drop;
        }
    }
    if (tiflags & TH_SYN) {
        /* A SYN inside the window is an error. */
        tp = tcp_drop(tp, ECONNRESET);
        goto dropwithreset;
    }
    if (!(tiflags & TH_ACK))
        goto drop;

    switch (tp->t_state) {
    case TCPS_SYN_RECEIVED:
        if (SEQ_GT(tp->snd_una, ack) || SEQ_GT(ack, tp->snd_max))
            goto dropwithreset;
        ts->tcps_connects++;
        soisconnected(so);
        tp->t_state = TCPS_ESTABLISHED;
        tp->t_maxseg = tp->t_maxseg < tcp_mss(tp) ? tp->t_maxseg : tcp_mss(tp);
        tcp_settle_scale(tp);
        tcp_reass(tp, 0, NULL, 0, 0, 0, 0);
        tp->snd_wl1 = seq - 1;
        /* fall through */
    case TCPS_ESTABLISHED:
    case TCPS_FIN_WAIT_1:
    case TCPS_FIN_WAIT_2:
    case TCPS_CLOSE_WAIT:
    case TCPS_CLOSING:
    case TCPS_LAST_ACK:
    case TCPS_TIME_WAIT:
        if (SEQ_LEQ(ack, tp->snd_una)) {
            if (dlen == 0 && tiwin == tp->snd_wnd) {
                ts->tcps_rcvdupack++;
                /* Three duplicate ACKs while data is out: the segment at snd_una was lost.
                 * Resend it alone and slow-start again from one segment (Tahoe, no fast
                 * recovery). */
                if (tp->t_timer[TCPT_REXMT] == 0 || ack != tp->snd_una) {
                    tp->t_dupacks = 0;
                } else if (++tp->t_dupacks == TCP_REXMTTHRESH) {
                    tcp_seq onxt = tp->snd_nxt;
                    uint32_t win = (tp->snd_wnd < tp->snd_cwnd ? tp->snd_wnd : tp->snd_cwnd) /
                                   2 / tp->t_maxseg;
                    if (win < 2)
                        win = 2;
                    tp->snd_ssthresh = win * tp->t_maxseg;
                    tp->t_timer[TCPT_REXMT] = 0;
                    tp->t_rtt = 0;
                    tp->snd_nxt = ack;
                    tp->snd_cwnd = tp->t_maxseg;
                    ts->tcps_fastrexmt++;
                    tcp_output(tp);
                    if (SEQ_GT(onxt, tp->snd_nxt))
                        tp->snd_nxt = onxt;
                    goto drop;
                }
            } else {
                tp->t_dupacks = 0;
            }
            break;
        }
        tp->t_dupacks = 0;
        if (SEQ_GT(ack, tp->snd_max)) {
            ts->tcps_rcvacktoomuch++;
            goto dropafterack;
        }
        {
            uint32_t acked = ack - tp->snd_una;
            ts->tcps_rcvackpack++;
            ts->tcps_rcvackbyte += acked;
            if (tp->t_rtt && SEQ_GT(ack, tp->t_rtseq))
                tcp_xmit_timer(tp);
            /* Everything acked: stop the timer and let output run; else restart it. */
            if (ack == tp->snd_max) {
                tp->t_timer[TCPT_REXMT] = 0;
                needoutput = 1;
            } else if (tp->t_timer[TCPT_PERSIST] == 0) {
                tp->t_timer[TCPT_REXMT] = tp->t_rxtcur;
            }
            /* Open cwnd: one segment per ACK below ssthresh (slow start), about one segment
             * per window above it (congestion avoidance). */
            {
                uint32_t incr = tp->t_maxseg;
                if (tp->snd_cwnd > tp->snd_ssthresh) {
                    incr = incr * incr / tp->snd_cwnd;
                    if (incr < 1)
                        incr = 1;
                }
                uint32_t cap = (uint32_t)TCP_MAXWIN << tp->snd_scale;
                tp->snd_cwnd = tp->snd_cwnd + incr < cap ? tp->snd_cwnd + incr : cap;
            }
            if (acked > so->so_snd.sb_cc) {
                tp->snd_wnd -= (uint32_t)so->so_snd.sb_cc;
                sbdrop(&so->so_snd, so->so_snd.sb_cc);
                ourfinisacked = 1;
            } else {
                sbdrop(&so->so_snd, acked);
                tp->snd_wnd -= acked;
                ourfinisacked = 0;
            }
            tp->snd_una = ack;
            if (SEQ_LT(tp->snd_nxt, tp->snd_una))
                tp->snd_nxt = tp->snd_una;
        }
        switch (tp->t_state) {
        case TCPS_FIN_WAIT_1:
            if (ourfinisacked) {
                /* Without a FIN from the peer we would wait forever: time the wait. */
                if (so->so_state & SS_CANTRCVMORE) {
                    soisdisconnected(so);
                    tp->t_timer[TCPT_2MSL] = TCPTV_MAXIDLE;
                }
                tp->t_state = TCPS_FIN_WAIT_2;
            }
            break;
        case TCPS_CLOSING:
            if (ourfinisacked) {
                tp->t_state = TCPS_TIME_WAIT;
                tcp_canceltimers(tp);
                tp->t_timer[TCPT_2MSL] = 2 * TCPTV_MSL;
                soisdisconnected(so);
            }
            break;
        case TCPS_LAST_ACK:
            if (ourfinisacked) {
                tp = tcp_close(tp);
                goto drop;
            }
            break;
        default:
            break;
        }
        break;
    }

step6:
    /* Take the window from the newest segment (by seq, then ack). */
    if ((tiflags & TH_ACK) &&
        (SEQ_LT(tp->snd_wl1, seq) ||
         (tp->snd_wl1 == seq &&
          (SEQ_LT(tp->snd_wl2, ack) || (tp->snd_wl2 == ack && tiwin > tp->snd_wnd))))) {
        if (dlen == 0 && tp->snd_wl2 == ack && tiwin > tp->snd_wnd)
            ts->tcps_rcvwinupd++;
        tp->snd_wnd = tiwin;
        tp->snd_wl1 = seq;
        tp->snd_wl2 = ack;
        if (tp->snd_wnd > tp->max_sndwnd)
            tp->max_sndwnd = tp->snd_wnd;
        needoutput = 1;
    }
    /* Urgent data is not supported; keep the urgent pointer with the window. */
    if (SEQ_GT(tp->rcv_nxt, tp->rcv_up))
        tp->rcv_up = tp->rcv_nxt;

    /* Data: in sequence onto the socket with the ACK delayed; out of order into the queue with
     * an immediate (duplicate) ACK. */
    if ((dlen || (tiflags & TH_FIN)) && !TCPS_HAVERCVDFIN(tp->t_state)) {
        int fin;
        if (seq == tp->rcv_nxt && !tp->seg_next && tp->t_state == TCPS_ESTABLISHED) {
            tp->t_flags |= TF_DELACK;
            tp->rcv_nxt += dlen;
            fin = tiflags & TH_FIN;
            ts->tcps_rcvpack++;
            ts->tcps_rcvbyte += dlen;
            size_t mlen[TAHOE_RCVD_ENDS];
            size_t nm = tahoe_rcv_mbufs(st, (size_t)(data - ip), dlen, mlen, TAHOE_RCVD_ENDS);
            sbappendm(&so->so_rcv, data, dlen, mlen, nm);
        } else {
            fin = tcp_reass(tp, seq, data, dlen, (uint32_t)(data - ip), tiflags & TH_FIN, 1);
            tp->t_flags |= TF_ACKNOW;
        }
        tiflags = (tiflags & ~TH_FIN) | fin;
    } else {
        tiflags &= ~TH_FIN;
    }

    if (tiflags & TH_FIN) {
        if (!TCPS_HAVERCVDFIN(tp->t_state)) {
            socantrcvmore(so);
            tp->t_flags |= TF_ACKNOW;
            tp->rcv_nxt++;
        }
        switch (tp->t_state) {
        case TCPS_SYN_RECEIVED:
        case TCPS_ESTABLISHED:
            tp->t_state = TCPS_CLOSE_WAIT;
            break;
        case TCPS_FIN_WAIT_1:
            tp->t_state = TCPS_CLOSING;
            break;
        case TCPS_FIN_WAIT_2:
            tp->t_state = TCPS_TIME_WAIT;
            tcp_canceltimers(tp);
            tp->t_timer[TCPT_2MSL] = 2 * TCPTV_MSL;
            soisdisconnected(so);
            break;
        }
    }
    if (needoutput || (tp->t_flags & TF_ACKNOW))
        tcp_output(tp);
    tcp_trace(TA_INPUT, ostate, tp, 0);
    return;

dropafterack:
    if (tiflags & TH_RST)
        goto drop;
    tp->t_flags |= TF_ACKNOW;
    tcp_output(tp);
    return;

dropwithreset:
    /* The RST offers the window of the connection it was sent for, if that still exists. */
    if (!(tiflags & TH_RST) && !in_broadcast(st, dst)) {
        if (tiflags & TH_ACK)
            tcp_respond(st, tp, dst, src, dport, sport, ack, 0, TH_RST);
        else
            tcp_respond(st, tp, dst, src, dport, sport, 0,
                        seq + dlen + ((tiflags & TH_SYN) ? 1 : 0), TH_RST | TH_ACK);
    }
    return;

drop:
    if (tp)
        tcp_trace(TA_DROP, ostate, tp, 0);
    if (dropsocket)
        soabort(so);
}
