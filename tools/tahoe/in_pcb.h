/* Internet protocol control blocks: the addresses a socket is bound and connected to. */
#ifndef TAHOE_IN_PCB_H
#define TAHOE_IN_PCB_H

#include <stdint.h>

struct socket;
struct tcpcb;

struct inpcb {
    struct inpcb *inp_next;
    struct inpcb **inp_head; /* the list this pcb is on */
    uint32_t inp_laddr, inp_faddr; /* network byte order, 0 = wildcard */
    uint16_t inp_lport, inp_fport; /* host byte order */
    struct socket *inp_socket;
    struct tcpcb *inp_ppcb;
};

#define INPLOOKUP_WILDCARD 1

int in_pcballoc(struct socket *so, struct inpcb **head);
void in_pcbdetach(struct inpcb *inp);
int in_pcbbind(struct inpcb *inp, uint32_t laddr, uint16_t lport, int reuse);
int in_pcbconnect(struct inpcb *inp, uint32_t faddr, uint16_t fport);
void in_pcbdisconnect(struct inpcb *inp);
struct inpcb *in_pcblookup(struct inpcb *head, uint32_t faddr, uint16_t fport, uint32_t laddr,
                           uint16_t lport, int flags);

#endif
