#include "datafile.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "rng.h"
#include "safeopen.h"

/* linkemu draws with streams 0 and 1, host b's boot phase with 2, ttcp's pauses with its own. */
#define STREAM_DATA 3
#define CHUNK 65536

static int fail(FILE *err, const char *path, const char *what, int fd)
{
    int e = errno;
    fprintf(err, "netsim: %s %s failed: %s; check that its directory exists and is writable\n",
            what, path, nr_open_write_error(-e));
    if (fd >= 0)
        close(fd);
    return -1;
}

int ns_write_data(const char *path, long long size, uint64_t seed, FILE *err)
{
    int fd = nr_open_write(path);
    if (fd < 0) {
        errno = -fd;
        return fail(err, path, "creating", -1);
    }
    struct nr_rng rng;
    nr_rng_seed(&rng, seed, STREAM_DATA);
    static uint8_t buf[CHUNK];
    for (long long left = size; left > 0;) {
        /* Octet by octet from each draw, low first, so the file is the same on any machine. */
        for (size_t i = 0; i < CHUNK; i += 8) {
            uint64_t x = nr_rng_next(&rng);
            for (int k = 0; k < 8; k++)
                buf[i + (size_t)k] = (uint8_t)(x >> (8 * k));
        }
        size_t n = left < CHUNK ? (size_t)left : CHUNK;
        for (size_t off = 0; off < n;) {
            ssize_t w = write(fd, buf + off, n - off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0)
                return fail(err, path, "writing", fd);
            off += (size_t)w;
        }
        left -= (long long)n;
    }
    if (close(fd) != 0)
        return fail(err, path, "closing", -1);
    return 0;
}
