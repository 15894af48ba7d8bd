/* Growing a ring buffer (a FIFO kept in an array whose first element sits at some head slot):
 * the socket buffers, the disk cache's block queue and the shared medium's station queues. */
#ifndef NR_RING_H
#define NR_RING_H

#include <stddef.h>

/* Moves the len elements of elem octets each of the ring buf (cap slots, the first at slot
 * head) into a new array of newcap slots, in order from slot 0, and frees buf. Returns the new
 * array; NULL, with buf untouched, when memory runs out or newcap is below len. */
void *ring_move(void *buf, size_t elem, size_t head, size_t len, size_t cap, size_t newcap);

#endif
