/* Protocol control blocks: binding, connecting and demultiplexing by address and port. */
#include <errno.h>
#include <stdlib.h>

#include "in_pcb.h"
#include "socketvar.h"
#include "tahoe_var.h"

int in_pcballoc(struct socket *so, struct inpcb **head)
{
    struct inpcb *inp = calloc(1, sizeof *inp);
    if (!inp)
        return -ENOBUFS;
    inp->inp_socket = so;
    inp->inp_head = head;
    inp->inp_next = *head;
    *head = inp;
    so->so_pcb = inp;
    return 0;
}

void in_pcbdetach(struct inpcb *inp)
{
    struct socket *so = inp->inp_socket;
    for (struct inpcb **pp = inp->inp_head; *pp; pp = &(*pp)->inp_next) {
        if (*pp == inp) {
            *pp = inp->inp_next;
            break;
        }
    }
    so->so_pcb = NULL;
    free(inp);
    sofree(so);
}

static int port_in_use(struct inpcb *head, uint32_t laddr, uint16_t lport)
{
    for (struct inpcb *p = head; p; p = p->inp_next)
        if (p->inp_lport == lport && (!p->inp_laddr || !laddr || p->inp_laddr == laddr))
            return 1;
    return 0;
}

int in_pcbbind(struct inpcb *inp, uint32_t laddr, uint16_t lport, int reuse)
{
    struct tahoe_stack *st = inp->inp_socket->so_stack;
    if (inp->inp_lport || inp->inp_laddr)
        return -EINVAL;
    if (lport) {
        if (!reuse && port_in_use(*inp->inp_head, laddr, lport))
            return -EADDRINUSE;
    } else {
        /* Ephemeral ports as in 4.3BSD: 1024 .. 4999, round robin. */
        do {
            if (++st->last_port < 1024 || st->last_port >= 5000)
                st->last_port = 1024;
            lport = st->last_port;
        } while (port_in_use(*inp->inp_head, laddr, lport));
    }
    inp->inp_laddr = laddr;
    inp->inp_lport = lport;
    return 0;
}

int in_pcbconnect(struct inpcb *inp, uint32_t faddr, uint16_t fport)
{
    struct tahoe_stack *st = inp->inp_socket->so_stack;
    if (!faddr || !fport)
        return -EADDRNOTAVAIL;
    if (!inp->inp_lport) {
        int err = in_pcbbind(inp, 0, 0, 0);
        if (err < 0)
            return err;
    }
    uint32_t laddr = inp->inp_laddr ? inp->inp_laddr : st->cfg.addr;
    if (in_pcblookup(*inp->inp_head, faddr, fport, laddr, inp->inp_lport, 0))
        return -EADDRINUSE;
    inp->inp_laddr = laddr;
    inp->inp_faddr = faddr;
    inp->inp_fport = fport;
    return 0;
}

void in_pcbdisconnect(struct inpcb *inp)
{
    inp->inp_faddr = 0;
    inp->inp_fport = 0;
}

/* The best match: an exact (connected) pcb beats one with wildcards, as in BSD. */
struct inpcb *in_pcblookup(struct inpcb *head, uint32_t faddr, uint16_t fport, uint32_t laddr,
                           uint16_t lport, int flags)
{
    struct inpcb *best = NULL;
    int bestwild = 3;
    for (struct inpcb *p = head; p; p = p->inp_next) {
        if (p->inp_lport != lport)
            continue;
        int wild = 0;
        if (p->inp_laddr) {
            if (p->inp_laddr != laddr)
                continue;
        } else {
            wild++;
        }
        if (p->inp_faddr) {
            if (p->inp_faddr != faddr || p->inp_fport != fport)
                continue;
        } else {
            wild++;
        }
        if (wild && !(flags & INPLOOKUP_WILDCARD))
            continue;
        if (wild < bestwild) {
            best = p;
            bestwild = wild;
            if (wild == 0)
                break;
        }
    }
    return best;
}
