#include <errno.h>

#include "nrio.h"
#include "nrtest.h"

static void test_parse_format(void)
{
    struct nrio_addr a;
    char buf[16];
    NRT_EQ_INT(nrio_parse_addr("127.0.0.1", 7, &a), 0);
    NRT_EQ_INT(a.port, 7);
    NRT_EQ_STR(nrio_format_ip(a.ip, buf, sizeof buf), "127.0.0.1");
    NRT_EQ_INT(nrio_parse_addr("10.0.0.255", 0, &a), 0);
    NRT_EQ_STR(nrio_format_ip(a.ip, buf, sizeof buf), "10.0.0.255");
    NRT_EQ_INT(nrio_parse_addr("256.0.0.1", 7, &a), -EINVAL);
    NRT_EQ_INT(nrio_parse_addr("localhost", 7, &a), -EINVAL);
    NRT_EQ_INT(nrio_parse_addr(NULL, 7, &a), -EINVAL);
}

struct timers {
    nrio *io;
    int order[8];
    int n;
};
struct tick {
    struct timers *t;
    int tag;
};

static void on_tick(void *arg)
{
    struct tick *k = arg;
    k->t->order[k->t->n++] = k->tag;
    if (k->tag == 4)
        nrio_stop(k->t->io);
}

static void test_timers_order_cancel_stop(void)
{
    nrio *io = nrio_kernel_new();
    NRT_CHECK(io != NULL);
    if (!io)
        return;
    struct timers t = {.io = io};
    struct tick k[5];
    int64_t now = nrio_now_ns(io);
    for (int i = 0; i < 5; i++)
        k[i] = (struct tick){&t, i};
    int id3 = nrio_timer_at(io, now + 2000000, on_tick, &k[3]);
    NRT_CHECK(nrio_timer_at(io, now + 3000000, on_tick, &k[2]) > 0);
    NRT_CHECK(nrio_timer_at(io, now + 1000000, on_tick, &k[0]) > 0);
    NRT_CHECK(nrio_timer_at(io, now + 1000000, on_tick, &k[1]) > 0); /* same time: armed later */
    NRT_CHECK(nrio_timer_at(io, now + 5000000, on_tick, &k[4]) > 0);
    NRT_CHECK(id3 > 0);
    nrio_timer_cancel(io, id3);
    NRT_EQ_INT(nrio_run(io), 0);
    NRT_EQ_INT(t.n, 4);
    NRT_EQ_INT(t.order[0], 0);
    NRT_EQ_INT(t.order[1], 1);
    NRT_EQ_INT(t.order[2], 2);
    NRT_EQ_INT(t.order[3], 4);
    /* the 5 ms timer fired no earlier than it was due */
    NRT_CHECK(nrio_now_ns(io) - now >= 5000000);
    nrio_destroy(io);
}

/* An echo over loopback TCP driven only by callbacks. */
struct tcpcase {
    nrio *io;
    int lsock, csock, ssock;
    char got[64];
    int ngot;
    int connected;
    int server_eof;
};

static void srv_io(void *arg, int sock, int events)
{
    struct tcpcase *c = arg;
    char buf[64];
    (void)events;
    ssize_t n = nrio_recv(c->io, sock, buf, sizeof buf);
    if (n > 0) {
        NRT_EQ_INT(nrio_send(c->io, sock, buf, (size_t)n), n);
    } else if (n == 0) {
        c->server_eof = 1;
        nrio_close(c->io, sock);
    }
}

static void srv_accept(void *arg, int sock, int events)
{
    struct tcpcase *c = arg;
    (void)events;
    struct nrio_addr peer;
    c->ssock = nrio_accept(c->io, sock, &peer);
    NRT_CHECK(c->ssock >= 0);
    NRT_EQ_INT(nrio_watch(c->io, c->ssock, NRIO_IN, srv_io, c), 0);
}

static void cli_io(void *arg, int sock, int events)
{
    struct tcpcase *c = arg;
    if (!c->connected && (events & NRIO_OUT)) {
        NRT_EQ_INT(nrio_connect_result(c->io, sock), 0);
        c->connected = 1;
        NRT_EQ_INT(nrio_send(c->io, sock, "hello", 5), 5);
        NRT_EQ_INT(nrio_shutdown_write(c->io, sock), 0);
        NRT_EQ_INT(nrio_watch(c->io, sock, NRIO_IN, cli_io, c), 0);
        return;
    }
    ssize_t n = nrio_recv(c->io, sock, c->got + c->ngot, sizeof c->got - 1 - (size_t)c->ngot);
    if (n > 0)
        c->ngot += (int)n;
    if (n == 0 || c->ngot == 5)
        nrio_stop(c->io);
}

static void on_guard(void *arg) { nrio_stop(arg); }

static void test_tcp_echo(void)
{
    nrio *io = nrio_kernel_new();
    NRT_CHECK(io != NULL);
    if (!io)
        return;
    struct tcpcase c = {.io = io};
    struct nrio_addr any, bound;
    struct nrio_sockopts o = {.reuseaddr = 1, .rcvbuf = 32768};
    NRT_EQ_INT(nrio_parse_addr("127.0.0.1", 0, &any), 0);
    c.lsock = nrio_open(io, NRIO_TCP, &o);
    NRT_CHECK(c.lsock >= 0);
    NRT_EQ_INT(nrio_bind(io, c.lsock, &any), 0);
    NRT_EQ_INT(nrio_listen(io, c.lsock, 8), 0);
    NRT_EQ_INT(nrio_local_addr(io, c.lsock, &bound), 0);
    NRT_CHECK(bound.port != 0);
    struct nrio_sockopts got;
    NRT_EQ_INT(nrio_getopts(io, c.lsock, &got), 0);
    NRT_CHECK(got.rcvbuf >= 32768); /* Linux doubles it */
    NRT_EQ_INT(got.reuseaddr, 1);
    NRT_EQ_INT(got.nodelay, 0);
    NRT_EQ_INT(nrio_watch(io, c.lsock, NRIO_IN, srv_accept, &c), 0);

    struct nrio_sockopts nd = {.nodelay = 1};
    c.csock = nrio_open(io, NRIO_TCP, &nd);
    NRT_CHECK(c.csock >= 0);
    int rc = nrio_connect(io, c.csock, &bound);
    NRT_CHECK(rc == 0 || rc == -EINPROGRESS);
    NRT_EQ_INT(nrio_watch(io, c.csock, NRIO_OUT, cli_io, &c), 0);
    int guard = nrio_timer_at(io, nrio_now_ns(io) + 2000000000LL, on_guard, io);
    NRT_EQ_INT(nrio_run(io), 0);
    nrio_timer_cancel(io, guard);
    c.got[c.ngot] = '\0';
    NRT_EQ_STR(c.got, "hello");
    NRT_EQ_INT(nrio_getopts(io, c.csock, &got), 0);
    NRT_EQ_INT(got.nodelay, 1);
    NRT_CHECK(c.server_eof);
    int plain = nrio_open(io, NRIO_TCP, NULL);
    NRT_EQ_INT(nrio_getopts(io, plain, &got), 0);
    NRT_EQ_INT(got.nodelay, 0);
    NRT_EQ_INT(nrio_setopts(io, plain, &nd), 0);
    NRT_EQ_INT(nrio_getopts(io, plain, &got), 0);
    NRT_EQ_INT(got.nodelay, 1);
    NRT_EQ_INT(nrio_close(io, c.csock), 0);
    NRT_EQ_INT(nrio_close(io, c.csock), -EBADF);
    nrio_destroy(io);
}

struct refused {
    nrio *io;
    int events;
};

static void on_refused(void *arg, int sock, int events)
{
    struct refused *r = arg;
    (void)sock;
    r->events = events;
    nrio_stop(r->io);
}

static void test_connect_refused(void)
{
    nrio *io = nrio_kernel_new();
    NRT_CHECK(io != NULL);
    if (!io)
        return;
    /* a port that was just free: bind, read it, close */
    struct nrio_addr a, bound;
    NRT_EQ_INT(nrio_parse_addr("127.0.0.1", 0, &a), 0);
    int p = nrio_open(io, NRIO_TCP, NULL);
    NRT_EQ_INT(nrio_bind(io, p, &a), 0);
    NRT_EQ_INT(nrio_local_addr(io, p, &bound), 0);
    NRT_EQ_INT(nrio_close(io, p), 0);
    int s = nrio_open(io, NRIO_TCP, NULL);
    int rc = nrio_connect(io, s, &bound);
    struct refused r = {io, 0};
    if (rc == -EINPROGRESS) {
        NRT_EQ_INT(nrio_watch(io, s, NRIO_OUT, on_refused, &r), 0);
        NRT_CHECK(nrio_timer_at(io, nrio_now_ns(io) + 1000000000LL, on_guard, io) > 0);
        NRT_EQ_INT(nrio_run(io), 0);
        NRT_CHECK(r.events & NRIO_ERR);
        rc = nrio_connect_result(io, s);
    }
    NRT_EQ_INT(rc, -ECONNREFUSED);
    nrio_destroy(io);
}

struct udpcase {
    nrio *io;
    char got[32];
    struct nrio_addr from;
};

static void udp_in(void *arg, int sock, int events)
{
    struct udpcase *u = arg;
    (void)events;
    ssize_t n = nrio_recvfrom(u->io, sock, u->got, sizeof u->got - 1, &u->from);
    NRT_EQ_INT(n, 4);
    u->got[n > 0 ? n : 0] = '\0';
    NRT_EQ_INT(nrio_watch(u->io, sock, 0, NULL, NULL), 0);
    nrio_stop(u->io);
}

static void test_udp(void)
{
    nrio *io = nrio_kernel_new();
    NRT_CHECK(io != NULL);
    if (!io)
        return;
    struct udpcase u = {.io = io};
    struct nrio_addr a, rx_addr, tx_addr;
    NRT_EQ_INT(nrio_parse_addr("127.0.0.1", 0, &a), 0);
    int rx = nrio_open(io, NRIO_UDP, NULL);
    int tx = nrio_open(io, NRIO_UDP, NULL);
    NRT_CHECK(rx >= 0 && tx >= 0 && rx != tx);
    NRT_EQ_INT(nrio_bind(io, rx, &a), 0);
    NRT_EQ_INT(nrio_bind(io, tx, &a), 0);
    NRT_EQ_INT(nrio_local_addr(io, rx, &rx_addr), 0);
    NRT_EQ_INT(nrio_local_addr(io, tx, &tx_addr), 0);
    char b[8];
    NRT_EQ_INT(nrio_recvfrom(io, rx, b, sizeof b, NULL), -EAGAIN);
    NRT_EQ_INT(nrio_watch(io, rx, NRIO_IN, udp_in, &u), 0);
    NRT_EQ_INT(nrio_sendto(io, tx, "ping", 4, &rx_addr), 4);
    NRT_EQ_INT(nrio_run(io), 0);
    NRT_EQ_STR(u.got, "ping");
    NRT_EQ_INT(u.from.port, tx_addr.port);
    struct nrio_sockopts bad = {.nodelay = 1};
    NRT_EQ_INT(nrio_open(io, NRIO_UDP, &bad), -EINVAL);
    NRT_EQ_INT(nrio_open(io, 99, NULL), -EINVAL);
    nrio_destroy(io);
}

int main(void)
{
    NRT_RUN(test_parse_format);
    NRT_RUN(test_timers_order_cancel_stop);
    NRT_RUN(test_tcp_echo);
    NRT_RUN(test_connect_refused);
    NRT_RUN(test_udp);
    return nrt_summary("common/test_nrio_kernel");
}
