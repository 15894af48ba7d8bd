/* The disk device and the UFS above it (disk.h). */
#include "disk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ring.h"
#include "tahoe_var.h"

void disk_init(struct tahoe_disk *d, const struct tahoe_hostcost *c, uint64_t seed,
               uint64_t stream)
{
    memset(d, 0, sizeof *d);
    if (c->disk_rpm <= 0 || c->disk_track_bytes <= 0)
        return;
    d->present = 1;
    d->rev_ns = 60000000000LL / c->disk_rpm;
    d->bytes_per_ns = (double)c->disk_track_bytes / (double)d->rev_ns;
    d->track_bytes = c->disk_track_bytes;
    d->seek_avg_ns = c->disk_seek_avg_ns;
    d->seek_track_ns = c->disk_seek_track_ns;
    d->command_ns = c->disk_command_ns;
    /* SunOS's newfs lays files with no rotational delay exactly on drives that read ahead into
     * their own cache (S10), so that layout stands for such a drive. */
    d->streams_reads = c->ufs_rotdelay_ns == 0;
    nr_rng_seed(&d->rng, seed, stream + TAHOE_DISK_STREAM_OFFSET);
}

int64_t disk_io(struct tahoe_disk *d, int64_t at_ns, int area, int64_t addr, int64_t len,
                int write)
{
    int64_t s = at_ns > d->free_at ? at_ns : d->free_at;
    int64_t xfer = (int64_t)((double)len / d->bytes_per_ns);
    int same = d->have_head && area == d->area;
    int64_t start;
    if (same && !write && d->streams_reads && addr == d->head_addr) {
        /* The drive went on reading into its cache after the last I/O: the data is there as
         * fast as the media delivers it, the command overlapping. */
        int64_t media_done = d->head_time + xfer;
        int64_t done = s + d->command_ns > media_done ? s + d->command_ns : media_done;
        start = done - xfer;
    } else if (same && addr >= d->head_addr && addr - d->head_addr < d->track_bytes) {
        /* Ahead on the track under the head: no seek; the first sector comes round when the
         * disk has turned past the gap, a whole turn later each time the command misses it. */
        int64_t ready = s + d->command_ns;
        start = d->head_time + (int64_t)((double)(addr - d->head_addr) / d->bytes_per_ns);
        if (start < ready)
            start += (ready - start + d->rev_ns - 1) / d->rev_ns * d->rev_ns;
    } else {
        /* Another place: a seek (a short one within the area, an average one to another
         * area), then a wait for the sector uniform over one turn. */
        int64_t seek = same ? d->seek_track_ns : d->seek_avg_ns;
        int64_t turn = (int64_t)(nr_rng_unit(&d->rng) * (double)d->rev_ns);
        start = s + d->command_ns + seek + turn;
    }
    int64_t done = start + xfer;
    d->free_at = done;
    d->have_head = 1;
    d->area = area;
    d->head_addr = addr + len;
    d->head_time = done;
    d->st.ios++;
    d->st.busy_ns += done - s;
    return done;
}

void ufs_init(struct ufs_mount *m, struct tahoe_disk *d, const struct tahoe_hostcost *c)
{
    memset(m, 0, sizeof *m);
    m->disk = d;
    m->block_bytes = c->ufs_block_bytes > 0 ? c->ufs_block_bytes : 8192;
    m->cluster_blocks = c->ufs_cluster_bytes / m->block_bytes;
    if (m->cluster_blocks < 1)
        m->cluster_blocks = 1;
    m->gap_bytes = d->present ? (int64_t)((double)c->ufs_rotdelay_ns * d->bytes_per_ns) : 0;
    m->writes_limit = c->ufs_writes_limit_bytes;
    /* At least the cluster being read, the one read ahead and one being written. */
    m->cache_blocks = c->ufs_cache_bytes / m->block_bytes;
    if (m->cache_blocks < 3 * m->cluster_blocks)
        m->cache_blocks = 3 * m->cluster_blocks;
}

void ufs_free(struct ufs_mount *m)
{
    for (int i = 0; i < m->nfiles; i++) {
        free(m->files[i].ready);
        free(m->files[i].dirty);
    }
    free(m->files);
    free(m->fifo);
    free(m->pend);
    memset(m, 0, sizeof *m);
}

static int ensure_blocks(struct ufs_file *f, int64_t n)
{
    if (n <= f->nblocks)
        return 0;
    int64_t cap = n > 2 * f->nblocks ? n : 2 * f->nblocks;
    int64_t *r = realloc(f->ready, (size_t)cap * sizeof *r);
    if (!r)
        return -ENOMEM;
    f->ready = r;
    uint8_t *dt = realloc(f->dirty, (size_t)cap);
    if (!dt)
        return -ENOMEM;
    f->dirty = dt;
    for (int64_t i = f->nblocks; i < cap; i++) {
        f->ready[i] = UFS_NOT_CACHED;
        f->dirty[i] = 0;
    }
    f->nblocks = cap;
    return 0;
}

struct ufs_file *ufs_lookup(struct ufs_mount *m, int fd)
{
    struct stat sb;
    if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode))
        return NULL;
    int64_t size_blocks = (sb.st_size + m->block_bytes - 1) / m->block_bytes;
    for (int i = 0; i < m->nfiles; i++)
        if (m->files[i].dev == sb.st_dev && m->files[i].ino == sb.st_ino) {
            m->files[i].size_blocks = size_blocks;
            return &m->files[i];
        }
    struct ufs_file *fs = realloc(m->files, (size_t)(m->nfiles + 1) * sizeof *fs);
    if (!fs)
        return NULL;
    m->files = fs;
    struct ufs_file *f = &m->files[m->nfiles];
    memset(f, 0, sizeof *f);
    f->dev = sb.st_dev;
    f->ino = sb.st_ino;
    f->area = DISK_AREA_SWAP + 1 + m->nfiles;
    f->last_block = -1;
    f->size_blocks = size_blocks;
    m->nfiles++;
    return f;
}

/* Where the file's octet off lies on the disk: runs of a cluster, a rotdelay's gap apart. */
static int64_t disk_addr(const struct ufs_mount *m, int64_t off)
{
    return off + off / (m->cluster_blocks * m->block_bytes) * m->gap_bytes;
}

static void fifo_push(struct ufs_mount *m, int64_t e)
{
    m->fifo[(m->fifo_head + m->fifo_len++) % m->fifo_cap] = e;
}

/* The cache keeps the blocks in the order they came in; past its size the oldest clean one
 * goes. Entries are (file index << 40 | block). */
static int cache_add(struct ufs_mount *m, const struct ufs_file *f, int64_t b)
{
    if (m->fifo_len == m->fifo_cap) {
        int64_t cap = m->fifo_cap ? 2 * m->fifo_cap : 256;
        int64_t *q = ring_move(m->fifo, sizeof *q, (size_t)m->fifo_head, (size_t)m->fifo_len,
                               (size_t)m->fifo_cap, (size_t)cap);
        if (!q)
            return -ENOMEM;
        m->fifo = q;
        m->fifo_head = 0;
        m->fifo_cap = cap;
    }
    fifo_push(m, (int64_t)(f - m->files) << 40 | b);
    for (int64_t tries = m->fifo_len; m->fifo_len > m->cache_blocks && tries > 0; tries--) {
        int64_t e = m->fifo[m->fifo_head];
        m->fifo_head = (m->fifo_head + 1) % m->fifo_cap;
        m->fifo_len--;
        struct ufs_file *of = &m->files[e >> 40];
        int64_t ob = e & ((1LL << 40) - 1);
        if (of->dirty[ob]) /* not yet on the disk: it stays */
            fifo_push(m, e);
        else
            of->ready[ob] = UFS_NOT_CACHED;
    }
    return 0;
}

/* Block b of f is in memory from t on. */
static int cache_block(struct ufs_mount *m, struct ufs_file *f, int64_t b, int64_t t)
{
    f->ready[b] = t;
    return cache_add(m, f, b);
}

/* The first block after block b's cluster. */
static int64_t cluster_end(const struct ufs_mount *m, int64_t b)
{
    return (b / m->cluster_blocks + 1) * m->cluster_blocks;
}

/* One I/O of n blocks of f from block first, handed to the drive at at; returns when it ends. */
static int64_t blocks_io(struct ufs_mount *m, const struct ufs_file *f, int64_t first, int64_t n,
                         int64_t at, int write)
{
    return disk_io(m->disk, at, f->area, disk_addr(m, first * m->block_bytes), n * m->block_bytes,
                   write);
}

/* Reads block b of f and those after it in its cluster that are not in memory, up to end. */
static int issue_read(struct ufs_mount *m, struct ufs_file *f, int64_t b, int64_t end,
                      int64_t at)
{
    int64_t cend = cluster_end(m, b);
    if (cend > end)
        cend = end;
    int64_t n = 0;
    while (b + n < cend && f->ready[b + n] == UFS_NOT_CACHED)
        n++;
    int64_t done = blocks_io(m, f, b, n, at, 0);
    for (int64_t i = 0; i < n; i++)
        if (cache_block(m, f, b + i, done) < 0)
            return -ENOMEM;
    return 0;
}

int64_t ufs_read(struct ufs_mount *m, struct ufs_file *f, int64_t at_ns, int64_t off,
                 int64_t len)
{
    if (len <= 0)
        return at_ns;
    int64_t b0 = off / m->block_bytes, b1 = (off + len - 1) / m->block_bytes;
    int64_t end = f->size_blocks > b1 + 1 ? f->size_blocks : b1 + 1;
    if (ensure_blocks(f, end) < 0)
        return -ENOMEM;
    int64_t ready = at_ns;
    for (int64_t b = b0; b <= b1; b++) {
        if (f->ready[b] == UFS_NOT_CACHED && issue_read(m, f, b, end, at_ns) < 0)
            return -ENOMEM;
        if (f->ready[b] > ready)
            ready = f->ready[b];
    }
    /* Reading in order, the next cluster is read ahead (ufs_getpage's one cluster). */
    int64_t next = cluster_end(m, b1);
    if ((b0 == f->last_block || b0 == f->last_block + 1) && next < end &&
        f->ready[next] == UFS_NOT_CACHED && issue_read(m, f, next, end, at_ns) < 0)
        return -ENOMEM;
    f->last_block = b1;
    return ready;
}

/* Hands the dirty blocks of cluster c to the drive as one write. */
static int issue_write(struct ufs_mount *m, struct ufs_file *f, int64_t c, int64_t at)
{
    int64_t first = c * m->cluster_blocks, last = first + m->cluster_blocks - 1;
    if (last >= f->nblocks)
        last = f->nblocks - 1;
    while (first <= last && !f->dirty[first])
        first++;
    while (last >= first && !f->dirty[last])
        last--;
    if (first > last)
        return 0;
    int64_t bytes = (last - first + 1) * m->block_bytes;
    int64_t done = blocks_io(m, f, first, last - first + 1, at, 1);
    for (int64_t b = first; b <= last; b++)
        f->dirty[b] = 0;
    if (m->npend == m->cappend) {
        int cap = m->cappend ? 2 * m->cappend : 64;
        struct ufs_pending *p = realloc(m->pend, (size_t)cap * sizeof *p);
        if (!p)
            return -ENOMEM;
        m->pend = p;
        m->cappend = cap;
    }
    m->pend[m->npend++] = (struct ufs_pending){done, bytes};
    return 0;
}

/* Forgets the writes done by t; returns the octets still pending. */
static int64_t pending_at(struct ufs_mount *m, int64_t t)
{
    int k = 0;
    while (k < m->npend && m->pend[k].done_ns <= t)
        k++;
    memmove(m->pend, m->pend + k, (size_t)(m->npend - k) * sizeof *m->pend);
    m->npend -= k;
    int64_t bytes = 0;
    for (int i = 0; i < m->npend; i++)
        bytes += m->pend[i].bytes;
    return bytes;
}

int64_t ufs_write(struct ufs_mount *m, struct ufs_file *f, int64_t at_ns, int64_t off,
                  int64_t len)
{
    if (len <= 0)
        return at_ns;
    int64_t cb = m->cluster_blocks, b0 = off / m->block_bytes,
            b1 = (off + len - 1) / m->block_bytes;
    if (ensure_blocks(f, b1 + 1) < 0)
        return -ENOMEM;
    if (f->size_blocks < b1 + 1)
        f->size_blocks = b1 + 1;
    for (int64_t b = b0; b <= b1; b++) {
        f->dirty[b] = 1;
        if (f->ready[b] == UFS_NOT_CACHED && cache_block(m, f, b, at_ns) < 0)
            return -ENOMEM;
    }
    /* A delayed write goes to the drive once the writer has filled its cluster. */
    int64_t end = off + len;
    for (int64_t c = b0 / cb; c <= b1 / cb; c++)
        if (end >= (c + 1) * cb * m->block_bytes && issue_write(m, f, c, at_ns) < 0)
            return -ENOMEM;
    int64_t t = at_ns;
    if (m->writes_limit > 0)
        while (pending_at(m, t) > m->writes_limit)
            t = m->pend[0].done_ns;
    return t;
}

void tahoe_proc_sleep(struct tahoe_stack *st, int64_t until_ns)
{
    if (until_ns <= tahoe_cpu_free_ns(st))
        return;
    st->cpu_free = until_ns;
    st->sleep_end = until_ns;
}

int64_t tahoe_call_ns(const struct tahoe_stack *st) { return st->cfg.cost.per_call_ns; }
int64_t tahoe_copy_ns(const struct tahoe_stack *st, size_t len) { return tahoe_copycost(st, len); }
