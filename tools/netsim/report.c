/* The sim record: what the run cost, in events and in time, and what each host's TCP and the
 * link did, as flat keys (a_tcps_sndpack, forward_drop_cell_loss, ...). */
#include <stddef.h>
#include <string.h>

#include "json.h"
#include "sim.h"
#include "tahoe/nrio_tahoe.h"
#include "tahoe/tahoe_drops.h"
#include "tahoe/tcp_var.h"

#define TCPSTAT(name) {#name, offsetof(struct tcpstat, name)}
static const struct {
    const char *name;
    size_t off;
} tcpstat_fields[] = {
    TCPSTAT(tcps_connattempt), TCPSTAT(tcps_accepts), TCPSTAT(tcps_connects),
    TCPSTAT(tcps_drops), TCPSTAT(tcps_conndrops), TCPSTAT(tcps_closed),
    TCPSTAT(tcps_segstimed), TCPSTAT(tcps_rttupdated), TCPSTAT(tcps_delack),
    TCPSTAT(tcps_timeoutdrop), TCPSTAT(tcps_rexmttimeo), TCPSTAT(tcps_persisttimeo),
    TCPSTAT(tcps_keeptimeo), TCPSTAT(tcps_keepprobe), TCPSTAT(tcps_keepdrops),
    TCPSTAT(tcps_sndtotal), TCPSTAT(tcps_sndpack), TCPSTAT(tcps_sndbyte),
    TCPSTAT(tcps_sndrexmitpack), TCPSTAT(tcps_sndrexmitbyte), TCPSTAT(tcps_sndacks),
    TCPSTAT(tcps_sndprobe), TCPSTAT(tcps_sndurg), TCPSTAT(tcps_sndwinup),
    TCPSTAT(tcps_sndctrl), TCPSTAT(tcps_sndrst), TCPSTAT(tcps_rcvtotal),
    TCPSTAT(tcps_rcvpack), TCPSTAT(tcps_rcvbyte), TCPSTAT(tcps_rcvbadsum),
    TCPSTAT(tcps_rcvbadoff), TCPSTAT(tcps_rcvshort), TCPSTAT(tcps_rcvduppack),
    TCPSTAT(tcps_rcvdupbyte), TCPSTAT(tcps_rcvpartduppack), TCPSTAT(tcps_rcvpartdupbyte),
    TCPSTAT(tcps_rcvoopack), TCPSTAT(tcps_rcvoobyte), TCPSTAT(tcps_rcvpackafterwin),
    TCPSTAT(tcps_rcvbyteafterwin), TCPSTAT(tcps_rcvafterclose), TCPSTAT(tcps_rcvwinprobe),
    TCPSTAT(tcps_rcvdupack), TCPSTAT(tcps_rcvacktoomuch), TCPSTAT(tcps_rcvackpack),
    TCPSTAT(tcps_rcvackbyte), TCPSTAT(tcps_rcvwinupd), TCPSTAT(tcps_out_s1),
    TCPSTAT(tcps_out_s2), TCPSTAT(tcps_out_nodelay), TCPSTAT(tcps_out_s3),
    TCPSTAT(tcps_out_rexmt), TCPSTAT(tcps_out_persist), TCPSTAT(tcps_out_r1),
    TCPSTAT(tcps_out_r2), TCPSTAT(tcps_out_acknow), TCPSTAT(tcps_out_ctl),
    TCPSTAT(tcps_out_fin), TCPSTAT(tcps_fastrexmt), TCPSTAT(tcps_sndbehind),
};

static void key(char *buf, size_t len, const char *prefix, const char *name)
{
    snprintf(buf, len, "%s_%s", prefix, name);
}

static void emit_tcpstat(struct nr_json *j, const char *prefix, const struct tcpstat *ts)
{
    char k[64];
    for (size_t i = 0; i < sizeof tcpstat_fields / sizeof tcpstat_fields[0]; i++) {
        uint64_t v;
        memcpy(&v, (const char *)ts + tcpstat_fields[i].off, sizeof v);
        key(k, sizeof k, prefix, tcpstat_fields[i].name);
        nr_json_int(j, k, (int64_t)v);
    }
}

static void emit_link(struct nr_json *j, const char *prefix, const struct le_counters *c)
{
    char k[64];
#define LINK(field)                             \
    key(k, sizeof k, prefix, #field);           \
    nr_json_int(j, k, (int64_t)c->field)
    LINK(rx_packets);
    LINK(tx_packets);
    LINK(drop_queue);
    LINK(drop_loss);
    LINK(drop_cell_loss);
    LINK(drop_bit_error);
    LINK(drop_oversize);
    LINK(queue_max_packets);
#undef LINK
}

/* --medium shared: what each host's interface counted (and the background station's), and
 * collisions per frame the hosts sent. */
static void emit_medium(struct nr_json *j, const struct le_medium *m)
{
    char k[64];
    static const char *const prefixes[LE_STATIONS] = {"medium_a", "medium_b", "medium_bg"};
    for (int i = 0; i < m->nst; i++) {
        const struct le_station_counters *c = &m->st[i].count;
        const char *prefix = prefixes[i];
#define STATION(field)                          \
    key(k, sizeof k, prefix, #field);           \
    nr_json_int(j, k, (int64_t)c->field)
        STATION(offered);
        STATION(tx_frames);
        STATION(collisions);
        STATION(deferrals);
        STATION(excessive);
        STATION(drop_queue);
        STATION(queue_max_packets);
#undef STATION
    }
    nr_json_double(j, "medium_collision_pct", le_medium_collision_pct(m));
}

/* The application's paging (a host model with ram_bytes): zero-fills, page-ins, page-outs. */
static void emit_vm(struct nr_json *j, const char *prefix, const struct vmstat *v)
{
    char k[64];
#define VM(field)                               \
    key(k, sizeof k, prefix, #field);           \
    nr_json_int(j, k, (int64_t)v->field)
    VM(v_zfod);
    VM(v_pgin);
    VM(v_pgout);
    VM(v_frees);
    VM(v_maxres);
#undef VM
}

/* The host's CPU beside the protocols: the receive path's wakeups, interrupt time, the bus. */
static void emit_cpu(struct nr_json *j, const char *prefix, const struct tahoe_cpustat *c)
{
    char k[64];
#define CPU(field)                              \
    key(k, sizeof k, prefix, "cpu_" #field);    \
    nr_json_int(j, k, (int64_t)c->field)
    CPU(wakeups);
    CPU(ctx_switches);
    CPU(ctx_switch_ns);
    CPU(late_wakeups);
    CPU(late_wakeup_ns);
    CPU(clock_ticks);
    CPU(intr_ns);
    CPU(bus_ns);
#undef CPU
}

/* What the host's disk did (a host model with a disk): I/Os, the drive's busy time and the
 * time the process slept waiting for it. */
static void emit_disk(struct nr_json *j, const char *prefix, const struct tahoe_diskstat *d)
{
    char k[64];
    key(k, sizeof k, prefix, "disk_ios");
    nr_json_int(j, k, (int64_t)d->ios);
    key(k, sizeof k, prefix, "disk_busy_ns");
    nr_json_int(j, k, d->busy_ns);
    key(k, sizeof k, prefix, "disk_wait_ns");
    nr_json_int(j, k, d->wait_ns);
}

void ns_emit_sim(FILE *out, const struct ns_sim *s, int64_t wall_ns)
{
    struct nr_json j;
    nr_json_begin(&j, "sim");
    nr_json_str(&j, "tool", "netsim");
    nr_json_str(&j, "app", ns_app_name(s->args->app));
    nr_json_int(&j, "seed", (int64_t)s->args->seed);
    nr_json_int(&j, "boot_b_ns", s->boot_b_ns);
    nr_json_int(&j, "events", (int64_t)s->events);
    nr_json_int(&j, "packets", (int64_t)s->packets);
    nr_json_int(&j, "virtual_ns", s->now_ns);
    nr_json_int(&j, "status_a", s->host[0].status);
    nr_json_int(&j, "status_b", s->host[1].status);
    if (s->args->pcap_path)
        nr_json_int(&j, "capture_packets", (int64_t)s->pcap.packets);
    if (wall_ns >= 0) {
        double wall_s = wall_ns > 0 ? wall_ns / 1e9 : 1e-9;
        nr_json_int(&j, "wall_ns", wall_ns);
        nr_json_double(&j, "events_per_s", (double)s->events / wall_s);
        nr_json_double(&j, "speedup", s->now_ns / 1e9 / wall_s);
    }
    emit_link(&j, "forward", &s->link[0].count);
    emit_link(&j, "reverse", &s->link[1].count);
    if (s->args->shared_medium)
        emit_medium(&j, &s->medium);
    for (int i = 0; i < 2; i++) {
        const struct tahoe_stack *st = nrio_tahoe_stack(s->host[i].io);
        emit_tcpstat(&j, i == 0 ? "a" : "b", tahoe_tcpstat(st));
        tahoe_json_drops(&j, i == 0 ? "a" : "b", st);
        emit_vm(&j, i == 0 ? "a" : "b", nrio_tahoe_vmstat(s->host[i].io));
        emit_cpu(&j, i == 0 ? "a" : "b", tahoe_cpustat(st));
        emit_disk(&j, i == 0 ? "a" : "b", nrio_tahoe_diskstat(s->host[i].io));
    }
    int rc = nr_json_emit(&j, out);
    if (rc < 0)
        fprintf(stderr, "netsim: writing the sim record failed: %s\n", strerror(-rc));
}
