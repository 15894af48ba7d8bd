#include "sim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "datafile.h"
#include "echod/server.h"
#include "ipcbench/bench.h"
#include "json.h"
#include "mftp/client.h"
#include "mftpd/server.h"
#include "pingx/client.h"
#include "rng.h"
#include "stackopt.h"
#include "tahoe/nrio_tahoe.h"
#include "tahoe/tcp_debug.h"
#include "ttcp/ttcp.h"

/* linkemu draws forward and reverse with streams 0 and 1; host b's boot phase uses its own;
 * the shared medium's two stations draw their backoffs from the next two; each host's
 * interrupt jitter from its own after those (host a, then b); the medium's background station
 * from LE_BACKGROUND_STREAM (medium.h) and the next. */
#define STREAM_BOOT 2
#define STREAM_MEDIUM 3
#define STREAM_JITTER 5

static int64_t host_now(void *ctx)
{
    struct ns_host *h = ctx;
    return h->sim->now_ns;
}

/* A host waits for one wake-up at a time: a later wait, or a packet, supersedes it. */
static int schedule_wake(struct ns_host *h, int64_t at_ns)
{
    return ns_evq_set(&h->sim->q, h->idx == 0 ? NS_SLOT_WAKE_A : NS_SLOT_WAKE_B, at_ns);
}

/* The nrio backend's wait: the host's application pauses here while the scheduler runs
 * everything that happens before until_ns; a packet for this host ends the wait early. */
static int host_wait(void *ctx, int64_t until_ns)
{
    struct ns_host *h = ctx;
    int rc = schedule_wake(h, until_ns);
    if (rc < 0)
        return rc;
    rc = ns_coro_yield(&h->co);
    if (rc < 0)
        return rc;
    return h->sim->error;
}

static struct ns_pkt *copy_packet(struct ns_sim *s, const uint8_t *pkt, size_t len)
{
    struct ns_pkt *p = malloc(sizeof *p + len);
    if (!p) {
        s->error = -ENOMEM;
        return NULL;
    }
    p->len = len;
    memcpy(p->data, pkt, len);
    return p;
}

/* An event of type (NS_EV_ARRIVE or NS_EV_OFFER) at at_ns for host `host` with packet p, which
 * the event owns from here. */
static int push_packet(struct ns_sim *s, int type, int host, struct ns_pkt *p, int64_t at_ns)
{
    struct ns_ev ev = {.at_ns = at_ns, .type = type, .host = host, .pkt = p};
    int rc = ns_evq_push(&s->q, ev);
    if (rc < 0) {
        free(p);
        s->error = rc;
        return -ENOBUFS;
    }
    return 0;
}

/* One event at the shared medium's next due time supersedes any earlier one. */
static int schedule_medium(struct ns_sim *s)
{
    int rc = ns_evq_set(&s->q, NS_SLOT_MEDIUM, le_medium_next_ns(&s->medium));
    if (rc < 0)
        s->error = rc;
    return rc;
}

/* --medium shared: the frame waits in the host's interface queue for its turn on the wire. */
static int medium_offer(struct ns_sim *s, int from, struct ns_pkt *p)
{
    if (le_medium_offer(&s->medium, from, s->now_ns, (uint32_t)p->len, p) != LE_PASS) {
        free(p);
        return 0;
    }
    return schedule_medium(s);
}

/* The stack hands a frame over when its CPU will have finished it, often ahead of the
 * simulator's clock; the frame joins the queue only then, so the queue's limit counts what
 * waits at that time, not every frame a blast has already handed over. */
static int medium_output(struct ns_sim *s, int from, const uint8_t *pkt, size_t len, int64_t at_ns)
{
    struct ns_pkt *p = copy_packet(s, pkt, len);
    if (!p)
        return -ENOBUFS;
    if (at_ns <= s->now_ns)
        return medium_offer(s, from, p) < 0 ? -ENOBUFS : 0;
    return push_packet(s, NS_EV_OFFER, from, p, at_ns);
}

/* Runs the medium's events due now: frames that went out whole become arrivals; frames given
 * up after 16 collisions are gone, as on the wire. */
static int run_medium(struct ns_sim *s)
{
    struct le_outcome out[LE_MAX_OUTCOMES];
    while (le_medium_next_ns(&s->medium) <= s->now_ns) {
        int n = le_medium_step(&s->medium, s->now_ns, out);
        for (int i = 0; i < n; i++) {
            if (out[i].kind == LE_EXCESSIVE) {
                free(out[i].pkt);
                continue;
            }
            if (push_packet(s, NS_EV_ARRIVE, 1 - out[i].station, out[i].pkt, out[i].arrive_ns) < 0)
                return s->error;
        }
    }
    return schedule_medium(s);
}

/* The stack's interface: the packet enters this host's direction of the link at the time the
 * CPU finished it; if it survives, its arrival at the other host becomes an event. */
static int host_output(void *ctx, const uint8_t *pkt, size_t len, int64_t at_ns)
{
    struct ns_host *h = ctx;
    struct ns_sim *s = h->sim;
    if (at_ns < h->last_out_ns)
        at_ns = h->last_out_ns;
    h->last_out_ns = at_ns;
    s->packets++;
    /* The capture sees what leaves host a's interface, whatever the link then does with it. */
    if (h->idx == 0 && s->pcap.f) {
        int rc = ns_pcap_sent(&s->pcap, at_ns, pkt, len);
        if (rc < 0) {
            s->error = rc;
            return -ENOBUFS;
        }
    }
    if (s->args->shared_medium)
        return medium_output(s, h->idx, pkt, len, at_ns);
    int64_t release;
    if (le_admit(&s->link[h->idx], at_ns, (uint32_t)(len + LE_ETH_HEADER), &release) != LE_PASS)
        return 0;
    struct ns_pkt *p = copy_packet(s, pkt, len);
    return p ? push_packet(s, NS_EV_ARRIVE, 1 - h->idx, p, release) : -ENOBUFS;
}

static void host_trace(void *ctx, const struct tahoe_seg_trace *ev)
{
    struct ns_host *h = ctx;
    struct nr_json j;
    tahoe_seg_json(&j, h->idx == 0 ? "a" : "b", ev);
    int rc = nr_json_emit(&j, h->sim->out);
    if (rc < 0 && !h->sim->error)
        h->sim->error = rc;
}

static void host_debug(void *ctx, const struct tahoe_tcp_debug *td)
{
    struct ns_host *h = ctx;
    struct nr_json j;
    nr_json_begin(&j, "tcp_debug");
    nr_json_str(&j, "host", h->idx == 0 ? "a" : "b");
    nr_json_int(&j, "at_ns", td->at_ns);
    nr_json_str(&j, "act", tcp_debug_act_name(td->act));
    nr_json_int(&j, "req", td->req);
    nr_json_int(&j, "ostate", td->ostate);
    nr_json_int(&j, "state", td->state);
    nr_json_int(&j, "sport", td->sport);
    nr_json_int(&j, "dport", td->dport);
    nr_json_int(&j, "snd_una", td->snd_una);
    nr_json_int(&j, "snd_max", td->snd_max);
    nr_json_int(&j, "snd_wnd", td->snd_wnd);
    nr_json_int(&j, "cwnd", td->snd_cwnd);
    nr_json_int(&j, "ssthresh", td->snd_ssthresh);
    nr_json_int(&j, "maxseg", td->maxseg);
    int rc = nr_json_emit(&j, h->sim->out);
    if (rc < 0 && !h->sim->error)
        h->sim->error = rc;
}

/* As a script stops the server once the client is done. Having served its one session,
 * mftpd has returned before mftp reads the last reply; if mftp ended without that session,
 * mftpd would wait for another forever, so its loop is stopped and it returns a failure. */
static void stop_mftpd(struct ns_sim *s)
{
    struct ns_host *b = &s->host[1];
    if (b->co.done)
        return;
    nrio_stop(b->io);
    int rc = schedule_wake(b, s->now_ns);
    if (rc < 0 && !s->error)
        s->error = rc;
}

static void host_main(void *arg)
{
    struct ns_host *h = arg;
    struct ns_sim *s = h->sim;
    const struct ns_args *a = s->args;
    if (a->app == NS_APP_TTCP) {
        h->status = ttcp_run(h->io, h->idx == 0 ? &a->tx : &a->rx, s->out, NULL);
    } else if (a->app == NS_APP_IPCBENCH) {
        const struct ipc_args *ia = h->idx == 0 ? &a->ipc : &a->ipcd;
        h->status = ia->proto == NRIO_TCP ? ipc_run_tcp(h->io, ia, s->out)
                                          : ipc_run_udp(h->io, ia, s->out);
    } else if (a->app == NS_APP_MFTP) {
        if (h->idx == 1) {
            h->status = mftpd_run(h->io, &a->mftpd, s->out, NULL);
            return;
        }
        h->status = mftp_run(h->io, &a->mftp, s->out);
        stop_mftpd(s);
    } else if (h->idx == 0) {
        h->status = pingx_run(h->io, &a->ping, s->out, stderr);
        /* As the scripts do on a real host: pingx is done, so echod gets its SIGTERM. */
        s->stop_echod = 1;
    } else {
        h->status = echod_run(h->io, &a->echo, &s->stop_echod, s->out, stderr, 0);
    }
}

static int host_init(struct ns_sim *s, int idx, FILE *err)
{
    struct ns_host *h = &s->host[idx];
    const struct ns_args *a = s->args;
    h->sim = s;
    h->idx = idx;
    h->status = 1;
    struct tahoe_config cfg;
    tahoe_config_defaults(&cfg);
    struct nrio_addr addr;
    nrio_parse_addr(idx == 0 ? NS_ADDR_A : NS_ADDR_B, 0, &addr);
    cfg.addr = addr.ip;
    cfg.mtu = (int)a->mtu;
    cfg.window_scale = a->window_scale;
    /* The driver the host model charges is the one of the link's framing. */
    cfg.iface = a->framing == LE_FRAMING_AAL5_LLC_SNAP || a->framing == LE_FRAMING_AAL5_VC_MUX
                    ? TAHOE_IF_ATM
                    : TAHOE_IF_ETHER;
    cfg.jitter_seed = a->seed;
    cfg.jitter_stream = STREAM_JITTER + (uint64_t)idx;
    if (a->sb_max)
        cfg.sb_max = a->sb_max;
    cfg.tcp_sendspace = cfg.tcp_recvspace = a->tcp_space ? a->tcp_space
                                                         : nr_stack_default_space(cfg.mtu);
    if (cfg.tcp_sendspace > cfg.sb_max) {
        fprintf(err, "netsim: --tcp-space %d exceeds the largest socket buffer, %d\n",
                cfg.tcp_sendspace, cfg.sb_max);
        return -1;
    }
    /* A stack's clock starts at its boot and never goes back, so host b boots in the past:
     * it is up when the run starts, with its ticks in another phase than a's. */
    cfg.boot_ns = idx == 0 ? 0 : -s->boot_b_ns;
    if (a->host_model[idx]) {
        char what[512];
        if (tahoe_hostcost_read(a->host_model[idx], &cfg.cost, what, sizeof what) < 0) {
            fprintf(err, "netsim: reading the host model failed: %s; give a file from "
                         "configs/hosts/ (configs/schema/host.schema.json)\n", what);
            return -1;
        }
    }
    cfg.if_output = host_output;
    cfg.ctx = h;
    if (a->trace) {
        cfg.trace = host_trace;
        cfg.trace_ctx = h;
    }
    if (a->tcp_debug) {
        cfg.debug = host_debug;
        cfg.debug_ctx = h;
    }
    struct nrio_tahoe_env env = {.now_ns = host_now, .wait = host_wait, .ctx = h,
                                 .spin_ps_per_iteration = a->spin_ps};
    h->io = nrio_tahoe_new(&cfg, &env);
    if (!h->io) {
        fprintf(err, "netsim: creating host %c's Tahoe stack failed (out of memory, or MTU %u "
                     "outside 68..65535)\n", 'a' + idx, a->mtu);
        return -1;
    }
    int rc = ns_coro_init(&h->co, host_main, h);
    if (rc < 0) {
        fprintf(err, "netsim: creating host %c's application context failed: %s\n", 'a' + idx,
                strerror(-rc));
        return -1;
    }
    return 0;
}

/* The transfer's source, written from the seed when asked; its sink must be another file, as
 * both hosts see this machine's files and mftp truncates its --dest before the transfer. */
static int prepare_mftp(const struct ns_args *a, FILE *err)
{
    if (a->file_size >= 0 && ns_write_data(a->source, a->file_size, a->seed, err) < 0)
        return -1;
    struct stat src, dst;
    if (stat(a->source, &src) == 0 && S_ISREG(src.st_mode) && stat(a->sink, &dst) == 0 &&
        src.st_dev == dst.st_dev && src.st_ino == dst.st_ino) {
        fprintf(err, "netsim: the transfer would write %s, the file it reads; give mftp %s "
                     "another path\n", a->sink, a->mftp.get ? "--dest" : "--remote-name");
        return -1;
    }
    return 0;
}

int ns_sim_init(struct ns_sim *s, const struct ns_args *a, FILE *out, FILE *err)
{
    memset(s, 0, sizeof *s);
    s->args = a;
    s->out = out;
    if (a->app == NS_APP_MFTP && prepare_mftp(a, err) < 0)
        return -1;
    s->boot_b_ns = a->boot_b_ns;
    if (s->boot_b_ns < 0) {
        struct nr_rng rng;
        nr_rng_seed(&rng, a->seed, STREAM_BOOT);
        s->boot_b_ns = (int64_t)(nr_rng_unit(&rng) * TAHOE_BOOT_SPREAD_NS);
    }
    if (le_dir_init(&s->link[0], &a->forward, a->framing, a->mtu, a->seed, 0) < 0 ||
        le_dir_init(&s->link[1], &a->reverse, a->framing, a->mtu, a->seed, 1) < 0) {
        fprintf(err, "netsim: out of memory setting up the link\n");
        return -1;
    }
    if (a->shared_medium &&
        (le_medium_init(&s->medium, a->forward.rate_bps, a->forward.delay_ns, a->framing,
                        a->forward.queue_packets, a->seed, STREAM_MEDIUM) < 0 ||
         (a->background_fps > 0 && le_medium_background(&s->medium, a->background_fps,
                                                         a->background_octets, 0, a->seed) < 0))) {
        fprintf(err, "netsim: out of memory setting up the shared medium\n");
        return -1;
    }
    for (int i = 0; i < 2; i++)
        if (host_init(s, i, err) < 0)
            return -1;
    if (a->pcap_path && ns_pcap_open(&s->pcap, a->pcap_path, err) < 0)
        return -1;
    return 0;
}

/* Lets host h's application run at the current time, if it is still running; a host whose
 * application has returned keeps its stack going (retransmissions, the last ACKs). */
static int host_run(struct ns_host *h)
{
    struct ns_sim *s = h->sim;
    if (!h->co.done)
        return ns_coro_resume(&h->co);
    struct tahoe_stack *st = nrio_tahoe_stack(h->io);
    tahoe_clock(st, s->now_ns);
    return schedule_wake(h, tahoe_next_deadline(st));
}

static int handle(struct ns_sim *s, struct ns_ev *ev)
{
    struct ns_host *h = &s->host[ev->host];
    if (ev->type == NS_EV_STALE)
        return 0;
    if (ev->type == NS_EV_MEDIUM)
        return run_medium(s);
    if (ev->type == NS_EV_WAKE)
        return host_run(h);
    if (ev->type == NS_EV_OFFER) {
        struct ns_pkt *p = ev->pkt;
        ev->pkt = NULL;
        return medium_offer(s, ev->host, p);
    }
    le_sent(&s->link[1 - ev->host], (uint32_t)(ev->pkt->len + LE_ETH_HEADER));
    if (ev->host == 0 && s->pcap.f) {
        int rc = ns_pcap_received(&s->pcap, s->now_ns, ev->pkt->data, ev->pkt->len);
        if (rc < 0) {
            free(ev->pkt);
            return rc;
        }
    }
    nrio_tahoe_input(h->io, ev->pkt->data, ev->pkt->len, s->now_ns);
    free(ev->pkt);
    ev->pkt = NULL;
    return host_run(h);
}

static int run_events(struct ns_sim *s)
{
    /* The receiver starts first so that it listens when the first SYN arrives. */
    for (int i = 1; i >= 0 && !s->error; i--) {
        int rc = ns_coro_resume(&s->host[i].co);
        if (rc < 0)
            return rc;
    }
    struct ns_ev ev;
    while (!s->error && !(s->host[0].co.done && s->host[1].co.done)) {
        if (ns_evq_pop(&s->q, &ev) < 0)
            return -EDEADLK; /* nothing left to happen, yet an application still waits */
        s->now_ns = ev.at_ns;
        s->events++;
        int rc = handle(s, &ev);
        if (rc < 0)
            return rc;
    }
    return s->error;
}

int ns_sim_run(struct ns_sim *s)
{
    int rc = run_events(s);
    int capture = ns_pcap_close(&s->pcap);
    return rc < 0 ? rc : capture;
}

void ns_sim_free(struct ns_sim *s)
{
    ns_pcap_close(&s->pcap); /* only open when the run never started; a failure is told */
    for (int i = 0; i < 2; i++) {
        if (s->host[i].io)
            nrio_destroy(s->host[i].io);
        ns_coro_free(&s->host[i].co);
        le_dir_free(&s->link[i]);
    }
    le_medium_free(&s->medium, free);
    ns_evq_free(&s->q);
}
