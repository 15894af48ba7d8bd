/* TCP sequence numbers: 32-bit values compared modulo 2^32. */
#ifndef TAHOE_TCP_SEQ_H
#define TAHOE_TCP_SEQ_H

#include <stdint.h>

typedef uint32_t tcp_seq;

#define SEQ_LT(a, b) ((int32_t)((a) - (b)) < 0)
#define SEQ_LEQ(a, b) ((int32_t)((a) - (b)) <= 0)
#define SEQ_GT(a, b) ((int32_t)((a) - (b)) > 0)
#define SEQ_GEQ(a, b) ((int32_t)((a) - (b)) >= 0)

/* Start the receive side after the peer's SYN, and the send side at our ISS. */
#define tcp_rcvseqinit(tp) ((tp)->rcv_adv = (tp)->rcv_nxt = (tp)->irs + 1)
#define tcp_sendseqinit(tp) \
    ((tp)->snd_una = (tp)->snd_nxt = (tp)->snd_max = (tp)->snd_up = (tp)->iss)

/* The initial send sequence advances by this much per second (per slow tick / 2). */
#define TCP_ISSINCR (125 * 1024)

#endif
