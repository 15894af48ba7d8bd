/* The Tahoe stack on a real network interface, in real time.
 *
 * The driver owns one Linux interface through an AF_PACKET socket: it frames the stack's IPv4
 * packets in Ethernet, answers and sends ARP (if_ether.h), and releases every packet at the
 * time the modelled host's CPU is done with it (the stack's at_ns), so the host model's costs
 * hold on the wire as they do in virtual time. Time is CLOCK_MONOTONIC; the driver sleeps in
 * epoll on the socket and a timerfd set to the next stack deadline or packet departure.
 *
 * The kernel must not answer for the stack: the interface must carry no IPv4 address of the
 * kernel's (ip addr flush dev IFACE), or the kernel would reset the stack's TCP connections and
 * refuse its UDP datagrams. The interface must be up. */
#ifndef TAHOE_IF_PACKET_H
#define TAHOE_IF_PACKET_H

#include <stddef.h>

#include "nrio.h"
#include "stackopt.h"

/* Opens the backend o names: the kernel's, or the Tahoe stack on o->ifname. NULL on failure,
 * with what failed in what and what to do about it in hint. */
nrio *nr_stack_new(const struct nr_stack_opts *o, char *what, size_t whatlen, char *hint,
                   size_t hintlen);

/* The Tahoe stack alone; the same contract. */
nrio *nrio_tahoe_rt_new(const struct nr_stack_opts *o, char *what, size_t whatlen, char *hint,
                        size_t hintlen);

#endif
