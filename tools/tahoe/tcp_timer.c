/* TCP timers: the 200 ms delayed-ACK tick and the 500 ms tick that runs t_timer[]. */
#include <errno.h>

#include "in_pcb.h"
#include "socketvar.h"
#include "tahoe_var.h"
#include "tcp_debug.h"

const int tcp_backoff[TCP_MAXRXTSHIFT + 1] = { 1, 2, 4, 8, 16, 32, 64, 64, 64, 64, 64, 64, 64 };

/* Every 200 ms: send the ACK owed by every connection that received data and did not yet
 * answer. This tick, not a per-segment timer, bounds the delay (comer94 4.1.3). */
void tcp_fasttimo(struct tahoe_stack *st)
{
    struct inpcb *next;
    for (struct inpcb *inp = st->tcb; inp; inp = next) {
        next = inp->inp_next;
        struct tcpcb *tp = inp->inp_ppcb;
        if (tp && (tp->t_flags & TF_DELACK)) {
            tp->t_flags &= ~TF_DELACK;
            tp->t_flags |= TF_ACKNOW;
            st->tcpstat.tcps_delack++;
            tcp_output(tp);
        }
    }
}

void tcp_canceltimers(struct tcpcb *tp)
{
    for (int i = 0; i < TCPT_NTIMERS; i++)
        tp->t_timer[i] = 0;
}

/* Retransmission timeout: back off, and restart from one segment (Tahoe slow start) with the
 * threshold at half the window that was in use. */
static struct tcpcb *tcp_rexmt_timeout(struct tcpcb *tp)
{
    struct tahoe_stack *st = tp->t_inpcb->inp_socket->so_stack;
    if (++tp->t_rxtshift > TCP_MAXRXTSHIFT) {
        tp->t_rxtshift = TCP_MAXRXTSHIFT;
        st->tcpstat.tcps_timeoutdrop++;
        return tcp_drop(tp, ETIMEDOUT);
    }
    st->tcpstat.tcps_rexmttimeo++;
    int rexmt = ((tp->t_srtt >> 2) + tp->t_rttvar) >> 1;
    rexmt *= tcp_backoff[tp->t_rxtshift];
    TCPT_RANGESET(tp->t_rxtcur, rexmt, TCPTV_MIN, TCPTV_REXMTMAX);
    tp->t_timer[TCPT_REXMT] = tp->t_rxtcur;
    /* After many backoffs the estimate is suspect: restart it from the next sample. */
    if (tp->t_rxtshift > TCP_MAXRXTSHIFT / 4) {
        tp->t_rttvar += tp->t_srtt >> 2;
        tp->t_srtt = 0;
    }
    tp->snd_nxt = tp->snd_una;
    tp->t_rtt = 0; /* Karn: a retransmitted segment gives no RTT sample */
    uint32_t win = (tp->snd_wnd < tp->snd_cwnd ? tp->snd_wnd : tp->snd_cwnd) / 2 / tp->t_maxseg;
    if (win < 2)
        win = 2;
    tp->snd_cwnd = tp->t_maxseg;
    tp->snd_ssthresh = win * tp->t_maxseg;
    tcp_output(tp);
    return tp;
}

static struct tcpcb *tcp_timers(struct tcpcb *tp, int timer)
{
    struct socket *so = tp->t_inpcb->inp_socket;
    struct tahoe_stack *st = so->so_stack;
    switch (timer) {
    case TCPT_2MSL:
        /* FIN_WAIT_2 waits for the peer's FIN only while the peer still talks. */
        if (tp->t_state != TCPS_TIME_WAIT && tp->t_idle <= TCPTV_MAXIDLE)
            tp->t_timer[TCPT_2MSL] = TCPTV_KEEPINTVL;
        else
            tp = tcp_close(tp);
        break;
    case TCPT_REXMT:
        tp = tcp_rexmt_timeout(tp);
        break;
    case TCPT_PERSIST:
        st->tcpstat.tcps_persisttimeo++;
        tcp_setpersist(tp);
        tp->t_force = 1;
        tcp_output(tp);
        tp->t_force = 0;
        break;
    case TCPT_KEEP:
        st->tcpstat.tcps_keeptimeo++;
        if (tp->t_state < TCPS_ESTABLISHED)
            goto dropit;
        if ((so->so_options & SO_KEEPALIVE) && tp->t_state <= TCPS_CLOSE_WAIT) {
            if (tp->t_idle >= TCPTV_KEEP_IDLE + TCPTV_MAXIDLE)
                goto dropit;
            /* An old sequence number forces the peer to answer with an ACK. */
            st->tcpstat.tcps_keepprobe++;
            struct inpcb *inp = tp->t_inpcb;
            tcp_respond(st, tp, inp->inp_laddr, inp->inp_faddr, inp->inp_lport, inp->inp_fport,
                        tp->snd_una - 1, tp->rcv_nxt, 0);
            tp->t_timer[TCPT_KEEP] = TCPTV_KEEPINTVL;
        } else {
            tp->t_timer[TCPT_KEEP] = TCPTV_KEEP_IDLE;
        }
        break;
    dropit:
        st->tcpstat.tcps_keepdrops++;
        tp = tcp_drop(tp, ETIMEDOUT);
        break;
    }
    return tp;
}

/* Every 500 ms: run down t_timer[], age the connection and the RTT being measured. */
void tcp_slowtimo(struct tahoe_stack *st)
{
    struct inpcb *next;
    for (struct inpcb *inp = st->tcb; inp; inp = next) {
        next = inp->inp_next;
        struct tcpcb *tp = inp->inp_ppcb;
        if (!tp)
            continue;
        int closed = 0;
        for (int i = 0; i < TCPT_NTIMERS && !closed; i++) {
            if (tp->t_timer[i] && --tp->t_timer[i] == 0) {
                int ostate = tp->t_state;
                closed = tcp_timers(tp, i) == NULL;
                if (!closed)
                    tcp_trace(TA_USER, ostate, tp, i);
            }
        }
        if (closed)
            continue;
        tp->t_idle++;
        if (tp->t_rtt)
            tp->t_rtt++;
    }
    st->tcp_iss += TCP_ISSINCR / PR_SLOWHZ;
}
