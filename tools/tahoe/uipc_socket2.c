/* Socket buffers and socket state changes (BSD uipc_socket2.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "in_pcb.h"
#include "ring.h"
#include "socketvar.h"
#include "tahoe_var.h"

long sbspace(const struct sockbuf *sb)
{
    return (long)sb->sb_hiwat - (long)sb->sb_cc - (long)sb->sb_held;
}

int sbreserve(struct sockbuf *sb, size_t cc)
{
    sb->sb_hiwat = cc;
    return 0;
}

/* Makes room for need octets in the ring, keeping the contents in order. */
static int sb_grow(struct sockbuf *sb, size_t need)
{
    if (need <= sb->sb_cap)
        return 0;
    size_t cap = sb->sb_cap ? sb->sb_cap : 4096;
    while (cap < need)
        cap *= 2;
    uint8_t *nb = ring_move(sb->sb_buf, 1, sb->sb_off, sb->sb_cc, sb->sb_cap, cap);
    if (!nb)
        return -ENOBUFS;
    sb->sb_buf = nb;
    sb->sb_cap = cap;
    sb->sb_off = 0;
    return 0;
}

/* Appends an mbuf of len octets to the layout; 0, or -ENOBUFS. */
static int sb_mput(struct sockbuf *sb, size_t len)
{
    if (sb->sb_mcount == sb->sb_mcap) {
        size_t cap = sb->sb_mcap ? 2 * sb->sb_mcap : 64;
        size_t *nm = ring_move(sb->sb_m, sizeof *nm, sb->sb_mhead, sb->sb_mcount, sb->sb_mcap, cap);
        if (!nm)
            return -ENOBUFS;
        sb->sb_m = nm;
        sb->sb_mcap = cap;
        sb->sb_mhead = 0;
    }
    sb->sb_m[(sb->sb_mhead + sb->sb_mcount) % sb->sb_mcap] = len;
    sb->sb_mcount++;
    return 0;
}

void sbappend(struct sockbuf *sb, const uint8_t *data, size_t len)
{
    sbappendm(sb, data, len, &len, 1);
}

void sbappendm(struct sockbuf *sb, const uint8_t *data, size_t len, const size_t *mlen,
               size_t nm)
{
    if (len == 0 || sb_grow(sb, sb->sb_cc + len) < 0)
        return;
    size_t laid = 0;
    for (size_t i = 0; i < nm && laid < len; i++) {
        size_t m = mlen[i] < len - laid ? mlen[i] : len - laid;
        if (m && sb_mput(sb, m) == 0)
            laid += m;
    }
    if (laid < len && sb_mput(sb, len - laid) < 0 && sb->sb_mcount)
        sb->sb_m[(sb->sb_mhead + sb->sb_mcount - 1) % sb->sb_mcap] += len - laid;
    size_t tail = (sb->sb_off + sb->sb_cc) % sb->sb_cap;
    size_t first = sb->sb_cap - tail < len ? sb->sb_cap - tail : len;
    memcpy(sb->sb_buf + tail, data, first);
    memcpy(sb->sb_buf, data + first, len - first);
    sb->sb_cc += len;
}

int sbappendaddr(struct sockbuf *sb, const struct tahoe_addr *from, const uint8_t *data,
                 size_t len, size_t addrlen)
{
    if ((long)(len + addrlen) > sbspace(sb))
        return 0;
    struct sbrec *r = malloc(sizeof *r + len);
    if (!r)
        return 0;
    r->next = NULL;
    r->from = *from;
    r->len = len;
    r->cc = len + addrlen;
    memcpy(r->data, data, len);
    if (sb->sb_rectail)
        sb->sb_rectail->next = r;
    else
        sb->sb_rec = r;
    sb->sb_rectail = r;
    sb->sb_cc += r->cc;
    return 1;
}

void sbcopy(const struct sockbuf *sb, size_t off, uint8_t *dst, size_t len)
{
    if (len == 0)
        return;
    size_t start = (sb->sb_off + off) % sb->sb_cap;
    size_t first = sb->sb_cap - start < len ? sb->sb_cap - start : len;
    memcpy(dst, sb->sb_buf + start, first);
    memcpy(dst + first, sb->sb_buf, len - first);
}

size_t sbmbuf_ends(const struct sockbuf *sb, size_t len, size_t *ends, size_t max)
{
    size_t n = 0, at = 0;
    for (size_t i = 0; i < sb->sb_mcount && n + 1 < max; i++) {
        at += sb->sb_m[(sb->sb_mhead + i) % sb->sb_mcap];
        if (at >= len)
            break;
        ends[n++] = at;
    }
    if (max)
        ends[n++] = len;
    return n;
}

void sbdrop(struct sockbuf *sb, size_t len)
{
    if (len > sb->sb_cc)
        len = sb->sb_cc;
    if (sb->sb_cap)
        sb->sb_off = (sb->sb_off + len) % sb->sb_cap;
    sb->sb_cc -= len;
    for (size_t left = len; left && sb->sb_mcount;) {
        size_t *m = &sb->sb_m[sb->sb_mhead];
        if (*m > left) {
            *m -= left;
            break;
        }
        left -= *m;
        sb->sb_mhead = (sb->sb_mhead + 1) % sb->sb_mcap;
        sb->sb_mcount--;
    }
}

void sbflush(struct sockbuf *sb)
{
    while (sb->sb_rec) {
        struct sbrec *r = sb->sb_rec;
        sb->sb_rec = r->next;
        free(r);
    }
    sb->sb_rectail = NULL;
    sb->sb_cc = 0;
    sb->sb_off = 0;
    sb->sb_mhead = 0;
    sb->sb_mcount = 0;
}

void sbrelease(struct sockbuf *sb)
{
    sbflush(sb);
    free(sb->sb_buf);
    sb->sb_buf = NULL;
    sb->sb_cap = 0;
    free(sb->sb_m);
    sb->sb_m = NULL;
    sb->sb_mcap = 0;
    sb->sb_hiwat = 0;
}

int soreserve(struct socket *so, size_t sndcc, size_t rcvcc)
{
    if (sndcc > (size_t)so->so_stack->cfg.sb_max || rcvcc > (size_t)so->so_stack->cfg.sb_max)
        return -ENOBUFS;
    sbreserve(&so->so_snd, sndcc);
    sbreserve(&so->so_rcv, rcvcc);
    return 0;
}

void soisconnecting(struct socket *so)
{
    so->so_state &= ~(SS_ISCONNECTED | SS_ISDISCONNECTING);
    so->so_state |= SS_ISCONNECTING;
}

/* A connection is up: move it from the listener's half-open queue to the accept queue. */
void soisconnected(struct socket *so)
{
    so->so_state &= ~(SS_ISCONNECTING | SS_ISDISCONNECTING);
    so->so_state |= SS_ISCONNECTED;
    struct socket *head = so->so_head;
    if (head) {
        soqremque(so);
        so->so_head = head;
        so->so_qnext = NULL;
        struct socket **pp = &head->so_q;
        while (*pp)
            pp = &(*pp)->so_qnext;
        *pp = so;
        head->so_qlen++;
    }
}

void soisdisconnecting(struct socket *so)
{
    so->so_state &= ~SS_ISCONNECTING;
    so->so_state |= SS_ISDISCONNECTING | SS_CANTRCVMORE | SS_CANTSENDMORE;
}

void soisdisconnected(struct socket *so)
{
    so->so_state &= ~(SS_ISCONNECTING | SS_ISCONNECTED | SS_ISDISCONNECTING);
    so->so_state |= SS_CANTRCVMORE | SS_CANTSENDMORE;
}

void socantsendmore(struct socket *so) { so->so_state |= SS_CANTSENDMORE; }
void socantrcvmore(struct socket *so) { so->so_state |= SS_CANTRCVMORE; }

/* Removes so from whichever queue of its listener it is on. */
void soqremque(struct socket *so)
{
    struct socket *head = so->so_head;
    if (!head)
        return;
    for (int q = 0; q < 2; q++) {
        struct socket **pp = q ? &head->so_q : &head->so_q0;
        for (; *pp; pp = &(*pp)->so_qnext) {
            if (*pp == so) {
                *pp = so->so_qnext;
                if (q)
                    head->so_qlen--;
                else
                    head->so_q0len--;
                so->so_qnext = NULL;
                so->so_head = NULL;
                return;
            }
        }
    }
}

/* A SYN reached a listener: make the embryonic socket, inheriting the listener's buffers. */
struct socket *sonewconn(struct socket *head)
{
    if (head->so_qlen + head->so_q0len > 3 * head->so_qlimit / 2)
        return NULL;
    struct socket *so = socreate(head->so_stack, 0);
    if (!so)
        return NULL;
    so->so_type = head->so_type;
    so->so_state = SS_NOFDREF; /* no descriptor until accept() */
    so->so_options = head->so_options & ~SO_ACCEPTCONN;
    so->so_snd.sb_hiwat = head->so_snd.sb_hiwat;
    so->so_rcv.sb_hiwat = head->so_rcv.sb_hiwat;
    if (tcp_attach(so->so_stack, so) < 0) {
        sofree(so);
        return NULL;
    }
    so->so_head = head;
    so->so_qnext = head->so_q0;
    head->so_q0 = so;
    head->so_q0len++;
    return so;
}
