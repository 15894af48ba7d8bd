/* The user side of TCP: what each socket request does to the connection (BSD tcp_usrreq). */
#include <errno.h>

#include "in_pcb.h"
#include "socketvar.h"
#include "tahoe_var.h"
#include "tcp.h"

static struct tcpcb *sototcpcb(struct socket *so)
{
    return so->so_pcb ? so->so_pcb->inp_ppcb : NULL;
}

int tcp_attach(struct tahoe_stack *st, struct socket *so)
{
    if (so->so_snd.sb_hiwat == 0 || so->so_rcv.sb_hiwat == 0) {
        int err = soreserve(so, (size_t)st->cfg.tcp_sendspace, (size_t)st->cfg.tcp_recvspace);
        if (err < 0)
            return err;
    }
    int err = in_pcballoc(so, &st->tcb);
    if (err < 0)
        return err;
    if (!tcp_newtcpcb(so->so_pcb)) {
        in_pcbdetach(so->so_pcb);
        return -ENOBUFS;
    }
    return 0;
}

int tcp_usr_listen(struct socket *so)
{
    struct tcpcb *tp = sototcpcb(so);
    if (!tp || tp->t_state != TCPS_CLOSED)
        return -EINVAL;
    if (so->so_pcb->inp_lport == 0) {
        int err = in_pcbbind(so->so_pcb, 0, 0, 0);
        if (err < 0)
            return err;
    }
    tp->t_state = TCPS_LISTEN;
    return 0;
}

int tcp_usr_connect(struct socket *so, uint32_t faddr, uint16_t fport)
{
    struct tahoe_stack *st = so->so_stack;
    struct tcpcb *tp = sototcpcb(so);
    if (!tp || tp->t_state != TCPS_CLOSED)
        return -EINVAL;
    int err = in_pcbconnect(so->so_pcb, faddr, fport);
    if (err < 0)
        return err;
    /* The smallest shift that lets the window cover the whole receive buffer. */
    while (tp->request_r_scale < TCP_MAX_WINSHIFT &&
           ((uint32_t)TCP_MAXWIN << tp->request_r_scale) < so->so_rcv.sb_hiwat)
        tp->request_r_scale++;
    soisconnecting(so);
    st->tcpstat.tcps_connattempt++;
    tp->t_state = TCPS_SYN_SENT;
    tp->t_timer[TCPT_KEEP] = TCPTV_KEEP_INIT;
    tp->iss = st->tcp_iss;
    st->tcp_iss += TCP_ISSINCR / 2;
    tcp_sendseqinit(tp);
    tcp_output(tp);
    return 0;
}

/* PRU_SEND: the data is already in so_snd; output errors only delay it (the retransmit timer
 * recovers), so they are not the writer's concern. */
int tcp_usr_send(struct socket *so)
{
    struct tcpcb *tp = sototcpcb(so);
    if (!tp)
        return -ENOTCONN;
    tcp_output(tp);
    return 0;
}

/* PRU_RCVD: the user took data; tcp_output decides whether the window moved enough to say so. */
void tcp_usr_rcvd(struct socket *so)
{
    struct tcpcb *tp = sototcpcb(so);
    if (tp)
        tcp_output(tp);
}

/* The user will send no more: move toward FIN according to the state. */
static struct tcpcb *tcp_usrclosed(struct tcpcb *tp)
{
    switch (tp->t_state) {
    case TCPS_CLOSED:
    case TCPS_LISTEN:
    case TCPS_SYN_SENT:
        tp->t_state = TCPS_CLOSED;
        return tcp_close(tp);
    case TCPS_SYN_RECEIVED:
    case TCPS_ESTABLISHED:
        tp->t_state = TCPS_FIN_WAIT_1;
        break;
    case TCPS_CLOSE_WAIT:
        tp->t_state = TCPS_LAST_ACK;
        break;
    default:
        break;
    }
    if (tp->t_state >= TCPS_FIN_WAIT_2)
        soisdisconnected(tp->t_inpcb->inp_socket);
    return tp;
}

int tcp_usr_shutdown(struct socket *so)
{
    struct tcpcb *tp = sototcpcb(so);
    socantsendmore(so);
    if (!tp)
        return -ENOTCONN;
    tp = tcp_usrclosed(tp);
    if (tp)
        tcp_output(tp);
    return 0;
}

/* close(): a connection not yet up just goes; an open one sends what is queued, then FIN. */
void tcp_usr_disconnect(struct socket *so)
{
    struct tcpcb *tp = sototcpcb(so);
    if (!tp)
        return;
    if (tp->t_state < TCPS_ESTABLISHED) {
        tcp_close(tp);
        return;
    }
    soisdisconnecting(so);
    sbflush(&so->so_rcv);
    tp = tcp_usrclosed(tp);
    if (tp)
        tcp_output(tp);
}

void tcp_usr_abort(struct socket *so)
{
    struct tcpcb *tp = sototcpcb(so);
    if (tp)
        tcp_drop(tp, ECONNABORTED);
}

int tcp_usr_setopt(struct socket *so, int opt, int val)
{
    struct tcpcb *tp = sototcpcb(so);
    if (!tp)
        return -EINVAL;
    switch (opt) {
    case TAHOE_TCP_NODELAY:
        if (val)
            tp->t_flags |= TF_NODELAY;
        else
            tp->t_flags &= ~TF_NODELAY;
        return 0;
    case TAHOE_TCP_WINDOW_CLAMP:
        if (val < 0)
            return -EINVAL;
        tp->t_window_clamp = (uint32_t)val;
        return 0;
    default:
        return -ENOPROTOOPT;
    }
}

int tcp_usr_getopt(struct socket *so, int opt, int *val)
{
    struct tcpcb *tp = sototcpcb(so);
    if (!tp)
        return -EINVAL;
    switch (opt) {
    case TAHOE_TCP_NODELAY:
        *val = !!(tp->t_flags & TF_NODELAY);
        return 0;
    case TAHOE_TCP_WINDOW_CLAMP:
        *val = (int)tp->t_window_clamp;
        return 0;
    case TAHOE_TCP_MAXSEG:
        *val = (int)tp->t_maxseg;
        return 0;
    default:
        return -ENOPROTOOPT;
    }
}
