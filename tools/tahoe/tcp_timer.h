/* TCP timers, counted in slow ticks (tcp_slowtimo, PR_SLOWHZ per second), as in 4.3BSD-Tahoe.
 * The delayed ACK is not a timer here: it is the TF_DELACK flag that tcp_fasttimo (PR_FASTHZ per
 * second) turns into an ACK. */
#ifndef TAHOE_TCP_TIMER_H
#define TAHOE_TCP_TIMER_H

#define TCPT_NTIMERS 4
#define TCPT_REXMT 0   /* retransmission */
#define TCPT_PERSIST 1 /* probe a zero window */
#define TCPT_KEEP 2    /* connection establishment limit, keep-alive */
#define TCPT_2MSL 3    /* TIME_WAIT, FIN_WAIT_2 idle limit */

#define PR_SLOWHZ 2 /* tcp_slowtimo: every 500 ms */
#define PR_FASTHZ 5 /* tcp_fasttimo: every 200 ms */

#define TCPTV_MSL (30 * PR_SLOWHZ)      /* maximum segment lifetime (4.3BSD-Tahoe) */
#define TCPTV_SRTTBASE 0                /* srtt 0 means "no estimate yet" */
#define TCPTV_SRTTDFLT (3 * PR_SLOWHZ)  /* assumed RTT before the first sample */
#define TCPTV_PERSMIN (5 * PR_SLOWHZ)
#define TCPTV_PERSMAX (60 * PR_SLOWHZ)
/* Keep-alive as 4.3BSD-Tahoe set it (tcp_timer.h 7.5): a connection must be set up within
 * KEEP_INIT; an idle one with SO_KEEPALIVE is probed after KEEP_IDLE, then every KEEPINTVL, and
 * dropped after KEEPCNT probes go unanswered. */
#define TCPTV_KEEP_INIT (75 * PR_SLOWHZ)
#define TCPTV_KEEP_IDLE (120 * 60 * PR_SLOWHZ)
#define TCPTV_KEEPINTVL (75 * PR_SLOWHZ)
#define TCPTV_KEEPCNT 8
#define TCPTV_MAXIDLE (TCPTV_KEEPCNT * TCPTV_KEEPINTVL)
#define TCPTV_MIN (1 * PR_SLOWHZ)       /* smallest retransmission timeout */
#define TCPTV_REXMTMAX (64 * PR_SLOWHZ) /* largest retransmission timeout */

#define TCP_MAXRXTSHIFT 12 /* give up after this many retransmissions */

/* Exponential backoff multipliers indexed by t_rxtshift. */
extern const int tcp_backoff[TCP_MAXRXTSHIFT + 1];

#define TCPT_RANGESET(tv, value, tvmin, tvmax) \
    do {                                       \
        (tv) = (value);                        \
        if ((tv) < (tvmin))                    \
            (tv) = (tvmin);                    \
        else if ((tv) > (tvmax))               \
            (tv) = (tvmax);                    \
    } while (0)

#endif
