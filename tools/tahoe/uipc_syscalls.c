/* The socket calls of the public API: descriptors in, socket operations out. */
#include <errno.h>
#include <stdlib.h>

#include "in_pcb.h"
#include "socketvar.h"
#include "tahoe_var.h"

int tahoe_fd_alloc(struct tahoe_stack *st, struct socket *so)
{
    int fd = 0;
    while (fd < st->nfds && st->fds[fd])
        fd++;
    if (fd == st->nfds) {
        int n = st->nfds ? st->nfds * 2 : 16;
        struct socket **nf = realloc(st->fds, (size_t)n * sizeof *nf);
        if (!nf)
            return -EMFILE;
        for (int i = st->nfds; i < n; i++)
            nf[i] = NULL;
        st->fds = nf;
        st->nfds = n;
    }
    st->fds[fd] = so;
    so->so_fd = fd;
    return fd;
}

void tahoe_fd_release(struct tahoe_stack *st, struct socket *so)
{
    if (so->so_fd >= 0 && so->so_fd < st->nfds && st->fds[so->so_fd] == so)
        st->fds[so->so_fd] = NULL;
    so->so_fd = -1;
}

static struct socket *getsock(struct tahoe_stack *st, int s)
{
    if (s < 0 || s >= st->nfds)
        return NULL;
    return st->fds[s];
}

int tahoe_socket(struct tahoe_stack *st, int type)
{
    tahoe_charge(st, st->cfg.cost.per_call_ns);
    if (type != TAHOE_SOCK_STREAM && type != TAHOE_SOCK_DGRAM && type != TAHOE_SOCK_ICMP)
        return -EPROTONOSUPPORT;
    struct socket *so = socreate(st, type);
    if (!so)
        return -ENOBUFS;
    int fd = tahoe_fd_alloc(st, so);
    if (fd < 0) {
        so->so_state |= SS_NOFDREF;
        soabort(so);
    }
    return fd;
}

int tahoe_bind(struct tahoe_stack *st, int s, const struct tahoe_addr *addr)
{
    struct socket *so = getsock(st, s);
    if (!so)
        return -EBADF;
    if (addr->ip && addr->ip != st->cfg.addr)
        return -EADDRNOTAVAIL;
    return in_pcbbind(so->so_pcb, addr->ip, addr->port, so->so_options & SO_REUSEADDR);
}

int tahoe_listen(struct tahoe_stack *st, int s, int backlog)
{
    struct socket *so = getsock(st, s);
    if (!so)
        return -EBADF;
    if (so->so_type != TAHOE_SOCK_STREAM)
        return -EOPNOTSUPP;
    int err = tcp_usr_listen(so);
    if (err < 0)
        return err;
    so->so_options |= SO_ACCEPTCONN;
    so->so_qlimit = backlog < 0 ? 0 : backlog > 5 ? 5 : backlog; /* SOMAXCONN 5 */
    return 0;
}

int tahoe_accept(struct tahoe_stack *st, int s, struct tahoe_addr *peer)
{
    tahoe_charge(st, st->cfg.cost.per_call_ns);
    struct socket *head = getsock(st, s);
    if (!head)
        return -EBADF;
    if ((head->so_options & SO_ACCEPTCONN) == 0)
        return -EINVAL;
    struct socket *so = head->so_q;
    if (!so)
        return -EAGAIN;
    int fd = tahoe_fd_alloc(st, so);
    if (fd < 0)
        return fd;
    soqremque(so);
    so->so_state &= ~SS_NOFDREF;
    if (peer && so->so_pcb) {
        peer->ip = so->so_pcb->inp_faddr;
        peer->port = so->so_pcb->inp_fport;
    }
    return fd;
}

int tahoe_connect(struct tahoe_stack *st, int s, const struct tahoe_addr *addr)
{
    tahoe_charge(st, st->cfg.cost.per_call_ns);
    struct socket *so = getsock(st, s);
    if (!so)
        return -EBADF;
    if (!so->so_pcb)
        return -EINVAL;
    if (so->so_type == TAHOE_SOCK_STREAM) {
        if (so->so_state & (SS_ISCONNECTED | SS_ISCONNECTING))
            return so->so_state & SS_ISCONNECTED ? -EISCONN : -EALREADY;
        int err = tcp_usr_connect(so, addr->ip, addr->port);
        return err < 0 ? err : -EINPROGRESS;
    }
    int err = in_pcbconnect(so->so_pcb, addr->ip, addr->port);
    if (err == 0)
        so->so_state |= SS_ISCONNECTED;
    return err;
}

ssize_t tahoe_send(struct tahoe_stack *st, int s, const void *buf, size_t len)
{
    struct socket *so = getsock(st, s);
    if (!so)
        return -EBADF;
    if (so->so_type != TAHOE_SOCK_STREAM && (so->so_state & SS_ISCONNECTED) == 0)
        return -EDESTADDRREQ;
    return sosend(so, buf, len, NULL);
}

ssize_t tahoe_recv(struct tahoe_stack *st, int s, void *buf, size_t len)
{
    struct socket *so = getsock(st, s);
    if (!so)
        return -EBADF;
    return soreceive(so, buf, len, NULL);
}

ssize_t tahoe_sendto(struct tahoe_stack *st, int s, const void *buf, size_t len,
                     const struct tahoe_addr *to)
{
    struct socket *so = getsock(st, s);
    if (!so)
        return -EBADF;
    if (so->so_type == TAHOE_SOCK_STREAM || !to)
        return tahoe_send(st, s, buf, len);
    if (so->so_state & SS_ISCONNECTED)
        return -EISCONN;
    return sosend(so, buf, len, to);
}

ssize_t tahoe_recvfrom(struct tahoe_stack *st, int s, void *buf, size_t len,
                       struct tahoe_addr *from)
{
    struct socket *so = getsock(st, s);
    if (!so)
        return -EBADF;
    return soreceive(so, buf, len, from);
}

int tahoe_shutdown(struct tahoe_stack *st, int s)
{
    struct socket *so = getsock(st, s);
    if (!so)
        return -EBADF;
    return soshutdown(so);
}

int tahoe_close(struct tahoe_stack *st, int s)
{
    tahoe_charge(st, st->cfg.cost.per_call_ns);
    struct socket *so = getsock(st, s);
    if (!so)
        return -EBADF;
    tahoe_fd_release(st, so);
    return soclose(so);
}

int tahoe_setsockopt(struct tahoe_stack *st, int s, int opt, int val)
{
    struct socket *so = getsock(st, s);
    return so ? sosetopt(so, opt, val) : -EBADF;
}

int tahoe_getsockopt(struct tahoe_stack *st, int s, int opt, int *val)
{
    struct socket *so = getsock(st, s);
    return so ? sogetopt(so, opt, val) : -EBADF;
}

int tahoe_getsockname(struct tahoe_stack *st, int s, struct tahoe_addr *addr)
{
    struct socket *so = getsock(st, s);
    if (!so || !so->so_pcb)
        return so ? -EINVAL : -EBADF;
    addr->ip = so->so_pcb->inp_laddr ? so->so_pcb->inp_laddr : st->cfg.addr;
    addr->port = so->so_pcb->inp_lport;
    return 0;
}

int tahoe_getpeername(struct tahoe_stack *st, int s, struct tahoe_addr *addr)
{
    struct socket *so = getsock(st, s);
    if (!so || !so->so_pcb)
        return so ? -ENOTCONN : -EBADF;
    if (!so->so_pcb->inp_faddr)
        return -ENOTCONN;
    addr->ip = so->so_pcb->inp_faddr;
    addr->port = so->so_pcb->inp_fport;
    return 0;
}

int tahoe_poll(struct tahoe_stack *st, int s)
{
    struct socket *so = getsock(st, s);
    return so ? sopoll(so) : -EBADF;
}

const struct tcpcb *tahoe_tcpcb(struct tahoe_stack *st, int s)
{
    struct socket *so = getsock(st, s);
    if (!so || so->so_type != TAHOE_SOCK_STREAM || !so->so_pcb)
        return NULL;
    return so->so_pcb->inp_ppcb;
}
