/* The JSON record and its atomic write. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nrtest.h"
#include "stats.h"

static void test_json_record(void)
{
    struct le_opts o = {.if_a = "m-eth0", .if_b = "m\"1", .framing = LE_FRAMING_AAL5_VC_MUX,
                        .mtu = 9188, .seed = 5, .frame_times = 1};
    struct le_dir_cfg c = {.rate_bps = 155.52e6, .delay_ns = 250000000, .queue_packets = 50};
    struct le_counters n = {.rx_packets = 10, .tx_packets = 7, .drop_loss = 2, .drop_oversize = 1};
    struct le_fwd_counters f = {.late_sum_ns = 700, .late_max_ns = 300, .gso_frames = 4,
                                .tx_stamps = 6, .tx_lead_ns = 4100, .timed_frames = 4,
                                .timed_late_sum_ns = -2, .timed_late_max_ns = 9000};
    struct le_dir_report r = {&c, &n, &f};
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    NRT_CHECK(mem != NULL);
    if (!mem)
        return;
    le_write_json(mem, &o, 1.5, &r, &r);
    fclose(mem);
    NRT_CHECK(strstr(text, "\"if_b\":\"m\\\"1\"") != NULL);
    NRT_CHECK(strstr(text, "\"framing\":\"aal5-vc-mux\"") != NULL);
    NRT_CHECK(strstr(text, "\"rate_bps\":155520000,") != NULL);
    NRT_CHECK(strstr(text, "\"dropped_packets\":3,") != NULL);
    NRT_CHECK(strstr(text, "\"late_mean_ns\":100.0") != NULL);
    NRT_CHECK(strstr(text, "\"gso_frames\":4,") != NULL);
    NRT_CHECK(strstr(text, "\"tx_stamps\":6,\"tx_lead_ns\":4100,") != NULL);
    NRT_CHECK(strstr(text, "\"seed\":5,\"frame_times\":true,") != NULL);
    /* Frames that came before their stated time pull the mean below zero. */
    NRT_CHECK(strstr(text, "\"timed_frames\":4,\"timed_late_mean_ns\":-0.5,"
                           "\"timed_late_max_ns\":9000}") != NULL);
    NRT_CHECK(text[len - 1] == '\n' && strchr(text, '\n') == text + len - 1);
    free(text);
}

static void test_atomic_write(void)
{
    char dir[] = "/tmp/linkemu-test-XXXXXX";
    NRT_CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/stats.json", dir);
    FILE *devnull = fopen("/dev/null", "w");
    NRT_EQ_INT(le_write_atomic(path, "{\"a\":1}\n", devnull), 0);
    FILE *in = fopen(path, "r");
    char buf[64] = {0};
    NRT_CHECK(in && fgets(buf, sizeof buf, in));
    NRT_EQ_STR(buf, "{\"a\":1}\n");
    if (in)
        fclose(in);
    char bad[300];
    snprintf(bad, sizeof bad, "%s/missing/stats.json", dir);
    NRT_EQ_INT(le_write_atomic(bad, "x", devnull), -1);
    fclose(devnull);
    NRT_EQ_INT(unlink(path), 0);
    NRT_EQ_INT(rmdir(dir), 0); /* no temporary file was left behind */
}

int main(void)
{
    NRT_RUN(test_json_record);
    NRT_RUN(test_atomic_write);
    return nrt_summary("linkemu/test_stats");
}
