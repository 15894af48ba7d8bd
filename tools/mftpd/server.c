#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nrcounts.h"
#include "mftpcore/blocks.h"
#include "mftpcore/crc32.h"
#include "mftpcore/errors.h"
#include "mftpcore/flags.h"
#include "mftpcore/ftp.h"
#include "json.h"
#include "units.h"
#include "mftpcore/xfer.h"
#include "safeopen.h"

struct mftpd;

struct session {
    struct mftpd *d;
    int ctl;
    struct nrio_addr local; /* the control connection's local address, offered by PASV */
    struct mftp_lines in;
    char out[4096];
    size_t out_len;
    int user_given, logged_in, quitting, closing;
    int nconns;       /* 0: stream mode (plain FTP); 1..16: block mode after MCON */
    long window;      /* data connections' window; 0: the stack's default */
    int pasv;         /* passive listener, or -1 */
    int data[MFTP_MAX_CONNS];
    int ndata;
    int connecting;   /* active mode: a connect to the PORT address is under way */
    struct nrio_addr port_addr;
    int have_port;
    long long allo;   /* size announced by ALLO, or -1 */
    char pending;     /* 'R' (RETR) or 'S' (STOR) waiting for its data connections, or 0 */
    char name[PATH_MAX], path[PATH_MAX];
    int fd;
    long long size;
    struct mftp_xfer x;
    int xfer_on;
    /* The first data connection's window when the transfer started and when it ended, and
     * the largest it was found at: the kernel may move it meanwhile (mftp_xfer.reclamp). */
    int window_start, window_end, window_max;
    struct nrio_sockopts in_force_end;
    int64_t progress_ns;
    int watchdog;
};

struct mftpd {
    nrio *io;
    const struct mftpd_args *a;
    FILE *out;
    int lsock;
    struct session *s;
    int sessions;
    int status;
    int idle_timer;
};

static void emit_error(struct mftpd *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mftp_verror(d->out, "mftpd", d->a->stack, -1, fmt, ap);
    va_end(ap);
}

static void stop(struct mftpd *d, int status)
{
    d->status = status;
    nrio_stop(d->io);
}

static void on_ctl(void *arg, int sock, int events);
static void on_idle_exit(void *arg);
static void on_listen(void *arg, int sock, int events);
static void process_lines(struct session *s);

static int busy(const struct session *s) { return s->pending || s->xfer_on; }

/* Watches the control connection for what the session can use now: commands only when no
 * transfer is under way (they are read after it), writability only with replies queued. */
static void ctl_rewatch(struct session *s)
{
    int ev = (busy(s) || s->closing ? 0 : NRIO_IN) | (s->out_len ? NRIO_OUT : 0);
    int rc = nrio_watch(s->d->io, s->ctl, ev, ev ? on_ctl : NULL, ev ? s : NULL);
    if (rc < 0)
        emit_error(s->d, "watching the control connection failed: %s", strerror(-rc));
}

static void close_data(struct session *s)
{
    nrio *io = s->d->io;
    mftp_xfer_cleanup(&s->x);
    s->xfer_on = 0;
    for (int i = 0; i < s->ndata; i++)
        nrio_close(io, s->data[i]);
    s->ndata = 0;
    s->connecting = 0;
    if (s->pasv >= 0)
        nrio_close(io, s->pasv);
    s->pasv = -1;
    s->have_port = 0;
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    s->pending = 0;
}

static void end_session(struct session *s)
{
    struct mftpd *d = s->d;
    close_data(s);
    nrio_watch(d->io, s->ctl, 0, NULL, NULL);
    nrio_close(d->io, s->ctl);
    if (s->watchdog > 0)
        nrio_timer_cancel(d->io, s->watchdog);
    int counted = s->logged_in;
    free(s);
    d->s = NULL;
    if (counted)
        d->sessions++;
    if (d->a->sessions && d->sessions >= d->a->sessions) {
        stop(d, 0);
        return;
    }
    int rc = nrio_watch(d->io, d->lsock, NRIO_IN, on_listen, d);
    if (rc < 0) {
        emit_error(d, "watching the control port failed: %s", strerror(-rc));
        stop(d, 1);
        return;
    }
    if (d->a->idle_exit_ns)
        d->idle_timer = nrio_timer_at(d->io, nrio_now_ns(d->io) + d->a->idle_exit_ns,
                                      on_idle_exit, d);
}

static void flush(struct session *s)
{
    while (s->out_len) {
        ssize_t n = nrio_send(s->d->io, s->ctl, s->out, s->out_len);
        if (n == -EAGAIN)
            break;
        if (n < 0) {
            /* The client went away; nothing is left to tell it. */
            s->out_len = 0;
            s->closing = 1;
            break;
        }
        memmove(s->out, s->out + n, s->out_len - (size_t)n);
        s->out_len -= (size_t)n;
    }
}

static void reply(struct session *s, const char *fmt, ...)
{
    char line[MFTP_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 2, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n > sizeof line - 3)
        n = (int)sizeof line - 3;
    memcpy(line + n, "\r\n", 2);
    n += 2;
    if (s->out_len + (size_t)n > sizeof s->out) {
        s->closing = 1; /* a client that reads no replies is dropped */
        return;
    }
    memcpy(s->out + s->out_len, line, (size_t)n);
    s->out_len += (size_t)n;
    flush(s);
}

static void on_ctl(void *arg, int sock, int events)
{
    struct session *s = arg;
    s->progress_ns = nrio_now_ns(s->d->io);
    if (events & NRIO_OUT)
        flush(s);
    if ((events & (NRIO_IN | NRIO_ERR)) && !busy(s) && !s->closing) {
        for (;;) {
            size_t room = mftp_lines_room(&s->in);
            if (room == 0)
                break;
            ssize_t n = nrio_recv(s->d->io, sock, mftp_lines_tail(&s->in), room);
            if (n == -EAGAIN)
                break;
            if (n <= 0) {
                s->closing = 1;
                s->out_len = 0;
                break;
            }
            mftp_lines_added(&s->in, (size_t)n);
        }
        process_lines(s);
    }
    if ((s->closing || s->quitting) && s->out_len == 0 && !busy(s)) {
        end_session(s);
        return;
    }
    ctl_rewatch(s);
}

/* ---- transfers ---- */

static void emit_transfer(struct session *s, int ok)
{
    struct mftpd *d = s->d;
    struct mftp_xfer *x = &s->x;
    struct nr_json j;
    int64_t bytes[MFTP_MAX_CONNS], blocks[MFTP_MAX_CONNS];
    for (int i = 0; i < x->n; i++) {
        bytes[i] = x->c[i].bytes;
        blocks[i] = x->c[i].blocks;
    }
    const struct nrio_sockopts o = s->in_force_end;
    nr_json_begin(&j, ok ? "transfer" : "error");
    nr_json_str(&j, "tool", "mftpd");
    nr_json_str(&j, "stack", d->a->stack);
    nr_json_str(&j, "role", "server");
    nr_json_str(&j, "command", s->pending == 'R' ? "RETR" : "STOR");
    nr_json_str(&j, "name", s->name);
    nr_json_str(&j, "mode", s->nconns ? "block" : "stream");
    nr_json_counts(&j, d->io);
    nr_json_int(&j, "connections", x->n);
    nr_json_int(&j, "bytes", x->bytes);
    nr_json_int(&j, "duplicate_bytes", x->dup_bytes);
    nr_json_int_array(&j, "conn_bytes", bytes, (size_t)x->n);
    nr_json_int_array(&j, "conn_blocks", blocks, (size_t)x->n);
    nr_json_int(&j, "block_size", s->nconns ? x->block : 0);
    nr_json_int(&j, "reorder_max", x->reorder_max);
    nr_json_int(&j, "reorder_stalls", x->stalls);
    nr_json_int(&j, "blocking_writes", s->d->a->blocking_writes);
    nr_json_int(&j, "write_holds", x->holds);
    nr_json_int(&j, "held_ahead_max", x->held_ahead_max);
    nr_json_int(&j, "window_requested", s->window);
    nr_json_int(&j, "window_start", s->window_start);
    nr_json_int(&j, "window_end", s->window_end);
    nr_json_int(&j, "window_max", s->window_max);
    nr_json_int(&j, "window_reasserts", x->reasserts);
    nr_json_int(&j, "sndbuf", o.sndbuf);
    nr_json_int(&j, "rcvbuf", o.rcvbuf);
    int64_t ns = x->t_first ? x->t_last - x->t_first : 0;
    nr_json_int(&j, "elapsed_ns", ns);
    if (ns > 0)
        nr_json_double(&j, "throughput_bps", (double)x->bytes * 8e9 / (double)ns);
    else
        nr_json_null(&j, "throughput_bps");
    uint32_t crc;
    struct stat st;
    if (ok && stat(s->path, &st) == 0 && S_ISREG(st.st_mode) &&
        mftp_crc32_file(s->path, &crc) == 0) {
        char hex[16];
        snprintf(hex, sizeof hex, "%08x", crc);
        nr_json_str(&j, "crc32", hex);
    } else {
        nr_json_null(&j, "crc32");
    }
    if (!ok)
        nr_json_str(&j, "error", x->error);
    nr_json_emit(&j, d->out);
}

static struct nrio_sockopts data_opts(const struct session *s)
{
    return mftp_window_opts(s->d->io, s->window);
}

static void xfer_done(void *arg, struct mftp_xfer *x, int ok)
{
    struct session *s = arg;
    s->progress_ns = nrio_now_ns(s->d->io);
    memset(&s->in_force_end, 0, sizeof s->in_force_end);
    int rc = s->ndata > 0 ? nrio_getopts(s->d->io, s->data[0], &s->in_force_end) : 0;
    if (rc < 0)
        emit_error(s->d, "reading the data connection's options failed: %s", strerror(-rc));
    s->window_end = mftp_window_in_force(s->d->io, &s->in_force_end);
    if (x->window_max > s->window_max)
        s->window_max = x->window_max;
    if (s->window_end > s->window_max)
        s->window_max = s->window_end;
    emit_transfer(s, ok);
    if (ok)
        reply(s, "226 Transfer complete: bytes=%lld conns=%d window=%d window_max=%d", x->bytes,
              x->n, s->window_end, s->window_max);
    else
        reply(s, "426 Transfer aborted: %s", x->error);
    close_data(s);
    s->allo = -1;
    process_lines(s);
    if ((s->closing || s->quitting) && s->out_len == 0 && !busy(s)) {
        end_session(s);
        return;
    }
    ctl_rewatch(s);
}

static void try_start(struct session *s)
{
    int want = s->nconns ? s->nconns : 1;
    if (!s->pending || s->xfer_on || s->ndata < want || s->connecting)
        return;
    int sending = s->pending == 'R';
    long long size = sending ? s->size : (s->nconns ? s->allo : -1);
    long block = s->nconns ? s->d->a->block : MFTP_STREAM_IO;
    s->xfer_on = 1;
    if (mftp_xfer_start(&s->x, s->d->io, sending, s->nconns > 0, s->data, s->ndata, s->fd, size,
                        block, xfer_done, s) < 0) {
        reply(s, "451 Cannot start the transfer: %s", s->x.error);
        close_data(s);
        ctl_rewatch(s);
        return;
    }
    s->x.reclamp = data_opts(s).window_clamp; /* 0 where the buffers are the window */
    s->x.reorder_max = s->d->a->reorder_max;
    s->x.blocking_writes = s->d->a->blocking_writes;
    struct nrio_sockopts o;
    int rc = nrio_getopts(s->d->io, s->data[0], &o);
    if (rc < 0)
        emit_error(s->d, "reading the data connection's options failed: %s", strerror(-rc));
    s->window_start = s->window_max = rc < 0 ? 0 : mftp_window_in_force(s->d->io, &o);
}


static void on_pasv(void *arg, int sock, int events)
{
    struct session *s = arg;
    (void)events;
    int want = s->nconns ? s->nconns : 1;
    for (;;) {
        int c = nrio_accept(s->d->io, sock, NULL);
        if (c == -EAGAIN)
            break;
        if (c < 0) {
            emit_error(s->d, "accepting a data connection failed: %s", strerror(-c));
            break;
        }
        s->progress_ns = nrio_now_ns(s->d->io);
        if (s->ndata >= want) {
            nrio_close(s->d->io, c); /* more connections than MCON announced */
            continue;
        }
        struct nrio_sockopts o = data_opts(s);
        int rc = nrio_setopts(s->d->io, c, &o);
        if (rc < 0 && rc != -EOPNOTSUPP)
            emit_error(s->d, "setting the data connection's window failed: %s", strerror(-rc));
        s->data[s->ndata++] = c;
    }
    if (s->ndata >= want)
        nrio_watch(s->d->io, sock, 0, NULL, NULL);
    try_start(s);
}

static void on_port_connected(void *arg, int sock, int events)
{
    struct session *s = arg;
    (void)events;
    int rc = nrio_connect_result(s->d->io, sock);
    nrio_watch(s->d->io, sock, 0, NULL, NULL);
    s->connecting = 0;
    if (rc < 0) {
        reply(s, "425 Cannot open the data connection: %s", strerror(-rc));
        close_data(s);
        ctl_rewatch(s);
        return;
    }
    try_start(s);
}

int mftpd_resolve(const char *root, const char *name, char *out, size_t len)
{
    if (strcmp(name, "/dev/null") == 0) {
        snprintf(out, len, "/dev/null");
        return 0;
    }
    while (*name == '/')
        name++;
    if (!*name)
        return -1;
    for (const char *p = name; *p;) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return -1;
        p += n + (e ? 1 : 0);
    }
    int n = snprintf(out, len, "%s/%s", root, name);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

static void start_data_command(struct session *s, char which, const char *name)
{
    if (!s->have_port && s->pasv < 0) {
        reply(s, "425 Use PASV or PORT first");
        return;
    }
    if (mftpd_resolve(s->d->a->root, name, s->path, sizeof s->path) < 0) {
        reply(s, "553 %s: names may not be empty or contain ..", name);
        return;
    }
    snprintf(s->name, sizeof s->name, "%s", name);
    if (which == 'R') {
        s->fd = open(s->path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (s->fd < 0 || fstat(s->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            reply(s, "550 %s: %s", name, s->fd < 0 ? strerror(errno) : "not a plain file");
            close_data(s);
            return;
        }
        s->size = st.st_size;
    } else {
        s->fd = nr_open_write(s->path);
        if (s->fd < 0) {
            reply(s, "553 %s: %s", name, nr_open_write_error(s->fd));
            close_data(s);
            return;
        }
        s->size = -1;
    }
    s->pending = which;
    if (which == 'R')
        reply(s, "150 Opening BINARY mode data connection for %s (%lld bytes)", name, s->size);
    else
        reply(s, "150 Opening BINARY mode data connection for %s", name);
    if (s->have_port) {
        struct nrio_sockopts o = data_opts(s);
        int c = nrio_open(s->d->io, NRIO_TCP, &o);
        int rc = c < 0 ? c : nrio_connect(s->d->io, c, &s->port_addr);
        if (rc < 0 && rc != -EINPROGRESS) {
            if (c >= 0)
                nrio_close(s->d->io, c);
            reply(s, "425 Cannot open the data connection: %s", strerror(-rc));
            close_data(s);
            return;
        }
        s->data[s->ndata++] = c;
        if (rc == -EINPROGRESS) {
            s->connecting = 1;
            rc = nrio_watch(s->d->io, c, NRIO_OUT, on_port_connected, s);
            if (rc < 0) {
                reply(s, "425 Cannot watch the data connection: %s", strerror(-rc));
                close_data(s);
                return;
            }
        }
    }
    try_start(s);
}

static void cmd_pasv(struct session *s)
{
    close_data(s);
    struct nrio_sockopts o = data_opts(s);
    struct nrio_addr a = {.ip = s->local.ip, .port = 0};
    int l = nrio_open(s->d->io, NRIO_TCP, &o);
    int rc = l;
    if (rc >= 0)
        rc = nrio_bind(s->d->io, l, &a);
    if (rc >= 0)
        rc = nrio_listen(s->d->io, l, MFTP_MAX_CONNS);
    if (rc >= 0)
        rc = nrio_local_addr(s->d->io, l, &a);
    if (rc >= 0)
        rc = nrio_watch(s->d->io, l, NRIO_IN, on_pasv, s);
    if (rc < 0) {
        if (l >= 0)
            nrio_close(s->d->io, l);
        if (rc == -ENOBUFS && s->window > 0)
            reply(s, "425 Cannot open a passive port: window %ld needs buffers larger than "
                  "this stack allows; ask for a smaller window", s->window);
        else
            reply(s, "425 Cannot open a passive port: %s", strerror(-rc));
        return;
    }
    s->pasv = l;
    char hp[32];
    mftp_format_hostport(a.ip, a.port, hp, sizeof hp);
    reply(s, "227 Entering Passive Mode (%s)", hp);
}

static void command(struct session *s, const char *line)
{
    char verb[8];
    const char *arg;
    if (mftp_split_command(line, verb, sizeof verb, &arg) < 0) {
        reply(s, "500 Syntax error, command unrecognized");
        return;
    }
    if (strcmp(verb, "QUIT") == 0) {
        reply(s, "221 Goodbye");
        s->quitting = 1;
        return;
    }
    if (strcmp(verb, "USER") == 0) {
        s->user_given = 1;
        s->logged_in = 0;
        reply(s, "331 Password required for %s (any password will do)", *arg ? arg : "anonymous");
        return;
    }
    if (strcmp(verb, "PASS") == 0) {
        if (!s->user_given) {
            reply(s, "503 Login with USER first");
            return;
        }
        s->logged_in = 1;
        reply(s, "230 User logged in");
        return;
    }
    if (!s->logged_in) {
        reply(s, "530 Please login with USER and PASS");
        return;
    }
    long long v;
    struct stat st;
    if (strcmp(verb, "TYPE") == 0) {
        if (arg[0] == 'I' || arg[0] == 'i' || arg[0] == 'A' || arg[0] == 'a' || arg[0] == 'L')
            reply(s, "200 Type set to %c (data are sent as they are)", arg[0]);
        else
            reply(s, "504 Type %s not implemented", arg);
    } else if (strcmp(verb, "MODE") == 0 || strcmp(verb, "STRU") == 0) {
        if ((arg[0] == 'S' || arg[0] == 's' || arg[0] == 'F' || arg[0] == 'f') && !arg[1])
            reply(s, "200 %s set to %s", verb, arg);
        else
            reply(s, "504 %s %s not implemented; MFTP's block mode is MCON", verb, arg);
    } else if (strcmp(verb, "SYST") == 0) {
        reply(s, "215 UNIX Type: L8");
    } else if (strcmp(verb, "NOOP") == 0) {
        reply(s, "200 NOOP ok");
    } else if (strcmp(verb, "PWD") == 0 || strcmp(verb, "XPWD") == 0) {
        reply(s, "257 \"/\" is the current directory");
    } else if (strcmp(verb, "CWD") == 0) {
        reply(s, "250 Directory unchanged (only / is served)");
    } else if (strcmp(verb, "FEAT") == 0) {
        reply(s, "211-Features:");
        reply(s, " SIZE");
        reply(s, " MCON");
        reply(s, "211 End");
    } else if (strcmp(verb, "MCON") == 0) {
        /* MCON n [window]: n parallel data connections in block mode (0: back to stream mode),
         * each with the given window in octets. */
        long long n, w = s->window;
        char *end;
        n = strtoll(arg, &end, 10);
        if (end == arg || n < 0 || n > MFTP_MAX_CONNS ||
            (*end && (w = strtoll(end, &end, 10), *end || w < 0 || w > MFTP_MAX_WINDOW))) {
            reply(s, "501 Usage: MCON <connections 0-%d> [<window octets>]", MFTP_MAX_CONNS);
            return;
        }
        close_data(s);
        s->nconns = (int)n;
        s->window = (long)w;
        reply(s, "200 MCON %d window=%ld", s->nconns, s->window);
    } else if (strcmp(verb, "ALLO") == 0) {
        if (nr_parse_count(arg, LLONG_MAX, &v) < 0) {
            reply(s, "501 Usage: ALLO <octets>");
            return;
        }
        s->allo = v;
        reply(s, "200 ALLO %lld octets", v);
    } else if (strcmp(verb, "SIZE") == 0) {
        char path[PATH_MAX];
        if (mftpd_resolve(s->d->a->root, arg, path, sizeof path) < 0 || stat(path, &st) != 0 ||
            !S_ISREG(st.st_mode))
            reply(s, "550 %s: no such plain file", arg);
        else
            reply(s, "213 %lld", (long long)st.st_size);
    } else if (strcmp(verb, "PASV") == 0) {
        cmd_pasv(s);
    } else if (strcmp(verb, "PORT") == 0) {
        if (s->nconns) {
            reply(s, "504 PORT carries one connection; with MCON use PASV");
            return;
        }
        close_data(s);
        uint32_t ip;
        uint16_t port;
        if (mftp_parse_hostport(arg, &ip, &port) < 0) {
            reply(s, "501 Usage: PORT h1,h2,h3,h4,p1,p2");
            return;
        }
        s->port_addr.ip = ip;
        s->port_addr.port = port;
        s->have_port = 1;
        reply(s, "200 PORT command successful");
    } else if (strcmp(verb, "RETR") == 0 || strcmp(verb, "STOR") == 0) {
        start_data_command(s, verb[0] == 'R' ? 'R' : 'S', arg);
    } else {
        reply(s, "502 %s not implemented", verb);
    }
}

static void process_lines(struct session *s)
{
    char line[MFTP_LINE_MAX];
    while (!busy(s) && !s->quitting && !s->closing) {
        int rc = mftp_lines_next(&s->in, line, sizeof line);
        if (rc == 0)
            return;
        if (rc < 0) {
            reply(s, "500 Line too long");
            s->closing = 1;
            return;
        }
        command(s, line);
    }
}

/* ---- sessions ---- */

static void on_session_watchdog(void *arg)
{
    struct session *s = arg;
    struct mftpd *d = s->d;
    s->watchdog = 0;
    int64_t last = s->progress_ns;
    if (s->xfer_on && s->x.t_last > last)
        last = s->x.t_last;
    if (nrio_now_ns(d->io) - last >= d->a->timeout_ns) {
        emit_error(d, "session timeout: the client was silent for %.3f s%s; closing the session",
                   d->a->timeout_ns / 1e9, busy(s) ? " during a transfer" : "");
        end_session(s);
        return;
    }
    s->watchdog = nrio_timer_at(d->io, last + d->a->timeout_ns, on_session_watchdog, s);
}

static void on_idle_exit(void *arg)
{
    struct mftpd *d = arg;
    d->idle_timer = 0;
    if (d->s)
        return;
    emit_error(d, "no session started for %.3f s (--idle-exit); exiting",
               d->a->idle_exit_ns / 1e9);
    stop(d, 1);
}

static void on_listen(void *arg, int sock, int events)
{
    struct mftpd *d = arg;
    (void)events;
    if (d->s)
        return;
    int c = nrio_accept(d->io, sock, NULL);
    if (c == -EAGAIN)
        return;
    if (c < 0) {
        emit_error(d, "accepting a control connection failed: %s", strerror(-c));
        return;
    }
    struct session *s = calloc(1, sizeof *s);
    if (!s) {
        nrio_close(d->io, c);
        emit_error(d, "out of memory for a session");
        return;
    }
    s->d = d;
    s->ctl = c;
    s->pasv = -1;
    s->fd = -1;
    s->allo = -1;
    s->window = d->a->window;
    s->progress_ns = nrio_now_ns(d->io);
    d->s = s;
    nrio_watch(d->io, sock, 0, NULL, NULL);
    if (d->idle_timer > 0)
        nrio_timer_cancel(d->io, d->idle_timer);
    d->idle_timer = 0;
    int rc = nrio_local_addr(d->io, c, &s->local);
    if (rc < 0) {
        emit_error(d, "reading the control connection's address failed: %s", strerror(-rc));
        end_session(s);
        return;
    }
    s->watchdog = nrio_timer_at(d->io, s->progress_ns + d->a->timeout_ns, on_session_watchdog, s);
    reply(s, "220 mftpd ready (MFTP: MCON n [window] for n parallel data connections)");
    ctl_rewatch(s);
}

int mftpd_run(nrio *io, const struct mftpd_args *a, FILE *out, FILE *announce)
{
    struct mftpd d = {.io = io, .a = a, .out = out, .lsock = -1, .status = 1};
    struct nrio_addr addr;
    struct nrio_sockopts o = {.reuseaddr = 1};
    nrio_parse_addr(a->bind_ip, (uint16_t)a->port, &addr);
    int rc = d.lsock = nrio_open(io, NRIO_TCP, &o);
    if (rc >= 0)
        rc = nrio_bind(io, d.lsock, &addr);
    if (rc >= 0)
        rc = nrio_listen(io, d.lsock, 8);
    if (rc >= 0)
        rc = nrio_watch(io, d.lsock, NRIO_IN, on_listen, &d);
    if (rc < 0) {
        emit_error(&d, "listening on %s:%d failed: %s; is another server on the port? pick "
                   "another with -p", a->bind_ip, a->port, strerror(-rc));
        if (d.lsock >= 0)
            nrio_close(io, d.lsock);
        return 1;
    }
    if (a->idle_exit_ns)
        d.idle_timer = nrio_timer_at(io, nrio_now_ns(io) + a->idle_exit_ns, on_idle_exit, &d);
    if (announce) {
        fprintf(announce, "mftpd: serving on %s port %d\n", a->bind_ip, a->port);
        fflush(announce);
    }
    rc = nrio_run(io);
    if (rc < 0) {
        emit_error(&d, "the event loop failed: %s", strerror(-rc));
        d.status = 1;
    }
    if (d.s) {
        close_data(d.s);
        nrio_close(io, d.s->ctl);
        free(d.s);
    }
    nrio_close(io, d.lsock);
    return d.status;
}
