/* Socket operations: create, send, receive, close (BSD uipc_socket.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "in_pcb.h"
#include "socketvar.h"
#include "tahoe_var.h"

struct socket *socreate(struct tahoe_stack *st, int type)
{
    struct socket *so = calloc(1, sizeof *so);
    if (!so)
        return NULL;
    so->so_stack = st;
    so->so_fd = -1;
    so->so_type = type;
    int err = 0;
    switch (type) {
    case 0: /* sonewconn attaches the protocol itself */
        break;
    case TAHOE_SOCK_STREAM:
        err = tcp_attach(st, so);
        break;
    case TAHOE_SOCK_DGRAM:
        err = udp_attach(st, so);
        break;
    case TAHOE_SOCK_ICMP:
        err = rip_attach(st, so);
        break;
    default:
        err = -EPROTONOSUPPORT;
    }
    if (err < 0) {
        free(so);
        return NULL;
    }
    return so;
}

/* Frees a socket once neither a descriptor nor a protocol control block refers to it. */
void sofree(struct socket *so)
{
    if (so->so_pcb || (so->so_state & SS_NOFDREF) == 0)
        return;
    if (so->so_stack->rcvd_so == so)
        so->so_stack->rcvd_so = NULL;
    soqremque(so);
    sbrelease(&so->so_snd);
    sbrelease(&so->so_rcv);
    free(so);
}

/* Tears down a socket nobody holds a descriptor for. Detaching the pcb frees the socket. */
void soabort(struct socket *so)
{
    so->so_state |= SS_NOFDREF;
    if (!so->so_pcb)
        sofree(so);
    else if (so->so_type == TAHOE_SOCK_STREAM)
        tcp_usr_abort(so);
    else
        in_pcbdetach(so->so_pcb);
}

int soclose(struct socket *so)
{
    tahoe_rcvd_flush(so->so_stack);
    if (so->so_options & SO_ACCEPTCONN) {
        while (so->so_q0)
            soabort(so->so_q0);
        while (so->so_q)
            soabort(so->so_q);
    }
    so->so_state |= SS_NOFDREF;
    so->so_fd = -1;
    /* A connection that still has to close keeps the socket until its pcb goes away. */
    if (!so->so_pcb)
        sofree(so);
    else if (so->so_type == TAHOE_SOCK_STREAM)
        tcp_usr_disconnect(so);
    else
        in_pcbdetach(so->so_pcb);
    return 0;
}

/* comer94 4.1.1: "if the send buffer is larger than 4K and the user has more than 4K data to
 * send, SunOS adds user data in blocks of 4K octets ..., then invokes a TCP routine to transmit
 * the data; if the available space in the send buffer is smaller than 4K, SunOS adds data in
 * multiples of 1K octet block." A remainder that fits goes in whole. */
size_t sosend_chunk(size_t resid, long space)
{
    if (space <= 0 || resid == 0)
        return 0;
    if (resid > SOSEND_BLOCK && space > SOSEND_BLOCK)
        return SOSEND_BLOCK;
    if (resid <= (size_t)space)
        return resid;
    if (resid >= SOSEND_UNIT)
        return (size_t)space / SOSEND_UNIT * SOSEND_UNIT;
    return (size_t)space;
}

static long sosend_stream(struct socket *so, const uint8_t *buf, size_t len)
{
    struct tahoe_stack *st = so->so_stack;
    if (so->so_state & SS_CANTSENDMORE)
        return -EPIPE;
    if ((so->so_state & SS_ISCONNECTED) == 0)
        return (so->so_state & SS_ISCONNECTING) ? -EAGAIN : -ENOTCONN;
    size_t done = 0;
    while (done < len) {
        size_t n = sosend_chunk(len - done, sbspace(&so->so_snd));
        if (n == 0)
            break;
        tahoe_charge(st, tahoe_copycost(st, n)); /* copy from user space */
        sbappend(&so->so_snd, buf + done, n);
        done += n;
        int err = tcp_usr_send(so);
        if (err < 0)
            return done ? (long)done : err;
        if (so->so_error || !so->so_pcb)
            break;
    }
    return done ? (long)done : -EAGAIN;
}

long sosend(struct socket *so, const uint8_t *buf, size_t len, const struct tahoe_addr *to)
{
    struct tahoe_stack *st = so->so_stack;
    tahoe_rcvd_flush(st);
    tahoe_charge(st, st->cfg.cost.per_call_ns);
    if (so->so_error) {
        int err = so->so_error;
        so->so_error = 0;
        return -err;
    }
    if (so->so_type == TAHOE_SOCK_STREAM)
        return sosend_stream(so, buf, len);
    if (so->so_state & SS_CANTSENDMORE)
        return -EPIPE;
    if (len > so->so_snd.sb_hiwat)
        return -EMSGSIZE;
    tahoe_charge(st, tahoe_copycost(st, len));
    uint32_t faddr = to ? to->ip : 0;
    uint16_t fport = to ? to->port : 0;
    if (so->so_type == TAHOE_SOCK_DGRAM)
        return udp_output(so, buf, len, faddr, fport);
    return rip_output(so, buf, len, faddr);
}

long soreceive(struct socket *so, uint8_t *buf, size_t len, struct tahoe_addr *from)
{
    struct tahoe_stack *st = so->so_stack;
    struct sockbuf *sb = &so->so_rcv;
    /* A read that goes on is the same system call; a read of the same socket that finds
     * nothing comes, on the real host, after the waiting read returned, and changes nothing. */
    int going_on = tahoe_rcvd_continues(so);
    if (!going_on && !(st->rcvd_so == so && sb->sb_cc == 0))
        tahoe_rcvd_flush(st);
    if (!going_on)
        tahoe_charge(st, st->cfg.cost.per_call_ns);
    if (so->so_type != TAHOE_SOCK_STREAM) {
        struct sbrec *r = sb->sb_rec;
        if (!r) {
            if (so->so_error) {
                int err = so->so_error;
                so->so_error = 0;
                return -err;
            }
            return -EAGAIN;
        }
        size_t n = r->len < len ? r->len : len; /* the rest of a long datagram is lost */
        memcpy(buf, r->data, n);
        tahoe_charge(st, tahoe_copycost(st, n));
        if (from)
            *from = r->from;
        sb->sb_rec = r->next;
        if (!sb->sb_rec)
            sb->sb_rectail = NULL;
        sb->sb_cc -= r->cc;
        free(r);
        return (long)n;
    }
    if (sb->sb_cc == 0) {
        if (so->so_error) {
            int err = so->so_error;
            so->so_error = 0;
            return -err;
        }
        if (so->so_state & SS_CANTRCVMORE)
            return 0;
        if ((so->so_state & (SS_ISCONNECTED | SS_ISCONNECTING)) == 0)
            return -ENOTCONN;
        return -EAGAIN;
    }
    size_t n = sb->sb_cc < len ? sb->sb_cc : len;
    sbcopy(sb, 0, buf, n);
    size_t ends[TAHOE_RCVD_ENDS];
    size_t nends = sbmbuf_ends(sb, n, ends, TAHOE_RCVD_ENDS);
    sbdrop(sb, n);
    int64_t copy_ns = tahoe_copycost(st, n);
    tahoe_charge(st, copy_ns); /* copy to user space */
    if (from && so->so_pcb) {
        from->ip = so->so_pcb->inp_faddr;
        from->port = so->so_pcb->inp_fport;
    }
    /* PRU_RCVD once the copy is done: TCP decides whether the freed space is worth a window
     * update (R1, R2). */
    tahoe_defer_rcvd(so, n < len, n, copy_ns, ends, nends);
    return (long)n;
}

int soshutdown(struct socket *so)
{
    tahoe_rcvd_flush(so->so_stack);
    if (so->so_type == TAHOE_SOCK_STREAM)
        return tcp_usr_shutdown(so);
    socantsendmore(so);
    return 0;
}

int sosetopt(struct socket *so, int opt, int val)
{
    switch (opt) {
    case TAHOE_SO_SNDBUF:
    case TAHOE_SO_RCVBUF:
        if (val <= 0)
            return -EINVAL;
        if (val > so->so_stack->cfg.sb_max)
            return -ENOBUFS;
        sbreserve(opt == TAHOE_SO_SNDBUF ? &so->so_snd : &so->so_rcv, (size_t)val);
        return 0;
    case TAHOE_SO_REUSEADDR:
        so->so_options = val ? so->so_options | SO_REUSEADDR : so->so_options & ~SO_REUSEADDR;
        return 0;
    case TAHOE_SO_KEEPALIVE:
        so->so_options = val ? so->so_options | SO_KEEPALIVE : so->so_options & ~SO_KEEPALIVE;
        return 0;
    case TAHOE_TCP_NODELAY:
    case TAHOE_TCP_WINDOW_CLAMP:
        if (so->so_type != TAHOE_SOCK_STREAM)
            return -ENOPROTOOPT;
        return tcp_usr_setopt(so, opt, val);
    default:
        return -ENOPROTOOPT;
    }
}

int sogetopt(struct socket *so, int opt, int *val)
{
    switch (opt) {
    case TAHOE_SO_SNDBUF:
        *val = (int)so->so_snd.sb_hiwat;
        return 0;
    case TAHOE_SO_RCVBUF:
        *val = (int)so->so_rcv.sb_hiwat;
        return 0;
    case TAHOE_SO_REUSEADDR:
        *val = !!(so->so_options & SO_REUSEADDR);
        return 0;
    case TAHOE_SO_KEEPALIVE:
        *val = !!(so->so_options & SO_KEEPALIVE);
        return 0;
    case TAHOE_SO_ERROR:
        *val = so->so_error;
        so->so_error = 0;
        return 0;
    case TAHOE_TCP_NODELAY:
    case TAHOE_TCP_WINDOW_CLAMP:
    case TAHOE_TCP_MAXSEG:
        if (so->so_type != TAHOE_SOCK_STREAM)
            return -ENOPROTOOPT;
        return tcp_usr_getopt(so, opt, val);
    default:
        return -ENOPROTOOPT;
    }
}

int sopoll(struct socket *so)
{
    int ev = 0;
    if (so->so_error)
        ev |= TAHOE_POLLERR | TAHOE_POLLIN;
    if (so->so_options & SO_ACCEPTCONN) {
        if (so->so_q)
            ev |= TAHOE_POLLIN;
        return ev;
    }
    if (so->so_rcv.sb_cc || (so->so_state & SS_CANTRCVMORE))
        ev |= TAHOE_POLLIN;
    if (so->so_state & SS_CANTRCVMORE)
        ev |= TAHOE_POLLHUP;
    if (so->so_type == TAHOE_SOCK_STREAM) {
        if (so->so_state & SS_ISCONNECTED)
            ev |= TAHOE_CONNECTED;
        long space = sbspace(&so->so_snd);
        long lowat = so->so_snd.sb_hiwat < SOSEND_UNIT ? (long)so->so_snd.sb_hiwat : SOSEND_UNIT;
        if (((so->so_state & SS_ISCONNECTED) && space >= lowat) ||
            (so->so_state & SS_CANTSENDMORE))
            ev |= TAHOE_POLLOUT;
    } else {
        ev |= TAHOE_POLLOUT;
    }
    return ev;
}
