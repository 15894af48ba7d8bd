#include "evq.h"

#include <errno.h>
#include <stdlib.h>

/* At one instant a frame's arrival comes before a host's wake-up, as the interrupt is taken
 * before the process or timer it races: a host whose CPU frees as a frame arrives takes the
 * frame first, as the emulation's drivers do. */
static int before(const struct ns_ev *a, const struct ns_ev *b)
{
    if (a->at_ns != b->at_ns)
        return a->at_ns < b->at_ns;
    if (a->type != b->type)
        return a->type == NS_EV_ARRIVE;
    return a->seq < b->seq;
}

int ns_evq_push(struct ns_evq *q, struct ns_ev ev)
{
    if (q->len == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 64;
        struct ns_ev *items = realloc(q->items, cap * sizeof *items);
        if (!items)
            return -ENOMEM;
        q->items = items;
        q->cap = cap;
    }
    ev.seq = q->next_seq++;
    size_t i = q->len++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(&ev, &q->items[parent]))
            break;
        q->items[i] = q->items[parent];
        i = parent;
    }
    q->items[i] = ev;
    return 0;
}

int ns_evq_pop(struct ns_evq *q, struct ns_ev *out)
{
    if (q->len == 0)
        return -1;
    *out = q->items[0];
    struct ns_ev last = q->items[--q->len];
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= q->len)
            break;
        if (child + 1 < q->len && before(&q->items[child + 1], &q->items[child]))
            child++;
        if (!before(&q->items[child], &last))
            break;
        q->items[i] = q->items[child];
        i = child;
    }
    if (q->len > 0)
        q->items[i] = last;
    return 0;
}

void ns_evq_free(struct ns_evq *q)
{
    for (size_t i = 0; i < q->len; i++)
        free(q->items[i].pkt);
    free(q->items);
    *q = (struct ns_evq){0};
}
