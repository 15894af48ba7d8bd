/* TCP control block and statistics. */
#ifndef TAHOE_TCP_VAR_H
#define TAHOE_TCP_VAR_H

#include <stdint.h>

#include "tcp_fsm.h"
#include "tcp_seq.h"
#include "tcp_timer.h"

struct inpcb;
struct socket;
struct tahoe_stack;

/* An out-of-order segment waiting in the reassembly queue. */
struct tcpqent {
    struct tcpqent *next;
    tcp_seq seq;
    uint32_t len;
    uint32_t lead; /* octets of its first receive buffer before its data (tahoe_rcv_mbufs) */
    int fin;
    uint8_t data[];
};

struct tcpcb {
    struct tcpqent *seg_next; /* reassembly queue, sorted by sequence */
    int t_state;
    int t_timer[TCPT_NTIMERS]; /* slow ticks left; 0 = off */
    int t_rxtshift;            /* retransmissions so far (index into tcp_backoff) */
    int t_rxtcur;              /* current retransmission timeout, slow ticks */
    int t_dupacks;             /* consecutive duplicate ACKs */
    uint32_t t_maxseg;
    int t_force; /* set while the persist timer forces a byte out */
    unsigned t_flags;
    struct inpcb *t_inpcb;

    /* send sequence space */
    tcp_seq snd_una, snd_nxt, snd_up, snd_wl1, snd_wl2, iss;
    uint32_t snd_wnd;
    /* receive sequence space */
    uint32_t rcv_wnd;
    tcp_seq rcv_nxt, rcv_up, irs;
    tcp_seq rcv_adv; /* right edge of the window we advertised */
    tcp_seq snd_max; /* highest sequence sent */

    /* Tahoe congestion control */
    uint32_t snd_cwnd;
    uint32_t snd_ssthresh;

    /* Jacobson's RTT estimator, in slow ticks: srtt scaled by 8, rttvar by 4. */
    int t_idle;     /* slow ticks since the last segment arrived */
    int t_rtt;      /* slow ticks the timed segment has been out, 0 = not timing */
    tcp_seq t_rtseq;
    int t_srtt;
    int t_rttvar;
    uint32_t max_sndwnd; /* largest window the peer has offered */

    /* RFC 1323 window scaling (only when the stack enables it) */
    int snd_scale, rcv_scale, request_r_scale, requested_s_scale;

    uint32_t t_window_clamp; /* largest window we advertise, 0 = no clamp */
};

#define TF_ACKNOW 0x0001    /* send an ACK at once */
#define TF_DELACK 0x0002    /* an ACK is owed; tcp_fasttimo sends it */
#define TF_NODELAY 0x0004   /* TCP_NODELAY: no Nagle */
#define TF_NOOPT 0x0008     /* send no options */
#define TF_SENTFIN 0x0010
#define TF_REQ_SCALE 0x0020 /* we asked for / will answer window scaling */
#define TF_RCVD_SCALE 0x0040

/* Every decision the stack takes is counted here (BSD names, plus the papers' rule labels). */
struct tcpstat {
    uint64_t tcps_connattempt, tcps_accepts, tcps_connects, tcps_drops, tcps_conndrops;
    uint64_t tcps_closed, tcps_segstimed, tcps_rttupdated, tcps_delack, tcps_timeoutdrop;
    uint64_t tcps_rexmttimeo, tcps_persisttimeo, tcps_keeptimeo, tcps_keepprobe, tcps_keepdrops;

    uint64_t tcps_sndtotal, tcps_sndpack, tcps_sndbyte, tcps_sndrexmitpack, tcps_sndrexmitbyte;
    uint64_t tcps_sndacks, tcps_sndprobe, tcps_sndurg, tcps_sndwinup, tcps_sndctrl, tcps_sndrst;

    uint64_t tcps_rcvtotal, tcps_rcvpack, tcps_rcvbyte, tcps_rcvbadsum, tcps_rcvbadoff;
    uint64_t tcps_rcvshort, tcps_rcvduppack, tcps_rcvdupbyte, tcps_rcvpartduppack;
    uint64_t tcps_rcvpartdupbyte, tcps_rcvoopack, tcps_rcvoobyte, tcps_rcvpackafterwin;
    uint64_t tcps_rcvbyteafterwin, tcps_rcvafterclose, tcps_rcvwinprobe, tcps_rcvdupack;
    uint64_t tcps_rcvacktoomuch, tcps_rcvackpack, tcps_rcvackbyte, tcps_rcvwinupd;

    /* Why tcp_output sent each segment (exactly one reason per segment sent). */
    uint64_t tcps_out_s1;      /* S1: a full MSS */
    uint64_t tcps_out_s2;      /* S2: idle (all sent data acked) and this empties the buffer */
    uint64_t tcps_out_nodelay; /* S2 because TCP_NODELAY, with unacked data outstanding */
    uint64_t tcps_out_s3;      /* S3: L >= max_sndwnd / 2 */
    uint64_t tcps_out_rexmt;   /* retransmission (snd_nxt < snd_max) */
    uint64_t tcps_out_persist; /* persist-timer probe */
    uint64_t tcps_out_r1;      /* R1: window advanced >= 2*MSS and receive buffer empty */
    uint64_t tcps_out_r2;      /* R2: window advanced >= 35% of the receive buffer */
    uint64_t tcps_out_acknow;  /* an ACK owed at once (delayed-ACK tick, out of order, FIN) */
    uint64_t tcps_out_ctl;     /* SYN or RST */
    uint64_t tcps_out_fin;     /* FIN */
    uint64_t tcps_fastrexmt;   /* fast retransmits after tcprexmtthresh duplicate ACKs */
    /* New data sent while earlier data was still unacknowledged (comer94 Fig 8: a sender that
     * streams sends nearly all its segments so; one in lockstep waits for each ACK first). */
    uint64_t tcps_sndbehind;
};

/* Reason codes for tcp_output, reported to the trace hook. */
enum tcp_out_reason {
    TCPO_NONE,
    TCPO_S1,
    TCPO_S2,
    TCPO_NODELAY,
    TCPO_S3,
    TCPO_REXMT,
    TCPO_PERSIST,
    TCPO_R1,
    TCPO_R2,
    TCPO_ACKNOW,
    TCPO_CTL,
    TCPO_FIN,
};
const char *tcp_out_reason_name(int reason);

#define TCP_REXMTTHRESH 3 /* duplicate ACKs that trigger a fast retransmit */

/* tcp_subr.c */
struct tcpcb *tcp_newtcpcb(struct inpcb *inp);
struct tcpcb *tcp_close(struct tcpcb *tp);
struct tcpcb *tcp_drop(struct tcpcb *tp, int err);
void tcp_respond(struct tahoe_stack *st, struct tcpcb *tp, uint32_t src, uint32_t dst,
                 uint16_t sport, uint16_t dport, tcp_seq seq, tcp_seq ack, int flags);
/* tcp_input.c */
void tcp_input(struct tahoe_stack *st, const uint8_t *ip, size_t hlen, size_t len);
uint32_t tcp_mss(struct tcpcb *tp);
/* tcp_output.c */
int tcp_output(struct tcpcb *tp);
void tcp_setpersist(struct tcpcb *tp);
/* tcp_timer.c */
void tcp_fasttimo(struct tahoe_stack *st);
void tcp_slowtimo(struct tahoe_stack *st);
void tcp_canceltimers(struct tcpcb *tp);
/* tcp_usrreq.c */
int tcp_attach(struct tahoe_stack *st, struct socket *so);
int tcp_usr_connect(struct socket *so, uint32_t faddr, uint16_t fport);
int tcp_usr_listen(struct socket *so);
int tcp_usr_send(struct socket *so);
void tcp_usr_rcvd(struct socket *so);
int tcp_usr_shutdown(struct socket *so);
void tcp_usr_disconnect(struct socket *so);
void tcp_usr_abort(struct socket *so);
int tcp_usr_setopt(struct socket *so, int opt, int val);
int tcp_usr_getopt(struct socket *so, int opt, int *val);

#endif
