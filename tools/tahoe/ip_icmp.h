/* ICMP: echo reply, errors we generate, statistics. */
#ifndef TAHOE_IP_ICMP_H
#define TAHOE_IP_ICMP_H

#include <stddef.h>
#include <stdint.h>

struct tahoe_stack;
struct socket;

#define ICMP_ECHOREPLY 0
#define ICMP_UNREACH 3
#define ICMP_UNREACH_PORT 3
#define ICMP_ECHO 8
#define ICMP_TIMXCEED 11
#define ICMP_MAXTYPE 18
#define ICMP_MINLEN 8

struct icmpstat {
    uint64_t icps_error;    /* icmp_error calls */
    uint64_t icps_oldicmp;  /* no error sent about an ICMP error */
    uint64_t icps_checksum, icps_tooshort, icps_badlen;
    uint64_t icps_reflect;  /* echo replies sent */
    uint64_t icps_outhist[ICMP_MAXTYPE + 1];
    uint64_t icps_inhist[ICMP_MAXTYPE + 1];
};

void icmp_input(struct tahoe_stack *st, const uint8_t *ip, size_t hlen, size_t len);
/* Sends an ICMP error about the datagram ip (of len octets). */
void icmp_error(struct tahoe_stack *st, const uint8_t *ip, size_t len, int type, int code);
int rip_attach(struct tahoe_stack *st, struct socket *so);
/* Sends an ICMP message built by the user; the stack fills in the checksum. */
long rip_output(struct socket *so, const void *msg, size_t len, uint32_t faddr);

#endif
