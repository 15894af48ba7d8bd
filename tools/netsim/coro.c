#include "coro.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* The stacks and the applications on them use a few kilobytes; this leaves a wide margin. */
#define CORO_STACK (512 * 1024)

static struct ns_coro *starting;

/* makecontext passes int arguments only, so the coroutine is handed over in a static: it is
 * read at once, before anything else can start another. */
static void trampoline(void)
{
    struct ns_coro *c = starting;
    c->fn(c->arg);
    c->done = 1;
}

int ns_coro_init(struct ns_coro *c, void (*fn)(void *), void *arg)
{
    *c = (struct ns_coro){.fn = fn, .arg = arg};
    c->stack = malloc(CORO_STACK);
    if (!c->stack)
        return -ENOMEM;
    if (getcontext(&c->ctx) < 0) {
        int err = errno;
        free(c->stack);
        c->stack = NULL;
        return -err;
    }
    c->ctx.uc_stack.ss_sp = c->stack;
    c->ctx.uc_stack.ss_size = CORO_STACK;
    /* When fn returns, control goes back to the context that last resumed the coroutine. */
    c->ctx.uc_link = &c->caller;
    makecontext(&c->ctx, trampoline, 0);
    return 0;
}

int ns_coro_resume(struct ns_coro *c)
{
    if (c->done)
        return -ECHILD;
    starting = c;
    if (swapcontext(&c->caller, &c->ctx) < 0)
        return -errno;
    return 0;
}

int ns_coro_yield(struct ns_coro *c)
{
    if (swapcontext(&c->ctx, &c->caller) < 0)
        return -errno;
    return 0;
}

void ns_coro_free(struct ns_coro *c)
{
    free(c->stack);
    c->stack = NULL;
}
