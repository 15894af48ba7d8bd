/* Ethernet framing and a minimal ARP (RFC 826) for a tahoe stack on a real interface, as
 * 4.3BSD's if_ether.c: answer requests for our address, resolve on-link peers, hold packets
 * while a resolution is pending. No I/O and no clock of its own: frames leave through the
 * xmit callback and time is passed in, so tests drive it by hand. */
#ifndef TAHOE_IF_ETHER_H
#define TAHOE_IF_ETHER_H

#include <stddef.h>
#include <stdint.h>

#define ETHER_ADDR_LEN 6
#define ETHER_HDR_LEN 14
#define ETHERTYPE_IP 0x0800
#define ETHERTYPE_ARP 0x0806
#define ARP_PKT_LEN 28
#define ARPTAB_SIZE 16
/* Packets held per unresolved peer. 4.3BSD held one; more, so that the first fragments of a
 * large UDP datagram are not lost to the resolution (a loss no 1990s run showed). */
#define ARP_MAXHOLD 64
#define ARP_RETRY_NS 1000000000LL /* at most one request per peer per second */

/* Puts one whole Ethernet frame on the wire. Returns 0, -ENOBUFS if the frame was dropped (as
 * a full interface queue drops), or another negative errno that ends the run. */
typedef int (*ether_xmit_fn)(void *ctx, const uint8_t *frame, size_t len);

struct arp_hold {
    struct arp_hold *next;
    size_t len;
    uint8_t frame[]; /* the IP packet, Ethernet header left blank until resolved */
};

struct arpent {
    uint32_t ip; /* network byte order; 0: free slot */
    int resolved;
    int permanent; /* a static entry, never recycled */
    uint8_t mac[ETHER_ADDR_LEN];
    int64_t asked_ns; /* when the latest request went out */
    struct arp_hold *hold, *hold_tail;
    int nhold;
};

struct ether_stats {
    uint64_t in_ip, in_arp, in_ignored, out_ip, out_arp, hold_drops, unreachable, xmit_drops;
};

struct ether_if {
    uint8_t mac[ETHER_ADDR_LEN];
    uint32_t addr, netmask; /* network byte order */
    struct arpent tab[ARPTAB_SIZE];
    int next_victim;
    ether_xmit_fn xmit;
    void *ctx;
    struct ether_stats stats;
};

void ether_if_init(struct ether_if *ifp, const uint8_t mac[ETHER_ADDR_LEN], uint32_t addr,
                   uint32_t netmask, ether_xmit_fn xmit, void *ctx);
/* Adds a static entry for an on-link ip. Returns 0, -EINVAL when ip is not on the interface's
 * network, or -ENOSPC when half the table is static already. */
int ether_if_add_static(struct ether_if *ifp, uint32_t ip, const uint8_t mac[ETHER_ADDR_LEN]);
/* Frees held packets. */
void ether_if_free(struct ether_if *ifp);
/* Sends one IPv4 packet to its on-link destination, resolving it first if need be. Returns 0
 * (sent, held or dropped as an interface would), or the negative errno of a failed xmit. */
int ether_output(struct ether_if *ifp, const uint8_t *pkt, size_t len, int64_t now_ns);
/* Takes one received frame. ARP is handled here; returns 1 with *pkt and *len set when the
 * frame carries an IPv4 packet for the stack, 0 when nothing is left to do, or the negative
 * errno of a failed xmit (an ARP reply or released held packets). */
int ether_input(struct ether_if *ifp, const uint8_t *frame, size_t flen, const uint8_t **pkt,
                size_t *len);

#endif
