#include "ring.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *ring_move(void *buf, size_t elem, size_t head, size_t len, size_t cap, size_t newcap)
{
    if (elem == 0 || newcap < len || newcap > SIZE_MAX / elem)
        return NULL;
    unsigned char *moved = malloc(newcap * elem);
    if (!moved)
        return NULL;
    if (len > 0) {
        const unsigned char *old = buf;
        size_t first = cap - head < len ? cap - head : len; /* up to the array's end */
        memcpy(moved, old + head * elem, first * elem);
        memcpy(moved + first * elem, old, (len - first) * elem);
    }
    free(buf);
    return moved;
}
