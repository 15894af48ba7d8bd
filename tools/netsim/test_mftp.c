/* netsim --app mftp: the real mftp and mftpd on two Tahoe stacks over ishikura's ATM WAN, in
 * virtual time. Files go through a scratch folder both simulated hosts share. Expected
 * throughputs are worked out here from the window, the MSS and the delay, never taken from
 * the paper's measurements. */
#include "mftpcore/blocks.h"
#include "mftpcore/crc32.h"
#include "nrtest_proc.h"
#include "simtest.h"

#define CLIENT "\"tool\":\"mftp\""
#define SERVER "\"tool\":\"mftpd\""
#define TRANSFER "\"record\":\"transfer\""
#define SIM "\"record\":\"sim\""

#define SS20_MODEL "../configs/hosts/sparcstation-20.yaml"
/* The same host without its disk (written by main): the expectations below are the window's,
 * worked out for a sender whose file is always at hand. */
static char ss20_nodisk[PATH_MAX];
/* ishikura's WAN (configs/links/atm-wan-emulator.yaml): 140 Mb/s TAXI, AAL5, MTU 9188, and
 * 100 ms each way, between two SPARCstation 20s. */
#define WAN "--rate", "140Mbit", "--framing", "aal5-vc-mux", "--mtu", "9188B", "--delay", \
            "100ms", "--host-model-a", ss20_nodisk, "--host-model-b", ss20_nodisk
#define RTT_S 0.2
#define MSS 9148 /* MTU 9188 less the IP and TCP headers */
#define WINDOW 24576

static char src[PATH_MAX], dest[PATH_MAX], root[PATH_MAX];

/* Copies the host model at from to `to` less its disk_ and ufs_ keys. */
static void write_without_disk(const char *from, const char *to)
{
    FILE *in = fopen(from, "r"), *out = fopen(to, "w");
    NRT_CHECK(in && out);
    char line[1024];
    while (in && out && fgets(line, sizeof line, in))
        if (strncmp(line, "disk_", 5) != 0 && strncmp(line, "ufs_", 4) != 0)
            fputs(line, out);
    if (in)
        fclose(in);
    if (out)
        NRT_EQ_INT(fclose(out), 0);
}

/* Whether the run's output holds s; a run that never started holds nothing. */
static int has(const struct st_run *r, const char *s) { return r->text && strstr(r->text, s); }

/* 1 when the two files hold the same octets. */
static int same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int ca = getc(fa), cb = getc(fb);
        same = ca == cb;
        if (ca == EOF)
            break;
    }
    if (fa && fclose(fa) != 0)
        same = 0;
    if (fb && fclose(fb) != 0)
        same = 0;
    return same;
}

static uint32_t crc_of(const char *path)
{
    uint32_t crc = 0;
    NRT_EQ_INT(mftp_crc32_file(path, &crc), 0);
    return crc;
}

/* The crc32 field of the record of `tool` (CLIENT or SERVER), as a number; 0 when missing. */
static uint32_t record_crc(const struct st_run *r, const char *tool)
{
    char *line = st_line(r, tool, 0);
    const char *p = line ? strstr(line, "\"crc32\":\"") : NULL;
    uint32_t crc = p ? (uint32_t)strtoul(p + strlen("\"crc32\":\""), NULL, 16) : 0;
    free(line);
    return crc;
}

/* A run that moved `size` octets of src intact over n connections, as both ends saw it. */
static void check_intact(const struct st_run *r, long long size, int n, const char *got)
{
    NRT_EQ_INT(r->rc, 0);
    NRT_EQ_INT(r->status, 0);
    NRT_EQ_INT(st_count(r, "\"record\":\"error\""), 0);
    NRT_EQ_INT(st_count(r, TRANSFER), 2);
    for (int end = 0; end < 2; end++) {
        const char *tool = end ? SERVER : CLIENT;
        NRT_EQ_INT(st_field(r, tool, 0, "bytes"), size);
        NRT_EQ_INT(st_field(r, tool, 0, "connections"), n);
        NRT_EQ_INT(st_field(r, tool, 0, "duplicate_bytes"), 0);
    }
    uint32_t crc = crc_of(src);
    NRT_EQ_INT(record_crc(r, CLIENT), crc);
    NRT_EQ_INT(record_crc(r, SERVER), crc);
    NRT_CHECK(same_file(src, got));
}

/* Size of --file-size, as netsim takes it. */
static char *size_arg(long long size)
{
    static char buf[32];
    snprintf(buf, sizeof buf, "%lldB", size);
    return buf;
}

/* A GET of size octets over n connections of a 24K window: mftp on host a fetches src from
 * mftpd on host b into dest. extra: netsim flags, e.g. a cell loss ratio; mftp_extra: mftp's
 * own, e.g. --setup serial (each NULL-terminated). */
static struct st_run get_with(long long size, int n, char *const *extra, char *const *mftp_extra)
{
    char conns[8];
    snprintf(conns, sizeof conns, "%d", n);
    char *args[64] = {WAN, "--app", "mftp", "--no-wall", "--file-size", size_arg(size)};
    int k = 0;
    while (args[k])
        k++;
    for (int i = 0; extra && extra[i]; i++)
        args[k++] = extra[i];
    char *mftp_args[] = {"--", "-n", conns, "--window", "24K", NULL};
    for (int i = 0; mftp_args[i]; i++)
        args[k++] = mftp_args[i];
    for (int i = 0; mftp_extra[i]; i++)
        args[k++] = mftp_extra[i];
    char *rest[] = {"--get", "src.bin", "--dest", dest, "--timeout", "60s", NS_ADDR_B, "--",
                    "--root", root, NULL};
    for (int i = 0; rest[i]; i++)
        args[k++] = rest[i];
    args[k] = NULL;
    return st_run_sim(args);
}

static struct st_run get(long long size, int n, char *const *extra)
{
    char *parallel[] = {"--setup", "parallel", NULL};
    return get_with(size, n, extra, parallel);
}

/* --setup serial opens the data connections one after another, each once the one before is
 * up, and times the transfer from the first being up: the N - 1 connects after the first and
 * the RETR (a round trip each) join the data's time, which otherwise starts at the first data
 * octet. */
static void test_serial_setup_times_the_connects(void)
{
    const long long size = 1 << 20;
    const int n = 4;
    struct st_run par = get(size, n, NULL);
    check_intact(&par, size, n, dest);
    char *serial[] = {"--setup", "serial", NULL};
    struct st_run ser = get_with(size, n, NULL, serial);
    check_intact(&ser, size, n, dest);
    NRT_CHECK(has(&ser, "\"setup\":\"serial\""));
    NRT_CHECK(has(&par, "\"setup\":\"parallel\""));
    double added = (st_field(&ser, CLIENT, 0, "elapsed_ns") -
                    st_field(&par, CLIENT, 0, "elapsed_ns")) / (RTT_S * 1e9);
    NRT_CHECK(added > n - 1 && added < n + 1);
    st_free(&par);
    st_free(&ser);
}

static void test_get_intact(void)
{
    /* Not a multiple of the block size, so the last block is short. */
    const long long size = (1 << 20) + 12345;
    struct st_run r = get(size, 4, NULL);
    check_intact(&r, size, 4, dest);
    NRT_CHECK(has(&r, "\"stack\":\"" NS_STACK "\""));
    /* Without a raw socket the client times a TCP connect, one round trip. */
    NRT_CHECK(has(&r, "\"rtt_method\":\"tcp_connect\""));
    double rtt = st_field(&r, CLIENT, 0, "rtt_ns");
    NRT_CHECK(rtt >= RTT_S * 1e9 && rtt < RTT_S * 1e9 * 1.01);
    NRT_EQ_INT(st_field(&r, CLIENT, 0, "window_start"), WINDOW);
    NRT_EQ_INT(st_field(&r, CLIENT, 0, "window_peer"), WINDOW);
    /* mftpd is done once it has sent 226 and the 221; mftp reads them a half RTT later. */
    NRT_CHECK(st_pos(&r, SERVER, 0) < st_pos(&r, CLIENT, 0));
    NRT_CHECK(st_pos(&r, CLIENT, 0) < st_pos(&r, SIM, 0));
    NRT_EQ_INT(st_field(&r, SIM, 0, "status_a"), 0);
    NRT_EQ_INT(st_field(&r, SIM, 0, "status_b"), 0);
    st_free(&r);
}

/* A PUT the other way: mftp sends src, mftpd writes it under its root. */
static void test_put_intact(void)
{
    const long long size = 777777;
    char *args[] = {WAN, "--app", "mftp", "--no-wall", "--file-size", size_arg(size), "--",
                    "-n", "4", "--window", "24K", "--put", src, "--remote-name", "put.bin",
                    "--timeout", "60s", NS_ADDR_B, "--", "--root", root, NULL};
    struct st_run r = st_run_sim(args);
    check_intact(&r, size, 4, nrt_scratch("put.bin"));
    NRT_CHECK(has(&r, "\"command\":\"STOR\""));
    st_free(&r);
}

/* With cell loss, the same seed gives the same data, the same losses and the same bytes out;
 * another seed other data (the CRC moves) and other losses. */
static void test_same_seed_same_output(void)
{
    char *args[] = {WAN, "--cell-loss-ratio", "1e-4", "--seed", "21", "--app", "mftp",
                    "--no-wall", "--file-size", "1M", "--", "-n", "4", "--window", "24K",
                    "--get", "src.bin", "--dest", dest, "--timeout", "60s", NS_ADDR_B, "--",
                    "--root", root, NULL};
    struct st_run r = st_check_seed(args, "22");
    NRT_EQ_INT(r.status, 0);
    NRT_EQ_INT(st_field(&r, CLIENT, 0, "bytes"), 1 << 20);
    NRT_CHECK(st_field(&r, SIM, 0, "reverse_drop_cell_loss") > 0);
    uint32_t crc = record_crc(&r, CLIENT);
    NRT_EQ_INT(record_crc(&r, SERVER), crc);
    /* The files on disk now hold the other seed's run, whose data differ. */
    struct st_run other = st_run_sim(args);
    check_intact(&other, 1 << 20, 4, dest);
    NRT_CHECK(record_crc(&other, CLIENT) != crc);
    st_free(&r);
    st_free(&other);
}

/* Window-limited connections in Tahoe. A 24K window holds two whole segments of MSS 9148 and
 * a 6280-octet rest that silly-window avoidance does not send while data are in flight, so
 * each connection moves W' = floor(24576 / 9148) * 9148 = 18296 octets per round trip, and N
 * of them N * W' * 8 / RTT bit/s with RTT = 200 ms (the line and the hosts add about 1%).
 * The record times the first to the last data octet, which is R - 1 of the R = octets /
 * (N * W') round trips the transfer takes, so it reads N * W' * 8 / RTT * R / (R - 1). Each N
 * must come within 5% of that, and throughput rise with N. */
static void test_throughput_rises_with_connections(void)
{
    const long long size = 2 << 20;
    const int ns[] = {1, 4, 16};
    const double w_eff = (double)(WINDOW / MSS * MSS);
    double last = 0;
    for (int i = 0; i < 3; i++) {
        struct st_run r = get(size, ns[i], NULL);
        check_intact(&r, size, ns[i], dest);
        double wire = (double)size + MFTP_HDR_LEN * (double)((size + 32767) / 32768);
        double rounds = wire / (ns[i] * w_eff);
        double want = ns[i] * w_eff * 8 / RTT_S * rounds / (rounds - 1);
        double got = st_field(&r, CLIENT, 0, "throughput_bps");
        fprintf(stderr, "netsim/test_mftp: N=%d %.0f bit/s, formula %.0f bit/s\n", ns[i], got,
                want);
        NRT_CHECK(got > 0.95 * want && got < 1.05 * want);
        NRT_CHECK(got > last);
        last = got;
        /* No loss, so nothing was sent twice. */
        NRT_EQ_INT(st_field(&r, SIM, 0, "b_tcps_sndrexmitpack"), 0);
        st_free(&r);
    }
}

/* RFC 1323 window scaling (--window-scale, off by default) lets one connection keep more than
 * 65535 octets in flight: with 128K buffers (--window 128K, sb_max raised) it moves more than
 * 64K per round trip, and without scaling the 16-bit window field holds it to 64K or less. */
static double scaled_get(int scale)
{
    char *args[] = {WAN, "--sb-max", "256K", scale ? "--window-scale" : "--no-wall", "--app", "mftp",
                    "--no-wall", "--file-size", "2M", "--", "-n", "1", "--window", "128K",
                    "--get", "src.bin", "--dest", dest, "--timeout", "60s", NS_ADDR_B, "--",
                    "--root", root, NULL};
    struct st_run r = st_run_sim(args);
    check_intact(&r, 2 << 20, 1, dest);
    NRT_EQ_INT(st_field(&r, CLIENT, 0, "window_start"), 128 << 10);
    double got = st_field(&r, CLIENT, 0, "throughput_bps");
    st_free(&r);
    return got;
}

static void test_window_scale_opens_past_64k(void)
{
    const double limit = 65535 * 8 / RTT_S;
    double plain = scaled_get(0), scaled = scaled_get(1);
    fprintf(stderr, "netsim/test_mftp: 128K window %.0f bit/s unscaled, %.0f scaled (64K/RTT %.0f)\n",
            plain, scaled, limit);
    NRT_CHECK(plain <= 1.05 * limit);
    NRT_CHECK(scaled > 1.5 * limit);
}

/* Cells lost on the line cost whole packets, which Tahoe sends again; every octet arrives in
 * its place over 1, 4 and 16 connections. 1e-4 loses about 2% of the 9 KB packets. */
static void test_cell_loss_recovered(void)
{
    const long long size = 2 << 20;
    const int ns[] = {1, 4, 16};
    char *lossy[] = {"--cell-loss-ratio", "1e-4", "--seed", "5", NULL};
    for (int i = 0; i < 3; i++) {
        struct st_run r = get(size, ns[i], lossy);
        check_intact(&r, size, ns[i], dest);
        NRT_CHECK(st_field(&r, SIM, 0, "reverse_drop_cell_loss") > 0);
        NRT_CHECK(st_field(&r, SIM, 0, "b_tcps_sndrexmitpack") > 0);
        st_free(&r);
    }
}

/* --reorder-max: under cell loss a connection waiting on a retransmission leaves a gap; the
 * receiver (mftp on a GET, mftpd on a PUT) then holds no more than the bound ahead of it, stops
 * reading the connections whose data lie beyond, and still rebuilds the file intact. Without
 * the bound the same losses leave more than a block held ahead. */
static void test_reorder_bound_holds(void)
{
    const long long size = 2 << 20;
    const long bound = 32768;
    char *lossy[] = {"--cell-loss-ratio", "1e-4", "--seed", "5", NULL};
    struct st_run free_run = get(size, 4, lossy);
    check_intact(&free_run, size, 4, dest);
    NRT_EQ_INT(st_field(&free_run, CLIENT, 0, "reorder_max"), 0);
    NRT_EQ_INT(st_field(&free_run, CLIENT, 0, "reorder_stalls"), 0);
    NRT_CHECK(st_field(&free_run, CLIENT, 0, "held_ahead_max") > bound);
    st_free(&free_run);

    char *bounded[] = {"--setup", "parallel", "--reorder-max", "32K", NULL};
    struct st_run r = get_with(size, 4, lossy, bounded);
    check_intact(&r, size, 4, dest);
    NRT_EQ_INT(st_field(&r, CLIENT, 0, "reorder_max"), bound);
    NRT_CHECK(st_field(&r, CLIENT, 0, "held_ahead_max") <= bound);
    NRT_CHECK(st_field(&r, CLIENT, 0, "reorder_stalls") > 0);
    st_free(&r);

    char *put_args[] = {WAN, "--app", "mftp", "--no-wall", "--file-size", size_arg(size),
                        "--cell-loss-ratio", "1e-4", "--seed", "5", "--", "-n", "4",
                        "--window", "24K", "--put", src, "--remote-name", "put.bin",
                        "--timeout", "60s", NS_ADDR_B, "--", "--root", root, "--reorder-max",
                        "32K", NULL};
    struct st_run p = st_run_sim(put_args);
    check_intact(&p, size, 4, nrt_scratch("put.bin"));
    NRT_EQ_INT(st_field(&p, SERVER, 0, "reorder_max"), bound);
    NRT_CHECK(st_field(&p, SERVER, 0, "held_ahead_max") <= bound);
    NRT_CHECK(st_field(&p, SERVER, 0, "reorder_stalls") > 0);
    st_free(&p);
}

/* A client that gives up before it logs in leaves mftpd waiting for a session; netsim stops it
 * and the run ends, as a failure of both, instead of waiting forever. */
static void test_client_failure_ends_the_run(void)
{
    char *args[] = {WAN, "--app", "mftp", "--no-wall", "--file-size", "64K", "--",
                    "--get", "src.bin", "--timeout", "50ms", "--pause", "10ms", NS_ADDR_B, "--",
                    "--root", root, NULL};
    struct st_run r = st_run_sim(args);
    NRT_EQ_INT(r.rc, 0);
    NRT_EQ_INT(r.status, 1);
    NRT_EQ_INT(st_count(&r, "\"record\":\"error\""), 1);
    NRT_CHECK(has(&r, "timeout"));
    NRT_EQ_INT(st_field(&r, SIM, 0, "status_a"), 1);
    NRT_EQ_INT(st_field(&r, SIM, 0, "status_b"), 1);
    NRT_CHECK(st_field(&r, SIM, 0, "virtual_ns") < 1e9);
    st_free(&r);
}

/* Both hosts share the files, so a GET into the file it serves would truncate its source. */
static void test_refuses_to_overwrite_the_source(void)
{
    char *args[] = {WAN, "--app", "mftp", "--no-wall", "--file-size", "64K", "--",
                    "--get", "src.bin", "--dest", src, NS_ADDR_B, "--", "--root", root, NULL};
    struct st_run r = st_run_sim(args);
    NRT_EQ_INT(r.rc, -1);
    st_free(&r);
}

static void test_command_lines(void)
{
    FILE *null = fopen("/dev/null", "w");
    NRT_CHECK(null != NULL);
    if (!null)
        return;
    static struct ns_args a;
    char *good[] = {"netsim", "--app", "mftp", "--rate", "1Mbit", "--file-size", "1M", "--",
                    "-n", "4", "--get", "f.bin", "--dest", dest, NS_ADDR_B, "--", "--root",
                    root, NULL};
    NRT_EQ_INT(ns_parse_args(18, good, &a, null, null), 0);
    NRT_EQ_INT(a.app, NS_APP_MFTP);
    NRT_EQ_INT(a.file_size, 1 << 20);
    NRT_EQ_INT(a.mftp.connections, 4);
    NRT_EQ_STR(a.mftp.stack, NS_STACK);
    NRT_EQ_STR(a.mftpd.stack, NS_STACK);
    NRT_EQ_INT(a.mftpd.sessions, 1); /* netsim's preset */
    NRT_EQ_STR(a.source, nrt_scratch("f.bin"));
    NRT_EQ_STR(a.sink, dest);
    char *put[] = {"netsim", "--app", "mftp", "--rate", "1Mbit", "--", "--put", src,
                   "--remote-name", "/in/p.bin", NS_ADDR_B, "--", "--root", root, NULL};
    NRT_EQ_INT(ns_parse_args(14, put, &a, null, null), 0);
    NRT_EQ_INT(a.file_size, -1);
    NRT_EQ_STR(a.source, src);
    char want[PATH_MAX + 16];
    snprintf(want, sizeof want, "%s/in/p.bin", root);
    NRT_EQ_STR(a.sink, want);
    char *refused[][12] = {
        {"--", "--get", "f", "10.0.0.9", "--"},
        {"--", "--get", "f", "-p", "2100", NS_ADDR_B, "--"},
        {"--", "--get", "f", NS_ADDR_B, "--", "--sessions", "2"},
        {"--", "--get", "f", NS_ADDR_B, "--", "--bind", NS_ADDR_A},
        {"--", "--get", "f", "--rtt-method", "icmp", NS_ADDR_B, "--"},
        {"--", "--get", "f", "--stack", "kernel", NS_ADDR_B, "--"},
        {"--", "--get", "f", NS_ADDR_B, "--", "--if", "h2-eth0"},
        {"--", "--get", "../f", NS_ADDR_B, "--"},
        {"--", "--put", "f", "--remote-name", "a/../b", NS_ADDR_B, "--"},
        {"--", "--get", "f", NS_ADDR_B},
        {"--", "--get", "f", NS_ADDR_B, "--", "--help"},
        {"--file-size", "1X", "--", "--get", "f", NS_ADDR_B, "--"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char *argv[24] = {"netsim", "--app", "mftp", "--rate", "1Mbit"};
        int argc = 5;
        for (int k = 0; refused[i][k]; k++)
            argv[argc++] = refused[i][k];
        NRT_EQ_INT(ns_parse_args(argc, argv, &a, null, null), -1);
    }
    char *not_mftp[] = {"netsim", "--rate", "1Mbit", "--file-size", "1M", "--", "-t", NS_ADDR_B,
                        "--", "-r", NULL};
    NRT_EQ_INT(ns_parse_args(10, not_mftp, &a, null, null), -1);
    fclose(null);
}

int main(void)
{
    nrt_scratch_make("netsim_mftp");
    snprintf(root, sizeof root, "%s", nrt_scratch_dir());
    snprintf(ss20_nodisk, sizeof ss20_nodisk, "%s", nrt_scratch("ss20-nodisk.yaml"));
    write_without_disk(SS20_MODEL, ss20_nodisk);
    snprintf(src, sizeof src, "%s", nrt_scratch("src.bin"));
    snprintf(dest, sizeof dest, "%s", nrt_scratch("got.bin"));
    NRT_RUN(test_command_lines);
    NRT_RUN(test_get_intact);
    NRT_RUN(test_serial_setup_times_the_connects);
    NRT_RUN(test_put_intact);
    NRT_RUN(test_same_seed_same_output);
    NRT_RUN(test_throughput_rises_with_connections);
    NRT_RUN(test_cell_loss_recovered);
    NRT_RUN(test_reorder_bound_holds);
    NRT_RUN(test_window_scale_opens_past_64k);
    NRT_RUN(test_client_failure_ends_the_run);
    NRT_RUN(test_refuses_to_overwrite_the_source);
    nrt_scratch_remove();
    return nrt_summary("netsim/test_mftp");
}
