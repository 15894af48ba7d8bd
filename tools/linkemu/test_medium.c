/* The shared half-duplex Ethernet on a virtual clock, rule by rule of IEEE 802.3 clause 4 at
 * 10 Mb/s (100 ns a bit): frames with their preamble and at least 64 octets, the 96-bit gap
 * after every carrier and its two parts, 1-persistent deferral, collisions inside the
 * propagation window with preamble and jam, backoff in whole slots over the truncated binary
 * exponential range, 16 attempts, the interface queue, and the counts of each station. */
#include "medium.h"
#include "nrtest.h"

#define FRAME_1500_NS 1220800 /* 1526 octets: preamble 8, header 14, 1500, FCS 4 */
#define FRAME_MIN_NS 57600    /* 72 octets: preamble 8 and the 64-octet minimum frame */
#define IFG_NS 9600
#define IFS1_NS 6400
#define SLOT_NS 51200
#define PRE_NS 6400
#define JAM_NS 3200
#define LANCE_RX_GAP_NS 6400 /* 64 bits: Sun's lance_mode default (medium.h) */

static int tags[8] = {0, 1, 2, 3, 4, 5, 6, 7};

/* Runs every event in time order; returns the outcomes in the order they happened. */
static int drive(struct le_medium *m, struct le_outcome *got, int max)
{
    int n = 0;
    int64_t t;
    while ((t = le_medium_next_ns(m)) != INT64_MAX) {
        struct le_outcome out[LE_MAX_OUTCOMES];
        int k = le_medium_step(m, t, out);
        for (int i = 0; i < k && n < max; i++)
            got[n++] = out[i];
    }
    return n;
}

/* Runs events until the time passes until_ns. */
static void run_until(struct le_medium *m, int64_t until_ns)
{
    struct le_outcome out[LE_MAX_OUTCOMES];
    int64_t t;
    while ((t = le_medium_next_ns(m)) <= until_ns)
        le_medium_step(m, t, out);
}

/* Stations as clause 4 has them: the rules below are the standard's, so these tests take
 * the LANCE's longer gap after a reception away; test_lance_* keep it. */
static void setup_seeded(struct le_medium *m, int64_t prop_ns, uint64_t queue, uint64_t seed)
{
    NRT_EQ_INT(le_medium_init(m, 10e6, prop_ns, LE_FRAMING_ETHERNET, queue, seed, 3), 0);
    m->st[0].rx_gap_ns = m->st[1].rx_gap_ns = 0;
}

static void setup(struct le_medium *m, int64_t prop_ns, uint64_t queue)
{
    setup_seeded(m, prop_ns, queue, 7);
}

/* One station alone: its next frame starts a gap after the last one ended. */
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
    NRT_EQ_INT(got[1].arrive_ns, 2 * FRAME_1500_NS + IFG_NS);
    NRT_EQ_INT(m.st[0].count.collisions + m.st[0].count.deferrals, 0);
    NRT_CHECK(le_medium_collision_pct(&m) == 0.0);
    le_medium_free(&m, NULL);
}

/* A frame is its preamble and at least 64 octets: short ones are padded, longer ones are not. */
static void test_preamble_and_minimum_frame(void)
{
    struct le_medium m;
    setup(&m, 0, 50);
    le_medium_offer(&m, 0, 0, 1, &tags[0]);
    le_medium_offer(&m, 0, 0, 46, &tags[1]);
    le_medium_offer(&m, 0, 0, 47, &tags[2]);
    struct le_outcome got[4];
    NRT_EQ_INT(drive(&m, got, 4), 3);
    NRT_EQ_INT(got[0].arrive_ns, FRAME_MIN_NS);
    NRT_EQ_INT(got[1].arrive_ns - got[0].arrive_ns, IFG_NS + FRAME_MIN_NS);
    NRT_EQ_INT(got[2].arrive_ns - got[1].arrive_ns, IFG_NS + FRAME_MIN_NS + 800);
    le_medium_free(&m, NULL);
}

/* A station waits for the carrier to drop where it is, then the whole gap, whether it heard
 * the frame (a deferral) or its frame came just after it; a frame after the gap goes at once. */
static void test_interframe_gap_honoured(void)
{
    const int64_t prop = 500;
    struct le_medium m;
    setup(&m, prop, 50);
    le_medium_offer(&m, 0, 0, 1500, &tags[0]);
    le_medium_offer(&m, 1, 100000, 40, &tags[1]); /* an ACK while a's frame is on the wire */
    struct le_outcome got[4];
    NRT_EQ_INT(drive(&m, got, 4), 2);
    NRT_EQ_INT(got[0].station, 0);
    NRT_EQ_INT(got[0].arrive_ns, FRAME_1500_NS + prop);
    NRT_EQ_INT(got[1].station, 1);
    NRT_EQ_INT(got[1].arrive_ns, FRAME_1500_NS + prop + IFG_NS + FRAME_MIN_NS + prop);
    NRT_EQ_INT(m.st[1].count.deferrals, 1);
    NRT_EQ_INT(m.st[0].count.collisions + m.st[1].count.collisions, 0);
    le_medium_free(&m, NULL);

    setup(&m, prop, 50);
    le_medium_offer(&m, 0, 0, 1500, &tags[0]);
    le_medium_offer(&m, 1, FRAME_1500_NS + prop + 100, 40, &tags[1]);
    NRT_EQ_INT(drive(&m, got, 4), 2);
    NRT_EQ_INT(got[1].arrive_ns, FRAME_1500_NS + prop + IFG_NS + FRAME_MIN_NS + prop);
    NRT_EQ_INT(m.st[1].count.deferrals, 0);
    le_medium_free(&m, NULL);

    setup(&m, prop, 50);
    le_medium_offer(&m, 0, 0, 1500, &tags[0]);
    le_medium_offer(&m, 1, FRAME_1500_NS + prop + IFG_NS + 100, 40, &tags[1]);
    NRT_EQ_INT(drive(&m, got, 4), 2);
    NRT_EQ_INT(got[1].arrive_ns, FRAME_1500_NS + prop + IFG_NS + 100 + FRAME_MIN_NS + prop);
    le_medium_free(&m, NULL);
}

/* The gap's two parts: a carrier that reaches a station in the first 64 bits of its gap makes
 * it wait for that frame; one that reaches it later is ignored by a frame waiting for the end
 * of the gap, which then collides, but not by a frame that came after the gap. */
static void test_two_part_deference(void)
{
    const int64_t prop = 500;
    struct le_medium m;
    struct le_outcome got[4];
    setup(&m, prop, 50);
    m.st[1].quiet_ns = 0; /* the medium just fell silent at b */
    le_medium_offer(&m, 1, 0, 40, &tags[1]);
    le_medium_offer(&m, 0, 3000, 1500, &tags[0]);
    run_until(&m, 3000);
    NRT_EQ_INT(m.tx, 0);
    NRT_EQ_INT(le_medium_contested_ns(&m), 3000 + prop);
    NRT_EQ_INT(drive(&m, got, 4), 2);
    NRT_EQ_INT(m.st[1].count.deferrals, 1);
    NRT_EQ_INT(m.st[0].count.collisions + m.st[1].count.collisions, 0);
    le_medium_free(&m, NULL);

    setup(&m, prop, 50);
    m.st[1].quiet_ns = 0;
    le_medium_offer(&m, 1, 0, 40, &tags[1]);
    le_medium_offer(&m, 0, IFS1_NS + 1000, 1500, &tags[0]);
    run_until(&m, IFS1_NS + 1000);
    NRT_EQ_INT(le_medium_contested_ns(&m), IFG_NS);
    run_until(&m, IFG_NS);
    NRT_EQ_INT(m.st[0].count.collisions, 1);
    NRT_EQ_INT(m.st[1].count.collisions, 1);
    NRT_EQ_INT(m.st[1].count.deferrals, 0);
    le_medium_free(&m, NULL);

    setup(&m, prop, 50);
    m.st[1].quiet_ns = 0;
    le_medium_offer(&m, 1, IFG_NS + 1, 40, &tags[1]);
    le_medium_offer(&m, 0, IFS1_NS + 1000, 1500, &tags[0]);
    NRT_EQ_INT(drive(&m, got, 4), 2);
    NRT_EQ_INT(m.st[1].count.deferrals, 1);
    NRT_EQ_INT(m.st[0].count.collisions + m.st[1].count.collisions, 0);
    le_medium_free(&m, NULL);
}

/* a sends two frames back to back; b's ACK waits for the first. When both wait for the end of
 * the same gap, 1-persistent deferral starts both and they collide; when a's next frame comes
 * later than b's start has reached it, b goes alone and a defers. */
static void test_deferring_station_collides_only_with_a_waiting_frame(void)
{
    const int64_t prop = 500;
    struct le_medium m;
    setup(&m, prop, 50);
    le_medium_offer(&m, 0, 0, 1500, &tags[0]);
    le_medium_offer(&m, 0, 0, 1500, &tags[1]);
    le_medium_offer(&m, 1, 100000, 40, &tags[2]);
    run_until(&m, FRAME_1500_NS + prop + IFG_NS);
    NRT_EQ_INT(m.st[0].count.collisions, 1);
    NRT_EQ_INT(m.st[1].count.collisions, 1);
    /* a started at its gap's end; b's ended when a's start reached it: each completes its
     * preamble, jams, and backs off 0 or 1 slot from the end of its own jam. */
    int64_t a_start = FRAME_1500_NS + IFG_NS, b_start = a_start + prop;
    int64_t a_end = a_start + PRE_NS + JAM_NS, b_end = b_start + PRE_NS + JAM_NS;
    NRT_EQ_INT(m.st[0].quiet_ns, b_end + prop);
    NRT_EQ_INT(m.st[1].quiet_ns, b_end);
    NRT_CHECK(m.st[0].earliest_ns == a_end || m.st[0].earliest_ns == a_end + SLOT_NS);
    NRT_CHECK(m.st[1].earliest_ns == b_end || m.st[1].earliest_ns == b_end + SLOT_NS);
    struct le_outcome got[4];
    NRT_EQ_INT(drive(&m, got, 4), 2);
    NRT_EQ_INT(m.st[0].count.tx_frames + m.st[1].count.tx_frames, 3);
    le_medium_free(&m, NULL);

    setup(&m, prop, 50);
    le_medium_offer(&m, 0, 0, 1500, &tags[0]);
    le_medium_offer(&m, 1, 100000, 40, &tags[2]);
    le_medium_offer(&m, 0, FRAME_1500_NS + 2 * prop + IFG_NS + 1, 1500, &tags[1]);
    NRT_EQ_INT(drive(&m, got, 4), 3);
    NRT_EQ_INT(got[1].station, 1);
    NRT_EQ_INT(got[1].arrive_ns, FRAME_1500_NS + prop + IFG_NS + FRAME_MIN_NS + prop);
    NRT_EQ_INT(m.st[0].count.collisions + m.st[1].count.collisions, 0);
    NRT_EQ_INT(m.st[0].count.deferrals, 1);
    le_medium_free(&m, NULL);
}

/* Two stations that collided at the end of the same gap are not bound to collide again: their
 * first backoffs (0 or 1 slot each) part them whenever they differ, about half the time. */
static void test_first_backoff_parts_them_half_the_time(void)
{
    int parted = 0, runs = 200;
    for (int seed = 1; seed <= runs; seed++) {
        struct le_medium m;
        setup_seeded(&m, 500, 50, (uint64_t)seed);
        le_medium_offer(&m, 0, 0, 1500, &tags[0]);
        le_medium_offer(&m, 0, 0, 1500, &tags[1]);
        le_medium_offer(&m, 1, 100000, 40, &tags[2]);
        struct le_outcome got[4];
        NRT_EQ_INT(drive(&m, got, 4), 3);
        NRT_EQ_INT(m.st[0].count.collisions, m.st[1].count.collisions);
        NRT_CHECK(m.st[0].count.collisions >= 1);
        parted += m.st[0].count.collisions == 1;
        le_medium_free(&m, NULL);
    }
    NRT_CHECK(parted > runs * 3 / 10 && parted < runs * 7 / 10);
}

/* A start inside the propagation window collides: the first station jams once the other's
 * signal reaches it, the second once the first's does, each after its full preamble; one after
 * the window hears the carrier and defers. */
static void test_propagation_window(void)
{
    const int64_t prop = 10000;
    struct le_medium m;
    setup(&m, prop, 50);
    le_medium_offer(&m, 0, 0, 1500, &tags[0]);
    le_medium_offer(&m, 1, 5000, 1500, &tags[1]);
    run_until(&m, 0);
    NRT_EQ_INT(le_medium_contested_ns(&m), prop);
    run_until(&m, 5000);
    NRT_EQ_INT(m.st[0].count.collisions, 1);
    NRT_EQ_INT(m.st[1].count.collisions, 1);
    int64_t a_end = 5000 + prop + JAM_NS; /* a hears b at 15000, past its preamble */
    int64_t b_end = 5000 + PRE_NS + JAM_NS; /* b hears a at 10000, inside its preamble */
    NRT_EQ_INT(m.st[0].quiet_ns, b_end + prop);
    NRT_EQ_INT(m.st[1].quiet_ns, a_end + prop);
    NRT_EQ_INT(le_medium_contested_ns(&m), INT64_MAX);
    le_medium_free(&m, NULL);

    setup(&m, prop, 50);
    le_medium_offer(&m, 0, 0, 1500, &tags[0]);
    le_medium_offer(&m, 1, 20000, 1500, &tags[1]);
    struct le_outcome got[4];
    NRT_EQ_INT(drive(&m, got, 4), 2);
    NRT_EQ_INT(m.st[1].count.collisions, 0);
    NRT_EQ_INT(m.st[1].count.deferrals, 1);
    NRT_EQ_INT(got[1].arrive_ns, FRAME_1500_NS + prop + IFG_NS + FRAME_1500_NS + prop);
    le_medium_free(&m, NULL);
}

/* Both stations collide at 0 (no propagation) after `before` collisions of their frames; each
 * backs off from the end of its jam (its preamble and jam, 9600 ns). Marks each r drawn in
 * seen and returns the largest. */
static uint64_t draw_backoffs(int before, uint64_t seed, int *seen, size_t nseen)
{
    struct le_medium m;
    setup_seeded(&m, 0, 50, seed);
    le_medium_offer(&m, 0, 0, 100, &tags[0]);
    le_medium_offer(&m, 1, 0, 100, &tags[1]);
    m.st[0].attempts = m.st[1].attempts = before;
    run_until(&m, 0);
    uint64_t most = 0;
    for (int i = 0; i < 2; i++) {
        NRT_EQ_INT(m.st[i].attempts, before + 1);
        int64_t wait = m.st[i].earliest_ns - (PRE_NS + JAM_NS);
        NRT_CHECK(wait >= 0 && wait % SLOT_NS == 0);
        uint64_t r = (uint64_t)(wait / SLOT_NS);
        if (r < nseen)
            seen[r] = 1;
        if (r > most)
            most = r;
    }
    le_medium_free(&m, NULL);
    return most;
}

/* After the n-th collision r is uniform in [0, 2^min(n,10)): every value of the range comes up
 * and none past it, and the range stops doubling at 1024 slots. */
static void test_backoff_range(void)
{
    const int bounds[][2] = {{0, 2}, {1, 4}, {2, 8}, {9, 1024}, {12, 1024}};
    for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; b++) {
        int seen[1024] = {0};
        uint64_t most = 0;
        for (uint64_t seed = 1; seed <= 400; seed++) {
            uint64_t r = draw_backoffs(bounds[b][0], seed, seen, 1024);
            if (r > most)
                most = r;
        }
        int range = bounds[b][1];
        NRT_CHECK(most < (uint64_t)range);
        NRT_CHECK(most >= (uint64_t)range * 3 / 4);
        if (range <= 8)
            for (int r = 0; r < range; r++)
                NRT_CHECK(seen[r]);
    }
}

/* The 16th attempt is the last: a frame that collided 15 times backs off once more; at its
 * 16th collision it is given up (counted), and the next frame starts afresh. */
static void test_attempt_limit(void)
{
    struct le_medium m;
    struct le_outcome out[LE_MAX_OUTCOMES];
    setup(&m, 0, 50);
    le_medium_offer(&m, 0, 0, 100, &tags[0]);
    le_medium_offer(&m, 1, 0, 100, &tags[1]);
    m.st[0].attempts = m.st[1].attempts = LE_ATTEMPT_LIMIT - 2;
    le_medium_step(&m, 0, out);
    NRT_EQ_INT(le_medium_step(&m, 0, out), 0);
    NRT_EQ_INT(m.st[0].attempts, LE_ATTEMPT_LIMIT - 1);
    NRT_EQ_INT(m.st[0].count.excessive + m.st[1].count.excessive, 0);
    le_medium_free(&m, NULL);

    setup(&m, 0, 50);
    le_medium_offer(&m, 0, 0, 100, &tags[0]);
    le_medium_offer(&m, 1, 0, 100, &tags[1]);
    le_medium_offer(&m, 1, 0, 100, &tags[2]);
    m.st[0].attempts = m.st[1].attempts = LE_ATTEMPT_LIMIT - 1;
    le_medium_step(&m, 0, out);
    NRT_EQ_INT(le_medium_step(&m, 0, out), 2);
    NRT_EQ_INT(out[0].kind, LE_EXCESSIVE);
    NRT_EQ_INT(out[1].kind, LE_EXCESSIVE);
    NRT_CHECK(out[0].pkt == &tags[0] && out[1].pkt == &tags[1]);
    NRT_EQ_INT(m.st[0].count.excessive, 1);
    NRT_EQ_INT(m.st[1].count.excessive, 1);
    NRT_EQ_INT(m.st[0].count.tx_frames + m.st[1].count.tx_frames, 0);
    NRT_EQ_INT(m.st[1].attempts, 0);
    struct le_outcome got[2];
    NRT_EQ_INT(drive(&m, got, 2), 1);
    NRT_CHECK(got[0].kind == LE_DELIVERED && got[0].pkt == &tags[2]);
    le_medium_free(&m, NULL);
}

/* A collision of both stations' frames is one collision at each, not two: each host's netstat
 * shows its own frames' collisions over its own frames sent. */
static void test_counts_once_per_station(void)
{
    struct le_medium m;
    setup(&m, 0, 50);
    le_medium_offer(&m, 0, 0, 1500, &tags[0]);
    le_medium_offer(&m, 1, 0, 40, &tags[1]);
    run_until(&m, 0);
    NRT_EQ_INT(m.st[0].count.collisions, 1);
    NRT_EQ_INT(m.st[1].count.collisions, 1);
    struct le_outcome got[4];
    NRT_EQ_INT(drive(&m, got, 4), 2);
    NRT_EQ_INT(m.st[0].count.collisions, m.st[1].count.collisions);
    NRT_EQ_INT(m.st[0].count.tx_frames, 1);
    NRT_EQ_INT(m.st[1].count.tx_frames, 1);
    uint64_t coll = m.st[0].count.collisions + m.st[1].count.collisions;
    NRT_CHECK(le_medium_collision_pct(&m) == 100.0 * (double)coll / 2.0);
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

static int busy_both_ways(uint64_t seed, struct le_outcome *got, struct le_medium *m)
{
    static int many[400];
    setup_seeded(m, 500, 0, seed);
    for (int i = 0; i < 200; i++) {
        le_medium_offer(m, 0, 0, 1500, &many[i]);
        le_medium_offer(m, 1, i * 300000, 40, &many[200 + i]);
    }
    return drive(m, got, 400);
}

/* Many more frames than the queue's first allocation, from both sides at once: every frame
 * is delivered or given up, in order per station, one on the wire at a time with a gap between. */
static void test_busy_both_ways(void)
{
    struct le_medium m;
    struct le_outcome got[400];
    int n = busy_both_ways(7, got, &m);
    NRT_EQ_INT(n, 400);
    int64_t last_arrive = -1;
    void *last[2] = {NULL, NULL};
    for (int i = 0; i < n; i++) {
        if (got[i].kind == LE_DELIVERED) {
            int64_t start = got[i].arrive_ns - 500 - (got[i].station == 0 ? FRAME_1500_NS : FRAME_MIN_NS);
            NRT_CHECK(last_arrive < 0 || start >= last_arrive + IFG_NS - 500);
            last_arrive = got[i].arrive_ns;
        }
        NRT_CHECK((char *)got[i].pkt > (char *)last[got[i].station]);
        last[got[i].station] = got[i].pkt;
    }
    NRT_CHECK(m.st[1].count.deferrals > 0);
    NRT_CHECK(m.st[0].count.collisions > 0);
    NRT_EQ_INT(m.st[0].count.collisions, m.st[1].count.collisions);
    le_medium_free(&m, NULL);
}

/* The medium is a function of its seed: the same seed gives the same outcomes at the same
 * times, another seed other backoffs. */
static void test_seeded(void)
{
    static struct le_outcome a[400], b[400], c[400];
    struct le_medium m;
    int na = busy_both_ways(7, a, &m);
    le_medium_free(&m, NULL);
    int nb = busy_both_ways(7, b, &m);
    le_medium_free(&m, NULL);
    int nc = busy_both_ways(8, c, &m);
    le_medium_free(&m, NULL);
    NRT_EQ_INT(na, nb);
    int same = 1, differs = 0;
    for (int i = 0; i < na && i < nc; i++) {
        same &= a[i].arrive_ns == b[i].arrive_ns && a[i].pkt == b[i].pkt && a[i].kind == b[i].kind;
        differs |= a[i].arrive_ns != c[i].arrive_ns;
    }
    NRT_CHECK(same);
    NRT_CHECK(differs);
}

/* Runs events until until_ns; returns the outcomes the hosts were given. */
static int outcomes_until(struct le_medium *m, int64_t until_ns)
{
    struct le_outcome out[LE_MAX_OUTCOMES];
    int n = 0;
    int64_t t;
    while ((t = le_medium_next_ns(m)) <= until_ns)
        n += le_medium_step(m, t, out);
    return n;
}

/* Other stations' frames arrive at the seeded Poisson rate and take the wire, and neither host
 * is handed one; the same seed gives the same frames. */
static void test_background_frames_take_the_wire_unseen(void)
{
    uint64_t sent[3];
    for (int k = 0; k < 3; k++) {
        struct le_medium m;
        setup(&m, 500, 50);
        NRT_EQ_INT(le_medium_background(&m, 1000, 100, 0, k < 2 ? 42 : 43), 0);
        NRT_EQ_INT(outcomes_until(&m, 1000000000LL), 0);
        sent[k] = m.st[LE_BACKGROUND].count.tx_frames;
        NRT_CHECK(sent[k] > 850 && sent[k] < 1150);
        le_medium_free(&m, NULL);
    }
    NRT_EQ_INT((long)sent[0], (long)sent[1]);
    NRT_CHECK(sent[2] != sent[0]);
    struct le_medium m;
    setup(&m, 500, 50);
    NRT_EQ_INT(le_medium_background(&m, 0, 100, 0, 1), -1);
    le_medium_free(&m, NULL);
}

/* A host's frame ready while a background frame is on the wire defers to it and goes a gap
 * after it. */
static void test_a_host_defers_to_a_background_frame(void)
{
    const int64_t prop = 500;
    struct le_medium m;
    setup(&m, prop, 50);
    NRT_EQ_INT(le_medium_background(&m, 0.001, 1500, 0, 1), 0);
    m.bg_next_ns = 0; /* one background frame at once; the next comes in about 1000 s */
    le_medium_offer(&m, 0, 100000, 1500, &tags[0]);
    struct le_outcome got[1];
    int n = 0;
    while (n == 0) {
        struct le_outcome out[LE_MAX_OUTCOMES];
        n = le_medium_step(&m, le_medium_next_ns(&m), out);
        got[0] = out[0];
    }
    NRT_EQ_INT(got[0].station, 0);
    NRT_EQ_INT(got[0].arrive_ns, FRAME_1500_NS + prop + IFG_NS + FRAME_1500_NS + prop);
    NRT_EQ_INT(m.st[0].count.deferrals, 1);
    NRT_EQ_INT(m.st[0].count.collisions, 0);
    le_medium_free(&m, NULL);
}

/* a's second frame waits for the end of its own gap, b and a background frame deferred to a's
 * first: all three start together and collide, each counting one collision. */
static void test_three_stations_collide_at_the_end_of_a_gap(void)
{
    const int64_t prop = 500;
    struct le_medium m;
    setup(&m, prop, 50);
    NRT_EQ_INT(le_medium_background(&m, 0.001, 1500, 0, 1), 0);
    m.bg_next_ns = 100000;
    le_medium_offer(&m, 0, 0, 1500, &tags[0]);
    le_medium_offer(&m, 0, 0, 1500, &tags[1]);
    le_medium_offer(&m, 1, 100000, 40, &tags[2]);
    outcomes_until(&m, FRAME_1500_NS + prop + IFG_NS);
    for (int i = 0; i < LE_STATIONS; i++)
        NRT_EQ_INT(m.st[i].count.collisions, 1);
    le_medium_free(&m, NULL);
}

/* The LANCEs of the two hosts: b, which received a's frame, waits 6.4 us beyond the gap, so
 * its ACK defers to a's frame that waited for the gap's end instead of colliding with it, and
 * goes once the wire has been quiet for b's longer gap after that frame. A background frame
 * waiting at the same moment (its station received neither) still collides with a's; b, in
 * its longer gap, hears the collision and stays out of it. */
static void test_lance_receiver_defers_to_back_to_back_frames(void)
{
    const int64_t prop = 500;
    struct le_medium m;
    struct le_outcome got[4];
    NRT_EQ_INT(le_medium_init(&m, 10e6, prop, LE_FRAMING_ETHERNET, 50, 7, 3), 0);
    NRT_EQ_INT(m.st[0].rx_gap_ns, LANCE_RX_GAP_NS);
    le_medium_offer(&m, 0, 0, 1500, &tags[0]);
    le_medium_offer(&m, 0, 0, 1500, &tags[1]);
    le_medium_offer(&m, 1, 100000, 40, &tags[2]);
    NRT_EQ_INT(drive(&m, got, 4), 3);
    NRT_EQ_INT(m.st[0].count.collisions + m.st[1].count.collisions, 0);
    NRT_EQ_INT(m.st[1].count.deferrals, 2);
    NRT_EQ_INT(got[1].station, 0);
    NRT_EQ_INT(got[1].arrive_ns, 2 * FRAME_1500_NS + IFG_NS + prop);
    NRT_EQ_INT(got[2].station, 1);
    NRT_EQ_INT(got[2].arrive_ns,
               2 * FRAME_1500_NS + IFG_NS + prop + IFG_NS + LANCE_RX_GAP_NS + FRAME_MIN_NS + prop);
    le_medium_free(&m, NULL);

    NRT_EQ_INT(le_medium_init(&m, 10e6, prop, LE_FRAMING_ETHERNET, 50, 7, 3), 0);
    NRT_EQ_INT(le_medium_background(&m, 0.001, 1500, 0, 1), 0);
    NRT_EQ_INT(m.st[LE_BACKGROUND].rx_gap_ns, 0);
    le_medium_offer(&m, 0, 0, 1500, &tags[0]);
    le_medium_offer(&m, 0, 0, 1500, &tags[1]);
    m.bg_next_ns = 100000; /* one background frame; the next comes in about 1000 s */
    le_medium_offer(&m, 1, 100000, 40, &tags[2]);
    outcomes_until(&m, FRAME_1500_NS + prop + IFG_NS);
    NRT_EQ_INT(m.st[1].count.collisions, 0);
    NRT_EQ_INT(m.st[0].count.collisions, 1);
    NRT_EQ_INT(m.st[LE_BACKGROUND].count.collisions, 1);
    le_medium_free(&m, NULL);
}

int main(void)
{
    NRT_RUN(test_one_station_back_to_back);
    NRT_RUN(test_preamble_and_minimum_frame);
    NRT_RUN(test_interframe_gap_honoured);
    NRT_RUN(test_two_part_deference);
    NRT_RUN(test_deferring_station_collides_only_with_a_waiting_frame);
    NRT_RUN(test_first_backoff_parts_them_half_the_time);
    NRT_RUN(test_propagation_window);
    NRT_RUN(test_backoff_range);
    NRT_RUN(test_attempt_limit);
    NRT_RUN(test_counts_once_per_station);
    NRT_RUN(test_queue_limit);
    NRT_RUN(test_busy_both_ways);
    NRT_RUN(test_seeded);
    NRT_RUN(test_background_frames_take_the_wire_unseen);
    NRT_RUN(test_a_host_defers_to_a_background_frame);
    NRT_RUN(test_three_stations_collide_at_the_end_of_a_gap);
    NRT_RUN(test_lance_receiver_defers_to_back_to_back_frames);
    return nrt_summary(__FILE__);
}
