/* linkemu --medium shared's forwarding logic on made-up times: frames from both directions take
 * turns on one medium, collide, back off and leave, counted; late frames contend from the
 * medium's clock; a frame's end runs early by the send lag once nothing can collide with it. */
#include "nrtest.h"
#include "shared.h"

#define FRAME_1500_NS 1220800 /* 1526 octets on the wire at 10 Mb/s, preamble included */
#define PROP_NS 500
#define IFG_NS 9600
#define ETH 14

static int tags[8] = {0, 1, 2, 3, 4, 5, 6, 7};

struct seen {
    struct le_outcome o[16];
    int n;
};

static void done(void *ctx, const struct le_outcome *o)
{
    struct seen *s = ctx;
    if (s->n < 16)
        s->o[s->n++] = *o;
}

static void setup(struct le_shared *sh, uint64_t queue)
{
    struct le_dir_cfg cfg = {.rate_bps = 10e6, .delay_ns = PROP_NS, .queue_packets = queue};
    NRT_EQ_INT(le_shared_init(sh, &cfg, LE_FRAMING_ETHERNET, 1500, 1, 2), 0);
}

/* What take_frame does with a frame that arrived at arrived_ns. */
static enum le_verdict take(struct le_shared *sh, int st, struct le_counters *c, int64_t arrived_ns,
                            uint32_t frame, void *pkt)
{
    enum le_verdict v = le_shared_admit(sh, c, frame);
    return v == LE_PASS ? le_shared_offer(sh, st, c, arrived_ns, frame, pkt) : v;
}

/* Host a's data frame and host b's ACK reach linkemu at once: they collide, back off, and both
 * go out, each to the other side, counted per station as netstat -i would. */
static void test_simultaneous_frames_collide_then_leave(void)
{
    struct le_shared sh;
    struct le_counters c[2] = {{0}, {0}};
    setup(&sh, 50);
    NRT_EQ_INT(take(&sh, 0, &c[0], 1000, ETH + 1500, &tags[0]), LE_PASS);
    NRT_EQ_INT(take(&sh, 1, &c[1], 1000, ETH + 40, &tags[1]), LE_PASS);
    struct seen seen = {.n = 0};
    int64_t now = 1000;
    /* The forwarding loop: run what is due, then sleep until the next due time. */
    for (int rounds = 0; rounds < 1000 && le_shared_due_ns(&sh, 0) != INT64_MAX; rounds++) {
        now = le_shared_due_ns(&sh, 0);
        le_shared_run(&sh, now, 0, done, &seen);
    }
    NRT_EQ_INT(seen.n, 2);
    const struct le_medium *m = &sh.medium;
    NRT_CHECK(m->st[0].count.collisions >= 1);
    NRT_CHECK(m->st[1].count.collisions >= 1);
    NRT_EQ_INT(m->st[0].count.tx_frames, 1);
    NRT_EQ_INT(m->st[1].count.tx_frames, 1);
    NRT_EQ_INT(m->st[0].count.excessive + m->st[1].count.excessive, 0);
    int delivered[2] = {0, 0};
    for (int i = 0; i < seen.n; i++) {
        NRT_EQ_INT(seen.o[i].kind, LE_DELIVERED);
        delivered[seen.o[i].station]++;
        NRT_CHECK(seen.o[i].pkt == &tags[seen.o[i].station]);
        /* Later than the frames alone on the wire: a jam and the backoff came first. */
        NRT_CHECK(seen.o[i].arrive_ns > 1000 + PROP_NS + 32 * 100);
    }
    NRT_EQ_INT(delivered[0], 1);
    NRT_EQ_INT(delivered[1], 1);
    uint64_t coll = m->st[0].count.collisions + m->st[1].count.collisions;
    NRT_CHECK(le_medium_collision_pct(m) == 100.0 * (double)coll / 2.0);
    NRT_EQ_INT(c[0].rx_packets, 1);
    NRT_EQ_INT(c[0].queued_packets, 1);
    NRT_EQ_INT(c[1].queued_bytes, ETH + 40);
    NRT_EQ_INT(le_shared_pending(&sh, 0) + le_shared_pending(&sh, 1), 0);
    le_shared_free(&sh, NULL, NULL);
}

/* The loop ran the medium up to a frame's end; a frame that reached linkemu before that time
 * but was read after it contends from the medium's clock, never in its past: it waits the gap
 * after the carrier dropped at its station, as if it had deferred to the frame. */
static void test_late_frame_contends_from_the_clock(void)
{
    struct le_shared sh;
    struct le_counters c = {0};
    setup(&sh, 50);
    take(&sh, 0, &c, 0, ETH + 1500, &tags[0]);
    struct seen seen = {.n = 0};
    le_shared_run(&sh, 0, 0, done, &seen);
    le_shared_run(&sh, FRAME_1500_NS, 0, done, &seen);
    NRT_EQ_INT(seen.n, 1);
    NRT_EQ_INT(sh.now_ns, FRAME_1500_NS);
    take(&sh, 1, &c, 100000, ETH + 40, &tags[1]);
    NRT_EQ_INT(sh.medium.st[1].earliest_ns, FRAME_1500_NS);
    /* b received a's frame: its LANCE waits 6.4 us beyond the gap (medium.h). */
    int64_t start = FRAME_1500_NS + PROP_NS + IFG_NS + LE_LANCE_RX_GAP_BITS * 100;
    NRT_EQ_INT(sh.medium.st[1].try_ns, start);
    le_shared_run(&sh, start, 0, done, &seen);
    NRT_EQ_INT(sh.medium.tx, 1);
    NRT_EQ_INT(sh.medium.st[1].count.collisions, 0);
    le_shared_free(&sh, NULL, NULL);
}

/* A frame's end runs ahead by the send lag once the collision window is over, so that it can be
 * handed over in time; a station's attempt never runs early. */
static void test_end_runs_ahead_of_time(void)
{
    struct le_shared sh;
    struct le_counters c = {0};
    setup(&sh, 50);
    const int64_t ahead = 40000;
    take(&sh, 0, &c, 0, ETH + 1500, &tags[0]);
    NRT_EQ_INT(le_shared_due_ns(&sh, ahead), 0); /* the attempt: at its time */
    struct seen seen = {.n = 0};
    le_shared_run(&sh, 0, ahead, done, &seen);
    NRT_EQ_INT(sh.medium.tx, 0);
    NRT_EQ_INT(le_shared_due_ns(&sh, ahead), FRAME_1500_NS - ahead);
    /* Inside the collision window nothing runs early. */
    NRT_EQ_INT(le_shared_run(&sh, PROP_NS, FRAME_1500_NS, done, &seen), 0);
    NRT_EQ_INT(le_shared_run(&sh, FRAME_1500_NS - ahead - 1, ahead, done, &seen), 0);
    NRT_EQ_INT(le_shared_run(&sh, FRAME_1500_NS - ahead, ahead, done, &seen), 1);
    NRT_EQ_INT(seen.o[0].arrive_ns, FRAME_1500_NS + PROP_NS);
    le_shared_free(&sh, NULL, NULL);

    /* A start that reaches b in the last part of b's gap stays contested until the gap ends:
     * a frame b had waiting then would go all the same. */
    setup(&sh, 50);
    sh.medium.st[1].quiet_ns = 0;
    take(&sh, 0, &c, 7000, ETH + 1500, &tags[0]);
    le_shared_run(&sh, 7000, ahead, done, &seen);
    NRT_EQ_INT(sh.medium.tx, 0);
    NRT_EQ_INT(le_shared_due_ns(&sh, FRAME_1500_NS), IFG_NS + 1);
    NRT_EQ_INT(le_shared_run(&sh, IFG_NS, FRAME_1500_NS, done, &seen), 0);
    NRT_EQ_INT(le_shared_run(&sh, IFG_NS + 1, FRAME_1500_NS, done, &seen), 1);
    le_shared_free(&sh, NULL, NULL);
}

/* Host a's frame states 0 but reaches linkemu 20 us late, after host b's stated for 10 us has
 * been offered. Unheld, b's attempt runs at 10 us and a's frame contends from there, at the same
 * instant: a collision that neither sender's model had. Held 40 us, a takes the wire at 0 as in
 * netsim and b, which hears it, defers. The end of a's frame is not delayed by the hold. */
static void test_hold_lets_a_late_frame_take_its_stated_time(void)
{
    for (int held = 0; held < 2; held++) {
        struct le_shared sh;
        struct le_counters c[2] = {{0}, {0}};
        setup(&sh, 50);
        const int64_t hold = held ? 40000 : 0;
        le_shared_hold(&sh, hold);
        struct seen seen = {.n = 0};
        take(&sh, 1, &c[1], 10000, ETH + 40, &tags[1]);
        NRT_EQ_INT(le_shared_due_ns(&sh, 0), 10000 + hold);
        le_shared_run(&sh, 30000, 0, done, &seen); /* a's frame arrives now, stating 0 */
        take(&sh, 0, &c[0], 0, ETH + 1500, &tags[0]);
        le_shared_run(&sh, 30000, 0, done, &seen);
        if (!held) {
            NRT_CHECK(sh.medium.st[0].count.collisions >= 1 && sh.medium.st[1].count.collisions >= 1);
        } else {
            le_shared_run(&sh, 50000, 0, done, &seen);
            NRT_EQ_INT(sh.medium.tx, 0);
            NRT_EQ_INT(sh.medium.tx_start_ns, 0);
            NRT_EQ_INT(sh.medium.st[1].count.deferrals, 1);
            NRT_EQ_INT(sh.medium.st[0].count.collisions + sh.medium.st[1].count.collisions, 0);
            NRT_EQ_INT(le_shared_due_ns(&sh, 0), FRAME_1500_NS);
            NRT_EQ_INT(le_shared_run(&sh, FRAME_1500_NS, 0, done, &seen), 1);
            NRT_EQ_INT(seen.o[0].station, 0);
        }
        le_shared_free(&sh, NULL, NULL);
    }
}

/* A timed frame later than the hold contends from its arrival, held, not from the stated time. */
static void test_a_frame_later_than_the_hold_contends_from_its_arrival(void)
{
    struct le_shared sh;
    setup(&sh, 50);
    le_shared_hold(&sh, 40000);
    NRT_EQ_INT(le_shared_timed_ns(&sh, 100000, 130000), 100000);
    NRT_EQ_INT(le_shared_timed_ns(&sh, 100000, 140000), 100000);
    NRT_EQ_INT(le_shared_timed_ns(&sh, 100000, 190000), 150000);
    le_shared_free(&sh, NULL, NULL);
}

/* Oversize frames are the direction's drops; a full interface queue is the medium's. */
static void test_drops(void)
{
    struct le_shared sh;
    struct le_counters c = {0};
    setup(&sh, 2);
    NRT_EQ_INT(take(&sh, 0, &c, 0, ETH + 1501, &tags[0]), LE_DROP_OVERSIZE);
    NRT_EQ_INT(c.drop_oversize, 1);
    NRT_EQ_INT(sh.medium.st[0].count.offered, 0);
    NRT_EQ_INT(take(&sh, 0, &c, 0, ETH + 1500, &tags[1]), LE_PASS);
    NRT_EQ_INT(take(&sh, 0, &c, 0, ETH + 1500, &tags[2]), LE_PASS);
    NRT_EQ_INT(take(&sh, 0, &c, 0, ETH + 1500, &tags[3]), LE_DROP_QUEUE);
    NRT_EQ_INT(sh.medium.st[0].count.drop_queue, 1);
    NRT_EQ_INT(c.rx_packets, 4);
    NRT_EQ_INT(c.queued_packets, 2);
    NRT_EQ_INT(c.drop_queue, 0);
    NRT_EQ_INT(le_shared_pending(&sh, 0), 2);
    le_shared_free(&sh, NULL, NULL);
}

static void give_back(void *ctx, int station, void *pkt)
{
    int *returned = ctx;
    returned[station] += *(int *)pkt;
}

/* Frames the medium still holds at the end go back to their direction. */
static void test_free_returns_held_frames(void)
{
    struct le_shared sh;
    struct le_counters c = {0};
    setup(&sh, 50);
    take(&sh, 0, &c, 0, ETH + 100, &tags[2]);
    take(&sh, 0, &c, 0, ETH + 100, &tags[3]);
    take(&sh, 1, &c, 0, ETH + 100, &tags[5]);
    int returned[2] = {0, 0};
    le_shared_free(&sh, give_back, returned);
    NRT_EQ_INT(returned[0], 5);
    NRT_EQ_INT(returned[1], 5);
}

int main(void)
{
    NRT_RUN(test_simultaneous_frames_collide_then_leave);
    NRT_RUN(test_late_frame_contends_from_the_clock);
    NRT_RUN(test_end_runs_ahead_of_time);
    NRT_RUN(test_hold_lets_a_late_frame_take_its_stated_time);
    NRT_RUN(test_a_frame_later_than_the_hold_contends_from_its_arrival);
    NRT_RUN(test_drops);
    NRT_RUN(test_free_returns_held_frames);
    return nrt_summary("linkemu/test_shared");
}
