#include "pq.h"

#include <stdlib.h>

static int before(const struct le_pkt *a, const struct le_pkt *b)
{
    return a->release_ns < b->release_ns || (a->release_ns == b->release_ns && a->seq < b->seq);
}

int le_pq_push(struct le_pq *q, struct le_pkt *p)
{
    if (q->len == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 256;
        struct le_pkt **items = realloc(q->items, cap * sizeof *items);
        if (!items)
            return -1;
        q->items = items;
        q->cap = cap;
    }
    size_t i = q->len++;
    while (i > 0 && before(p, q->items[(i - 1) / 2])) {
        q->items[i] = q->items[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    q->items[i] = p;
    return 0;
}

struct le_pkt *le_pq_top(const struct le_pq *q)
{
    return q->len ? q->items[0] : NULL;
}

struct le_pkt *le_pq_pop(struct le_pq *q)
{
    if (!q->len)
        return NULL;
    struct le_pkt *top = q->items[0];
    struct le_pkt *last = q->items[--q->len];
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= q->len)
            break;
        if (child + 1 < q->len && before(q->items[child + 1], q->items[child]))
            child++;
        if (!before(q->items[child], last))
            break;
        q->items[i] = q->items[child];
        i = child;
    }
    if (q->len)
        q->items[i] = last;
    return top;
}

void le_pq_free(struct le_pq *q)
{
    free(q->items);
    *q = (struct le_pq){0};
}
