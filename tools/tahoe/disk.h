/* A host's disk of the era and the UFS that lays files on it (issue #35, docs/host-mechanisms.md
 * 2.10). The drive is one FIFO of block I/Os, each taking the SCSI command, a seek, the wait
 * for its first sector to come round and its length at the media rate. The file system reads
 * a file in clusters with one cluster of read-ahead, gathers delayed writes into clusters and
 * holds a writer back while too much of its writing is pending; paging uses the same drive.
 * The process waits for its I/O asleep: the CPU stays free for interrupts (tahoe_proc_sleep).
 *
 * A host model without disk_rpm and disk_track_bytes has no disk: files are read and written
 * at no cost and paging keeps its CPU charges (page_in_ns, page_out_ns). */
#ifndef TAHOE_DISK_H
#define TAHOE_DISK_H

#include <stdint.h>
#include <sys/types.h>

#include "rng.h"
#include "tahoe.h"

/* The disk's rotational draws have their own stream beside the host's jitter stream, so that
 * a host with a disk draws its interrupt jitter as one without. */
#define TAHOE_DISK_STREAM_OFFSET 0x4449534bULL /* "DISK" */

/* What the drive did over a run. */
struct tahoe_diskstat {
    uint64_t ios;     /* block I/Os the drive served (reads, writes, page-ins, page-outs) */
    int64_t busy_ns;  /* time the drive spent serving them */
    int64_t wait_ns;  /* time the process slept waiting for the drive */
};

/* The areas of the disk an I/O may address: the swap partition, and one per file. */
enum { DISK_AREA_SWAP = 0 };

struct tahoe_disk {
    int present;
    int64_t rev_ns;         /* one turn */
    double bytes_per_ns;    /* media rate */
    int64_t track_bytes;
    int64_t seek_avg_ns, seek_track_ns, command_ns;
    int streams_reads;      /* the drive reads ahead into its cache (a layout with rotdelay 0) */
    int64_t free_at;        /* when the drive finishes the I/Os queued so far */
    int have_head, area;    /* where the head was left: area, address and when */
    int64_t head_addr, head_time;
    struct nr_rng rng;
    struct tahoe_diskstat st;
};

void disk_init(struct tahoe_disk *d, const struct tahoe_hostcost *c, uint64_t seed,
               uint64_t stream);
/* Queues one I/O of len octets at octet addr of area, handed to the driver at at_ns; returns
 * when it completes. */
int64_t disk_io(struct tahoe_disk *d, int64_t at_ns, int area, int64_t addr, int64_t len,
                int write);

/* One file's blocks in the host's memory (the UFS page cache). */
struct ufs_file {
    dev_t dev;
    ino_t ino;
    int area;
    int64_t nblocks;       /* blocks tracked */
    int64_t size_blocks;   /* the file's size in blocks, as last seen */
    int64_t *ready;        /* per block: when it is in memory; UFS_NOT_CACHED when not */
    uint8_t *dirty;        /* per block: written, not yet handed to the drive */
    int64_t last_block;    /* the last block read, for read-ahead; -1 before any */
};
#define UFS_NOT_CACHED INT64_MIN

/* A write handed to the drive: its octets are pending until it completes. */
struct ufs_pending {
    int64_t done_ns, bytes;
};

struct ufs_mount {
    struct tahoe_disk *disk;
    int64_t block_bytes, cluster_blocks, gap_bytes, writes_limit, cache_blocks;
    struct ufs_file *files;
    int nfiles;
    /* The cached blocks in the order they came in, oldest first: (file, block) pairs. */
    int64_t *fifo;
    int64_t fifo_head, fifo_len, fifo_cap;
    struct ufs_pending *pend;
    int npend, cappend;
};

void ufs_init(struct ufs_mount *m, struct tahoe_disk *d, const struct tahoe_hostcost *c);
void ufs_free(struct ufs_mount *m);
/* The file of fd as the file system sees it, or NULL when fd is no regular file (a device
 * such as /dev/null, which no disk serves) or memory ran out. */
struct ufs_file *ufs_lookup(struct ufs_mount *m, int fd);
/* The process reads [off, off+len) of f at at_ns: returns when the data is in memory, having
 * queued what the drive must read (and one cluster of read-ahead when reading in order). */
int64_t ufs_read(struct ufs_mount *m, struct ufs_file *f, int64_t at_ns, int64_t off,
                 int64_t len);
/* The process wrote [off, off+len) of f at at_ns: returns when it may go on, a full cluster
 * having been handed to the drive and the writer held while more than the limit is pending. */
int64_t ufs_write(struct ufs_mount *m, struct ufs_file *f, int64_t at_ns, int64_t off,
                  int64_t len);

/* The process sleeps until until_ns (its disk I/O): its work waits, interrupt-level work does
 * not, and only interrupt work running past the wakeup delays it. */
void tahoe_proc_sleep(struct tahoe_stack *st, int64_t until_ns);
/* The CPU cost of entering one system call, and of copying len octets to or from the process. */
int64_t tahoe_call_ns(const struct tahoe_stack *st);
int64_t tahoe_copy_ns(const struct tahoe_stack *st, size_t len);

#endif
