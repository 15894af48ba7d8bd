/* echod's UDP reassembly bookkeeping: which datagrams of which message have arrived, when a
 * message is complete, and when an incomplete one has been quiet long enough to be echoed as it
 * is, so the client counts losses per datagram round trip. Pure logic: time comes in as now. */
#ifndef ECHOD_REASM_H
#define ECHOD_REASM_H

#include <stddef.h>
#include <stdint.h>

#include "nrio.h"

/* One received datagram, kept to be echoed; also the element of echod's send queue. */
struct reasm_dgram {
    struct reasm_dgram *next;
    struct nrio_addr peer;
    size_t len;
    uint8_t data[];
};

struct reasm_msg {
    struct reasm_msg *next;
    struct nrio_addr peer;
    uint32_t msg_id;
    int count, received;
    size_t bytes;
    int64_t last_ns; /* arrival of its latest datagram */
    struct reasm_dgram **slots;
};

#define REASM_DONE_MEMORY 64

struct reasm {
    struct reasm_msg *pending;
    int npending;
    int64_t quiet_ns;
    size_t max_message;
    int max_pending;
    /* Messages recently echoed, so a late duplicate does not start a new message. */
    struct {
        struct nrio_addr peer;
        uint32_t msg_id;
        int used;
    } done[REASM_DONE_MEMORY];
    int done_next;
};

enum reasm_status {
    REASM_STORED,    /* kept; the message is still incomplete */
    REASM_COMPLETE,  /* kept; *msg now holds every datagram */
    REASM_DUPLICATE, /* this index had already arrived */
    REASM_BAD,       /* no valid header, or disagrees with its message (count, size limit) */
    REASM_LATE,      /* belongs to a message already echoed */
    REASM_FULL,      /* too many messages pending */
    REASM_NOMEM,
};

void reasm_init(struct reasm *r, int64_t quiet_ns, size_t max_message, int max_pending);
enum reasm_status reasm_add(struct reasm *r, const struct nrio_addr *peer, const uint8_t *buf,
                            size_t len, int64_t now, struct reasm_msg **msg);
/* A pending message quiet since now - quiet_ns or longer, or NULL. */
struct reasm_msg *reasm_expired(struct reasm *r, int64_t now);
/* When the next pending message turns quiet, or -1 when none is pending. */
int64_t reasm_next_deadline(const struct reasm *r);
/* Removes m, appends its datagrams in index order to the list *head .. *tail, frees m and
 * remembers it as echoed. Returns the number of datagrams appended. */
int reasm_take(struct reasm *r, struct reasm_msg *m, struct reasm_dgram **head,
               struct reasm_dgram **tail);
void reasm_free(struct reasm *r);

#endif
