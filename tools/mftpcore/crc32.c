#include "crc32.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

uint32_t mftp_crc32(uint32_t crc, const void *buf, size_t len)
{
    static uint32_t table[256];
    if (!table[1]) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    }
    const uint8_t *p = buf;
    crc = ~crc;
    while (len--)
        crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
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
