/* TCP_DEBUG (4.3BSD tcp_debug.c): a copy of a connection's send state at an event, handed to
 * the stack's debug hook, so a run can follow cwnd and ssthresh ACK by ACK. */
#include "tcp_debug.h"

#include "in_pcb.h"
#include "json.h"
#include "socketvar.h"
#include "tahoe_var.h"

void tcp_trace(int act, int ostate, const struct tcpcb *tp, int req)
{
    const struct inpcb *inp = tp->t_inpcb;
    struct tahoe_stack *st = inp->inp_socket->so_stack;
    if (!st->cfg.debug)
        return;
    struct tahoe_tcp_debug td = {
        .at_ns = tahoe_cpu_free_ns(st), .act = act, .req = req, .ostate = ostate,
        .state = tp->t_state, .sport = inp->inp_lport, .dport = inp->inp_fport,
        .snd_una = tp->snd_una, .snd_max = tp->snd_max, .snd_wnd = tp->snd_wnd,
        .snd_cwnd = tp->snd_cwnd, .snd_ssthresh = tp->snd_ssthresh, .maxseg = tp->t_maxseg,
    };
    st->cfg.debug(st->cfg.debug_ctx, &td);
}

const char *tcp_debug_act_name(int act)
{
    static const char *const names[] = {"input", "output", "user", "respond", "drop"};
    return act >= TA_INPUT && act <= TA_DROP ? names[act] : "unknown";
}

void tahoe_seg_json(struct nr_json *j, const char *host, const struct tahoe_seg_trace *ev)
{
    nr_json_begin(j, "segment");
    if (host)
        nr_json_str(j, "host", host);
    nr_json_int(j, "at_ns", ev->at_ns);
    nr_json_str(j, "rule", tcp_out_reason_name(ev->reason));
    nr_json_int(j, "flags", ev->flags);
    nr_json_int(j, "seq", ev->seq);
    nr_json_int(j, "ack", ev->ack);
    nr_json_int(j, "win", ev->win);
    nr_json_int(j, "len", ev->len);
    nr_json_int(j, "sport", ev->sport);
    nr_json_int(j, "dport", ev->dport);
}
