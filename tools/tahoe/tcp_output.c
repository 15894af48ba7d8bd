/* TCP output: decides whether a segment goes now and why (comer94's rules S1-S3, R1, R2),
 * then builds it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "in_pcb.h"
#include "ip.h"
#include "socketvar.h"
#include "tahoe_var.h"
#include "tcp.h"

#define TCP_TTL 30 /* 4.3BSD */

/* Arms the persist timer with the current timeout, backed off. */
void tcp_setpersist(struct tcpcb *tp)
{
    int t = ((tp->t_srtt >> 2) + tp->t_rttvar) >> 1;
    TCPT_RANGESET(tp->t_timer[TCPT_PERSIST], t * tcp_backoff[tp->t_rxtshift], TCPTV_PERSMIN,
                  TCPTV_PERSMAX);
    if (tp->t_rxtshift < TCP_MAXRXTSHIFT)
        tp->t_rxtshift++;
}

/* Receive space we may offer: the free buffer, cut to TCP_WINDOW_CLAMP if set. */
static long rcv_space(const struct tcpcb *tp)
{
    long win = sbspace(&tp->t_inpcb->inp_socket->so_rcv);
    if (win < 0)
        win = 0;
    if (tp->t_window_clamp && win > (long)tp->t_window_clamp)
        win = (long)tp->t_window_clamp;
    return win;
}

static void count_reason(struct tcpstat *ts, int reason)
{
    switch (reason) {
    case TCPO_S1: ts->tcps_out_s1++; break;
    case TCPO_S2: ts->tcps_out_s2++; break;
    case TCPO_NODELAY: ts->tcps_out_nodelay++; break;
    case TCPO_S3: ts->tcps_out_s3++; break;
    case TCPO_REXMT: ts->tcps_out_rexmt++; break;
    case TCPO_PERSIST: ts->tcps_out_persist++; break;
    case TCPO_R1: ts->tcps_out_r1++; break;
    case TCPO_R2: ts->tcps_out_r2++; break;
    case TCPO_ACKNOW: ts->tcps_out_acknow++; break;
    case TCPO_CTL: ts->tcps_out_ctl++; break;
    case TCPO_FIN: ts->tcps_out_fin++; break;
    default: break;
    }
}

/* Builds and sends one segment of len octets starting off octets past snd_una. */
static int tcp_send_segment(struct tcpcb *tp, long off, long len, int flags, int reason,
                            long win)
{
    struct socket *so = tp->t_inpcb->inp_socket;
    struct inpcb *inp = tp->t_inpcb;
    struct tahoe_stack *st = so->so_stack;
    struct tcpstat *ts = &st->tcpstat;

    uint8_t opt[8];
    size_t optlen = 0;
    if ((flags & TH_SYN) && !(tp->t_flags & TF_NOOPT)) {
        /* Tahoe offers an MSS only above the one every host must take (IP_MSS less headers). */
        uint32_t mss = tcp_mss(tp);
        if (mss > IP_MSS - IP_HDRLEN - TCP_HDRLEN) {
            opt[optlen++] = TCPOPT_MAXSEG;
            opt[optlen++] = 4;
            put16(opt + optlen, (uint16_t)mss);
            optlen += 2;
        }
        /* Offer scaling on our SYN, answer it only if the peer offered it. */
        if ((tp->t_flags & TF_REQ_SCALE) &&
            (!(flags & TH_ACK) || (tp->t_flags & TF_RCVD_SCALE))) {
            opt[optlen++] = TCPOPT_NOP;
            opt[optlen++] = TCPOPT_WINDOW;
            opt[optlen++] = 3;
            opt[optlen++] = (uint8_t)tp->request_r_scale;
        }
    }

    /* Label the segment: resent data and probes are counted as such whatever rule fired. */
    if (len && tp->t_force && len == 1)
        reason = TCPO_PERSIST;
    else if (len && SEQ_LT(tp->snd_nxt, tp->snd_max))
        reason = TCPO_REXMT;
    count_reason(ts, reason);
    if (len) {
        if (reason == TCPO_PERSIST) {
            ts->tcps_sndprobe++;
        } else if (reason == TCPO_REXMT) {
            ts->tcps_sndrexmitpack++;
            ts->tcps_sndrexmitbyte += (uint64_t)len;
        } else {
            ts->tcps_sndpack++;
            ts->tcps_sndbyte += (uint64_t)len;
            if (SEQ_LT(tp->snd_una, tp->snd_nxt))
                ts->tcps_sndbehind++;
        }
    } else if (tp->t_flags & TF_ACKNOW) {
        ts->tcps_sndacks++;
    } else if (flags & (TH_SYN | TH_FIN | TH_RST)) {
        ts->tcps_sndctrl++;
    } else {
        ts->tcps_sndwinup++;
    }
    ts->tcps_sndtotal++;

    size_t hdr = IP_HDRLEN + TCP_HDRLEN + optlen;
    uint8_t *pkt = malloc(hdr + (size_t)len);
    if (!pkt)
        return -ENOBUFS;
    memset(pkt, 0, hdr);
    sbcopy(&so->so_snd, (size_t)off, pkt + hdr, (size_t)len);

    /* PUSH marks a segment that carries everything left to send. */
    if (len && off + len == (long)so->so_snd.sb_cc)
        flags |= TH_PUSH;

    /* A resent FIN reuses its sequence number. */
    if ((flags & TH_FIN) && (tp->t_flags & TF_SENTFIN) && tp->snd_nxt == tp->snd_max)
        tp->snd_nxt--;

    /* Receiver silly window avoidance: never offer a sliver, never shrink the window. */
    if (win < (long)(so->so_rcv.sb_hiwat / 4) && win < (long)tp->t_maxseg)
        win = 0;
    if (win > (long)TCP_MAXWIN << tp->rcv_scale)
        win = (long)TCP_MAXWIN << tp->rcv_scale;
    if (win < (long)(int32_t)(tp->rcv_adv - tp->rcv_nxt))
        win = (long)(int32_t)(tp->rcv_adv - tp->rcv_nxt);
    long wfield = (flags & TH_SYN) ? (win > TCP_MAXWIN ? TCP_MAXWIN : win) : win >> tp->rcv_scale;

    uint8_t *th = pkt + IP_HDRLEN;
    put16(th + THO_SPORT, inp->inp_lport);
    put16(th + THO_DPORT, inp->inp_fport);
    put32(th + THO_SEQ, tp->snd_nxt);
    put32(th + THO_ACK, tp->rcv_nxt);
    th[THO_OFF] = (uint8_t)(((TCP_HDRLEN + optlen) / 4) << 4);
    th[THO_FLAGS] = (uint8_t)flags;
    put16(th + THO_WIN, (uint16_t)wfield);
    memcpy(th + TCP_HDRLEN, opt, optlen);
    struct tahoe_seg_trace ev = { 0, reason, flags, tp->snd_nxt, tp->rcv_nxt, (uint32_t)win,
                                  (uint32_t)len, inp->inp_lport, inp->inp_fport };

    /* Time the segment and arm the retransmit timer, unless this is a forced persist probe. */
    if (tp->t_force == 0 || tp->t_timer[TCPT_PERSIST] == 0) {
        tcp_seq startseq = tp->snd_nxt;
        if (flags & TH_SYN)
            tp->snd_nxt++;
        if (flags & TH_FIN) {
            tp->snd_nxt++;
            tp->t_flags |= TF_SENTFIN;
        }
        tp->snd_nxt += (uint32_t)len;
        if (SEQ_GT(tp->snd_nxt, tp->snd_max)) {
            tp->snd_max = tp->snd_nxt;
            if (tp->t_rtt == 0) {
                tp->t_rtt = 1;
                tp->t_rtseq = startseq;
                ts->tcps_segstimed++;
            }
        }
        if (tp->t_timer[TCPT_REXMT] == 0 && tp->snd_nxt != tp->snd_una) {
            tp->t_timer[TCPT_REXMT] = tp->t_rxtcur;
            if (tp->t_timer[TCPT_PERSIST]) {
                tp->t_timer[TCPT_PERSIST] = 0;
                tp->t_rxtshift = 0;
            }
        }
    } else if (SEQ_GT(tp->snd_nxt + (uint32_t)len, tp->snd_max)) {
        tp->snd_max = tp->snd_nxt + (uint32_t)len;
    }

    pkt[IPO_TTL] = TCP_TTL;
    pkt[IPO_PROTO] = IPPROTO_TCP;
    putaddr(pkt + IPO_SRC, inp->inp_laddr);
    putaddr(pkt + IPO_DST, inp->inp_faddr);
    size_t tlen = TCP_HDRLEN + optlen + (size_t)len;
    put16(th + THO_SUM, in_pseudo_cksum(inp->inp_laddr, inp->inp_faddr, IPPROTO_TCP, th, tlen));
    int err = ip_output(st, pkt, hdr + (size_t)len, 0);
    free(pkt);
    if (st->cfg.trace) {
        ev.at_ns = tahoe_cpu_free_ns(st);
        st->cfg.trace(st->cfg.trace_ctx, &ev);
    }
    /* A full interface queue is taken as a source quench: back to one segment (tcp_quench). */
    if (err == -ENOBUFS)
        tp->snd_cwnd = tp->t_maxseg;
    if (err < 0)
        return err;

    /* The advertised right edge only moves forward. */
    long adv = wfield << ((flags & TH_SYN) ? 0 : tp->rcv_scale);
    if (adv > 0 && SEQ_GT(tp->rcv_nxt + (uint32_t)adv, tp->rcv_adv))
        tp->rcv_adv = tp->rcv_nxt + (uint32_t)adv;
    tp->t_flags &= ~(TF_ACKNOW | TF_DELACK);
    return 0;
}

int tcp_output(struct tcpcb *tp)
{
    struct socket *so = tp->t_inpcb->inp_socket;
    /* "Idle" is judged once, on entry: everything sent so far has been acknowledged. */
    int idle = tp->snd_max == tp->snd_una;
    for (;;) {
        long off = (long)(int32_t)(tp->snd_nxt - tp->snd_una);
        long win = tp->snd_wnd < tp->snd_cwnd ? (long)tp->snd_wnd : (long)tp->snd_cwnd;
        int flags = tcp_outflags[tp->t_state];
        if (tp->t_force) {
            if (win == 0) {
                win = 1; /* probe a closed window with one octet */
            } else {
                tp->t_timer[TCPT_PERSIST] = 0;
                tp->t_rxtshift = 0;
            }
        }
        long cc = (long)so->so_snd.sb_cc;
        long len = (cc < win ? cc : win) - off;
        if (len < 0) {
            /* The window shrank below what is out: pull snd_nxt back and wait for persist. */
            len = 0;
            if (win == 0) {
                tp->t_timer[TCPT_REXMT] = 0;
                tp->snd_nxt = tp->snd_una;
            }
        }
        int sendalot = 0;
        if (len > (long)tp->t_maxseg) {
            len = (long)tp->t_maxseg;
            sendalot = 1;
        }
        if (SEQ_LT(tp->snd_nxt + (uint32_t)len, tp->snd_una + (uint32_t)cc))
            flags &= ~TH_FIN;
        long rwin = rcv_space(tp);

        /* Sender silly window avoidance and Nagle (S1, S2, S3), in Tahoe's order. */
        int reason = TCPO_NONE;
        if (len) {
            if (len == (long)tp->t_maxseg)
                reason = TCPO_S1;
            else if ((idle || (tp->t_flags & TF_NODELAY)) && len + off >= cc)
                reason = idle ? TCPO_S2 : TCPO_NODELAY;
            else if (tp->t_force)
                reason = TCPO_PERSIST;
            else if (len >= (long)(tp->max_sndwnd / 2))
                reason = TCPO_S3;
            else if (SEQ_LT(tp->snd_nxt, tp->snd_max))
                reason = TCPO_REXMT;
        }
        if (reason == TCPO_NONE && (flags & (TH_SYN | TH_RST)))
            reason = TCPO_CTL;
        /* Window update (R1, R2): how far the window would move past what the peer knows. */
        if (reason == TCPO_NONE && rwin > 0) {
            long adv = rwin - (long)(int32_t)(tp->rcv_adv - tp->rcv_nxt);
            if (so->so_rcv.sb_cc == 0 && adv >= 2 * (long)tp->t_maxseg)
                reason = TCPO_R1;
            else if (so->so_rcv.sb_hiwat && 100 * adv / (long)so->so_rcv.sb_hiwat >= 35)
                reason = TCPO_R2;
        }
        if (reason == TCPO_NONE && (tp->t_flags & TF_ACKNOW))
            reason = TCPO_ACKNOW;
        if (reason == TCPO_NONE && (flags & TH_FIN) &&
            (!(tp->t_flags & TF_SENTFIN) || tp->snd_nxt == tp->snd_una))
            reason = TCPO_FIN;

        if (reason == TCPO_NONE) {
            /* Data waits with nothing outstanding to bring an ACK: poll the window. */
            if (cc && tp->t_timer[TCPT_REXMT] == 0 && tp->t_timer[TCPT_PERSIST] == 0) {
                tp->t_rxtshift = 0;
                tcp_setpersist(tp);
            }
            return 0;
        }
        int err = tcp_send_segment(tp, off, len, flags, reason, rwin);
        if (err < 0)
            return err;
        if (!sendalot)
            return 0;
    }
}
