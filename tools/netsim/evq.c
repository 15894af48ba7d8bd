#include "evq.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Within each heap, and among the slots and the superseded, events are of one kind (arrivals,
 * or not), so the order is time, then queueing. */
static int ev_before(const struct ns_ev *a, const struct ns_ev *b)
{
    return a->at_ns != b->at_ns ? a->at_ns < b->at_ns : a->seq < b->seq;
}

static size_t held(const struct ns_evq *q)
{
    size_t n = q->len + q->nstale;
    for (int s = 0; s < NS_SLOTS; s++)
        n += (size_t)q->pending[s];
    return n;
}

/* The host model's pages are this process's own addresses (vm_page.c), so a message buffer
 * that an application mallocs during a run spans the pages that earlier allocations leave it.
 * That a run's paging stays what it was, the queue grows its one block as the one heap of
 * every event did before the slots: doubling from 64 entries of 40 octets whenever the events
 * held, stale ones and slots too, fill it. */
#define ENTRY_BYTES 40
static_assert(sizeof(struct ns_ev) <= ENTRY_BYTES, "an event fits its entry");

/* Room for one more event held. */
static int reserve(struct ns_evq *q)
{
    if (held(q) < q->cap)
        return 0;
    size_t cap = q->cap ? 2 * q->cap : 64;
    struct ns_ev *items = realloc(q->items, cap * ENTRY_BYTES);
    if (!items)
        return -ENOMEM;
    memmove(items + cap - q->nstale, items + q->cap - q->nstale, q->nstale * sizeof *items);
    q->items = items;
    q->cap = cap;
    return 0;
}

#define STALE(q, i) ((q)->items[(q)->cap - 1 - (i)])

int ns_evq_push(struct ns_evq *q, struct ns_ev ev)
{
    if (reserve(q) < 0)
        return -ENOMEM;
    ev.seq = q->next_seq++;
    size_t i = q->len++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!ev_before(&ev, &q->items[parent]))
            break;
        q->items[i] = q->items[parent];
        i = parent;
    }
    q->items[i] = ev;
    return 0;
}

static void push_stale(struct ns_evq *q, struct ns_ev ev)
{
    size_t i = q->nstale++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!ev_before(&ev, &STALE(q, parent)))
            break;
        STALE(q, i) = STALE(q, parent);
        i = parent;
    }
    STALE(q, i) = ev;
}

int ns_evq_set(struct ns_evq *q, enum ns_slot slot, int64_t at_ns)
{
    if (q->pending[slot]) {
        q->pending[slot] = 0;
        push_stale(q, q->slot[slot]);
    }
    if (at_ns == INT64_MAX)
        return 0;
    if (reserve(q) < 0)
        return -ENOMEM;
    q->slot[slot] = (struct ns_ev){.at_ns = at_ns, .seq = q->next_seq++};
    q->pending[slot] = 1;
    return 0;
}

static void pop_arrival(struct ns_evq *q, struct ns_ev *out)
{
    *out = q->items[0];
    struct ns_ev last = q->items[--q->len];
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= q->len)
            break;
        if (child + 1 < q->len && ev_before(&q->items[child + 1], &q->items[child]))
            child++;
        if (!ev_before(&q->items[child], &last))
            break;
        q->items[i] = q->items[child];
        i = child;
    }
    if (q->len > 0)
        q->items[i] = last;
}

static struct ns_ev pop_stale(struct ns_evq *q)
{
    struct ns_ev top = STALE(q, 0);
    struct ns_ev last = STALE(q, --q->nstale);
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= q->nstale)
            break;
        if (child + 1 < q->nstale && ev_before(&STALE(q, child + 1), &STALE(q, child)))
            child++;
        if (!ev_before(&STALE(q, child), &last))
            break;
        STALE(q, i) = STALE(q, child);
        i = child;
    }
    if (q->nstale > 0)
        STALE(q, i) = last;
    return top;
}

/* The candidates are the arrivals' first, each pending slot and the first superseded event;
 * at one instant an arrival comes first, as the interrupt is taken before the process or timer
 * it races: a host whose CPU frees as a frame arrives takes the frame first, as the
 * emulation's drivers do. */
int ns_evq_pop(struct ns_evq *q, struct ns_ev *out)
{
    const struct ns_ev *best = NULL;
    int from = -1; /* a slot, NS_SLOTS for the superseded heap */
    for (int s = 0; s < NS_SLOTS; s++)
        if (q->pending[s] && (!best || ev_before(&q->slot[s], best))) {
            best = &q->slot[s];
            from = s;
        }
    if (q->nstale && (!best || ev_before(&STALE(q, 0), best))) {
        best = &STALE(q, 0);
        from = NS_SLOTS;
    }
    if (q->len && (!best || q->items[0].at_ns <= best->at_ns)) {
        pop_arrival(q, out);
        return 0;
    }
    if (!best)
        return -1;
    if (from == NS_SLOTS) {
        *out = pop_stale(q);
        out->type = NS_EV_STALE;
        return 0;
    }
    q->pending[from] = 0;
    *out = (struct ns_ev){.at_ns = best->at_ns, .seq = best->seq,
                          .type = from == NS_SLOT_MEDIUM ? NS_EV_MEDIUM : NS_EV_WAKE,
                          .host = from == NS_SLOT_WAKE_B};
    return 0;
}

void ns_evq_free(struct ns_evq *q)
{
    for (size_t i = 0; i < q->len; i++)
        free(q->items[i].pkt);
    free(q->items);
    *q = (struct ns_evq){0};
}
