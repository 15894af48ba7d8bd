/* Test support for netsim: runs the simulator in this process on a command line, keeps every
 * record it wrote, and picks numbers out of them. */
#ifndef NETSIM_SIMTEST_H
#define NETSIM_SIMTEST_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "nrtest.h"
#include "sim.h"

/* Run from tools/ by `make test`. */
#define ST_IPC_MODEL "../configs/hosts/sparcstation-ipc.yaml"

/* A host model with costs of the IPC's order and none of the mechanisms of issue #35 (no
 * wakeups, no scheduling jitter, the stack's own socket buffers), for tests whose expectation
 * is the arithmetic of the costs. Written to path (a mkstemp template); unlink it after. */
static inline void st_cost_model(char *path)
{
    int fd = mkstemp(path);
    NRT_CHECK(fd >= 0);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    NRT_CHECK(f != NULL);
    if (!f)
        return;
    fputs("name: ipc-costs\nper_packet_ns: 500000\nper_byte_ps: 80000\nper_call_ns: 38000\n"
          "copy_write_passes: 1\ndma_passes: 1\nspin_ps: 440000\nprint_ns: 1900000\n"
          "clock_hz: 100\n", f);
    fclose(f);
}

struct st_run {
    char *text; /* every record the run wrote */
    size_t len;
    int rc, status;
    long long events;
};

/* Runs netsim with args (NULL-terminated, no program name) and keeps its output; rc is -1
 * when the command line was refused or the simulator could not be built. */
static inline struct st_run st_run_sim(char **args)
{
    char *argv[128] = {"netsim"};
    int argc = 1;
    while (args[argc - 1] && argc < 127) {
        argv[argc] = args[argc - 1];
        argc++;
    }
    struct st_run r = {.rc = -1, .status = 1};
    static struct ns_args a;
    static struct ns_sim s;
    if (ns_parse_args(argc, argv, &a, stderr, stderr) != 0)
        return r;
    FILE *out = open_memstream(&r.text, &r.len);
    NRT_CHECK(out != NULL);
    if (!out)
        return r;
    if (ns_sim_init(&s, &a, out, stderr) == 0) {
        r.rc = ns_sim_run(&s);
        r.status = s.host[0].status || s.host[1].status;
        r.events = (long long)s.events;
        ns_emit_sim(out, &s, -1);
    }
    ns_sim_free(&s);
    NRT_EQ_INT(fclose(out), 0);
    return r;
}

static inline void st_free(struct st_run *r) { free(r->text); }

/* The n-th line (n from 0) holding `has`, malloc'd; NULL if there is none. */
static inline char *st_line(const struct st_run *r, const char *has, int n)
{
    for (const char *line = r->text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *copy = strndup(line, len);
        if (copy && strstr(copy, has) && n-- == 0)
            return copy;
        free(copy);
        line = end ? end + 1 : NULL;
    }
    return NULL;
}

/* How many lines hold `has`. */
static inline int st_count(const struct st_run *r, const char *has)
{
    int n = 0;
    for (const char *p = r->text; p && (p = strstr(p, has)) != NULL; n++)
        p = strchr(p, '\n');
    return n;
}

/* The number after "key": in the n-th line holding `has`; NAN when the line or the key is
 * missing or the value is not a number (null, say). */
static inline double st_field(const struct st_run *r, const char *has, int n, const char *key)
{
    char pat[96];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    char *line = st_line(r, has, n);
    double v = NAN;
    const char *p = line ? strstr(line, pat) : NULL;
    if (p) {
        char *end;
        double x = strtod(p + strlen(pat), &end);
        if (end != p + strlen(pat))
            v = x;
    }
    free(line);
    return v;
}

/* Where in the output the n-th line holding `has` starts; -1 if there is none. */
static inline long st_pos(const struct st_run *r, const char *has, int n)
{
    for (const char *line = r->text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *hit = strstr(line, has);
        if (hit && hit < line + len && n-- == 0)
            return line - r->text;
        line = end ? end + 1 : NULL;
    }
    return -1;
}

static inline int st_same(const struct st_run *a, const struct st_run *b)
{
    return a->text && b->text && a->len == b->len && memcmp(a->text, b->text, a->len) == 0;
}

/* Runs args (which hold --seed) twice and checks that the output is byte-identical, then once
 * more with --seed set to other and checks that it differs (so the seed does reach the draws).
 * Returns the first run; args keep the other seed. */
static inline struct st_run st_check_seed(char **args, char *other)
{
    struct st_run r1 = st_run_sim(args), r2 = st_run_sim(args);
    NRT_CHECK(r1.len > 0 && st_same(&r1, &r2));
    for (char **p = args; *p; p++)
        if (strcmp(*p, "--seed") == 0)
            p[1] = other;
    struct st_run r3 = st_run_sim(args);
    NRT_EQ_INT(r3.status, 0);
    NRT_CHECK(r3.text && !st_same(&r1, &r3));
    st_free(&r2);
    st_free(&r3);
    return r1;
}

#endif
