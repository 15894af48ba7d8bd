#include "if_ether.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ip.h"

#define ARPHRD_ETHER 1
#define ARPOP_REQUEST 1
#define ARPOP_REPLY 2

static const uint8_t etherbroadcast[ETHER_ADDR_LEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

void ether_if_init(struct ether_if *ifp, const uint8_t mac[ETHER_ADDR_LEN], uint32_t addr,
                   uint32_t netmask, ether_xmit_fn xmit, void *ctx)
{
    memset(ifp, 0, sizeof *ifp);
    memcpy(ifp->mac, mac, ETHER_ADDR_LEN);
    ifp->addr = addr;
    ifp->netmask = netmask;
    ifp->xmit = xmit;
    ifp->ctx = ctx;
}

/* Frees the packets waiting for e; returns how many there were. */
static int arp_free_held(struct arpent *e)
{
    int n = e->nhold;
    while (e->hold) {
        struct arp_hold *h = e->hold;
        e->hold = h->next;
        free(h);
    }
    e->hold_tail = NULL;
    e->nhold = 0;
    return n;
}

void ether_if_free(struct ether_if *ifp)
{
    for (int i = 0; i < ARPTAB_SIZE; i++)
        arp_free_held(&ifp->tab[i]);
}

static void ether_header(uint8_t *f, const uint8_t *dst, const uint8_t *src, uint16_t type)
{
    memcpy(f, dst, ETHER_ADDR_LEN);
    memcpy(f + ETHER_ADDR_LEN, src, ETHER_ADDR_LEN);
    put16(f + 2 * ETHER_ADDR_LEN, type);
}

static int xmit(struct ether_if *ifp, const uint8_t *f, size_t len)
{
    int rc = ifp->xmit(ifp->ctx, f, len);
    if (rc == -ENOBUFS) {
        ifp->stats.xmit_drops++;
        return 0;
    }
    return rc;
}

static int arp_send(struct ether_if *ifp, int op, const uint8_t *tha, uint32_t tpa)
{
    uint8_t f[ETHER_HDR_LEN + ARP_PKT_LEN];
    static const uint8_t zero[ETHER_ADDR_LEN];
    ether_header(f, op == ARPOP_REQUEST ? etherbroadcast : tha, ifp->mac, ETHERTYPE_ARP);
    uint8_t *a = f + ETHER_HDR_LEN;
    put16(a, ARPHRD_ETHER);
    put16(a + 2, ETHERTYPE_IP);
    a[4] = ETHER_ADDR_LEN;
    a[5] = 4;
    put16(a + 6, (uint16_t)op);
    memcpy(a + 8, ifp->mac, ETHER_ADDR_LEN);
    putaddr(a + 14, ifp->addr);
    memcpy(a + 18, op == ARPOP_REQUEST ? zero : tha, ETHER_ADDR_LEN);
    putaddr(a + 24, tpa);
    ifp->stats.out_arp++;
    return xmit(ifp, f, sizeof f);
}

static struct arpent *arp_lookup(struct ether_if *ifp, uint32_t ip)
{
    for (int i = 0; i < ARPTAB_SIZE; i++)
        if (ifp->tab[i].ip == ip)
            return &ifp->tab[i];
    return NULL;
}

/* A slot for ip: a free one, else the next in turn (4.3BSD also recycled the oldest). */
static struct arpent *arp_new(struct ether_if *ifp, uint32_t ip)
{
    struct arpent *e = arp_lookup(ifp, 0);
    if (!e) {
        do {
            e = &ifp->tab[ifp->next_victim];
            ifp->next_victim = (ifp->next_victim + 1) % ARPTAB_SIZE;
        } while (e->permanent);
        ifp->stats.hold_drops += (uint64_t)arp_free_held(e);
    }
    memset(e, 0, sizeof *e);
    e->ip = ip;
    return e;
}

int ether_if_add_static(struct ether_if *ifp, uint32_t ip, const uint8_t mac[ETHER_ADDR_LEN])
{
    if ((ip & ifp->netmask) != (ifp->addr & ifp->netmask) || ip == ifp->addr)
        return -EINVAL;
    int permanent = 0;
    for (int i = 0; i < ARPTAB_SIZE; i++)
        permanent += ifp->tab[i].permanent;
    struct arpent *e = arp_lookup(ifp, ip);
    if (!e) {
        /* Recycling must always find a dynamic slot. */
        if (permanent >= ARPTAB_SIZE / 2)
            return -ENOSPC;
        e = arp_new(ifp, ip);
    }
    memcpy(e->mac, mac, ETHER_ADDR_LEN);
    e->resolved = 1;
    e->permanent = 1;
    return 0;
}

static int is_broadcast(const struct ether_if *ifp, uint32_t dst)
{
    return dst == 0xffffffffu || dst == (ifp->addr | ~ifp->netmask);
}

int ether_output(struct ether_if *ifp, const uint8_t *pkt, size_t len, int64_t now_ns)
{
    uint32_t dst = getaddr(pkt + IPO_DST);
    if (is_broadcast(ifp, dst)) {
        uint8_t *f = malloc(ETHER_HDR_LEN + len);
        if (!f)
            return -ENOMEM;
        ether_header(f, etherbroadcast, ifp->mac, ETHERTYPE_IP);
        memcpy(f + ETHER_HDR_LEN, pkt, len);
        ifp->stats.out_ip++;
        int rc = xmit(ifp, f, ETHER_HDR_LEN + len);
        free(f);
        return rc;
    }
    if ((dst & ifp->netmask) != (ifp->addr & ifp->netmask) || dst == ifp->addr) {
        /* No routes, no gateway and no loopback interface: the peers of a measurement share
         * one subnet and sit on different hosts. */
        ifp->stats.unreachable++;
        return 0;
    }
    struct arpent *e = arp_lookup(ifp, dst);
    if (!e)
        e = arp_new(ifp, dst);
    struct arp_hold *h = malloc(sizeof *h + ETHER_HDR_LEN + len);
    if (!h)
        return -ENOMEM;
    h->next = NULL;
    h->len = ETHER_HDR_LEN + len;
    memcpy(h->frame + ETHER_HDR_LEN, pkt, len);
    if (e->resolved) {
        ether_header(h->frame, e->mac, ifp->mac, ETHERTYPE_IP);
        ifp->stats.out_ip++;
        int rc = xmit(ifp, h->frame, h->len);
        free(h);
        return rc;
    }
    if (e->nhold == ARP_MAXHOLD) {
        free(h);
        ifp->stats.hold_drops++;
    } else {
        if (e->hold_tail)
            e->hold_tail->next = h;
        else
            e->hold = h;
        e->hold_tail = h;
        e->nhold++;
    }
    if (e->asked_ns && now_ns - e->asked_ns < ARP_RETRY_NS)
        return 0;
    e->asked_ns = now_ns ? now_ns : 1;
    return arp_send(ifp, ARPOP_REQUEST, NULL, dst);
}

/* Records spa's address and sends what waited for it. */
static int arp_learn(struct ether_if *ifp, struct arpent *e, const uint8_t *sha)
{
    memcpy(e->mac, sha, ETHER_ADDR_LEN);
    e->resolved = 1;
    int rc = 0;
    while (e->hold) {
        struct arp_hold *h = e->hold;
        e->hold = h->next;
        ether_header(h->frame, e->mac, ifp->mac, ETHERTYPE_IP);
        ifp->stats.out_ip++;
        if (rc == 0)
            rc = xmit(ifp, h->frame, h->len);
        free(h);
    }
    e->hold_tail = NULL;
    e->nhold = 0;
    return rc;
}

static int arp_input(struct ether_if *ifp, const uint8_t *a, size_t len)
{
    if (len < ARP_PKT_LEN || get16(a) != ARPHRD_ETHER || get16(a + 2) != ETHERTYPE_IP ||
        a[4] != ETHER_ADDR_LEN || a[5] != 4) {
        ifp->stats.in_ignored++;
        return 0;
    }
    int op = get16(a + 6);
    const uint8_t *sha = a + 8;
    uint32_t spa = getaddr(a + 14), tpa = getaddr(a + 24);
    ifp->stats.in_arp++;
    if (spa == ifp->addr || (spa & ifp->netmask) != (ifp->addr & ifp->netmask))
        return 0;
    /* As in_arpinput: update a peer we know; add one that is talking to us. */
    struct arpent *e = arp_lookup(ifp, spa);
    if (!e && tpa == ifp->addr)
        e = arp_new(ifp, spa);
    int rc = e ? arp_learn(ifp, e, sha) : 0;
    if (rc == 0 && op == ARPOP_REQUEST && tpa == ifp->addr)
        rc = arp_send(ifp, ARPOP_REPLY, sha, spa);
    return rc;
}

int ether_input(struct ether_if *ifp, const uint8_t *frame, size_t flen, const uint8_t **pkt,
                size_t *len)
{
    if (flen < ETHER_HDR_LEN || (memcmp(frame, ifp->mac, ETHER_ADDR_LEN) != 0 &&
                                 memcmp(frame, etherbroadcast, ETHER_ADDR_LEN) != 0)) {
        ifp->stats.in_ignored++;
        return 0;
    }
    uint16_t type = get16(frame + 2 * ETHER_ADDR_LEN);
    if (type == ETHERTYPE_ARP)
        return arp_input(ifp, frame + ETHER_HDR_LEN, flen - ETHER_HDR_LEN);
    if (type != ETHERTYPE_IP) {
        ifp->stats.in_ignored++;
        return 0;
    }
    ifp->stats.in_ip++;
    *pkt = frame + ETHER_HDR_LEN;
    *len = flen - ETHER_HDR_LEN;
    return 1;
}
