/* nrio on a tahoe stack: sockets are the stack's descriptors, readiness is tahoe_poll
 * (level-triggered, as the kernel backend's epoll), and the application runs only while the
 * host CPU is free, so its work and the stack's share one processor. */
#include "nrio_tahoe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disk.h"
#include "vm_page.h"

struct ntwatch {
    int events;
    nrio_io_fn fn;
    void *arg;
};

struct nttimer {
    int id;
    int64_t at;
    nrio_timer_fn fn;
    void *arg;
};

struct ntio {
    nrio base;
    struct tahoe_stack *st;
    struct nrio_tahoe_env env;
    struct ntwatch *watch;
    int nwatch;
    struct nttimer *timers;
    int ntimers, captimers, next_id;
    int stopped;
    struct tahoe_vm vm; /* the application's pages */
    struct tahoe_disk disk; /* the host's disk, when its model has one */
    struct ufs_mount ufs;
    struct nrio_counts counted; /* the counts at the last nrio_counts_since */
    int64_t print_ns;   /* the host model's cost of one printed line */
    int64_t tick_ns;    /* the host's clock interrupt period; 0: alarms fire when asked */
    int64_t boot_ns;    /* a clock interrupt came at boot, as did the stack's first tick */
    /* The receive path: asleep, the process waits for a socket or a timer with nothing to do;
     * woken, it may run from runnable_at and first pays the context switch (switch_due). */
    int asleep;
    int switch_due;
    int64_t runnable_at;
};

#define NT(io) ((struct ntio *)(io))

static int64_t nt_now(nrio *io)
{
    struct ntio *t = NT(io);
    int64_t now = t->env.now_ns(t->env.ctx);
    int64_t busy = tahoe_cpu_free_ns(t->st);
    /* The application sees its own CPU time pass. */
    return busy > now ? busy : now;
}

static void to_tahoe(const struct nrio_addr *a, struct tahoe_addr *out)
{
    out->ip = a->ip;
    out->port = a->port;
}

/* Applies the non-zero fields of o; tcp says whether the TCP ones apply. */
static int apply_opts(struct tahoe_stack *st, int s, int tcp, const struct nrio_sockopts *o)
{
    int err = 0;
    if (!err && o->sndbuf)
        err = tahoe_setsockopt(st, s, TAHOE_SO_SNDBUF, o->sndbuf);
    if (!err && o->rcvbuf)
        err = tahoe_setsockopt(st, s, TAHOE_SO_RCVBUF, o->rcvbuf);
    if (!err && o->reuseaddr)
        err = tahoe_setsockopt(st, s, TAHOE_SO_REUSEADDR, 1);
    if (!err && o->nodelay && tcp)
        err = tahoe_setsockopt(st, s, TAHOE_TCP_NODELAY, 1);
    if (!err && o->window_clamp && tcp)
        err = tahoe_setsockopt(st, s, TAHOE_TCP_WINDOW_CLAMP, o->window_clamp);
    return err;
}

static int nt_open(nrio *io, int proto, const struct nrio_sockopts *o)
{
    struct tahoe_stack *st = NT(io)->st;
    int type = proto == NRIO_TCP ? TAHOE_SOCK_STREAM : proto == NRIO_UDP ? TAHOE_SOCK_DGRAM : -1;
    if (type < 0)
        return -EPROTONOSUPPORT;
    int s = tahoe_socket(st, type);
    if (s < 0 || !o)
        return s;
    int err = apply_opts(st, s, type == TAHOE_SOCK_STREAM, o);
    if (err) {
        tahoe_close(st, s);
        return err;
    }
    return s;
}

static int nt_bind(nrio *io, int s, const struct nrio_addr *a)
{
    struct tahoe_addr ta;
    to_tahoe(a, &ta);
    return tahoe_bind(NT(io)->st, s, &ta);
}

static int nt_listen(nrio *io, int s, int backlog) { return tahoe_listen(NT(io)->st, s, backlog); }

static int nt_accept(nrio *io, int s, struct nrio_addr *peer)
{
    struct tahoe_addr ta;
    int r = tahoe_accept(NT(io)->st, s, &ta);
    if (r >= 0 && peer) {
        peer->ip = ta.ip;
        peer->port = ta.port;
    }
    return r;
}

static int nt_connect(nrio *io, int s, const struct nrio_addr *a)
{
    struct tahoe_addr ta;
    to_tahoe(a, &ta);
    return tahoe_connect(NT(io)->st, s, &ta);
}

static int nt_connect_result(nrio *io, int s)
{
    struct tahoe_stack *st = NT(io)->st;
    int ev = tahoe_poll(st, s);
    if (ev < 0)
        return ev;
    if (ev & TAHOE_POLLERR) {
        int err = 0;
        tahoe_getsockopt(st, s, TAHOE_SO_ERROR, &err);
        return err ? -err : -ECONNREFUSED;
    }
    return (ev & TAHOE_CONNECTED) ? 0 : -EINPROGRESS;
}

/* The process sleeps until its disk I/O ends at done, and is switched back to then. */
static void disk_sleep(struct ntio *t, int64_t done)
{
    int64_t at = nt_now(&t->base);
    if (done <= at)
        return;
    t->disk.st.wait_ns += done - at;
    tahoe_proc_sleep(t->st, done);
    tahoe_switch_to(t->st);
}

static void nt_touch(nrio *io, const void *p, size_t len, int write)
{
    struct ntio *t = NT(io);
    if (t->disk.present) {
        int64_t done = vm_touch_disk(&t->vm, p, len, write, &t->disk, nt_now(io));
        if (done > 0)
            disk_sleep(t, done);
        return;
    }
    int64_t ns = vm_touch(&t->vm, p, len, write);
    if (ns > 0)
        tahoe_cpu_charge(t->st, ns);
}

/* A read or write system call on a file: on a host with a disk it costs the call and the copy
 * on the CPU, and the process sleeps while the file system waits for the drive. A device such
 * as /dev/null costs the call alone. */
static ssize_t file_io(struct ntio *t, int fd, void *buf, size_t len, off_t off, int write)
{
    ssize_t r = write ? pwrite(fd, buf, len, off) : pread(fd, buf, len, off);
    if (r < 0)
        return -errno;
    if (!t->disk.present)
        return r;
    struct ufs_file *f = ufs_lookup(&t->ufs, fd);
    if (!f) {
        tahoe_cpu_charge(t->st, tahoe_call_ns(t->st));
        return r;
    }
    int64_t at = nt_now(&t->base);
    int64_t done = write ? ufs_write(&t->ufs, f, at, off, r) : ufs_read(&t->ufs, f, at, off, r);
    if (done < 0)
        return -ENOMEM;
    /* A write copies into the cache at once and may then have to wait; a read waits for the
     * drive, then copies out. */
    if (write) {
        tahoe_cpu_charge(t->st, tahoe_call_ns(t->st) + tahoe_copy_ns(t->st, (size_t)r));
        disk_sleep(t, done);
    } else {
        tahoe_cpu_charge(t->st, tahoe_call_ns(t->st));
        disk_sleep(t, done);
        tahoe_cpu_charge(t->st, tahoe_copy_ns(t->st, (size_t)r));
    }
    nt_touch(&t->base, buf, (size_t)r, !write);
    return r;
}

static int nt_counts_since(nrio *io, struct nrio_counts *out)
{
    struct ntio *t = NT(io);
    struct nrio_counts now = {t->vm.st.v_pgin, t->vm.st.v_pgout, t->disk.st.ios,
                              t->disk.st.busy_ns, t->disk.st.wait_ns};
    *out = (struct nrio_counts){now.pageins - t->counted.pageins,
                                now.pageouts - t->counted.pageouts,
                                now.disk_ios - t->counted.disk_ios,
                                now.disk_busy_ns - t->counted.disk_busy_ns,
                                now.disk_wait_ns - t->counted.disk_wait_ns};
    t->counted = now;
    return 0;
}

static ssize_t nt_file_read(nrio *io, int fd, void *buf, size_t len, off_t off)
{
    return file_io(NT(io), fd, buf, len, off, 0);
}

static ssize_t nt_file_write(nrio *io, int fd, const void *buf, size_t len, off_t off)
{
    return file_io(NT(io), fd, (void *)buf, len, off, 1);
}

/* The socket calls copy from and to the application's pages, which may have to be paged in. */
static ssize_t touched(nrio *io, const void *b, ssize_t r, int write)
{
    if (r > 0)
        nt_touch(io, b, (size_t)r, write);
    return r;
}

static ssize_t nt_send(nrio *io, int s, const void *b, size_t n)
{
    return touched(io, b, tahoe_send(NT(io)->st, s, b, n), 0);
}

static ssize_t nt_recv(nrio *io, int s, void *b, size_t n)
{
    return touched(io, b, tahoe_recv(NT(io)->st, s, b, n), 1);
}

static ssize_t nt_sendto(nrio *io, int s, const void *b, size_t n, const struct nrio_addr *to)
{
    struct tahoe_addr ta;
    if (!to)
        return nt_send(io, s, b, n);
    to_tahoe(to, &ta);
    return touched(io, b, tahoe_sendto(NT(io)->st, s, b, n, &ta), 0);
}

static ssize_t nt_recvfrom(nrio *io, int s, void *b, size_t n, struct nrio_addr *from)
{
    struct tahoe_addr ta = { 0, 0 };
    ssize_t r = tahoe_recvfrom(NT(io)->st, s, b, n, &ta);
    if (r >= 0 && from) {
        from->ip = ta.ip;
        from->port = ta.port;
    }
    return touched(io, b, r, 1);
}

static int nt_shutdown_write(nrio *io, int s) { return tahoe_shutdown(NT(io)->st, s); }

static int nt_close(nrio *io, int s)
{
    struct ntio *t = NT(io);
    if (s >= 0 && s < t->nwatch)
        t->watch[s] = (struct ntwatch){ 0, NULL, NULL };
    return tahoe_close(t->st, s);
}

static int nt_getopts(nrio *io, int s, struct nrio_sockopts *o)
{
    struct tahoe_stack *st = NT(io)->st;
    memset(o, 0, sizeof *o);
    int err = tahoe_getsockopt(st, s, TAHOE_SO_SNDBUF, &o->sndbuf);
    if (err < 0)
        return err;
    tahoe_getsockopt(st, s, TAHOE_SO_RCVBUF, &o->rcvbuf);
    tahoe_getsockopt(st, s, TAHOE_SO_REUSEADDR, &o->reuseaddr);
    tahoe_getsockopt(st, s, TAHOE_TCP_NODELAY, &o->nodelay);
    tahoe_getsockopt(st, s, TAHOE_TCP_WINDOW_CLAMP, &o->window_clamp);
    return 0;
}

/* On an open socket, e.g. TCP_NODELAY on an accepted connection (echod does that when
 * pingx asks). The stack refuses a TCP option on a UDP socket (-ENOPROTOOPT). */
static int nt_setopts(nrio *io, int s, const struct nrio_sockopts *o)
{
    if (!o)
        return -EINVAL;
    return apply_opts(NT(io)->st, s, 1, o);
}

static int nt_local_addr(nrio *io, int s, struct nrio_addr *out)
{
    struct tahoe_addr ta;
    int r = tahoe_getsockname(NT(io)->st, s, &ta);
    if (r == 0) {
        out->ip = ta.ip;
        out->port = ta.port;
    }
    return r;
}

static int nt_watch(nrio *io, int s, int events, nrio_io_fn fn, void *arg)
{
    struct ntio *t = NT(io);
    if (s < 0 || tahoe_poll(t->st, s) < 0)
        return -EBADF;
    if (s >= t->nwatch) {
        int n = s + 16;
        struct ntwatch *w = realloc(t->watch, (size_t)n * sizeof *w);
        if (!w)
            return -ENOMEM;
        memset(w + t->nwatch, 0, (size_t)(n - t->nwatch) * sizeof *w);
        t->watch = w;
        t->nwatch = n;
    }
    t->watch[s] = events ? (struct ntwatch){ events, fn, arg } : (struct ntwatch){ 0, NULL, NULL };
    return 0;
}

static int nt_timer_at(nrio *io, int64_t at, nrio_timer_fn fn, void *arg)
{
    struct ntio *t = NT(io);
    if (t->ntimers == t->captimers) {
        int n = t->captimers ? t->captimers * 2 : 16;
        struct nttimer *tm = realloc(t->timers, (size_t)n * sizeof *tm);
        if (!tm)
            return -ENOMEM;
        t->timers = tm;
        t->captimers = n;
    }
    int id = ++t->next_id;
    t->timers[t->ntimers++] = (struct nttimer){ id, at, fn, arg };
    return id;
}

/* SunOS 4 (liu95db's hosts) ran callouts, and so realitexpire and the SIGALRM it posts, only
 * from the clock interrupt, hz times a second (4.3BSD conf/param.c: HZ 100). setitimer adds
 * the requested time to `time' and hzto() turns the difference into clock ticks: an alarm can
 * fire only on a tick, never before its time. ASSUMPTION: it fires on the first tick after its
 * due time, one tick later when the due time is itself a tick. 4.3BSD-Tahoe's hzto truncates
 * against a `time' that hardclock advances a whole tick at a time, so an alarm(1) reset in its
 * handler would come back exactly 1 s later; later BSD hzto()s round up and add one tick "to
 * allow for the current tick to expire" (FreeBSD kern_clock.c, 1995), which makes it 1 s and
 * one tick. SunOS 4.1.3's source is not public; liu95db Sec 3.2.2 measured its SIGALRM handler
 * about 10 ms late each time, one tick at hz = 100, which is the rule here. */
static int nt_alarm_at(nrio *io, int64_t at, nrio_timer_fn fn, void *arg)
{
    struct ntio *t = NT(io);
    if (t->tick_ns > 0) {
        int64_t since = at - t->boot_ns;
        int64_t ticks = since / t->tick_ns - (since % t->tick_ns < 0);
        at = t->boot_ns + (ticks + 1) * t->tick_ns;
    }
    return nt_timer_at(io, at, fn, arg);
}

static void nt_timer_cancel(nrio *io, int id)
{
    struct ntio *t = NT(io);
    for (int i = 0; i < t->ntimers; i++) {
        if (t->timers[i].id == id) {
            t->timers[i] = t->timers[--t->ntimers];
            return;
        }
    }
}

static void nt_spin(nrio *io, long iterations)
{
    struct ntio *t = NT(io);
    tahoe_cpu_charge(t->st, (int64_t)iterations * t->env.spin_ps_per_iteration / 1000);
}

static void nt_printed(nrio *io)
{
    struct ntio *t = NT(io);
    tahoe_cpu_charge(t->st, t->print_ns);
}

static int earliest_timer(const struct ntio *t)
{
    int best = -1;
    for (int i = 0; i < t->ntimers; i++)
        if (best < 0 || t->timers[i].at < t->timers[best].at)
            best = i;
    return best;
}

/* What a ready socket offers its watcher (NRIO_*), 0 when nothing. */
static int ready_events(struct ntio *t, int s)
{
    struct ntwatch w = t->watch[s];
    if (!w.events)
        return 0;
    int ev = tahoe_poll(t->st, s);
    if (ev < 0)
        return 0;
    int got = (ev & TAHOE_POLLIN ? NRIO_IN : 0) | (ev & TAHOE_POLLOUT ? NRIO_OUT : 0) |
              (ev & TAHOE_POLLERR ? NRIO_ERR | NRIO_OUT : 0);
    return got & (w.events | NRIO_ERR);
}

/* Whether a timer is due or a socket ready: what would wake a sleeping process. */
static int has_work(struct ntio *t, int64_t now)
{
    int i = earliest_timer(t);
    if (i >= 0 && t->timers[i].at <= now)
        return 1;
    for (int s = 0; s < t->nwatch; s++)
        if (ready_events(t, s))
            return 1;
    return 0;
}

/* One due timer or one ready socket gets its callback; returns 1 if something ran. */
static int dispatch_one(struct ntio *t, int64_t now)
{
    int i = earliest_timer(t);
    if (i >= 0 && t->timers[i].at <= now) {
        struct nttimer tm = t->timers[i];
        t->timers[i] = t->timers[--t->ntimers];
        tm.fn(tm.arg);
        return 1;
    }
    int ran = 0;
    for (int s = 0; s < t->nwatch && !t->stopped; s++) {
        int got = ready_events(t, s);
        if (got) {
            t->watch[s].fn(t->watch[s].arg, s, got);
            ran = 1;
        }
    }
    return ran;
}

/* The process may run now: not asleep, the CPU free of earlier work, and, when it slept, woken
 * (after the interrupt work queued before its wakeup and the wakeup's own) and switched to.
 * Returns 0 when it may, else the time to wait for. */
static int64_t blocked_until(struct ntio *t, int64_t now, int64_t busy)
{
    if (t->asleep && has_work(t, now)) {
        t->asleep = 0;
        t->runnable_at = tahoe_wakeup(t->st);
        t->switch_due = 1;
        busy = tahoe_cpu_free_ns(t->st);
    }
    if (t->runnable_at > now)
        return t->runnable_at > busy ? t->runnable_at : busy;
    if (t->switch_due && busy <= now) {
        t->switch_due = 0;
        tahoe_switch_to(t->st);
        busy = tahoe_cpu_free_ns(t->st);
    }
    return busy > now ? busy : 0;
}

static int nt_run(nrio *io)
{
    struct ntio *t = NT(io);
    t->stopped = 0;
    while (!t->stopped) {
        int64_t now = t->env.now_ns(t->env.ctx);
        tahoe_clock(t->st, now);
        int64_t busy = tahoe_cpu_free_ns(t->st);
        int64_t until = t->asleep || t->switch_due || t->runnable_at > now
                            ? blocked_until(t, now, busy)
                            : (busy > now ? busy : 0);
        /* The application runs only while the CPU is not busy with earlier work. */
        if (!until && dispatch_one(t, now))
            continue;
        if (t->stopped)
            break;
        /* Nothing to do: the process sleeps until a socket or a timer wakes it. */
        if (!until)
            t->asleep = 1;
        int64_t next = tahoe_next_deadline(t->st);
        int i = earliest_timer(t);
        if (i >= 0 && t->timers[i].at < next)
            next = t->timers[i].at;
        if (until > now && until < next)
            next = until;
        /* Only a timer can be due already, and then the CPU is busy: nothing runs before it
         * is free. */
        if (next <= now)
            next = until > now ? until : now;
        int err = t->env.wait(t->env.ctx, next);
        if (err < 0)
            return err;
    }
    return 0;
}

static void nt_stop(nrio *io) { NT(io)->stopped = 1; }

static void nt_destroy(nrio *io)
{
    struct ntio *t = NT(io);
    struct nrio_tahoe_env env = t->env;
    tahoe_free(t->st);
    vm_free(&t->vm);
    ufs_free(&t->ufs);
    free(t->watch);
    free(t->timers);
    free(t);
    if (env.destroy)
        env.destroy(env.ctx);
}

static void nt_process_begins(nrio *io) { tahoe_process_begins(NT(io)->st); }

static const struct nrio_ops nt_ops = {
    .name = "tahoe",
    .now_ns = nt_now,
    .open = nt_open,
    .bind = nt_bind,
    .listen = nt_listen,
    .accept = nt_accept,
    .connect = nt_connect,
    .connect_result = nt_connect_result,
    .send = nt_send,
    .recv = nt_recv,
    .sendto = nt_sendto,
    .recvfrom = nt_recvfrom,
    .shutdown_write = nt_shutdown_write,
    .close = nt_close,
    .getopts = nt_getopts,
    .local_addr = nt_local_addr,
    .watch = nt_watch,
    .timer_at = nt_timer_at,
    .timer_cancel = nt_timer_cancel,
    .spin = nt_spin,
    .run = nt_run,
    .stop = nt_stop,
    .destroy = nt_destroy,
    .setopts = nt_setopts,
    .touch = nt_touch,
    .printed = nt_printed,
    .alarm_at = nt_alarm_at,
    .file_read = nt_file_read,
    .file_write = nt_file_write,
    .counts_since = nt_counts_since,
    .process_begins = nt_process_begins,
};

nrio *nrio_tahoe_new(const struct tahoe_config *cfg, const struct nrio_tahoe_env *env)
{
    if (!env || !env->now_ns || !env->wait)
        return NULL;
    struct ntio *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->st = tahoe_new(cfg);
    if (!t->st) {
        free(t);
        return NULL;
    }
    t->base.ops = &nt_ops;
    t->env = *env;
    const struct tahoe_hostcost *c = &cfg->cost;
    /* The modelled host's own loop, when its model says, not the caller's stand-in. */
    if (c->spin_ps > 0)
        t->env.spin_ps_per_iteration = c->spin_ps;
    t->print_ns = c->print_ns;
    t->tick_ns = c->clock_hz > 0 ? 1000000000LL / c->clock_hz : 0;
    t->boot_ns = cfg->boot_ns;
    t->runnable_at = INT64_MIN;
    disk_init(&t->disk, c, cfg->jitter_seed, cfg->jitter_stream);
    ufs_init(&t->ufs, &t->disk, c);
    vm_init(&t->vm, c->ram_bytes ? (long)((c->ram_bytes - c->resident_bytes) / c->page_size) : 0,
            (long)c->page_size, c->page_in_ns, c->page_out_ns);
    vm_set_kluster(&t->vm, (long)c->swap_kluster_bytes);
    return &t->base;
}

void nrio_tahoe_input(nrio *io, const uint8_t *pkt, size_t len, int64_t arrival_ns)
{
    struct ntio *t = NT(io);
    tahoe_clock(t->st, arrival_ns);
    tahoe_ip_input(t->st, pkt, len);
}

struct tahoe_stack *nrio_tahoe_stack(nrio *io) { return NT(io)->st; }
const struct vmstat *nrio_tahoe_vmstat(nrio *io) { return &NT(io)->vm.st; }
const struct tahoe_diskstat *nrio_tahoe_diskstat(nrio *io) { return &NT(io)->disk.st; }
