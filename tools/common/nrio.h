/* nrio: the one interface between a tool's logic and the world.
 *
 * A tool never calls the clock, a socket or poll() directly. It opens sockets, arms timers and
 * registers callbacks through an nrio backend, then returns to the backend's loop. The same
 * application code therefore runs on
 *   - the kernel backend (Linux sockets, epoll, CLOCK_MONOTONIC),
 *   - the Tahoe backend (the project's user-space 4.3BSD-Tahoe stack on a real interface),
 *   - the sim backend (the Tahoe stack and link model in one process, virtual time).
 *
 * Conventions: every call returns a non-negative value on success and a negative errno on
 * failure (-EAGAIN when a non-blocking operation would block). Socket handles are small
 * non-negative integers owned by the backend. Callbacks run from nrio_run() only. */
#ifndef NRIO_H
#define NRIO_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

typedef struct nrio nrio;

enum nrio_proto { NRIO_TCP = 1, NRIO_UDP = 2 };
enum nrio_event { NRIO_IN = 1, NRIO_OUT = 2, NRIO_ERR = 4 };

struct nrio_addr {
    uint32_t ip;   /* IPv4, network byte order */
    uint16_t port; /* host byte order */
};

/* Socket options applied at open time. Zero means "the stack's default". Backends report the
 * values actually in force through getopts (Linux doubles SO_RCVBUF, for example). */
struct nrio_sockopts {
    int sndbuf;       /* octets */
    int rcvbuf;       /* octets */
    int nodelay;      /* TCP_NODELAY: 0 or 1 */
    int window_clamp; /* TCP_WINDOW_CLAMP in octets */
    int reuseaddr;    /* SO_REUSEADDR: 0 or 1 */
};

/* What a modelled host's memory and disk did for the application (nrio_counts_since). */
struct nrio_counts {
    uint64_t pageins, pageouts; /* pages read back from swap, dirty pages written to it */
    uint64_t disk_ios;          /* block I/Os of the host's disk */
    int64_t disk_busy_ns;       /* time the disk spent on them */
    int64_t disk_wait_ns;       /* time the process slept waiting for the disk */
};

typedef void (*nrio_io_fn)(void *arg, int sock, int events);
typedef void (*nrio_timer_fn)(void *arg);

struct nrio_ops {
    const char *name;
    int64_t (*now_ns)(nrio *io);
    int (*open)(nrio *io, int proto, const struct nrio_sockopts *opts);
    int (*bind)(nrio *io, int sock, const struct nrio_addr *addr);
    int (*listen)(nrio *io, int sock, int backlog);
    int (*accept)(nrio *io, int sock, struct nrio_addr *peer);
    /* Starts a non-blocking connect: 0 when connected, -EINPROGRESS when NRIO_OUT will say so. */
    int (*connect)(nrio *io, int sock, const struct nrio_addr *addr);
    /* After NRIO_OUT on a connecting socket: 0, or the negative errno the connect failed with. */
    int (*connect_result)(nrio *io, int sock);
    ssize_t (*send)(nrio *io, int sock, const void *buf, size_t len);
    ssize_t (*recv)(nrio *io, int sock, void *buf, size_t len); /* 0 at end of stream */
    ssize_t (*sendto)(nrio *io, int sock, const void *buf, size_t len,
                      const struct nrio_addr *to);
    ssize_t (*recvfrom)(nrio *io, int sock, void *buf, size_t len, struct nrio_addr *from);
    int (*shutdown_write)(nrio *io, int sock);
    int (*close)(nrio *io, int sock);
    int (*getopts)(nrio *io, int sock, struct nrio_sockopts *out);
    int (*local_addr)(nrio *io, int sock, struct nrio_addr *out);
    /* Calls fn when any of events holds for sock; events == 0 stops watching. */
    int (*watch)(nrio *io, int sock, int events, nrio_io_fn fn, void *arg);
    /* Calls fn once at absolute time at_ns; returns a timer id > 0. */
    int (*timer_at)(nrio *io, int64_t at_ns, nrio_timer_fn fn, void *arg);
    void (*timer_cancel)(nrio *io, int id);
    /* A busy loop of n iterations (the papers' UDP cooling); the sim charges calibrated time. */
    void (*spin)(nrio *io, long iterations);
    /* Dispatches callbacks until nrio_stop(); returns 0, or a negative errno if the loop broke. */
    int (*run)(nrio *io);
    void (*stop)(nrio *io);
    void (*destroy)(nrio *io);
    /* Applies the non-zero fields of opts to an open socket, e.g. TCP_NODELAY on an accepted
     * connection once the peer asked for it. Optional: a backend may leave it NULL. */
    int (*setopts)(nrio *io, int sock, const struct nrio_sockopts *opts);
    /* The application touched len octets at p (write 1: it wrote them), so that a simulated
     * host with little memory can charge paging. Optional: real hosts page by themselves. */
    void (*touch)(nrio *io, const void *p, size_t len, int write);
    /* The application printed one line to its terminal, so that a simulated host can charge
     * the host model's print cost. Optional: on a real host the print took its own time. */
    void (*printed)(nrio *io);
    /* Like timer_at, for a timer the application set with alarm() or setitimer(): a backend
     * that models the host's clock fires it on the clock tick that host's kernel would.
     * Optional: without it, timer_at. Cancelled with timer_cancel. */
    int (*alarm_at)(nrio *io, int64_t at_ns, nrio_timer_fn fn, void *arg);
    /* pread and pwrite of a file the application opened itself: a backend that models the
     * host's disk times them through it (the octets still go to the real file). Return the
     * octets moved or a negative errno. Optional: without them, plain pread and pwrite. */
    ssize_t (*file_read)(nrio *io, int fd, void *buf, size_t len, off_t off);
    ssize_t (*file_write)(nrio *io, int fd, const void *buf, size_t len, off_t off);
    /* The host's counts since the previous call (or since the backend began), so that a tool
     * can report them per transfer. Optional: a real host's are not the backend's to give. */
    int (*counts_since)(nrio *io, struct nrio_counts *out);
    /* The application begins what stands for a new process of itself (ttcp's next transfer
     * for a run of its own): a backend that models the host draws that process's costs anew.
     * Optional: a real process keeps its own. */
    void (*process_begins)(nrio *io);
};

struct nrio {
    const struct nrio_ops *ops;
};

/* The kernel backend: Linux sockets, epoll and CLOCK_MONOTONIC. NULL with errno set on failure. */
nrio *nrio_kernel_new(void);

/* Parses a dotted IPv4 address and a port. Returns 0, or -EINVAL. */
int nrio_parse_addr(const char *ip, uint16_t port, struct nrio_addr *out);
/* Formats "a.b.c.d" into buf (at least 16 octets). */
const char *nrio_format_ip(uint32_t ip, char *buf, size_t len);

static inline int64_t nrio_now_ns(nrio *io) { return io->ops->now_ns(io); }
static inline int nrio_open(nrio *io, int proto, const struct nrio_sockopts *o)
{
    return io->ops->open(io, proto, o);
}
static inline int nrio_bind(nrio *io, int s, const struct nrio_addr *a) { return io->ops->bind(io, s, a); }
static inline int nrio_listen(nrio *io, int s, int backlog) { return io->ops->listen(io, s, backlog); }
static inline int nrio_accept(nrio *io, int s, struct nrio_addr *peer) { return io->ops->accept(io, s, peer); }
static inline int nrio_connect(nrio *io, int s, const struct nrio_addr *a) { return io->ops->connect(io, s, a); }
static inline int nrio_connect_result(nrio *io, int s) { return io->ops->connect_result(io, s); }
static inline ssize_t nrio_send(nrio *io, int s, const void *b, size_t n) { return io->ops->send(io, s, b, n); }
static inline ssize_t nrio_recv(nrio *io, int s, void *b, size_t n) { return io->ops->recv(io, s, b, n); }
static inline ssize_t nrio_sendto(nrio *io, int s, const void *b, size_t n, const struct nrio_addr *to)
{
    return io->ops->sendto(io, s, b, n, to);
}
static inline ssize_t nrio_recvfrom(nrio *io, int s, void *b, size_t n, struct nrio_addr *from)
{
    return io->ops->recvfrom(io, s, b, n, from);
}
static inline int nrio_shutdown_write(nrio *io, int s) { return io->ops->shutdown_write(io, s); }
static inline int nrio_close(nrio *io, int s) { return io->ops->close(io, s); }
static inline int nrio_getopts(nrio *io, int s, struct nrio_sockopts *o) { return io->ops->getopts(io, s, o); }
static inline int nrio_local_addr(nrio *io, int s, struct nrio_addr *a) { return io->ops->local_addr(io, s, a); }
static inline int nrio_watch(nrio *io, int s, int ev, nrio_io_fn fn, void *arg)
{
    return io->ops->watch(io, s, ev, fn, arg);
}
static inline int nrio_timer_at(nrio *io, int64_t at, nrio_timer_fn fn, void *arg)
{
    return io->ops->timer_at(io, at, fn, arg);
}
static inline void nrio_timer_cancel(nrio *io, int id) { io->ops->timer_cancel(io, id); }
static inline void nrio_spin(nrio *io, long n) { io->ops->spin(io, n); }
static inline int nrio_run(nrio *io) { return io->ops->run(io); }
static inline void nrio_stop(nrio *io) { io->ops->stop(io); }
static inline void nrio_destroy(nrio *io) { io->ops->destroy(io); }
static inline int nrio_setopts(nrio *io, int s, const struct nrio_sockopts *o)
{
    return io->ops->setopts ? io->ops->setopts(io, s, o) : -EOPNOTSUPP;
}
static inline void nrio_touch(nrio *io, const void *p, size_t len, int write)
{
    if (io->ops->touch)
        io->ops->touch(io, p, len, write);
}
static inline void nrio_printed(nrio *io)
{
    if (io->ops->printed)
        io->ops->printed(io);
}
static inline int nrio_alarm_at(nrio *io, int64_t at, nrio_timer_fn fn, void *arg)
{
    return io->ops->alarm_at ? io->ops->alarm_at(io, at, fn, arg) : io->ops->timer_at(io, at, fn, arg);
}

static inline void nrio_process_begins(nrio *io)
{
    if (io->ops->process_begins)
        io->ops->process_begins(io);
}

static inline int nrio_counts_since(nrio *io, struct nrio_counts *out)
{
    return io->ops->counts_since ? io->ops->counts_since(io, out) : -EOPNOTSUPP;
}
static inline ssize_t nrio_file_read(nrio *io, int fd, void *buf, size_t len, off_t off)
{
    if (io->ops->file_read)
        return io->ops->file_read(io, fd, buf, len, off);
    ssize_t r = pread(fd, buf, len, off);
    return r < 0 ? -errno : r;
}
static inline ssize_t nrio_file_write(nrio *io, int fd, const void *buf, size_t len, off_t off)
{
    if (io->ops->file_write)
        return io->ops->file_write(io, fd, buf, len, off);
    ssize_t r = pwrite(fd, buf, len, off);
    return r < 0 ? -errno : r;
}

#endif
