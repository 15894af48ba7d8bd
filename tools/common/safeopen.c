#include "safeopen.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int nr_open_write(const char *path)
{
    /* No O_TRUNC yet: what is there is judged before anything of it is lost. */
    int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    if (S_ISREG(st.st_mode)) {
        if (st.st_nlink > 1) {
            close(fd);
            return -EMLINK;
        }
        if (ftruncate(fd, 0) < 0) {
            int e = errno;
            close(fd);
            return -e;
        }
    }
    return fd;
}

FILE *nr_fopen_write(const char *path, const char *mode)
{
    int fd = nr_open_write(path);
    if (fd < 0) {
        errno = -fd;
        return NULL;
    }
    FILE *f = fdopen(fd, mode);
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

const char *nr_open_write_error(int rc)
{
    if (rc == -ELOOP)
        return "it is a symbolic link, which a tool run as root does not write through; remove it";
    if (rc == -EMLINK)
        return "it has other hard links, which a tool run as root does not write through; remove it";
    return strerror(-rc);
}
