#include "crc32.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* table[0] is the bytewise table; table[k][i] is the CRC of octet i followed by k zero octets, so
 * eight octets fold in with eight lookups (slicing by 8): every virtual-time mftp transfer
 * checks its whole file, which the bytewise loop made most of netsim's time. */
static uint32_t table[8][256];

static void make_tables(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[0][i] = c;
    }
    for (int k = 1; k < 8; k++)
        for (int i = 0; i < 256; i++)
            table[k][i] = (table[k - 1][i] >> 8) ^ table[0][table[k - 1][i] & 0xff];
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint32_t mftp_crc32(uint32_t crc, const void *buf, size_t len)
{
    if (!table[0][1])
        make_tables();
    const uint8_t *p = buf;
    crc = ~crc;
    for (; len >= 8; p += 8, len -= 8) {
        uint32_t lo = crc ^ le32(p), hi = le32(p + 4);
        crc = table[7][lo & 0xff] ^ table[6][lo >> 8 & 0xff] ^ table[5][lo >> 16 & 0xff] ^ table[4][lo >> 24] ^
              table[3][hi & 0xff] ^ table[2][hi >> 8 & 0xff] ^ table[1][hi >> 16 & 0xff] ^ table[0][hi >> 24];
    }
    while (len--)
        crc = table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

int mftp_crc32_file(const char *path, uint32_t *out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    uint8_t buf[1 << 16];
    uint32_t crc = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0) {
            int err = errno;
            close(fd);
            return -err;
        }
        if (n == 0)
            break;
        crc = mftp_crc32(crc, buf, (size_t)n);
    }
    close(fd);
    *out = crc;
    return 0;
}
