/* Sockets and socket buffers. Stream data lives in a ring of octets; datagrams in a list of
 * records. Buffer limits (sb_hiwat) are what SO_SNDBUF / SO_RCVBUF set, as in BSD. */
#ifndef TAHOE_SOCKETVAR_H
#define TAHOE_SOCKETVAR_H

#include <stddef.h>
#include <stdint.h>

#include "tahoe.h"

struct inpcb;

struct sbrec {
    struct sbrec *next;
    struct tahoe_addr from;
    size_t len;
    size_t cc; /* octets the record counts in sb_cc: its data and its source address */
    uint8_t data[];
};

struct sockbuf {
    uint8_t *sb_buf;  /* ring storage */
    size_t sb_cap;    /* octets allocated (grows on demand, at least sb_hiwat) */
    size_t sb_off;    /* ring index of the first octet */
    size_t sb_cc;     /* octets held */
    size_t sb_hiwat;  /* limit */
    size_t sb_held;   /* octets a read is still copying out: not yet free (tahoe_defer_rcvd) */
    /* The data lengths of the mbufs the stream's octets sit in, oldest first (a ring of
     * sb_mcount from sb_mhead), as the receiving driver left them (tahoe_rcv_mbufs);
     * octets appended without a layout count as one mbuf. */
    size_t *sb_m;
    size_t sb_mcap, sb_mhead, sb_mcount;
    struct sbrec *sb_rec, *sb_rectail; /* datagrams */
};

struct socket {
    struct tahoe_stack *so_stack;
    int so_fd; /* -1 until accept() hands it out */
    int so_type;
    int so_options;
    int so_state;
    int so_error;
    struct sockbuf so_snd, so_rcv;
    struct inpcb *so_pcb;
    /* listening sockets: half-open (q0) and ready (q) connections */
    struct socket *so_head;
    struct socket *so_q0, *so_q, *so_qnext;
    int so_q0len, so_qlen, so_qlimit;
};

#define SO_ACCEPTCONN 0x01
#define SO_REUSEADDR 0x02
#define SO_KEEPALIVE 0x04

#define SS_NOFDREF 0x001
#define SS_ISCONNECTED 0x002
#define SS_ISCONNECTING 0x004
#define SS_ISDISCONNECTING 0x008
#define SS_CANTSENDMORE 0x010
#define SS_CANTRCVMORE 0x020

/* TCP's sosend granularity (comer94 4.1.1): 4K blocks while both the data left and the free
 * space exceed 4K, otherwise whole 1K blocks. */
#define SOSEND_BLOCK 4096
#define SOSEND_UNIT 1024

/* uipc_socket2.c */
long sbspace(const struct sockbuf *sb);
int sbreserve(struct sockbuf *sb, size_t cc);
void sbappend(struct sockbuf *sb, const uint8_t *data, size_t len);
/* sbappend of data held in nm mbufs of the lengths mlen (summing to len). */
void sbappendm(struct sockbuf *sb, const uint8_t *data, size_t len, const size_t *mlen,
               size_t nm);
/* Where a read of the first len octets frees them (soreceive: sbfree or the partial drop after
 * each mbuf's uiomove): the ascending ends, within the read, of the mbufs it empties, then len;
 * their number, at most max (the rest of the read counted as one). */
size_t sbmbuf_ends(const struct sockbuf *sb, size_t len, size_t *ends, size_t max);
/* Appends a datagram whose source address takes addrlen octets of the buffer beside its data
 * (the host model's sb_addr_bytes); 0 when it does not fit. */
int sbappendaddr(struct sockbuf *sb, const struct tahoe_addr *from, const uint8_t *data,
                 size_t len, size_t addrlen);
void sbcopy(const struct sockbuf *sb, size_t off, uint8_t *dst, size_t len);
void sbdrop(struct sockbuf *sb, size_t len);
void sbflush(struct sockbuf *sb);
void sbrelease(struct sockbuf *sb);
int soreserve(struct socket *so, size_t sndcc, size_t rcvcc);
void soisconnecting(struct socket *so);
void soisconnected(struct socket *so);
void soisdisconnecting(struct socket *so);
void soisdisconnected(struct socket *so);
void socantsendmore(struct socket *so);
void socantrcvmore(struct socket *so);
struct socket *sonewconn(struct socket *head);
void soqremque(struct socket *so);
/* uipc_socket.c */
struct socket *socreate(struct tahoe_stack *st, int type);
void sofree(struct socket *so);
void soabort(struct socket *so);
int soclose(struct socket *so);
long sosend(struct socket *so, const uint8_t *buf, size_t len, const struct tahoe_addr *to);
long soreceive(struct socket *so, uint8_t *buf, size_t len, struct tahoe_addr *from);
int soshutdown(struct socket *so);
int sosetopt(struct socket *so, int opt, int val);
int sogetopt(struct socket *so, int opt, int *val);
int sopoll(struct socket *so);
/* Size of the next block sosend moves into a stream send buffer (0: wait for space). */
size_t sosend_chunk(size_t resid, long space);

#endif
