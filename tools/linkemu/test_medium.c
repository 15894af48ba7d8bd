/* The shared half-duplex Ethernet on a virtual clock: one frame on the wire at a time,
 * deferral to a carrier, collisions inside the propagation window, 802.3 backoff in whole
 * slots, excessive collisions and the interface queue. */
#include "medium.h"
#include "nrtest.h"

#define FRAME_1500_NS 1230400 /* 1538 octets on the wire at 10 Mb/s */
#define SLOT_NS 51200
#define JAM_NS 3200

static int tags[8] = {0, 1, 2, 3, 4, 5, 6, 7};

/* Runs every event in time order; returns the outcomes in the order they happened. */
static int drive(struct le_medium *m, struct le_outcome *got, int max)
{
    int n = 0;
    int64_t t;
    while ((t = le_medium_next_ns(m)) != INT64_MAX) {
        struct le_outcome out[2];
        int k = le_medium_step(m, t, out);
        for (int i = 0; i < k && n < max; i++)
            got[n++] = out[i];
    }
    return n;
}

static void setup(struct le_medium *m, int64_t prop_ns, uint64_t queue)
{
    NRT_EQ_INT(le_medium_init(m, 10e6, prop_ns, LE_FRAMING_ETHERNET, queue, 7, 3), 0);
}

static void test_one_station_back_to_back(void)
{
    struct le_medium m;
    setup(&m, 0, 50);
    le_medium_offer(&m, 0, 0, 1500, &tags[0]);
    le_medium_offer(&m, 0, 0, 1500, &tags[1]);
    struct le_outcome got[4];
    NRT_EQ_INT(drive(&m, got, 4), 2);
    NRT_EQ_INT(got[0].kind, LE_DELIVERED);
    NRT_EQ_INT(got[0].arrive_ns, FRAME_1500_NS);
    NRT_CHECK(got[0].pkt == &tags[0]);
    NRT_EQ_INT(got[1].arrive_ns, 2 * FRAME_1500_NS);
    NRT_EQ_INT(m.st[0].count.collisions + m.st[0].count.deferrals, 0);
    NRT_CHECK(le_medium_collision_pct(&m) == 0.0);
    le_medium_free(&m, NULL);
}

static void test_defers_to_carrier(void)
{
    struct le_medium m;
    setup(&m, 0, 50);
    le_medium_offer(&m, 0, 0, 1500, &tags[0]);
    le_medium_offer(&m, 1, 100000, 40, &tags[1]); /* an ACK while a's frame is on the wire */
    struct le_outcome got[4];
    NRT_EQ_INT(drive(&m, got, 4), 2);
    NRT_EQ_INT(got[0].station, 0);
    NRT_EQ_INT(got[1].station, 1);
    NRT_EQ_INT(got[1].arrive_ns, FRAME_1500_NS + 84 * 800); /* starts when the carrier drops */
    NRT_EQ_INT(m.st[1].count.deferrals, 1);
    NRT_EQ_INT(m.st[0].count.collisions + m.st[1].count.collisions, 0);
    le_medium_free(&m, NULL);
}

/* Both wait for the same carrier to drop (1-persistent): they start together and collide;
 * each then waits a whole number of slots after the jam, 0 or 1 at the first collision. */
static void test_deferring_stations_collide(void)
{
    struct le_medium m;
    setup(&m, 0, 50);
    le_medium_offer(&m, 0, 0, 1500, &tags[0]);
    le_medium_offer(&m, 0, 0, 1500, &tags[1]);
    le_medium_offer(&m, 1, 100000, 40, &tags[2]);
    struct le_outcome out[2];
    while (le_medium_next_ns(&m) < FRAME_1500_NS)
        le_medium_step(&m, le_medium_next_ns(&m), out);
    while (le_medium_next_ns(&m) == FRAME_1500_NS)
        le_medium_step(&m, FRAME_1500_NS, out);
    NRT_EQ_INT(m.st[0].count.collisions, 1);
    NRT_EQ_INT(m.st[1].count.collisions, 1);
    NRT_EQ_INT(m.free_ns, FRAME_1500_NS + JAM_NS);
    for (int i = 0; i < 2; i++) {
        int64_t wait = m.st[i].try_ns - m.free_ns;
        NRT_CHECK(wait == 0 || wait == SLOT_NS);
    }
    struct le_outcome got[4];
    NRT_EQ_INT(drive(&m, got, 4), 2);
    NRT_EQ_INT(got[0].kind, LE_DELIVERED);
    NRT_EQ_INT(got[1].kind, LE_DELIVERED);
    NRT_EQ_INT(m.st[0].count.tx_frames + m.st[1].count.tx_frames, 3);
    uint64_t coll = m.st[0].count.collisions + m.st[1].count.collisions;
    NRT_CHECK(coll >= 2);
    NRT_CHECK(le_medium_collision_pct(&m) == 100.0 * (double)coll / 3.0);
    le_medium_free(&m, NULL);
}

/* A start inside the propagation window collides; one after it hears the carrier. */
static void test_propagation_window(void)
{
    struct le_medium m;
    setup(&m, 10000, 50);
    le_medium_offer(&m, 0, 0, 1500, &tags[0]);
    le_medium_offer(&m, 1, 5000, 1500, &tags[1]);
    struct le_outcome out[2];
    le_medium_step(&m, 0, out);
    le_medium_step(&m, 5000, out);
    NRT_EQ_INT(m.st[1].count.collisions, 1);
    NRT_EQ_INT(m.free_ns, 5000 + 10000 + JAM_NS);
    le_medium_free(&m, NULL);

    setup(&m, 10000, 50);
    le_medium_offer(&m, 0, 0, 1500, &tags[0]);
    le_medium_offer(&m, 1, 20000, 1500, &tags[1]);
    struct le_outcome got[4];
    NRT_EQ_INT(drive(&m, got, 4), 2);
    NRT_EQ_INT(m.st[1].count.collisions, 0);
    NRT_EQ_INT(m.st[1].count.deferrals, 1);
    NRT_EQ_INT(got[1].arrive_ns, 2 * FRAME_1500_NS + 10000);
    le_medium_free(&m, NULL);
}

/* The backoff range doubles with each collision up to 2^10 slots; the 16th attempt gives up. */
static void test_backoff_range_and_excessive(void)
{
    struct le_medium m;
    setup(&m, 0, 50);
    le_medium_offer(&m, 0, 0, 100, &tags[0]);
    le_medium_offer(&m, 1, 0, 100, &tags[1]);
    m.st[0].attempts = 11;
    m.st[1].attempts = 14;
    struct le_outcome out[2];
    le_medium_step(&m, 0, out);
    NRT_EQ_INT(le_medium_step(&m, 0, out), 0);
    int64_t wait = m.st[0].try_ns - m.free_ns;
    NRT_CHECK(wait % SLOT_NS == 0 && wait / SLOT_NS < 1024);
    NRT_EQ_INT(m.st[0].attempts, 12);
    le_medium_free(&m, NULL);

    setup(&m, 0, 50);
    le_medium_offer(&m, 0, 0, 100, &tags[0]);
    le_medium_offer(&m, 1, 0, 100, &tags[1]);
    m.st[0].attempts = m.st[1].attempts = LE_ATTEMPT_LIMIT - 1;
    le_medium_step(&m, 0, out);
    NRT_EQ_INT(le_medium_step(&m, 0, out), 2);
    NRT_EQ_INT(out[0].kind, LE_EXCESSIVE);
    NRT_EQ_INT(out[1].kind, LE_EXCESSIVE);
    NRT_EQ_INT(m.st[0].count.excessive + m.st[1].count.excessive, 2);
    NRT_EQ_INT(le_medium_next_ns(&m), INT64_MAX);
    le_medium_free(&m, NULL);
}

static void test_queue_limit(void)
{
    struct le_medium m;
    setup(&m, 0, 2);
    NRT_EQ_INT(le_medium_offer(&m, 0, 0, 1500, &tags[0]), LE_PASS);
    NRT_EQ_INT(le_medium_offer(&m, 0, 0, 1500, &tags[1]), LE_PASS);
    NRT_EQ_INT(le_medium_offer(&m, 0, 0, 1500, &tags[2]), LE_DROP_QUEUE);
    NRT_EQ_INT(m.st[0].count.drop_queue, 1);
    NRT_EQ_INT(m.st[0].count.queue_max_packets, 2);
    le_medium_free(&m, NULL);
}

/* Many more frames than the queue's first allocation, from both sides at once: every frame
 * is delivered or given up, in order per station, and the wire never carries two at a time. */
static void test_busy_both_ways(void)
{
    static int many[400];
    struct le_medium m;
    setup(&m, 0, 0);
    for (int i = 0; i < 200; i++) {
        le_medium_offer(&m, 0, 0, 1500, &many[i]);
        le_medium_offer(&m, 1, i * 300000, 40, &many[200 + i]);
    }
    struct le_outcome got[400];
    int n = drive(&m, got, 400);
    NRT_EQ_INT(n, 400);
    int64_t last_arrive = -1;
    void *last[2] = {NULL, NULL};
    for (int i = 0; i < n; i++) {
        if (got[i].kind == LE_DELIVERED) {
            NRT_CHECK(got[i].arrive_ns > last_arrive);
            last_arrive = got[i].arrive_ns;
        }
        NRT_CHECK((char *)got[i].pkt > (char *)last[got[i].station]);
        last[got[i].station] = got[i].pkt;
    }
    NRT_CHECK(m.st[1].count.deferrals > 0);
    NRT_CHECK(m.st[0].count.collisions > 0);
    le_medium_free(&m, NULL);
}

int main(void)
{
    NRT_RUN(test_one_station_back_to_back);
    NRT_RUN(test_defers_to_carrier);
    NRT_RUN(test_deferring_stations_collide);
    NRT_RUN(test_propagation_window);
    NRT_RUN(test_backoff_range_and_excessive);
    NRT_RUN(test_queue_limit);
    NRT_RUN(test_busy_both_ways);
    return nrt_summary(__FILE__);
}
