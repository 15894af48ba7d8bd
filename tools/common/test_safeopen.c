#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nrtest.h"
#include "safeopen.h"

static char dir[64];

static char *at(const char *name)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static void put(const char *name, const char *text)
{
    FILE *f = fopen(at(name), "w");
    fputs(text, f);
    fclose(f);
}

static void get(const char *name, char *buf, size_t len)
{
    FILE *f = fopen(at(name), "r");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
}

static void test_a_link_is_refused_and_its_target_kept(void)
{
    char target[128], text[64];
    put("target", "kept");
    snprintf(target, sizeof target, "%s", at("target"));
    NRT_EQ_INT(symlink(target, at("link")), 0);
    NRT_EQ_INT(nr_open_write(at("link")), -ELOOP);
    NRT_CHECK(nr_fopen_write(at("link"), "w") == NULL && errno == ELOOP);
    get("target", text, sizeof text);
    NRT_EQ_STR(text, "kept");
}

static void test_a_hard_link_is_refused_and_its_target_kept(void)
{
    char target[128], text[64];
    put("other", "kept");
    snprintf(target, sizeof target, "%s", at("other"));
    NRT_EQ_INT(link(target, at("hard")), 0);
    NRT_EQ_INT(nr_open_write(at("hard")), -EMLINK);
    get("other", text, sizeof text);
    NRT_EQ_STR(text, "kept");
}

static void test_a_file_is_written_anew_and_dev_null_opened(void)
{
    char text[64];
    put("plain", "old contents");
    FILE *f = nr_fopen_write(at("plain"), "w");
    NRT_CHECK(f != NULL);
    fputs("new", f);
    fclose(f);
    get("plain", text, sizeof text);
    NRT_EQ_STR(text, "new");
    int fd = nr_open_write("/dev/null");
    NRT_CHECK(fd >= 0);
    close(fd);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/nr-safeopen-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    NRT_RUN(test_a_link_is_refused_and_its_target_kept);
    NRT_RUN(test_a_hard_link_is_refused_and_its_target_kept);
    NRT_RUN(test_a_file_is_written_anew_and_dev_null_opened);
    const char *names[] = {"link", "target", "hard", "other", "plain"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unlink(at(names[i]));
    rmdir(dir);
    return nrt_summary("test_safeopen");
}
