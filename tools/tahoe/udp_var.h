/* UDP statistics and entry points. */
#ifndef TAHOE_UDP_VAR_H
#define TAHOE_UDP_VAR_H

#include <stddef.h>
#include <stdint.h>

struct tahoe_stack;
struct socket;

#define UDP_HDRLEN 8
#define UDP_TTL 30

struct udpstat {
    uint64_t udps_ipackets, udps_hdrops, udps_badsum, udps_badlen, udps_noport;
    uint64_t udps_fullsock, udps_opackets, udps_odropped;
};

void udp_input(struct tahoe_stack *st, const uint8_t *ip, size_t hlen, size_t len);
int udp_attach(struct tahoe_stack *st, struct socket *so);
/* Sends one datagram; to == NULL on a connected socket. Returns len or a negative errno. */
long udp_output(struct socket *so, const void *data, size_t len, uint32_t faddr,
                uint16_t fport);

#endif
