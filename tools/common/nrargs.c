#include "nrargs.h"

#include <stdarg.h>
#include <string.h>

#include "nrio.h"
#include "units.h"

int nr_arg_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

int nr_arg_int(const char *flag, const char *s, long long lo, long long hi, const char *what,
               long long *out, char *err, size_t errlen)
{
    long long v;
    if (nr_parse_count(s, hi, &v) || v < lo)
        return nr_arg_fail(err, errlen, "%s %s: give %s from %lld to %lld", flag, s, what, lo, hi);
    *out = v;
    return 0;
}

/* nr_arg_int into an int. */
static int int_arg(const char *flag, const char *s, long long lo, long long hi, const char *what,
                   int *out, char *err, size_t errlen)
{
    long long v = 0; /* nr_arg_int sets it on success; GCC loses track once it inlines it */
    if (nr_arg_int(flag, s, lo, hi, what, &v, err, errlen))
        return -1;
    *out = (int)v;
    return 0;
}

/* A size in the largest unit that holds it exactly, as the user would write it back. */
static const char *size_text(long long v, char *buf, size_t len)
{
    if (v > 0 && v % (1 << 20) == 0)
        snprintf(buf, len, "%lldM", v >> 20);
    else if (v > 0 && v % 1024 == 0)
        snprintf(buf, len, "%lldK", v >> 10);
    else
        snprintf(buf, len, "%lldB", v);
    return buf;
}

int nr_arg_size(const char *flag, const char *s, long long lo, long long hi, const char *what,
                const char *hint, long long *out, char *err, size_t errlen)
{
    long long v;
    if (!nr_parse_size(s, &v) && v >= lo && v <= hi) {
        *out = v;
        return 0;
    }
    char lo_text[32], hi_text[32];
    size_text(lo, lo_text, sizeof lo_text);
    if (hi == NR_ARG_NO_MAX)
        return nr_arg_fail(err, errlen, "%s %s: give %s of at least %s, %s", flag, s, what,
                           lo_text, hint);
    return nr_arg_fail(err, errlen, "%s %s: give %s from %s to %s, %s", flag, s, what, lo_text,
                       size_text(hi, hi_text, sizeof hi_text), hint);
}

int nr_arg_time(const char *flag, const char *s, int zero_ok, const char *example,
                int64_t *out, char *err, size_t errlen)
{
    int64_t t;
    if (nr_parse_time_ns(s, &t) || (!zero_ok && t == 0) || t > NR_ARG_MAX_WAIT_NS)
        return nr_arg_fail(err, errlen, "%s %s: give a time%s, at most 3600s, e.g. %s", flag, s,
                           zero_ok ? "" : " above 0", example);
    *out = t;
    return 0;
}

int nr_arg_choice(const char *flag, const char *s, const char *const *names, int *out,
                  char *err, size_t errlen)
{
    int n = 0;
    for (; names[n]; n++) {
        if (strcmp(s, names[n]) == 0) {
            *out = n;
            return 0;
        }
    }
    /* "FLAG TEXT: give a, b or c", cut short if err is small. */
    int used = snprintf(err, errlen, "%s %s: give", flag, s);
    for (int i = 0; i < n && used >= 0 && (size_t)used < errlen; i++) {
        int w = snprintf(err + used, errlen - (size_t)used, "%s%s",
                         i == 0 ? " " : i == n - 1 ? " or " : ", ", names[i]);
        used = w < 0 ? w : used + w;
    }
    return -1;
}

int nr_arg_kernel_stack(const char *s, const char **out, char *err, size_t errlen)
{
    if (strcmp(s, "kernel") != 0)
        return nr_arg_fail(err, errlen, "--stack %s: unknown stack; the only one today is kernel",
                           s);
    *out = s;
    return 0;
}

int nr_arg_ipv4(const char *flag, const char *s, char *err, size_t errlen)
{
    struct nrio_addr probe;
    if (nrio_parse_addr(s, 0, &probe) == 0)
        return 0;
    if (flag)
        return nr_arg_fail(err, errlen, "%s %s: not a dotted IPv4 address", flag, s);
    return nr_arg_fail(err, errlen, "%s: not a dotted IPv4 address", s);
}

int nr_arg_unknown(const char *tool, const char *arg, char *err, size_t errlen)
{
    return nr_arg_fail(err, errlen, "%s: unknown option or missing value; see %s --help", arg,
                       tool);
}

int nr_arg_common(const struct nr_common_flags *f, int code, const char *val, const char *arg,
                  char *err, size_t errlen)
{
    if (code == NR_ARG_OPT_KSTACK && f->kernel_stack)
        return nr_arg_kernel_stack(val, f->kernel_stack, err, errlen);
    if (code == 'p' && f->port)
        return int_arg("--port", val, 1, 65535, "a port", f->port, err, errlen);
    if (code == NR_ARG_OPT_BIND && f->bind) {
        *f->bind = val;
        return 0;
    }
    if (code == NR_ARG_OPT_REPEAT && f->repeat)
        return int_arg("--repeat", val, 1, NR_ARG_MAX_REPEAT, "a count", f->repeat, err, errlen);
    if (code == NR_ARG_OPT_PAUSE && f->pause_ns)
        return nr_arg_time("--pause", val, 1, f->time_example, f->pause_ns, err, errlen);
    if (code == NR_ARG_OPT_TIMEOUT && f->timeout_ns)
        return nr_arg_time("--timeout", val, 0, f->time_example, f->timeout_ns, err, errlen);
    return nr_arg_unknown(f->tool, arg, err, errlen);
}

int nr_args_status(int rc, const char *tool, const char *err, void (*usage)(FILE *))
{
    if (rc == 1) {
        usage(stdout);
        return 0;
    }
    if (rc < 0) {
        fprintf(stderr, "%s: %s\n", tool, err);
        usage(stderr);
        return 2;
    }
    return -1;
}
