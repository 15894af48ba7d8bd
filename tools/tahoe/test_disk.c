/* The disk and the UFS above it (disk.h). Expectations are worked out from a drive of 6000 rpm
 * (a turn of 10 ms) and 40000 octets a track: 4 octets a microsecond at the media. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disk.h"
#include "nrtest.h"

#define REV_NS 10000000LL
#define NS_PER_OCTET 250 /* 4 octets a microsecond */
#define FILE_BYTES (1L << 20)

static struct tahoe_hostcost drive(int64_t command_ns)
{
    struct tahoe_hostcost c;
    memset(&c, 0, sizeof c);
    c.disk_rpm = 6000;
    c.disk_track_bytes = 40000;
    c.disk_seek_avg_ns = 12000000;
    c.disk_seek_track_ns = 4000000;
    c.disk_command_ns = command_ns;
    c.ufs_block_bytes = 8192;
    c.ufs_cluster_bytes = 32768;
    c.ufs_writes_limit_bytes = 65536;
    return c;
}

/* A scratch file of size octets; its descriptor. */
static int scratch(long size)
{
    char path[] = "/tmp/test_disk.XXXXXX";
    int fd = mkstemp(path);
    NRT_CHECK(fd >= 0);
    unlink(path);
    NRT_EQ_INT(ftruncate(fd, size), 0);
    return fd;
}

/* The drive of drive(command_ns), the file system on it and a scratch file f on that. The
 * mount points at the disk: a rig stays where it was started. */
struct rig {
    struct tahoe_hostcost c;
    struct tahoe_disk d;
    struct ufs_mount m;
    int fd;
    struct ufs_file *f;
};

static void rig_drive(struct rig *r, int64_t command_ns)
{
    r->c = drive(command_ns);
    disk_init(&r->d, &r->c, 7, 3);
}

static void rig_start(struct rig *r, int64_t command_ns, long file_size)
{
    rig_drive(r, command_ns);
    ufs_init(&r->m, &r->d, &r->c);
    r->fd = scratch(file_size);
    r->f = ufs_lookup(&r->m, r->fd);
    NRT_CHECK(r->f != NULL);
}

static void rig_free(struct rig *r)
{
    ufs_free(&r->m);
    close(r->fd);
}

/* No disk keys, no disk. */
static void test_a_model_without_a_drive_has_no_disk(void)
{
    struct tahoe_hostcost c;
    memset(&c, 0, sizeof c);
    struct tahoe_disk d;
    disk_init(&d, &c, 1, 1);
    NRT_EQ_INT(d.present, 0);
}

/* An I/O elsewhere takes the command, the average seek, a wait under one turn and its length. */
static void test_an_io_elsewhere_seeks_and_waits_for_its_sector(void)
{
    struct rig r;
    rig_drive(&r, 1000000);
    int64_t done = disk_io(&r.d, 0, 1, 0, 8192, 0);
    int64_t fixed = 1000000 + 12000000 + 8192LL * NS_PER_OCTET;
    NRT_CHECK(done >= fixed && done < fixed + REV_NS);
    NRT_EQ_INT(r.d.st.ios, 1);
    NRT_EQ_INT(r.d.st.busy_ns, done);
}

/* A file read in order 8K at a time, each read as soon as the last was in: after the first
 * cluster the drive streams, one cluster (32768 octets) per 8.192 ms. */
static void test_reading_in_order_streams_at_the_media_rate(void)
{
    struct rig r;
    rig_start(&r, 500000, FILE_BYTES);
    int64_t t = 0, first = 0;
    for (long off = 0; off < FILE_BYTES; off += 8192) {
        t = ufs_read(&r.m, r.f, t, off, 8192);
        if (off == 32768 - 8192)
            first = t;
    }
    int64_t want = (FILE_BYTES / 32768 - 1) * 32768LL * NS_PER_OCTET;
    NRT_CHECK(t - first >= want && t - first < want + want / 100);
    NRT_EQ_INT(r.d.st.ios, FILE_BYTES / 32768);
    rig_free(&r);
}

/* The cache keeps nothing beyond what is being read: a second pass reads from the drive
 * again. */
static void test_a_second_pass_reads_the_drive_again(void)
{
    struct rig r;
    rig_start(&r, 0, FILE_BYTES);
    int64_t t = 0;
    for (int pass = 0; pass < 2; pass++)
        for (long off = 0; off < FILE_BYTES; off += 8192)
            t = ufs_read(&r.m, r.f, t, off, 8192);
    NRT_EQ_INT(r.d.st.ios, 2 * FILE_BYTES / 32768);
    rig_free(&r);
}

/* A writer far faster than the drive is held once more than 64K of its clusters are pending:
 * with no command time the drive writes one cluster after another at the media rate, so the
 * writer finishes when all but the last 64K are on the disk. */
static void test_a_fast_writer_waits_for_the_drive(void)
{
    struct rig r;
    rig_start(&r, 0, 0);
    int64_t t = 0;
    for (long off = 0; off < FILE_BYTES; off += 8192)
        t = ufs_write(&r.m, r.f, t, off, 8192);
    int64_t media = (FILE_BYTES - 65536) * NS_PER_OCTET;
    /* The first cluster also seeks (12 ms) and waits under a turn. */
    NRT_CHECK(t >= media && t < media + 12000000 + REV_NS + 1000);
    NRT_EQ_INT(r.d.st.ios, FILE_BYTES / 32768);
    rig_free(&r);
}

int main(void)
{
    NRT_RUN(test_a_model_without_a_drive_has_no_disk);
    NRT_RUN(test_an_io_elsewhere_seeks_and_waits_for_its_sector);
    NRT_RUN(test_reading_in_order_streams_at_the_media_rate);
    NRT_RUN(test_a_second_pass_reads_the_drive_again);
    NRT_RUN(test_a_fast_writer_waits_for_the_drive);
    return nrt_summary("tahoe/test_disk");
}
