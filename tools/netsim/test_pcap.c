/* netsim --pcap: the capture at host a's interface holds, in time order, every packet host a
 * handed to the link and every packet that reached it, as a pcap file tcpdump reads. */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "simtest.h"

#define SIM "\"record\":\"sim\""

struct capture {
    uint32_t magic, linktype, snaplen;
    uint16_t major, minor;
    long packets, from_a, to_a; /* records, and of them sent by and to host a */
    int in_order;               /* timestamps never go back */
    int lengths_ok;             /* each record holds its whole IPv4 packet */
    double last_s;              /* the last timestamp */
};

static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

/* Reads a capture in this host's byte order. Returns 0, or -1 when it is cut short. */
static int read_capture(const char *path, struct capture *c)
{
    FILE *f = fopen(path, "rb");
    NRT_CHECK(f != NULL);
    if (!f)
        return -1;
    uint32_t hdr[6];
    *c = (struct capture){.in_order = 1, .lengths_ok = 1};
    int rc = fread(hdr, sizeof hdr, 1, f) == 1 ? 0 : -1;
    if (rc == 0) {
        c->magic = hdr[0];
        memcpy(&c->major, (uint8_t *)hdr + 4, 2);
        memcpy(&c->minor, (uint8_t *)hdr + 6, 2);
        c->snaplen = hdr[4];
        c->linktype = hdr[5];
    }
    uint32_t rec[4];
    uint8_t pkt[65536];
    uint32_t a = htonl(0x0a000001); /* host a, 10.0.0.1 */
    int64_t prev = -1;
    while (rc == 0 && fread(rec, sizeof rec, 1, f) == 1) {
        if (rec[2] > sizeof pkt || fread(pkt, 1, rec[2], f) != rec[2]) {
            rc = -1;
            break;
        }
        int64_t t = (int64_t)rec[0] * 1000000000 + rec[1];
        c->in_order &= t >= prev && rec[1] < 1000000000;
        prev = t;
        c->last_s = t / 1e9;
        c->lengths_ok &= rec[2] == rec[3] && rec[2] >= 20 && (pkt[0] >> 4) == 4 &&
                         be16(pkt + 2) == rec[2];
        uint32_t src, dst;
        memcpy(&src, pkt + 12, 4);
        memcpy(&dst, pkt + 16, 4);
        c->from_a += src == a;
        c->to_a += dst == a;
        c->packets++;
    }
    NRT_EQ_INT(fclose(f), 0);
    return rc;
}

/* Runs netsim with --pcap on a fresh file (first argument pair of args is replaced) and reads
 * the capture back. */
static struct st_run run_captured(char **args, char *path, struct capture *c)
{
    int fd = mkstemp(path);
    NRT_CHECK(fd >= 0);
    if (fd >= 0)
        NRT_EQ_INT(close(fd), 0);
    args[0] = "--pcap";
    args[1] = path;
    struct st_run r = st_run_sim(args);
    NRT_EQ_INT(read_capture(path, c), 0);
    return r;
}

/* The capture holds exactly what host a sent into the link and what the link delivered to it. */
static void check_counts(const struct st_run *r, const struct capture *c)
{
    NRT_EQ_INT(c->magic, 0xa1b23c4d);
    NRT_EQ_INT(c->major, 2);
    NRT_EQ_INT(c->minor, 4);
    NRT_EQ_INT(c->linktype, 101);
    NRT_EQ_INT(c->snaplen, 65535);
    double sent = st_field(r, SIM, 0, "forward_rx_packets");
    double received = st_field(r, SIM, 0, "reverse_tx_packets");
    NRT_CHECK(sent > 0 && received > 0);
    NRT_EQ_INT(c->packets, sent + received);
    NRT_EQ_INT(c->from_a, sent);
    NRT_EQ_INT(c->to_a, received);
    NRT_EQ_INT(st_field(r, SIM, 0, "capture_packets"), c->packets);
    NRT_CHECK(c->in_order);
    NRT_CHECK(c->lengths_ok);
    NRT_CHECK(c->last_s <= st_field(r, SIM, 0, "virtual_ns") / 1e9);
}

/* tcpdump, when this machine has it, decodes every packet (one line each). */
static void check_tcpdump(const char *path, long packets)
{
    if (access("/usr/bin/tcpdump", X_OK) != 0 && access("/usr/sbin/tcpdump", X_OK) != 0) {
        fprintf(stderr, "netsim/test_pcap: no tcpdump here; decoding with it not checked\n");
        return;
    }
    char cmd[256];
    snprintf(cmd, sizeof cmd, "tcpdump -nn -r %s 2>/dev/null", path);
    FILE *p = popen(cmd, "r");
    NRT_CHECK(p != NULL);
    if (!p)
        return;
    long lines = 0;
    for (int ch; (ch = fgetc(p)) != EOF;)
        lines += ch == '\n';
    NRT_EQ_INT(pclose(p), 0);
    NRT_EQ_INT(lines, packets);
}

static void test_pingx_capture(void)
{
    char path[] = "/tmp/netsim-test-pcap-XXXXXX";
    char *args[] = {"", "", "--rate", "10Mbit", "--delay", "1ms", "--loss-pct", "5",
                    "--app", "pingx", "--no-wall", "--", "--mode", "udp", "--sizes",
                    "512B,12K-1", "--count", "3", "--interval", "100ms", "--", NULL};
    struct capture c;
    struct st_run r = run_captured(args, path, &c);
    NRT_EQ_INT(r.rc, 0);
    check_counts(&r, &c);
    /* Fragments lost on the way out were still captured: the capture is at host a. */
    NRT_CHECK(st_field(&r, SIM, 0, "forward_drop_loss") > 0);
    check_tcpdump(path, c.packets);
    st_free(&r);
    NRT_EQ_INT(unlink(path), 0);
}

/* With a host model a packet leaves when the CPU has finished it, after the clock of the
 * moment; the capture still comes out in time order. Capturing changes no other record. */
static void test_ttcp_capture_changes_nothing_else(void)
{
    char path[] = "/tmp/netsim-test-pcap-XXXXXX";
    char *args[] = {"", "", "--rate", "100Mbit", "--framing", "aal5-vc-mux", "--mtu", "9188B",
                    "--host-model-a", ST_IPC_MODEL, "--host-model-b", ST_IPC_MODEL,
                    "--no-wall", "--", "-t", "--sndbuf", "16K", "--bytes", "256K", NS_ADDR_B,
                    "--", "-r", "--rcvbuf", "24K", NULL};
    struct capture c;
    struct st_run r = run_captured(args, path, &c);
    NRT_EQ_INT(r.rc, 0);
    NRT_EQ_INT(r.status, 0);
    check_counts(&r, &c);
    check_tcpdump(path, c.packets);
    struct st_run plain = st_run_sim(args + 2);
    long cut = st_pos(&r, SIM, 0);
    NRT_CHECK(cut > 0 && cut == st_pos(&plain, SIM, 0) &&
              memcmp(r.text, plain.text, (size_t)cut) == 0);
    st_free(&r);
    st_free(&plain);
    NRT_EQ_INT(unlink(path), 0);
}

static void test_unwritable_path_refused(void)
{
    static struct ns_args a;
    static struct ns_sim s;
    char *argv[] = {"netsim", "--pcap", "/nonexistent-folder/a.pcap", "--rate", "1Mbit", "--",
                    "-t", NS_ADDR_B, "--", "-r", NULL};
    NRT_EQ_INT(ns_parse_args(10, argv, &a, stderr, stderr), 0);
    FILE *null = fopen("/dev/null", "w");
    NRT_CHECK(null != NULL);
    if (!null)
        return;
    NRT_EQ_INT(ns_sim_init(&s, &a, null, null), -1);
    ns_sim_free(&s);
    fclose(null);
}

int main(void)
{
    NRT_RUN(test_pingx_capture);
    NRT_RUN(test_ttcp_capture_changes_nothing_else);
    NRT_RUN(test_unwritable_path_refused);
    return nrt_summary("netsim/test_pcap");
}
