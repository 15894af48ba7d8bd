/* TCP connection states (RFC 793), numbered as in BSD so that order comparisons work. */
#ifndef TAHOE_TCP_FSM_H
#define TAHOE_TCP_FSM_H

#define TCP_NSTATES 11

#define TCPS_CLOSED 0
#define TCPS_LISTEN 1
#define TCPS_SYN_SENT 2
#define TCPS_SYN_RECEIVED 3
#define TCPS_ESTABLISHED 4
#define TCPS_CLOSE_WAIT 5
#define TCPS_FIN_WAIT_1 6
#define TCPS_CLOSING 7
#define TCPS_LAST_ACK 8
#define TCPS_FIN_WAIT_2 9
#define TCPS_TIME_WAIT 10

#define TCPS_HAVERCVDSYN(s) ((s) >= TCPS_SYN_RECEIVED)
/* States entered only after the peer's FIN arrived. */
#define TCPS_HAVERCVDFIN(s) \
    ((s) == TCPS_CLOSE_WAIT || (s) == TCPS_CLOSING || (s) == TCPS_LAST_ACK || \
     (s) == TCPS_TIME_WAIT)

/* Flags every segment carries in a given state (tcp_output starts from these). */
extern const unsigned char tcp_outflags[TCP_NSTATES];

#endif
