/* TCP_DEBUG records, as 4.3BSD's tcp_debug.h: where in the stack a connection's send state
 * was taken (td_act), told to the stack's debug hook (tahoe_config.debug). */
#ifndef TAHOE_TCP_DEBUG_H
#define TAHOE_TCP_DEBUG_H

struct tcpcb;

#define TA_INPUT 0   /* after a segment was taken in */
#define TA_OUTPUT 1  /* (not recorded: the segment trace covers output) */
#define TA_USER 2    /* after a timer ran out (4.3BSD: PRU_SLOWTIMO); req is the timer */
#define TA_RESPOND 3 /* (not recorded) */
#define TA_DROP 4    /* after a segment was dropped, e.g. the third duplicate ACK */

/* Tells the hook, if the stack has one, tp's state after act; ostate is the state before. */
void tcp_trace(int act, int ostate, const struct tcpcb *tp, int req);
const char *tcp_debug_act_name(int act);

#endif
