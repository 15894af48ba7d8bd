/* IP input: header checks, fragment reassembly, demultiplexing to ICMP, UDP and TCP. */
#include <stdlib.h>
#include <string.h>

#include "ip.h"
#include "tahoe_var.h"

int in_localaddr(const struct tahoe_stack *st, uint32_t addr)
{
    return (addr & st->cfg.netmask) == (st->cfg.addr & st->cfg.netmask);
}

int in_broadcast(const struct tahoe_stack *st, uint32_t addr)
{
    if (addr == 0xffffffffu)
        return 1;
    return st->cfg.netmask && st->cfg.netmask != 0xffffffffu &&
           (addr & ~st->cfg.netmask) == ~st->cfg.netmask &&
           (addr & st->cfg.netmask) == (st->cfg.addr & st->cfg.netmask);
}

static void freeq(struct tahoe_stack *st, struct ipq *q)
{
    struct ipq *before = NULL;
    for (struct ipq **pp = &st->ipq; *pp; before = *pp, pp = &(*pp)->next) {
        if (*pp == q) {
            *pp = q->next;
            if (st->ipq_last == q)
                st->ipq_last = before;
            break;
        }
    }
    while (q->frags) {
        struct ipasfrag *f = q->frags;
        q->frags = f->next;
        free(f);
    }
    free(q);
}

void ip_freeq_all(struct tahoe_stack *st)
{
    while (st->ipq)
        freeq(st, st->ipq);
}

/* Adds a fragment; returns the whole datagram (malloc'd, *outlen set) once complete. */
static uint8_t *ip_reass(struct tahoe_stack *st, const uint8_t *ip, size_t hlen, size_t len,
                         size_t *outlen)
{
    uint32_t src = getaddr(ip + IPO_SRC), dst = getaddr(ip + IPO_DST);
    uint16_t id = get16(ip + IPO_ID);
    uint8_t proto = ip[IPO_PROTO];
    uint16_t offw = get16(ip + IPO_OFF);
    uint32_t off = (uint32_t)(offw & IP_OFFMASK) << 3;
    uint32_t n = (uint32_t)(len - hlen);
    int mf = !!(offw & IP_MF);
    st->ipstat.ips_fragments++;

    struct ipq *q = st->ipq;
    while (q && !(q->src == src && q->dst == dst && q->id == id && q->proto == proto))
        q = q->next;
    if (!q) {
        q = calloc(1, sizeof *q);
        if (!q) {
            st->ipstat.ips_fragdropped++;
            return NULL;
        }
        q->src = src;
        q->dst = dst;
        q->id = id;
        q->proto = proto;
        q->ttl = IPFRAGTTL;
        q->next = st->ipq;
        st->ipq = q;
        if (!q->next)
            st->ipq_last = q;
    }
    if (off == 0)
        memcpy(q->hdr, ip, IP_HDRLEN);

    /* Trim what earlier fragments already hold; drop what later ones fully cover. */
    const uint8_t *data = ip + hlen;
    struct ipasfrag **pp = &q->frags;
    while (*pp && (*pp)->off < off)
        pp = &(*pp)->next;
    struct ipasfrag *prev = NULL;
    for (struct ipasfrag *f = q->frags; f && f->off < off; f = f->next)
        prev = f;
    if (prev && prev->off + prev->len > off) {
        uint32_t cut = prev->off + prev->len - off;
        if (cut >= n) {
            st->ipstat.ips_fragdropped++;
            return NULL;
        }
        off += cut;
        data += cut;
        n -= cut;
    }
    while (*pp && (*pp)->off < off + n) {
        struct ipasfrag *nx = *pp;
        if (nx->off + nx->len <= off + n) {
            *pp = nx->next;
            free(nx);
            continue;
        }
        uint32_t cut = off + n - nx->off;
        memmove(nx->data, nx->data + cut, nx->len - cut);
        nx->off += cut;
        nx->len -= cut;
        break;
    }
    struct ipasfrag *nf = malloc(sizeof *nf + n);
    if (!nf) {
        st->ipstat.ips_fragdropped++;
        return NULL;
    }
    nf->off = off;
    nf->len = n;
    nf->mf = mf;
    memcpy(nf->data, data, n);
    nf->next = *pp;
    *pp = nf;

    /* Complete when the pieces run without a gap from 0 to one without MF. */
    uint32_t expect = 0;
    struct ipasfrag *f = q->frags;
    for (; f; f = f->next) {
        if (f->off != expect)
            return NULL;
        expect += f->len;
        if (!f->mf)
            break;
    }
    if (!f)
        return NULL;
    size_t total = IP_HDRLEN + expect;
    if (total > IP_MAXPACKET) {
        st->ipstat.ips_fragdropped++;
        freeq(st, q);
        return NULL;
    }
    uint8_t *whole = malloc(total);
    if (!whole) {
        freeq(st, q);
        return NULL;
    }
    memcpy(whole, q->hdr, IP_HDRLEN);
    whole[IPO_VHL] = 0x45;
    put16(whole + IPO_LEN, (uint16_t)total);
    put16(whole + IPO_OFF, 0);
    for (f = q->frags; f; f = f->next) {
        memcpy(whole + IP_HDRLEN + f->off, f->data, f->len);
        if (!f->mf)
            break;
    }
    freeq(st, q);
    st->ipstat.ips_reassembled++;
    *outlen = total;
    return whole;
}

void ip_input_process(struct tahoe_stack *st, uint8_t *pkt, size_t len)
{
    st->ipstat.ips_total++;
    if (len < IP_HDRLEN) {
        st->ipstat.ips_toosmall++;
        return;
    }
    if (pkt[IPO_VHL] >> 4 != 4) {
        st->ipstat.ips_badvers++;
        return;
    }
    size_t hlen = (size_t)(pkt[IPO_VHL] & 0x0f) << 2;
    if (hlen < IP_HDRLEN || hlen > len) {
        st->ipstat.ips_badhlen++;
        return;
    }
    if (in_cksum(pkt, hlen) != 0) {
        st->ipstat.ips_badsum++;
        return;
    }
    size_t iplen = get16(pkt + IPO_LEN);
    if (iplen < hlen) {
        st->ipstat.ips_badlen++;
        return;
    }
    if (iplen > len) {
        st->ipstat.ips_tooshort++;
        return;
    }
    len = iplen; /* the link may have padded the frame */
    uint32_t dst = getaddr(pkt + IPO_DST);
    if (dst != st->cfg.addr && !in_broadcast(st, dst)) {
        st->ipstat.ips_cantforward++; /* hosts do not forward */
        return;
    }
    uint8_t *whole = NULL;
    if (get16(pkt + IPO_OFF) & (IP_MF | IP_OFFMASK)) {
        whole = ip_reass(st, pkt, hlen, len, &len);
        if (!whole)
            return;
        pkt = whole;
        hlen = IP_HDRLEN;
    }
    st->ipstat.ips_delivered++;
    switch (pkt[IPO_PROTO]) {
    case IPPROTO_ICMP:
        icmp_input(st, pkt, hlen, len);
        break;
    case IPPROTO_UDP:
        udp_input(st, pkt, hlen, len);
        break;
    case IPPROTO_TCP:
        tcp_input(st, pkt, hlen, len);
        break;
    default:
        st->ipstat.ips_noproto++;
        st->ipstat.ips_delivered--;
        break;
    }
    free(whole);
}

/* Every slow tick each incomplete datagram ages; at zero its fragments are dropped. */
void ip_slowtimo(struct tahoe_stack *st)
{
    struct ipq *q = st->ipq;
    while (q) {
        struct ipq *next = q->next;
        if (--q->ttl <= 0) {
            st->ipstat.ips_fragtimeout++;
            freeq(st, q);
        }
        q = next;
    }
}
