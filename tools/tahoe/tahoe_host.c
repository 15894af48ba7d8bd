/* The stack object, its clock, the CPU cost model and host model files. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "in_pcb.h"
#include "ip.h"
#include "socketvar.h"
#include "stackopt.h"
#include "tahoe_var.h"
#include "units.h"

void tahoe_config_defaults(struct tahoe_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->mtu = NR_ETHER_MTU;
    cfg->sb_max = NR_SB_MAX;
    /* 4.3BSD tcp_sendspace / tcp_recvspace; SunOS raised them to 16K on the ATM interface. */
    cfg->tcp_sendspace = NR_TCPSPACE_BSD;
    cfg->tcp_recvspace = NR_TCPSPACE_BSD;
    /* ASSUMPTION: the papers do not give SunOS's UDP buffers. 9216 lets an 8 KB datagram
     * (liu95db) and a 9000-octet one (milliner) through; 41600 is 4.3BSD-Reno's receive space. */
    cfg->udp_sendspace = 9216;
    cfg->udp_recvspace = 41600;
    cfg->udp_cksum = 1;
    cfg->iss = 1;
}

struct tahoe_stack *tahoe_new(const struct tahoe_config *cfg)
{
    if (!cfg->if_output || cfg->mtu < NR_MTU_MIN || cfg->mtu > NR_MTU_MAX)
        return NULL;
    struct tahoe_stack *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->cfg = *cfg;
    st->now = cfg->boot_ns;
    st->cpu_free = cfg->boot_ns;
    st->next_fast = cfg->boot_ns + FASTTICK_NS;
    st->next_slow = cfg->boot_ns + SLOWTICK_NS;
    st->tcp_iss = cfg->iss;
    st->last_port = 1023;
    return st;
}

void tahoe_free(struct tahoe_stack *st)
{
    if (!st)
        return;
    for (int i = 0; i < st->nfds; i++)
        if (st->fds[i])
            tahoe_close(st, i);
    /* Connections still closing hold their sockets through their pcbs. */
    while (st->tcb)
        tcp_close(st->tcb->inp_ppcb);
    while (st->udb)
        in_pcbdetach(st->udb);
    while (st->ripcb)
        in_pcbdetach(st->ripcb);
    ip_freeq_all(st);
    while (st->inq) {
        struct inpkt *p = st->inq;
        st->inq = p->next;
        free(p);
    }
    free(st->fds);
    free(st);
}

int64_t tahoe_charge(struct tahoe_stack *st, int64_t ns)
{
    if (st->cpu_free < st->now)
        st->cpu_free = st->now;
    st->cpu_free += ns;
    return st->cpu_free;
}

int64_t tahoe_bytecost(const struct tahoe_stack *st, size_t nbytes)
{
    return (int64_t)nbytes * st->cfg.cost.per_byte_ps / 1000;
}

int64_t tahoe_copycost(const struct tahoe_stack *st, size_t nbytes)
{
    return (1 + st->cfg.cost.copy_write_passes) * tahoe_bytecost(st, nbytes);
}

int64_t tahoe_packetcost(const struct tahoe_stack *st, size_t len)
{
    return st->cfg.cost.per_packet_ns + (1 + st->cfg.cost.dma_passes) * tahoe_bytecost(st, len);
}

int64_t tahoe_now_ns(const struct tahoe_stack *st) { return st->now; }
void tahoe_cpu_charge(struct tahoe_stack *st, int64_t ns) { tahoe_charge(st, ns); }
int64_t tahoe_cpu_free_ns(const struct tahoe_stack *st)
{
    return st->cpu_free > st->now ? st->cpu_free : st->now;
}

/* Processes one received packet: the CPU takes it when free (and not before it arrived). */
static void process_input(struct tahoe_stack *st, struct inpkt *p)
{
    st->inq = p->next;
    if (!st->inq)
        st->inq_tail = NULL;
    st->inq_len--;
    tahoe_charge(st, tahoe_packetcost(st, p->len));
    ip_input_process(st, p->data, p->len);
    free(p);
}

static int64_t input_ready_time(const struct tahoe_stack *st)
{
    if (!st->inq)
        return INT64_MAX;
    return st->inq->arrival_ns > st->cpu_free ? st->inq->arrival_ns : st->cpu_free;
}

void tahoe_clock(struct tahoe_stack *st, int64_t now_ns)
{
    for (;;) {
        int64_t t_in = input_ready_time(st);
        int64_t t_tick = st->next_fast < st->next_slow ? st->next_fast : st->next_slow;
        int64_t t = t_in < t_tick ? t_in : t_tick;
        if (t > now_ns)
            break;
        if (t > st->now)
            st->now = t;
        if (t_in <= t_tick) {
            process_input(st, st->inq);
            continue;
        }
        /* Both ticks come from the one hardware clock; at a common instant fast runs first. */
        if (st->next_fast == t) {
            st->next_fast += FASTTICK_NS;
            tcp_fasttimo(st);
        }
        if (st->next_slow == t) {
            st->next_slow += SLOWTICK_NS;
            ip_slowtimo(st);
            tcp_slowtimo(st);
        }
    }
    if (now_ns > st->now)
        st->now = now_ns;
}

void tahoe_ip_input(struct tahoe_stack *st, const uint8_t *pkt, size_t len)
{
    if (st->inq_len >= IFQ_MAXLEN) {
        st->ipstat.ips_qdrop++;
        return;
    }
    struct inpkt *p = malloc(sizeof *p + len);
    if (!p) {
        st->ipstat.ips_qdrop++;
        return;
    }
    p->next = NULL;
    p->arrival_ns = st->now;
    p->len = len;
    memcpy(p->data, pkt, len);
    if (st->inq_tail)
        st->inq_tail->next = p;
    else
        st->inq = p;
    st->inq_tail = p;
    st->inq_len++;
    /* An idle CPU takes the packet at once; a busy one leaves it for tahoe_clock. */
    if (st->inq == p && st->cpu_free <= st->now)
        process_input(st, p);
}

/* The slow tick at which a timer holding v ticks expires. */
static int64_t slow_expiry(const struct tahoe_stack *st, int v)
{
    return st->next_slow + (int64_t)(v - 1) * SLOWTICK_NS;
}

int64_t tahoe_next_deadline(const struct tahoe_stack *st)
{
    int64_t dl = input_ready_time(st);
    for (struct inpcb *inp = st->tcb; inp; inp = inp->inp_next) {
        const struct tcpcb *tp = inp->inp_ppcb;
        if (!tp)
            continue;
        if ((tp->t_flags & TF_DELACK) && st->next_fast < dl)
            dl = st->next_fast;
        for (int i = 0; i < TCPT_NTIMERS; i++)
            if (tp->t_timer[i] && slow_expiry(st, tp->t_timer[i]) < dl)
                dl = slow_expiry(st, tp->t_timer[i]);
    }
    for (const struct ipq *q = st->ipq; q; q = q->next)
        if (slow_expiry(st, q->ttl) < dl)
            dl = slow_expiry(st, q->ttl);
    return dl;
}

const struct tcpstat *tahoe_tcpstat(const struct tahoe_stack *st) { return &st->tcpstat; }
const struct ipstat *tahoe_ipstat(const struct tahoe_stack *st) { return &st->ipstat; }
const struct udpstat *tahoe_udpstat(const struct tahoe_stack *st) { return &st->udpstat; }
const struct icmpstat *tahoe_icmpstat(const struct tahoe_stack *st) { return &st->icmpstat; }

/* A host model file is at most this long (netrepro/yamlsrc.py MAX_FILE_BYTES, the most any spec
 * file may have): a longer one, or a device such as /dev/zero, is refused unread. */
#define HOST_MODEL_MAX_BYTES (1 << 20)
/* No cost of a host model is above a second, nor its memory above a terabyte: with these a
 * run's costs stay far inside the 64-bit virtual clock (netrepro/limits.py HOST_KEYS, which the
 * validator checks, says why). per_packet_ns 9223372036854775807 wrapped it around. */
#define HOST_MAX_COST 1000000000LL
#define HOST_MAX_BYTES (1LL << 40)

static const struct {
    const char *key;
    size_t offset;
    long long lo, hi; /* a key the model leaves out is 0: for those with lo 1, "does not say" */
} host_keys[] = {
    {"per_packet_ns", offsetof(struct tahoe_hostcost, per_packet_ns), 0, HOST_MAX_COST},
    {"per_byte_ps", offsetof(struct tahoe_hostcost, per_byte_ps), 0, HOST_MAX_COST},
    {"per_call_ns", offsetof(struct tahoe_hostcost, per_call_ns), 0, HOST_MAX_COST},
    {"copy_write_passes", offsetof(struct tahoe_hostcost, copy_write_passes), 0, 8},
    {"dma_passes", offsetof(struct tahoe_hostcost, dma_passes), 0, 8},
    {"ram_bytes", offsetof(struct tahoe_hostcost, ram_bytes), 0, HOST_MAX_BYTES},
    {"resident_bytes", offsetof(struct tahoe_hostcost, resident_bytes), 0, HOST_MAX_BYTES},
    {"page_size", offsetof(struct tahoe_hostcost, page_size), 512, 1 << 20},
    {"page_in_ns", offsetof(struct tahoe_hostcost, page_in_ns), 0, HOST_MAX_COST},
    {"page_out_ns", offsetof(struct tahoe_hostcost, page_out_ns), 0, HOST_MAX_COST},
    {"spin_ps", offsetof(struct tahoe_hostcost, spin_ps), 1, HOST_MAX_COST},
    {"print_ns", offsetof(struct tahoe_hostcost, print_ns), 0, HOST_MAX_COST},
    {"clock_hz", offsetof(struct tahoe_hostcost, clock_hz), 1, 1000000000LL},
};

/* The file's text, NUL-terminated, in a buffer to free; NULL with *rc a negative errno. */
static char *read_host_model(const char *path, int *rc)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *rc = -errno;
        return NULL;
    }
    struct stat st;
    char *text = NULL;
    if (fstat(fd, &st) < 0) {
        *rc = -errno;
    } else if (!S_ISREG(st.st_mode) || st.st_size > HOST_MODEL_MAX_BYTES) {
        *rc = -EINVAL;
    } else if (!(text = malloc((size_t)st.st_size + 1))) {
        *rc = -ENOMEM;
    } else {
        ssize_t n = read(fd, text, (size_t)st.st_size);
        if (n < 0) {
            *rc = -errno;
            free(text);
            text = NULL;
        } else {
            text[n] = '\0';
        }
    }
    close(fd);
    return text;
}

/* One line "key: value", the value a plain decimal integer (units.h: no sign, padding or hex)
 * within the key's range, perhaps followed by a comment. 0 for a line of another key or none,
 * -EINVAL for a key of the model with a value it cannot have. */
static int host_line(char *line, struct tahoe_hostcost *c)
{
    for (size_t i = 0; i < sizeof host_keys / sizeof host_keys[0]; i++) {
        size_t klen = strlen(host_keys[i].key);
        if (strncmp(line, host_keys[i].key, klen) != 0 || line[klen] != ':')
            continue;
        char *v = line + klen + 1;
        v += strspn(v, " \t");
        char *end = v + strcspn(v, " \t#\r");
        char *rest = end + strspn(end, " \t\r");
        if (*rest && *rest != '#')
            return -EINVAL;
        *end = '\0';
        long long n;
        if (nr_parse_count(v, host_keys[i].hi, &n) || n < host_keys[i].lo)
            return -EINVAL;
        *(int64_t *)((char *)c + host_keys[i].offset) = n;
        return 0;
    }
    return 0;
}

/* Host model files are YAML with integer keys; comments and other keys are ignored. */
int tahoe_hostcost_load(const char *path, struct tahoe_hostcost *out)
{
    int rc = 0;
    char *text = read_host_model(path, &rc);
    if (!text)
        return rc;
    struct tahoe_hostcost c = {.per_packet_ns = -1, .per_byte_ps = -1, .per_call_ns = -1};
    for (char *line = text, *next; line && !rc; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        rc = host_line(line, &c);
    }
    free(text);
    if (rc)
        return rc;
    if (c.per_packet_ns < 0 || c.per_byte_ps < 0 || c.per_call_ns < 0)
        return -EINVAL;
    /* A tick must be a whole number of nanoseconds, so the ticks stay on one grid. */
    if (c.clock_hz > 0 && 1000000000LL % c.clock_hz != 0)
        return -EINVAL;
    /* Paging needs all of its keys, and memory left for the process. */
    if (c.ram_bytes && (c.page_size < 512 || c.resident_bytes + c.page_size > c.ram_bytes))
        return -EINVAL;
    *out = c;
    return 0;
}
