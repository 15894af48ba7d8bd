/* The host model reader: the keys it takes are the schema's, variants extend base models and
 * parts, and bad files are refused with their file, line and key. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nrtest.h"
#include "tahoe.h"

#define SCHEMA "../configs/schema/host.schema.json"
#define HOSTS "../configs/hosts/"

/* The names of the members of the schema's top-level "properties" object, by a scan that
 * follows the nesting of objects and strings. */
static int schema_keys(char names[][64], int max)
{
    FILE *f = fopen(SCHEMA, "r");
    if (!f)
        return -1;
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    int depth = 0, in_props = 0, count = 0;
    char last[64] = "";
    for (size_t i = 0; i < n; i++) {
        char c = text[i];
        if (c == '"') {
            size_t j = i + 1;
            while (j < n && text[j] != '"')
                j += text[j] == '\\' ? 2 : 1;
            size_t len = j - i - 1 < 63 ? j - i - 1 : 63;
            /* A string followed by a colon is a member name. */
            size_t k = j + 1;
            while (k < n && (text[k] == ' ' || text[k] == '\n'))
                k++;
            if (k < n && text[k] == ':') {
                memcpy(last, text + i + 1, len);
                last[len] = '\0';
                if (in_props && depth == 2 && count < max)
                    snprintf(names[count++], 64, "%s", last);
            }
            i = j;
        } else if (c == '{') {
            depth++;
            if (depth == 2 && strcmp(last, "properties") == 0)
                in_props = 1;
        } else if (c == '}') {
            if (depth == 2)
                in_props = 0;
            depth--;
        }
    }
    return count;
}

static void test_schema_and_reader_take_the_same_keys(void)
{
    char names[128][64];
    int n = schema_keys(names, 128);
    NRT_CHECK(n > 10);
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (size_t k = 0; tahoe_hostcost_key(k); k++)
            found |= strcmp(tahoe_hostcost_key(k), names[i]) == 0;
        if (!found)
            fprintf(stderr, "the schema's key %s is not the reader's\n", names[i]);
        NRT_CHECK(found);
    }
    size_t k = 0;
    for (; tahoe_hostcost_key(k); k++) {
        int found = 0;
        for (int i = 0; i < n; i++)
            found |= strcmp(tahoe_hostcost_key(k), names[i]) == 0;
        if (!found)
            fprintf(stderr, "the reader's key %s is not in the schema\n", tahoe_hostcost_key(k));
        NRT_CHECK(found);
    }
    NRT_EQ_INT((long)k, n);
}

static char dir[] = "/tmp/test_hostcostXXXXXX";
#define WRITTEN_MAX 64
static char written[WRITTEN_MAX][64];
static int nwritten;

static void write_model(const char *name, const char *text)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.yaml", dir, name);
    FILE *f = fopen(path, "w");
    NRT_CHECK(f != NULL);
    /* Every file written is removed at the end, so the list must hold them all. */
    NRT_CHECK(nwritten < WRITTEN_MAX);
    if (f && nwritten < WRITTEN_MAX)
        snprintf(written[nwritten++], 64, "%s", name);
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
}

static int read_model(const char *name, struct tahoe_hostcost *c, char *err, size_t errlen)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.yaml", dir, name);
    return tahoe_hostcost_read(path, c, err, errlen);
}

static void test_a_variant_takes_its_base_and_replaces_what_it_names(void)
{
    write_model("base", "# a comment\nname: base\nper_packet_ns: 100\nper_byte_ps: 2\n"
                        "per_call_ns: 3\nwakeup_ns: 7  # trailing comment\n"
                        "fitted:\n  parameters: [per_packet_ns]\n  training_set:\n"
                        "    - reference: x\n      where: {send_buffer: 52428}\n");
    write_model("variant", "name: variant\nextends: base\nper_packet_ns: 50\n");
    struct tahoe_hostcost c;
    char err[512] = "";
    NRT_EQ_INT(read_model("variant", &c, err, sizeof err), 0);
    NRT_EQ_INT(c.per_packet_ns, 50);
    NRT_EQ_INT(c.per_byte_ps, 2);
    NRT_EQ_INT(c.wakeup_ns, 7);
    NRT_EQ_INT(c.ctx_switch_ns, 0);
}

static void test_a_list_of_bases_lays_each_over_the_ones_before(void)
{
    write_model("host", "name: host\nper_packet_ns: 100\nper_byte_ps: 2\nper_call_ns: 3\n"
                        "wakeup_ns: 5\n");
    write_model("part", "name: part\npart: true\nwakeup_ns: 9\nctx_switch_ns: 4\n");
    write_model("both", "name: both\nextends: [host, part]\nctx_switch_ns: 6\n");
    struct tahoe_hostcost c;
    char err[512] = "";
    NRT_EQ_INT(read_model("both", &c, err, sizeof err), 0);
    NRT_EQ_INT(c.wakeup_ns, 9);
    NRT_EQ_INT(c.ctx_switch_ns, 6);
    NRT_EQ_INT(c.per_packet_ns, 100);
    NRT_EQ_INT(read_model("part", &c, err, sizeof err), -EINVAL);
    NRT_CHECK(strstr(err, "part.yaml: a part (part: true), not a host") != NULL);
    write_model("partonly", "name: partonly\nextends: [part]\n");
    NRT_EQ_INT(read_model("partonly", &c, err, sizeof err), -EINVAL);
    NRT_CHECK(strstr(err, "per_packet_ns is missing") != NULL);
    /* Bases that share bases: the reads stop at a bound instead of growing fourfold a level. */
    write_model("m0", "name: m0\nextends: host\n");
    for (int level = 1; level <= 3; level++) {
        char name[16], text[128];
        for (char each = 'a'; each <= 'd'; each++) {
            snprintf(name, sizeof name, "%c%d", each, level);
            snprintf(text, sizeof text, "name: %s\nextends: m%d\n", name, level - 1);
            write_model(name, text);
        }
        snprintf(name, sizeof name, "m%d", level);
        snprintf(text, sizeof text, "name: %s\nextends: [a%d, b%d, c%d, d%d]\n", name, level, level,
                 level, level);
        write_model(name, text);
    }
    NRT_EQ_INT(read_model("m3", &c, err, sizeof err), -ELOOP);
    NRT_CHECK(strstr(err, "reach more than 32 files") != NULL);
    write_model("badlist", "name: badlist\nextends: [host, ]\n");
    NRT_EQ_INT(read_model("badlist", &c, err, sizeof err), -EINVAL);
    NRT_CHECK(strstr(err, "badlist.yaml:2: extends") != NULL);
}

static void test_bad_files_are_refused_with_where(void)
{
    struct tahoe_hostcost c;
    char err[512];
    write_model("unknown", "name: unknown\nper_packet_ns: 1\nper_byte_ps: 2\nper_call_ns: 3\n"
                           "tcp_sendspace: 16K\n");
    NRT_EQ_INT(read_model("unknown", &c, err, sizeof err), -EINVAL);
    NRT_CHECK(strstr(err, "unknown.yaml:5: tcp_sendspace is not a host model key") != NULL);
    write_model("negative", "name: n\nper_packet_ns: -1\nper_byte_ps: 2\nper_call_ns: 3\n");
    NRT_EQ_INT(read_model("negative", &c, err, sizeof err), -EINVAL);
    NRT_CHECK(strstr(err, "negative.yaml:2: per_packet_ns") != NULL);
    write_model("missing", "name: m\nper_packet_ns: 1\nper_byte_ps: 2\n");
    NRT_EQ_INT(read_model("missing", &c, err, sizeof err), -EINVAL);
    NRT_CHECK(strstr(err, "per_call_ns is missing") != NULL);
    write_model("loop1", "name: loop1\nextends: loop2\n");
    write_model("loop2", "name: loop2\nextends: loop1\n");
    NRT_EQ_INT(read_model("loop1", &c, err, sizeof err), -ELOOP);
    write_model("nobase", "name: nobase\nextends: no-such-model\n");
    NRT_EQ_INT(read_model("nobase", &c, err, sizeof err), -ENOENT);
    NRT_CHECK(strstr(err, "no-such-model.yaml") != NULL);
    write_model("indent", "name: i\n  per_packet_ns: 1\n");
    NRT_EQ_INT(read_model("indent", &c, err, sizeof err), -EINVAL);
}

/* The variants in configs/hosts/ differ from their base in what they say they change. */
static void test_the_variants_differ_from_their_base_in_one_value(void)
{
    struct tahoe_hostcost a, b;
    NRT_EQ_INT(tahoe_hostcost_load(HOSTS "sun-4c-20mb.yaml", &a), 0);
    NRT_EQ_INT(tahoe_hostcost_load(HOSTS "sun-4c-16mb.yaml", &b), 0);
    NRT_CHECK(a.ram_bytes != b.ram_bytes);
    b.ram_bytes = a.ram_bytes;
    NRT_CHECK(memcmp(&a, &b, sizeof a) == 0);
}

/* Every file in configs/hosts/ reads, but a part, which the reader refuses as no host. */
static void test_every_host_model_file_reads(void)
{
    DIR *d = opendir(HOSTS);
    NRT_CHECK(d != NULL);
    if (!d)
        return;
    int hosts = 0, parts = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") != 0)
            continue;
        char path[1200], err[512] = "";
        snprintf(path, sizeof path, HOSTS "%s", e->d_name);
        struct tahoe_hostcost c;
        int rc = tahoe_hostcost_read(path, &c, err, sizeof err);
        if (rc != 0 && strstr(err, "a part (part: true), not a host")) {
            parts++;
            continue;
        }
        if (rc != 0)
            fprintf(stderr, "%s\n", err);
        NRT_EQ_INT(rc, 0);
        hosts++;
    }
    closedir(d);
    NRT_CHECK(hosts >= 10);
    NRT_CHECK(parts >= 1);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    NRT_RUN(test_schema_and_reader_take_the_same_keys);
    NRT_RUN(test_a_variant_takes_its_base_and_replaces_what_it_names);
    NRT_RUN(test_a_list_of_bases_lays_each_over_the_ones_before);
    NRT_RUN(test_bad_files_are_refused_with_where);
    NRT_RUN(test_the_variants_differ_from_their_base_in_one_value);
    NRT_RUN(test_every_host_model_file_reads);
    for (int i = 0; i < nwritten; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%.63s.yaml", dir, written[i]);
        unlink(path);
    }
    rmdir(dir);
    return nrt_summary("tahoe/test_hostcost");
}
