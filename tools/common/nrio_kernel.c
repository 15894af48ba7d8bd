/* The kernel backend of nrio.h: Linux non-blocking sockets, level-triggered epoll, a binary heap
 * of timers behind one timerfd (nanosecond resolution, unlike epoll_wait's milliseconds), and
 * CLOCK_MONOTONIC. */
#include "nrio.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

/* epoll_data carries the slot and its generation, so an event that is already queued for a
 * socket the application has since closed (and whose handle was reused) is dropped. */
#define KIO_TIMERFD_TAG UINT64_MAX

struct ksock {
    int fd; /* -1 when the slot is free */
    int proto;
    int events; /* NRIO_* the application watches; 0 = not in the epoll set */
    uint32_t gen;
    nrio_io_fn fn;
    void *arg;
};

struct ktimer {
    int64_t at;
    int id;
    uint64_t order; /* equal deadlines fire in the order they were armed */
    nrio_timer_fn fn;
    void *arg;
};

struct kio {
    struct nrio base;
    int epfd;
    int tfd;
    int64_t tfd_armed; /* deadline the timerfd is set to; -1 when disarmed */
    struct ksock *socks;
    int nsocks;
    struct ktimer *heap;
    int nheap, capheap;
    int next_id;
    uint64_t next_order;
    int stopped;
};

static struct kio *K(nrio *io) { return (struct kio *)io; }

static int64_t k_now_ns(nrio *io)
{
    (void)io;
    return nr_mono_ns();
}

static struct ksock *k_sock(struct kio *k, int sock)
{
    if (sock < 0 || sock >= k->nsocks || k->socks[sock].fd < 0)
        return NULL;
    return &k->socks[sock];
}

static int k_new_slot(struct kio *k, int fd, int proto)
{
    int i;
    for (i = 0; i < k->nsocks; i++)
        if (k->socks[i].fd < 0)
            break;
    if (i == k->nsocks) {
        int n = k->nsocks ? k->nsocks * 2 : 16;
        struct ksock *s = realloc(k->socks, (size_t)n * sizeof *s);
        if (!s)
            return -ENOMEM;
        for (int j = k->nsocks; j < n; j++)
            s[j] = (struct ksock){.fd = -1};
        k->socks = s;
        k->nsocks = n;
    }
    struct ksock *s = &k->socks[i];
    s->fd = fd;
    s->proto = proto;
    s->events = 0;
    s->gen++;
    s->fn = NULL;
    s->arg = NULL;
    return i;
}

static int set_int(int fd, int level, int name, int v)
{
    return setsockopt(fd, level, name, &v, sizeof v) == 0 ? 0 : -errno;
}

static int get_int(int fd, int level, int name, int *v)
{
    socklen_t len = sizeof *v;
    return getsockopt(fd, level, name, v, &len) == 0 ? 0 : -errno;
}

static int apply_opts(int fd, int proto, const struct nrio_sockopts *o)
{
    int rc = 0;
    if (o->sndbuf < 0 || o->rcvbuf < 0 || o->nodelay < 0 || o->nodelay > 1 ||
        o->window_clamp < 0 || o->reuseaddr < 0 || o->reuseaddr > 1)
        return -EINVAL;
    /* TCP-only options on a UDP socket are refused rather than silently ignored. */
    if (proto == NRIO_UDP && (o->nodelay || o->window_clamp))
        return -EINVAL;
    if (!rc && o->reuseaddr)
        rc = set_int(fd, SOL_SOCKET, SO_REUSEADDR, 1);
    if (!rc && o->sndbuf)
        rc = set_int(fd, SOL_SOCKET, SO_SNDBUF, o->sndbuf);
    if (!rc && o->rcvbuf)
        rc = set_int(fd, SOL_SOCKET, SO_RCVBUF, o->rcvbuf);
    if (!rc && o->nodelay)
        rc = set_int(fd, IPPROTO_TCP, TCP_NODELAY, 1);
    if (!rc && o->window_clamp)
        rc = set_int(fd, IPPROTO_TCP, TCP_WINDOW_CLAMP, o->window_clamp);
    return rc;
}

static int k_open(nrio *io, int proto, const struct nrio_sockopts *opts)
{
    struct kio *k = K(io);
    int type;
    if (proto == NRIO_TCP)
        type = SOCK_STREAM;
    else if (proto == NRIO_UDP)
        type = SOCK_DGRAM;
    else
        return -EINVAL;
    int fd = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    int rc = opts ? apply_opts(fd, proto, opts) : 0;
    if (rc == 0)
        rc = k_new_slot(k, fd, proto);
    if (rc < 0)
        close(fd); /* the error being reported is the earlier one */
    return rc;
}

static void to_sin(const struct nrio_addr *a, struct sockaddr_in *sin)
{
    memset(sin, 0, sizeof *sin);
    sin->sin_family = AF_INET;
    sin->sin_addr.s_addr = a->ip;
    sin->sin_port = htons(a->port);
}

static void from_sin(const struct sockaddr_in *sin, struct nrio_addr *a)
{
    a->ip = sin->sin_addr.s_addr;
    a->port = ntohs(sin->sin_port);
}

static int k_bind(nrio *io, int sock, const struct nrio_addr *addr)
{
    struct ksock *s = k_sock(K(io), sock);
    struct sockaddr_in sin;
    if (!s || !addr)
        return -EBADF;
    to_sin(addr, &sin);
    return bind(s->fd, (struct sockaddr *)&sin, sizeof sin) == 0 ? 0 : -errno;
}

static int k_listen(nrio *io, int sock, int backlog)
{
    struct ksock *s = k_sock(K(io), sock);
    if (!s)
        return -EBADF;
    return listen(s->fd, backlog) == 0 ? 0 : -errno;
}

static int k_accept(nrio *io, int sock, struct nrio_addr *peer)
{
    struct kio *k = K(io);
    struct ksock *s = k_sock(k, sock);
    struct sockaddr_in sin;
    socklen_t len = sizeof sin;
    if (!s)
        return -EBADF;
    int fd = accept4(s->fd, (struct sockaddr *)&sin, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
        return -errno;
    int h = k_new_slot(k, fd, NRIO_TCP);
    if (h < 0) {
        close(fd);
        return h;
    }
    if (peer)
        from_sin(&sin, peer);
    return h;
}

static int k_connect(nrio *io, int sock, const struct nrio_addr *addr)
{
    struct ksock *s = k_sock(K(io), sock);
    struct sockaddr_in sin;
    if (!s || !addr)
        return -EBADF;
    to_sin(addr, &sin);
    return connect(s->fd, (struct sockaddr *)&sin, sizeof sin) == 0 ? 0 : -errno;
}

static int k_connect_result(nrio *io, int sock)
{
    struct ksock *s = k_sock(K(io), sock);
    int err;
    if (!s)
        return -EBADF;
    int rc = get_int(s->fd, SOL_SOCKET, SO_ERROR, &err);
    return rc < 0 ? rc : -err;
}

static ssize_t k_send(nrio *io, int sock, const void *buf, size_t len)
{
    struct ksock *s = k_sock(K(io), sock);
    if (!s)
        return -EBADF;
    /* MSG_NOSIGNAL: a peer that went away is an EPIPE to handle, not a SIGPIPE that kills. */
    ssize_t n = send(s->fd, buf, len, MSG_NOSIGNAL);
    return n < 0 ? -errno : n;
}

static ssize_t k_recv(nrio *io, int sock, void *buf, size_t len)
{
    struct ksock *s = k_sock(K(io), sock);
    if (!s)
        return -EBADF;
    ssize_t n = recv(s->fd, buf, len, 0);
    return n < 0 ? -errno : n;
}

static ssize_t k_sendto(nrio *io, int sock, const void *buf, size_t len,
                        const struct nrio_addr *to)
{
    struct ksock *s = k_sock(K(io), sock);
    struct sockaddr_in sin;
    if (!s || !to)
        return -EBADF;
    to_sin(to, &sin);
    ssize_t n = sendto(s->fd, buf, len, MSG_NOSIGNAL, (struct sockaddr *)&sin, sizeof sin);
    return n < 0 ? -errno : n;
}

static ssize_t k_recvfrom(nrio *io, int sock, void *buf, size_t len, struct nrio_addr *from)
{
    struct ksock *s = k_sock(K(io), sock);
    struct sockaddr_in sin;
    socklen_t slen = sizeof sin;
    if (!s)
        return -EBADF;
    ssize_t n = recvfrom(s->fd, buf, len, 0, (struct sockaddr *)&sin, &slen);
    if (n < 0)
        return -errno;
    if (from)
        from_sin(&sin, from);
    return n;
}

static int k_shutdown_write(nrio *io, int sock)
{
    struct ksock *s = k_sock(K(io), sock);
    if (!s)
        return -EBADF;
    return shutdown(s->fd, SHUT_WR) == 0 ? 0 : -errno;
}

static int k_close(nrio *io, int sock)
{
    struct ksock *s = k_sock(K(io), sock);
    if (!s)
        return -EBADF;
    /* close() drops the fd from the epoll set; the slot is free whatever close() says, because
     * Linux releases the descriptor even when it reports an error. */
    int rc = close(s->fd) == 0 ? 0 : -errno;
    s->fd = -1;
    s->events = 0;
    s->fn = NULL;
    return rc;
}

static int k_getopts(nrio *io, int sock, struct nrio_sockopts *out)
{
    struct ksock *s = k_sock(K(io), sock);
    if (!s || !out)
        return -EBADF;
    memset(out, 0, sizeof *out);
    int rc = get_int(s->fd, SOL_SOCKET, SO_SNDBUF, &out->sndbuf);
    if (!rc)
        rc = get_int(s->fd, SOL_SOCKET, SO_RCVBUF, &out->rcvbuf);
    if (!rc)
        rc = get_int(s->fd, SOL_SOCKET, SO_REUSEADDR, &out->reuseaddr);
    if (!rc && s->proto == NRIO_TCP)
        rc = get_int(s->fd, IPPROTO_TCP, TCP_NODELAY, &out->nodelay);
    if (!rc && s->proto == NRIO_TCP)
        rc = get_int(s->fd, IPPROTO_TCP, TCP_WINDOW_CLAMP, &out->window_clamp);
    out->nodelay = out->nodelay != 0;
    out->reuseaddr = out->reuseaddr != 0;
    return rc;
}

static int k_setopts(nrio *io, int sock, const struct nrio_sockopts *opts)
{
    struct ksock *s = k_sock(K(io), sock);
    if (!s || !opts)
        return -EBADF;
    return apply_opts(s->fd, s->proto, opts);
}

static int k_local_addr(nrio *io, int sock, struct nrio_addr *out)
{
    struct ksock *s = k_sock(K(io), sock);
    struct sockaddr_in sin;
    socklen_t len = sizeof sin;
    if (!s || !out)
        return -EBADF;
    if (getsockname(s->fd, (struct sockaddr *)&sin, &len) != 0)
        return -errno;
    from_sin(&sin, out);
    return 0;
}

static int k_watch(nrio *io, int sock, int events, nrio_io_fn fn, void *arg)
{
    struct kio *k = K(io);
    struct ksock *s = k_sock(k, sock);
    if (!s)
        return -EBADF;
    if (events & ~(NRIO_IN | NRIO_OUT | NRIO_ERR) || (events && !fn))
        return -EINVAL;
    if (events == 0) {
        /* Deleting, not modifying to 0: epoll would still report errors and hang-ups. */
        if (s->events && epoll_ctl(k->epfd, EPOLL_CTL_DEL, s->fd, NULL) != 0)
            return -errno;
        s->events = 0;
        s->fn = NULL;
        return 0;
    }
    struct epoll_event ev = {0};
    ev.events = (events & NRIO_IN ? EPOLLIN | EPOLLRDHUP : 0) | (events & NRIO_OUT ? EPOLLOUT : 0);
    ev.data.u64 = (uint64_t)s->gen << 32 | (uint32_t)sock;
    if (epoll_ctl(k->epfd, s->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, s->fd, &ev) != 0)
        return -errno;
    s->events = events;
    s->fn = fn;
    s->arg = arg;
    return 0;
}

static int t_before(const struct ktimer *a, const struct ktimer *b)
{
    return a->at < b->at || (a->at == b->at && a->order < b->order);
}

static void heap_swap(struct kio *k, int i, int j)
{
    struct ktimer t = k->heap[i];
    k->heap[i] = k->heap[j];
    k->heap[j] = t;
}

static void heap_up(struct kio *k, int i)
{
    while (i > 0 && t_before(&k->heap[i], &k->heap[(i - 1) / 2])) {
        heap_swap(k, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void heap_down(struct kio *k, int i)
{
    for (;;) {
        int m = i, l = 2 * i + 1, r = 2 * i + 2;
        if (l < k->nheap && t_before(&k->heap[l], &k->heap[m]))
            m = l;
        if (r < k->nheap && t_before(&k->heap[r], &k->heap[m]))
            m = r;
        if (m == i)
            return;
        heap_swap(k, i, m);
        i = m;
    }
}

static void heap_remove(struct kio *k, int i)
{
    k->nheap--;
    if (i == k->nheap)
        return;
    k->heap[i] = k->heap[k->nheap];
    heap_up(k, i);
    heap_down(k, i);
}

static int k_timer_at(nrio *io, int64_t at_ns, nrio_timer_fn fn, void *arg)
{
    struct kio *k = K(io);
    if (!fn)
        return -EINVAL;
    if (k->nheap == k->capheap) {
        int n = k->capheap ? k->capheap * 2 : 16;
        struct ktimer *h = realloc(k->heap, (size_t)n * sizeof *h);
        if (!h)
            return -ENOMEM;
        k->heap = h;
        k->capheap = n;
    }
    /* Ids only grow, so cancelling a timer that already fired never hits a newer one; they wrap
     * after 2^31 timers, far beyond any run. */
    int id = k->next_id;
    k->next_id = k->next_id == INT32_MAX ? 1 : k->next_id + 1;
    k->heap[k->nheap] = (struct ktimer){at_ns, id, k->next_order++, fn, arg};
    heap_up(k, k->nheap++);
    return id;
}

static void k_timer_cancel(nrio *io, int id)
{
    struct kio *k = K(io);
    /* A linear search: tools keep a handful of timers, and it spares an id index. */
    for (int i = 0; i < k->nheap; i++) {
        if (k->heap[i].id == id) {
            heap_remove(k, i);
            return;
        }
    }
}

static void k_spin(nrio *io, long iterations)
{
    (void)io;
    /* volatile forces every increment to happen: the papers' `for (i = 0; i < 2000; i++);`
     * whose cost is the point, and which an optimiser would otherwise delete. */
    for (volatile long i = 0; i < iterations; i++)
        ;
}

/* Points the timerfd at the earliest timer, touching it only when that deadline changed. */
static int arm_timerfd(struct kio *k)
{
    int64_t at = k->nheap ? k->heap[0].at : -1;
    if (at == k->tfd_armed)
        return 0;
    struct itimerspec its = {0};
    if (at >= 0) {
        /* A zero it_value would disarm; a deadline at or before 0 is simply overdue. */
        int64_t t = at > 0 ? at : 1;
        its.it_value.tv_sec = t / 1000000000;
        its.it_value.tv_nsec = t % 1000000000;
    }
    if (timerfd_settime(k->tfd, TFD_TIMER_ABSTIME, &its, NULL) != 0)
        return -errno;
    k->tfd_armed = at;
    return 0;
}

static int drain_timerfd(struct kio *k)
{
    uint64_t expirations;
    if (read(k->tfd, &expirations, sizeof expirations) < 0 && errno != EAGAIN)
        return -errno;
    /* The expiry is consumed; the next arm_timerfd() must set it again even for the same time. */
    k->tfd_armed = -1;
    return 0;
}

static void fire_due_timers(struct kio *k)
{
    int64_t now = k_now_ns(&k->base);
    while (!k->stopped && k->nheap && k->heap[0].at <= now) {
        struct ktimer t = k->heap[0];
        heap_remove(k, 0);
        t.fn(t.arg);
    }
}

static void dispatch(struct kio *k, const struct epoll_event *ev)
{
    int sock = (int)(uint32_t)ev->data.u64;
    uint32_t gen = (uint32_t)(ev->data.u64 >> 32);
    struct ksock *s = k_sock(k, sock);
    if (!s || s->gen != gen || !s->events)
        return;
    int got = 0;
    if (ev->events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP))
        got |= NRIO_IN;
    if (ev->events & EPOLLOUT)
        got |= NRIO_OUT;
    if (ev->events & (EPOLLERR | EPOLLHUP))
        got |= NRIO_ERR;
    /* Errors are reported to any watcher; other events only when asked for. */
    got &= s->events | NRIO_ERR;
    if (got)
        s->fn(s->arg, sock, got);
}

static int k_run(nrio *io)
{
    struct kio *k = K(io);
    struct epoll_event evs[64];
    int rc = 0;
    while (!k->stopped) {
        fire_due_timers(k);
        if (k->stopped)
            break;
        rc = arm_timerfd(k);
        if (rc < 0)
            break;
        int n = epoll_wait(k->epfd, evs, 64, -1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
            break;
        }
        for (int i = 0; i < n && !k->stopped; i++) {
            if (evs[i].data.u64 == KIO_TIMERFD_TAG) {
                rc = drain_timerfd(k);
                if (rc < 0)
                    break;
            } else {
                dispatch(k, &evs[i]);
            }
        }
        if (rc < 0)
            break;
    }
    /* A later nrio_run() starts afresh. */
    k->stopped = 0;
    return rc;
}

static void k_stop(nrio *io) { K(io)->stopped = 1; }

static void k_destroy(nrio *io)
{
    struct kio *k = K(io);
    if (!k)
        return;
    /* Teardown: a failing close() leaves nothing to undo and no one to tell. */
    for (int i = 0; i < k->nsocks; i++)
        if (k->socks[i].fd >= 0)
            close(k->socks[i].fd);
    close(k->tfd);
    close(k->epfd);
    free(k->socks);
    free(k->heap);
    free(k);
}

static const struct nrio_ops kernel_ops = {
    .name = "kernel",
    .now_ns = k_now_ns,
    .open = k_open,
    .bind = k_bind,
    .listen = k_listen,
    .accept = k_accept,
    .connect = k_connect,
    .connect_result = k_connect_result,
    .send = k_send,
    .recv = k_recv,
    .sendto = k_sendto,
    .recvfrom = k_recvfrom,
    .shutdown_write = k_shutdown_write,
    .close = k_close,
    .getopts = k_getopts,
    .local_addr = k_local_addr,
    .watch = k_watch,
    .timer_at = k_timer_at,
    .timer_cancel = k_timer_cancel,
    .spin = k_spin,
    .run = k_run,
    .stop = k_stop,
    .destroy = k_destroy,
    .setopts = k_setopts,
};

nrio *nrio_kernel_new(void)
{
    struct kio *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->base.ops = &kernel_ops;
    k->next_id = 1;
    k->tfd_armed = -1;
    k->tfd = -1;
    k->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (k->epfd < 0)
        goto fail;
    k->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (k->tfd < 0)
        goto fail;
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = KIO_TIMERFD_TAG};
    if (epoll_ctl(k->epfd, EPOLL_CTL_ADD, k->tfd, &ev) != 0)
        goto fail;
    return &k->base;
fail:;
    int err = errno;
    if (k->tfd >= 0)
        close(k->tfd);
    if (k->epfd >= 0)
        close(k->epfd);
    free(k);
    errno = err;
    return NULL;
}

int nrio_parse_addr(const char *ip, uint16_t port, struct nrio_addr *out)
{
    struct in_addr a;
    if (!ip || !out || inet_pton(AF_INET, ip, &a) != 1)
        return -EINVAL;
    out->ip = a.s_addr;
    out->port = port;
    return 0;
}

const char *nrio_format_ip(uint32_t ip, char *buf, size_t len)
{
    const unsigned char *b = (const unsigned char *)&ip;
    snprintf(buf, len, "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
    return buf;
}
