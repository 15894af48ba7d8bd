#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "nrtest.h"
#include "stackopt.h"

static char err[256];

static int opt(struct nr_stack_opts *o, int code, const char *val)
{
    err[0] = '\0';
    return nr_stack_opt(o, code, val, err, sizeof err);
}

/* The flags a Tahoe run cannot do without. */
static void set_tahoe(struct nr_stack_opts *o)
{
    NRT_EQ_INT(opt(o, NR_OPT_STACK, "tahoe"), 0);
    NRT_EQ_INT(opt(o, NR_OPT_IF, "h1-eth0"), 0);
    NRT_EQ_INT(opt(o, NR_OPT_ADDR, "10.0.0.1/24"), 0);
    NRT_EQ_INT(opt(o, NR_OPT_HOST_MODEL, "m.yaml"), 0);
}

static void test_addr_and_mask(void)
{
    struct nr_stack_opts o;
    nr_stack_opts_init(&o);
    NRT_EQ_STR(o.name, "kernel");
    NRT_EQ_INT(opt(&o, NR_OPT_ADDR, "10.0.0.1/24"), 0);
    NRT_EQ_INT(o.addr, inet_addr("10.0.0.1"));
    NRT_EQ_INT(o.netmask, inet_addr("255.255.255.0"));
    NRT_EQ_INT(opt(&o, NR_OPT_ADDR, "10.1.2.3/32"), 0);
    NRT_EQ_INT(o.netmask, 0xffffffffu);
    NRT_EQ_INT(opt(&o, NR_OPT_ADDR, "10.1.2.3/9"), 0);
    NRT_EQ_INT(o.netmask, inet_addr("255.128.0.0"));
    NRT_EQ_INT(opt(&o, NR_OPT_ADDR, "10.0.0.1"), -1);
    NRT_CHECK(strstr(err, "prefix") != NULL);
    NRT_EQ_INT(opt(&o, NR_OPT_ADDR, "10.0.0.1/0"), -1);
    NRT_EQ_INT(opt(&o, NR_OPT_ADDR, "10.0.0.1/33"), -1);
    NRT_EQ_INT(opt(&o, NR_OPT_ADDR, "10.0.0/24"), -1);
}

static void test_sizes(void)
{
    struct nr_stack_opts o;
    nr_stack_opts_init(&o);
    NRT_EQ_INT(opt(&o, NR_OPT_MTU, "9188B"), 0);
    NRT_EQ_INT(o.mtu, 9188);
    NRT_EQ_INT(opt(&o, NR_OPT_MTU, "9188"), -1); /* units are required */
    NRT_EQ_INT(opt(&o, NR_OPT_MTU, "67B"), -1);
    NRT_EQ_INT(opt(&o, NR_OPT_SENDSPACE, "51K+204B"), 0);
    NRT_EQ_INT(o.tcp_sendspace, 52428);
    NRT_EQ_INT(opt(&o, NR_OPT_RECVSPACE, "52429B"), -1);
    NRT_CHECK(strstr(err, "sb_max") != NULL);
    NRT_EQ_INT(nr_stack_default_space(1500), 4096);
    NRT_EQ_INT(nr_stack_default_space(9188), 16384);
}

static void test_check(void)
{
    struct nr_stack_opts o;
    nr_stack_opts_init(&o);
    NRT_EQ_INT(nr_stack_check(&o, err, sizeof err), 0);
    NRT_EQ_INT(opt(&o, NR_OPT_STACK, "tahoe"), 0);
    NRT_EQ_INT(nr_stack_check(&o, err, sizeof err), -1);
    NRT_CHECK(strstr(err, "--host-model") != NULL);
    NRT_EQ_INT(opt(&o, NR_OPT_IF, "h1-eth0"), 0);
    NRT_EQ_INT(opt(&o, NR_OPT_ADDR, "10.0.0.1/24"), 0);
    NRT_EQ_INT(opt(&o, NR_OPT_HOST_MODEL, "m.yaml"), 0);
    NRT_EQ_INT(nr_stack_check(&o, err, sizeof err), 0);
    NRT_EQ_INT(opt(&o, NR_OPT_STACK, "kernel"), 0);
    NRT_EQ_INT(nr_stack_check(&o, err, sizeof err), -1);
    NRT_CHECK(strstr(err, "tahoe only") != NULL);
    NRT_EQ_INT(opt(&o, NR_OPT_STACK, "sim"), -1);
    NRT_EQ_INT(opt(&o, NR_OPT_IF, "a-name-longer-than-15"), -1);
}

/* --tick-phase: under a second, Tahoe only; the boot it waits for lies at that phase, less than
 * a cycle after now. */
static void test_tick_phase(void)
{
    struct nr_stack_opts o;
    nr_stack_opts_init(&o);
    NRT_EQ_INT(o.tick_phase_ns, -1);
    NRT_EQ_INT(opt(&o, NR_OPT_TICK_PHASE, "350ms"), 0);
    NRT_EQ_INT(o.tick_phase_ns, 350000000);
    NRT_EQ_INT(opt(&o, NR_OPT_TICK_PHASE, "1s"), -1);
    NRT_CHECK(strstr(err, "under 1s") != NULL);
    NRT_EQ_INT(opt(&o, NR_OPT_TICK_PHASE, "-1ms"), -1);
    NRT_EQ_INT(nr_stack_check(&o, err, sizeof err), -1);
    NRT_CHECK(strstr(err, "--tick-phase") != NULL);
    NRT_EQ_INT(nr_tick_next_ns(5350000000LL, 350000000), 5350000000LL); /* on the phase */
    NRT_EQ_INT(nr_tick_next_ns(5350000001LL, 350000000), 6350000000LL);
    NRT_EQ_INT(nr_tick_next_ns(5900000000LL, 350000000), 6350000000LL);
    NRT_EQ_INT(nr_tick_next_ns(100000000LL, 350000000), 350000000LL);
}

/* --arp: IP=MAC entries, up to NR_STACK_ARP_MAX, Tahoe only. */
static void test_arp(void)
{
    struct nr_stack_opts o;
    nr_stack_opts_init(&o);
    NRT_EQ_INT(opt(&o, NR_OPT_ARP, "10.0.0.2=00:00:00:00:00:0a"), 0);
    NRT_EQ_INT(o.narp, 1);
    NRT_EQ_INT(o.arp[0].ip, htonl(0x0a000002));
    NRT_EQ_INT(o.arp[0].mac[5], 10);
    NRT_EQ_INT(opt(&o, NR_OPT_ARP, "10.0.0.2"), -1);
    NRT_CHECK(strstr(err, "IP=MAC") != NULL);
    NRT_EQ_INT(opt(&o, NR_OPT_ARP, "10.0.0.2=00:00:00:00:00"), -1);
    NRT_EQ_INT(opt(&o, NR_OPT_ARP, "10.0.0.2=00:00:00:00:00:02:03"), -1);
    NRT_EQ_INT(opt(&o, NR_OPT_ARP, "10.0.0.300=00:00:00:00:00:02"), -1);
    NRT_EQ_INT(o.narp, 1);
    NRT_EQ_INT(nr_stack_check(&o, err, sizeof err), -1);
    NRT_CHECK(strstr(err, "--arp") != NULL);
    while (o.narp < NR_STACK_ARP_MAX)
        NRT_EQ_INT(opt(&o, NR_OPT_ARP, "10.0.0.3=02:00:00:00:00:03"), 0);
    NRT_EQ_INT(opt(&o, NR_OPT_ARP, "10.0.0.3=02:00:00:00:00:03"), -1);
    NRT_CHECK(strstr(err, "at most") != NULL);
}

/* --frame-times: off unless given, and Tahoe only. */
static void test_frame_times(void)
{
    struct nr_stack_opts o;
    nr_stack_opts_init(&o);
    NRT_EQ_INT(o.frame_times, 0);
    NRT_EQ_INT(opt(&o, NR_OPT_FRAME_TIMES, NULL), 0);
    NRT_EQ_INT(o.frame_times, 1);
    NRT_EQ_INT(nr_stack_check(&o, err, sizeof err), -1);
    NRT_CHECK(strstr(err, "--frame-times") != NULL);
    set_tahoe(&o);
    NRT_EQ_INT(nr_stack_check(&o, err, sizeof err), 0);
}

/* --segment-log: a file name, and Tahoe only. */
static void test_segment_log(void)
{
    struct nr_stack_opts o;
    nr_stack_opts_init(&o);
    NRT_CHECK(o.segment_log == NULL);
    NRT_EQ_INT(opt(&o, NR_OPT_SEGMENT_LOG, ""), -1);
    NRT_CHECK(strstr(err, "give a file") != NULL);
    NRT_EQ_INT(opt(&o, NR_OPT_SEGMENT_LOG, "segments.jsonl"), 0);
    NRT_CHECK(o.segment_log && strcmp(o.segment_log, "segments.jsonl") == 0);
    NRT_EQ_INT(nr_stack_check(&o, err, sizeof err), -1);
    NRT_CHECK(strstr(err, "--segment-log") != NULL);
    set_tahoe(&o);
    NRT_EQ_INT(nr_stack_check(&o, err, sizeof err), 0);
}

/* --jitter: the run's seed and the host's stream, and Tahoe only. */
static void test_jitter(void)
{
    struct nr_stack_opts o;
    nr_stack_opts_init(&o);
    NRT_EQ_INT(o.jitter_set, 0);
    NRT_EQ_INT(opt(&o, NR_OPT_JITTER, "42"), -1);
    NRT_EQ_INT(opt(&o, NR_OPT_JITTER, "42:-5"), -1);
    NRT_EQ_INT(opt(&o, NR_OPT_JITTER, "42:5x"), -1);
    NRT_CHECK(strstr(err, "e.g. 42:5") != NULL);
    NRT_EQ_INT(opt(&o, NR_OPT_JITTER, "42:5"), 0);
    NRT_EQ_INT(o.jitter_set, 1);
    NRT_EQ_INT((long)o.jitter_seed, 42);
    NRT_EQ_INT((long)o.jitter_stream, 5);
    NRT_EQ_INT(nr_stack_check(&o, err, sizeof err), -1);
    NRT_CHECK(strstr(err, "--jitter") != NULL);
    set_tahoe(&o);
    NRT_EQ_INT(nr_stack_check(&o, err, sizeof err), 0);
}

/* Every flag is in the usage text, with its default, starting at the column asked for. */
static void test_usage(void)
{
    char buf[8192] = "";
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    NRT_CHECK(f != NULL);
    if (!f)
        return;
    nr_stack_usage(f, 24);
    fclose(f);
    static const char *const flags[] = { "--stack NAME", "--if IFACE", "--addr IP/PREFIX",
                                         "--host-model FILE", "--mtu SIZE",
                                         "--tcp-sendspace SIZE", "--tcp-recvspace SIZE",
                                         "--tick-phase TIME", "--arp IP=MAC",
                                         "--frame-times", "(default off)",
                                         "--segment-log FILE", "(default: none)",
                                         "--jitter SEED:STREAM", "(default: a random seed)",
                                         "(default: boot at once, at a random tick phase)",
                                         "(default kernel)", "ip addr flush dev" };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        NRT_CHECK(strstr(buf, flags[i]) != NULL);
    NRT_CHECK(strstr(buf, "  --stack NAME          network stack") == buf);
}

int main(void)
{
    NRT_RUN(test_addr_and_mask);
    NRT_RUN(test_sizes);
    NRT_RUN(test_check);
    NRT_RUN(test_tick_phase);
    NRT_RUN(test_arp);
    NRT_RUN(test_frame_times);
    NRT_RUN(test_segment_log);
    NRT_RUN(test_jitter);
    NRT_RUN(test_usage);
    return nrt_summary("common/test_stackopt");
}
