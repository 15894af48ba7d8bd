/* IP statistics and the fragment reassembly queue. */
#ifndef TAHOE_IP_VAR_H
#define TAHOE_IP_VAR_H

#include <stddef.h>
#include <stdint.h>

struct tahoe_stack;

struct ipstat {
    uint64_t ips_total, ips_badsum, ips_tooshort, ips_toosmall, ips_badhlen, ips_badlen;
    uint64_t ips_badvers, ips_cantforward, ips_noproto, ips_delivered, ips_qdrop;
    uint64_t ips_fragments;    /* fragments received */
    uint64_t ips_fragdropped;  /* fragments dropped (duplicates, out of space) */
    uint64_t ips_fragtimeout;  /* datagrams given up when IPFRAGTTL ran out */
    uint64_t ips_reassembled;  /* datagrams completed from fragments */
    uint64_t ips_localout, ips_fragmented, ips_ofragments, ips_cantfrag, ips_odropped;
};

/* One fragment held for reassembly. */
struct ipasfrag {
    struct ipasfrag *next;
    uint32_t off; /* octets */
    uint32_t len;
    int mf;
    uint8_t data[];
};

/* A datagram being reassembled, keyed by (src, dst, id, proto). */
struct ipq {
    struct ipq *next;
    uint32_t src, dst;
    uint16_t id;
    uint8_t proto;
    int ttl; /* slow ticks left */
    uint8_t hdr[20];
    struct ipasfrag *frags; /* sorted by offset */
};


/* ip_output.c: pkt holds IP_HDRLEN octets of header (src, dst, proto, ttl filled by the caller)
 * followed by the payload. Fragments when len exceeds the MTU. 0 or a negative errno. */
int ip_output(struct tahoe_stack *st, uint8_t *pkt, size_t len, int dont_fragment);
/* ip_input.c */
void ip_input_process(struct tahoe_stack *st, uint8_t *pkt, size_t len);
void ip_slowtimo(struct tahoe_stack *st);
void ip_freeq_all(struct tahoe_stack *st);
int in_localaddr(const struct tahoe_stack *st, uint32_t addr);
int in_broadcast(const struct tahoe_stack *st, uint32_t addr);

#endif
