/* glibc's fortified siglongjmp refuses to jump to a lower stack address outside a signal
 * stack, which a switch between two stacks may; the jumps here only return to live frames. */
#undef _FORTIFY_SOURCE
#include "coro.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* The stacks and the applications on them use a few kilobytes; this leaves a wide margin. */
#define CORO_STACK (512 * 1024)

static struct ns_coro *starting;

/* makecontext passes int arguments only, so the coroutine is handed over in a static: it is
 * read at once, before anything else can start another. fn's return goes back to the resumer
 * by the jump, never by returning from here. */
static void trampoline(void)
{
    struct ns_coro *c = starting;
    c->fn(c->arg);
    c->done = 1;
    siglongjmp(c->caller, 1);
}

int ns_coro_init(struct ns_coro *c, void (*fn)(void *), void *arg)
{
    *c = (struct ns_coro){.fn = fn, .arg = arg};
    c->stack = malloc(CORO_STACK);
    if (!c->stack)
        return -ENOMEM;
    if (getcontext(&c->start) < 0) {
        int err = errno;
        free(c->stack);
        c->stack = NULL;
        return -err;
    }
    c->start.uc_stack.ss_sp = c->stack;
    c->start.uc_stack.ss_size = CORO_STACK;
    c->start.uc_link = NULL;
    makecontext(&c->start, trampoline, 0);
    return 0;
}

int ns_coro_resume(struct ns_coro *c)
{
    if (c->done)
        return -ECHILD;
    if (sigsetjmp(c->caller, 0))
        return 0; /* the coroutine yielded or returned */
    if (c->started)
        siglongjmp(c->ctx, 1);
    c->started = 1;
    starting = c;
    setcontext(&c->start);
    /* setcontext returns only when it failed. */
    c->started = 0;
    return -errno;
}

int ns_coro_yield(struct ns_coro *c)
{
    if (!sigsetjmp(c->ctx, 0))
        siglongjmp(c->caller, 1);
    return 0;
}

void ns_coro_free(struct ns_coro *c)
{
    free(c->stack);
    c->stack = NULL;
}
