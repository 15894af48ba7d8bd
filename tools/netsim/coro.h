/* Coroutines: each simulated host's application runs on its own stack, so that the
 * application's blocking nrio_run() loop (ttcp's, pingx's, echod's) can pause inside the
 * backend's wait() while the scheduler runs the other host. Only one runs at a time, and the
 * scheduler decides which, so runs are deterministic. A coroutine starts on its stack through
 * ucontext once; every later switch is a sigsetjmp/siglongjmp pair that keeps the signal mask,
 * as swapcontext's two system calls a switch cost half a run's time. */
#ifndef NETSIM_CORO_H
#define NETSIM_CORO_H

#include <setjmp.h>
#include <ucontext.h>

struct ns_coro {
    ucontext_t start;      /* the first entry, onto the coroutine's stack */
    sigjmp_buf ctx, caller; /* where the coroutine paused, and where its resumer waits */
    void *stack;
    void (*fn)(void *arg);
    void *arg;
    int started; /* it has run since ns_coro_init */
    int done;    /* fn has returned */
};

/* Prepares fn(arg) to run on a fresh stack at the first ns_coro_resume. Returns 0 or -errno. */
int ns_coro_init(struct ns_coro *c, void (*fn)(void *), void *arg);
/* Runs the coroutine until it yields or returns. Returns 0 or -errno. */
int ns_coro_resume(struct ns_coro *c);
/* From inside the coroutine: back to whoever resumed it. Returns 0 or -errno. */
int ns_coro_yield(struct ns_coro *c);
void ns_coro_free(struct ns_coro *c);

#endif
