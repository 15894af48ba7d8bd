#include <errno.h>

#include "calib.h"
#include "nrtest.h"

/* A fake backend whose clock advances 3 ns per spin iteration, so results are exact. */
struct fake {
    struct nrio base;
    int64_t now;
    long spun;
};

static int64_t f_now(nrio *io) { return ((struct fake *)io)->now; }
static void f_spin(nrio *io, long n)
{
    struct fake *f = (struct fake *)io;
    f->now += 3 * n;
    f->spun += n;
}
static const struct nrio_ops fake_ops = {.name = "fake", .now_ns = f_now, .spin = f_spin};

static void test_calibrate_fake_clock(void)
{
    struct fake f = {.base.ops = &fake_ops, .now = 1000};
    struct nr_calib c;
    NRT_EQ_INT(nr_calibrate_spin(&f.base, 1000, 5, &c), 0);
    NRT_CHECK(c.ns_per_iter == 3.0);
    NRT_CHECK(c.min_ns_per_iter == 3.0 && c.max_ns_per_iter == 3.0);
    NRT_EQ_INT(c.iterations, 1000);
    NRT_EQ_INT(c.rounds, 5);
    NRT_EQ_INT(f.spun, 5000);
}

static void test_calibrate_refuses(void)
{
    struct fake f = {.base.ops = &fake_ops};
    struct nr_calib c;
    NRT_EQ_INT(nr_calibrate_spin(&f.base, 0, 5, &c), -EINVAL);
    NRT_EQ_INT(nr_calibrate_spin(&f.base, 10, 0, &c), -EINVAL);
    NRT_EQ_INT(nr_calibrate_spin(&f.base, 10, NR_CALIB_MAX_ROUNDS + 1, &c), -EINVAL);
}

static void test_busy_wait_advances_virtual_clock(void)
{
    struct fake f = {.base.ops = &fake_ops, .now = 0};
    nr_busy_wait_ns(&f.base, 10000);
    NRT_CHECK(f.now >= 10000);
    NRT_CHECK(f.now < 10000 + 3 * 64 + 1);
}

static void test_kernel_spin_is_real(void)
{
    nrio *io = nrio_kernel_new();
    NRT_CHECK(io != NULL);
    if (!io)
        return;
    struct nr_calib c;
    NRT_EQ_INT(nr_calibrate_spin(io, 200000, 5, &c), 0);
    /* A loop the compiler removed would cost nothing per iteration. */
    NRT_CHECK(c.ns_per_iter > 0.01);
    NRT_CHECK(c.min_ns_per_iter <= c.ns_per_iter && c.ns_per_iter <= c.max_ns_per_iter);
    int64_t t0 = nrio_now_ns(io);
    nr_busy_wait_ns(io, 2000000);
    NRT_CHECK(nrio_now_ns(io) - t0 >= 2000000);
    nrio_destroy(io);
}

int main(void)
{
    NRT_RUN(test_calibrate_fake_clock);
    NRT_RUN(test_calibrate_refuses);
    NRT_RUN(test_busy_wait_advances_virtual_clock);
    NRT_RUN(test_kernel_spin_is_real);
    return nrt_summary("common/test_calib");
}
