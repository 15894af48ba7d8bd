#include "stackopt.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

void nr_stack_opts_init(struct nr_stack_opts *o)
{
    memset(o, 0, sizeof *o);
    o->name = "kernel";
    o->tick_phase_ns = -1;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* The IPv4 address in s before the character sep; *rest points past sep. */
static int parse_ip_before(const char *s, char sep, uint32_t *addr, const char **rest)
{
    char ip[INET_ADDRSTRLEN];
    const char *end = strchr(s, sep);
    if (!end || (size_t)(end - s) >= sizeof ip)
        return -1;
    memcpy(ip, s, (size_t)(end - s));
    ip[end - s] = '\0';
    struct in_addr in;
    if (inet_pton(AF_INET, ip, &in) != 1)
        return -1;
    *addr = in.s_addr;
    *rest = end + 1;
    return 0;
}

/* "a.b.c.d/n" with n from 1 to 32. */
static int parse_cidr(const char *s, uint32_t *addr, uint32_t *mask, int *prefix)
{
    const char *bits;
    long long n;
    if (parse_ip_before(s, '/', addr, &bits) || nr_parse_count(bits, 32, &n) || n < 1)
        return -1;
    *mask = htonl(n == 32 ? 0xffffffffu : ~(0xffffffffu >> n));
    *prefix = (int)n;
    return 0;
}

/* "a.b.c.d=xx:xx:xx:xx:xx:xx". */
static int parse_arp(const char *s, struct nr_arp_entry *e)
{
    const char *mac;
    unsigned int b[6];
    int used = 0;
    if (parse_ip_before(s, '=', &e->ip, &mac) ||
        sscanf(mac, "%2x:%2x:%2x:%2x:%2x:%2x%n", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
               &used) != 6 || used != 17 || mac[used] != '\0')
        return -1;
    for (int i = 0; i < 6; i++)
        e->mac[i] = (uint8_t)b[i];
    return 0;
}

int nr_stack_opt(struct nr_stack_opts *o, int code, const char *val, char *err, size_t errlen)
{
    long long v;
    switch (code) {
    case NR_OPT_STACK:
        if (strcmp(val, "kernel") != 0 && strcmp(val, "tahoe") != 0)
            return fail(err, errlen, "--stack %s: give kernel (Linux) or tahoe (the 4.3BSD-Tahoe "
                        "stack on --if)", val);
        o->name = strcmp(val, "kernel") == 0 ? "kernel" : "tahoe";
        return 0;
    case NR_OPT_IF:
        if (!*val || strlen(val) >= 16)
            return fail(err, errlen, "--if %s: give an interface name of 1 to 15 characters, "
                        "e.g. h1-eth0", val);
        o->ifname = val;
        return 0;
    case NR_OPT_ADDR:
        if (parse_cidr(val, &o->addr, &o->netmask, &o->prefix))
            return fail(err, errlen, "--addr %s: give an IPv4 address and prefix length, e.g. "
                        "10.0.0.1/24", val);
        o->addr_text = val;
        return 0;
    case NR_OPT_HOST_MODEL:
        o->host_model = val;
        return 0;
    case NR_OPT_MTU:
        if (nr_parse_size(val, &v) || v < NR_MTU_MIN || v > NR_MTU_MAX)
            return fail(err, errlen, "--mtu %s: give a size from %dB to %dB, e.g. 9188B", val,
                        NR_MTU_MIN, NR_MTU_MAX);
        o->mtu = (int)v;
        return 0;
    case NR_OPT_SENDSPACE:
    case NR_OPT_RECVSPACE:
        if (nr_parse_size(val, &v) || v < 1 || v > NR_SB_MAX)
            return fail(err, errlen, "--%s %s: give a size from 1B to %dB (SunOS's sb_max), "
                        "e.g. 16K", code == NR_OPT_SENDSPACE ? "tcp-sendspace" : "tcp-recvspace",
                        val, NR_SB_MAX);
        *(code == NR_OPT_SENDSPACE ? &o->tcp_sendspace : &o->tcp_recvspace) = (int)v;
        return 0;
    case NR_OPT_TICK_PHASE: {
        int64_t ns;
        if (nr_parse_time_ns(val, &ns) || ns < 0 || ns >= NR_TICK_CYCLE_NS)
            return fail(err, errlen, "--tick-phase %s: give a time from 0ms to under 1s, e.g. "
                        "350ms", val);
        o->tick_phase_ns = ns;
        return 0;
    }
    case NR_OPT_ARP:
        if (o->narp == NR_STACK_ARP_MAX)
            return fail(err, errlen, "--arp %s: at most %d entries", val, NR_STACK_ARP_MAX);
        if (parse_arp(val, &o->arp[o->narp]))
            return fail(err, errlen, "--arp %s: give IP=MAC, e.g. 10.0.0.2=00:00:00:00:00:02",
                        val);
        o->narp++;
        return 0;
    case NR_OPT_FRAME_TIMES:
        o->frame_times = 1;
        return 0;
    case NR_OPT_SEGMENT_LOG:
        if (!*val)
            return fail(err, errlen, "--segment-log: give a file to write, e.g. segments.jsonl");
        o->segment_log = val;
        return 0;
    case NR_OPT_JITTER: {
        unsigned long long seed, stream;
        int used = 0;
        if (sscanf(val, "%llu:%llu%n", &seed, &stream, &used) != 2 || val[used] != '\0' ||
            val[0] == '-' || strchr(val, ':')[1] == '-')
            return fail(err, errlen, "--jitter %s: give the run's seed and the host's stream, "
                        "e.g. 42:5", val);
        o->jitter_set = 1;
        o->jitter_seed = seed;
        o->jitter_stream = stream;
        return 0;
    }
    default:
        return fail(err, errlen, "internal error: %d is not a stack flag", code);
    }
}

int nr_stack_check(const struct nr_stack_opts *o, char *err, size_t errlen)
{
    if (strcmp(o->name, "tahoe") == 0) {
        if (!o->ifname || !o->addr_text || !o->host_model)
            return fail(err, errlen, "--stack tahoe needs --if IFACE, --addr IP/PREFIX and "
                        "--host-model FILE, e.g. --if h1-eth0 --addr 10.0.0.1/24 --host-model "
                        "configs/hosts/sparcstation-ipc.yaml");
        return 0;
    }
    if (o->ifname || o->addr_text || o->host_model || o->mtu || o->tcp_sendspace ||
        o->tcp_recvspace || o->tick_phase_ns >= 0 || o->narp || o->frame_times ||
        o->segment_log || o->jitter_set)
        return fail(err, errlen, "--if, --addr, --host-model, --mtu, --tcp-sendspace, "
                    "--tcp-recvspace, --tick-phase, --arp, --frame-times, --segment-log and "
                    "--jitter apply to --stack tahoe only");
    return 0;
}

int64_t nr_tick_next_ns(int64_t now_ns, int64_t phase_ns)
{
    int64_t ahead = (phase_ns - now_ns) % NR_TICK_CYCLE_NS;
    if (ahead < 0)
        ahead += NR_TICK_CYCLE_NS;
    return now_ns + ahead;
}

void nr_stack_usage(FILE *f, int col)
{
    static const char *const lines[][2] = {
        {"--stack NAME", "network stack: kernel (Linux) or tahoe (the 4.3BSD-Tahoe stack in"},
        {"", "this process, on --if) (default kernel)"},
        {"--if IFACE", "tahoe: the interface the stack owns, e.g. h1-eth0; remove the"},
        {"", "kernel's IPv4 address from it first (ip addr flush dev IFACE) and keep"},
        {"", "it up (required with tahoe)"},
        {"--addr IP/PREFIX", "tahoe: the stack's address, e.g. 10.0.0.1/24 (required with tahoe)"},
        {"--host-model FILE", "tahoe: per-packet, per-byte and per-call CPU costs, e.g."},
        {"", "configs/hosts/sparcstation-ipc.yaml (required with tahoe)"},
        {"--mtu SIZE", "tahoe: interface MTU, e.g. 9188B (default: the interface's)"},
        {"--tcp-sendspace SIZE", "tahoe: default TCP send buffer (default: 16K on an MTU"},
        {"", "above 1500B as SunOS on ATM, else 4K)"},
        {"--tcp-recvspace SIZE", "tahoe: default TCP receive buffer (default: as --tcp-sendspace)"},
        {"--tick-phase TIME", "tahoe: wait for the next instant TIME after a whole second of"},
        {"", "CLOCK_MONOTONIC, which all Mininet hosts share, and boot the stack then:"},
        {"", "its 200 ms and 500 ms ticks fall at that phase and the tool starts with"},
        {"", "them, e.g. 350ms (default: boot at once, at a random tick phase)"},
        {"--arp IP=MAC", "tahoe: a static ARP entry, e.g. 10.0.0.2=00:00:00:00:00:02, so the"},
        {"", "first packet to IP needs no ARP request; up to 8 (default: none)"},
        {"--frame-times", "tahoe: send each IPv4 frame with a 12-octet trailer that holds its"},
        {"", "modelled departure time, and take an arriving frame's trailer as its"},
        {"", "arrival time, so that this process's wake-up delays stay out of the"},
        {"", "modelled timeline; for linkemu --frame-times, whose interfaces then"},
        {"", "need an MTU 12 octets above the link's (default off)"},
        {"--segment-log FILE", "tahoe: write one JSON record per TCP segment the stack sends,"},
        {"", "with the rule that sent it (S1, S2, S3, R1, R2, ...), as netsim's"},
        {"", "\"segment\" records, to FILE when the tool ends (default: none)"},
        {"--jitter SEED:STREAM", "tahoe: draw the host model's interrupt and scheduling"},
        {"", "jitter from the run's SEED and this host's STREAM, as netsim does"},
        {"", "(host a: 5, host b: 6), e.g. 42:5 (default: a random seed)"},
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        int n = 2 + (int)strlen(lines[i][0]);
        /* A flag too long for the column gets its own line. */
        if (n >= col) {
            fprintf(f, "  %s\n", lines[i][0]);
            n = 0;
        }
        fprintf(f, "  %s%*s%s\n", n ? lines[i][0] : "", col - (n ? n : 2), "", lines[i][1]);
    }
}

int nr_stack_default_space(int mtu)
{
    return mtu > NR_ETHER_MTU ? NR_TCPSPACE_ATM : NR_TCPSPACE_BSD;
}
