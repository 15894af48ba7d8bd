/* The JSON record and its atomic write. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nrtest.h"
#include "stats.h"

/* The record le_write_json writes for these arguments, or NULL (checked) if it cannot be
 * captured; the caller frees it. */
static char *json_of(const struct le_opts *o, double duration_s, const struct le_dir_report *r,
                     const struct le_medium *medium, uint64_t snapshot)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    NRT_CHECK(mem != NULL);
    if (!mem)
        return NULL;
    le_write_json(mem, o, duration_s, r, r, medium, snapshot);
    fclose(mem);
    return text;
}

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
    char *text = json_of(&o, 1.5, &r, NULL, 0);
    if (!text)
        return;
    NRT_CHECK(strstr(text, "\"if_b\":\"m\\\"1\"") != NULL);
    NRT_CHECK(strstr(text, "\"framing\":\"aal5-vc-mux\"") != NULL);
    NRT_CHECK(strstr(text, "\"rate_bps\":155520000,") != NULL);
    NRT_CHECK(strstr(text, "\"dropped_packets\":3,") != NULL);
    NRT_CHECK(strstr(text, "\"late_mean_ns\":100.0") != NULL);
    NRT_CHECK(strstr(text, "\"gso_frames\":4,") != NULL);
    NRT_CHECK(strstr(text, "\"tx_stamps\":6,\"tx_lead_ns\":4100,") != NULL);
    NRT_CHECK(strstr(text, "\"seed\":5,\"frame_times\":true,") != NULL);
    NRT_CHECK(strstr(text, "\"final\":true,\"snapshot\":0,\"medium\":\"duplex\",\"forward\":") != NULL);
    NRT_CHECK(strstr(text, "medium_a") == NULL);
    /* Frames that came before their stated time pull the mean below zero. */
    NRT_CHECK(strstr(text, "\"timed_frames\":4,\"timed_late_mean_ns\":-0.5,"
                           "\"timed_late_max_ns\":9000}") != NULL);
    size_t len = strlen(text);
    NRT_CHECK(text[len - 1] == '\n' && strchr(text, '\n') == text + len - 1);
    free(text);
}

/* A snapshot on a shared medium: each host's counters under netsim's names. */
static void test_json_medium(void)
{
    struct le_opts o = {.if_a = "a", .if_b = "b", .mtu = 1500, .seed = 1};
    struct le_dir_cfg c = {.rate_bps = 10e6};
    struct le_counters n = {0};
    struct le_fwd_counters f = {0};
    struct le_dir_report r = {&c, &n, &f};
    struct le_medium m;
    NRT_EQ_INT(le_medium_init(&m, 10e6, 500, LE_FRAMING_ETHERNET, 50, 1, 2), 0);
    m.st[0].count = (struct le_station_counters){.offered = 9, .tx_frames = 8, .collisions = 2,
                                                 .deferrals = 3, .excessive = 1, .drop_queue = 4,
                                                 .queue_max_packets = 6};
    m.st[1].count = (struct le_station_counters){.tx_frames = 2, .collisions = 3};
    char *text = json_of(&o, 1.0, &r, &m, 7);
    if (!text)
        return;
    NRT_CHECK(strstr(text, "\"final\":false,\"snapshot\":7,\"medium\":\"shared\",") != NULL);
    NRT_CHECK(strstr(text, "\"medium_a_offered\":9,\"medium_a_tx_frames\":8,\"medium_a_collisions\":2,"
                           "\"medium_a_deferrals\":3,\"medium_a_excessive\":1,\"medium_a_drop_queue\":4,"
                           "\"medium_a_queue_max_packets\":6,") != NULL);
    NRT_CHECK(strstr(text, "\"medium_b_tx_frames\":2,\"medium_b_collisions\":3,") != NULL);
    NRT_CHECK(strstr(text, "\"medium_collision_pct\":50,\"forward\":") != NULL);
    le_medium_free(&m, NULL);
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
    NRT_RUN(test_json_medium);
    NRT_RUN(test_atomic_write);
    return nrt_summary("linkemu/test_stats");
}
