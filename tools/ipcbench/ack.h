/* ipcbench's UDP protocol (milliner): a message cut into segments, a 2-octet acknowledgement
 * after every k segments, the next k sent only after it, and the group re-sent when its
 * acknowledgement does not come within the retransmission timeout.
 *
 * A segment is one datagram of the chosen segment size: a 20-octet header (magic, phase, k,
 * message id, sequence number, message length, data octets per segment; big-endian) and then
 * message data. The
 * acknowledgement's 2 octets hold the group number modulo 2^14 and, in the top two bits, the
 * message id and phase, so a late acknowledgement of an earlier message or phase is told
 * apart. */
#ifndef IPCBENCH_ACK_H
#define IPCBENCH_ACK_H

#include <stddef.h>
#include <stdint.h>

#define IPC_HDR_LEN 20
#define IPC_ACK_LEN 2
#define IPC_MAGIC 0x4950u /* "IP" */
#define IPC_MAX_UNACK 255

enum ipc_phase { IPC_FORWARD = 0, IPC_ECHO = 1 };

struct ipc_seg {
    int phase, k;
    uint32_t msg_id, seq, msg_len, payload;
};

void ipc_seg_encode(const struct ipc_seg *s, uint8_t *p);
/* Returns 0, or -1 when p (len octets) is not a segment. */
int ipc_seg_decode(const uint8_t *p, size_t len, struct ipc_seg *s);

/* The ack schedule: segments per message, groups of k, the segments of group g. */
long ipc_segments(long long msg_len, long payload);
long ipc_groups(long nseg, int k);
long ipc_group_of(long seq, int k);
void ipc_group_range(long g, int k, long nseg, long *first, long *end);

uint16_t ipc_ack_encode(uint32_t msg_id, int phase, long group);
/* 1 when ack acknowledges group of (msg_id, phase). */
int ipc_ack_matches(uint16_t ack, uint32_t msg_id, int phase, long group);

/* The receiving end of one message and phase. */
struct ipc_rx {
    uint32_t msg_id;
    int phase, k;
    long long msg_len;
    long payload, nseg, ngroups, have_segs;
    uint8_t *msg;        /* the message as it arrives */
    uint8_t *have;       /* per segment */
    int *group_have;     /* segments held per group */
};
/* Returns 0, or -1 when memory ran out. */
int ipc_rx_init(struct ipc_rx *rx, uint32_t msg_id, int phase, int k, long long msg_len,
                long payload);
void ipc_rx_free(struct ipc_rx *rx);
/* Takes a segment's data. Returns the group to acknowledge (now complete, or complete before
 * and so a retransmission whose acknowledgement was lost), or -1 when nothing is to be sent. */
long ipc_rx_segment(struct ipc_rx *rx, long seq, const uint8_t *data, size_t len);
int ipc_rx_complete(const struct ipc_rx *rx);

/* The pattern every message carries, so that the receiver can check it too. */
uint8_t ipc_pattern(uint32_t msg_id, long long i);

#endif
