#include "json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void put(struct nr_json *j, const char *s, size_t n)
{
    if (j->oom)
        return;
    if (j->len + n + 1 > j->cap) {
        size_t cap = j->cap ? j->cap : 256;
        while (j->len + n + 1 > cap)
            cap *= 2;
        char *b = realloc(j->buf, cap);
        if (!b) {
            j->oom = 1;
            return;
        }
        j->buf = b;
        j->cap = cap;
    }
    memcpy(j->buf + j->len, s, n);
    j->len += n;
    j->buf[j->len] = '\0';
}

static void puts_(struct nr_json *j, const char *s) { put(j, s, strlen(s)); }

/* Length of the valid UTF-8 sequence at s, or 0 when it is not valid (overlong forms,
 * surrogates and code points above U+10FFFF included). */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n;
    unsigned min, cp;
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0) {
        n = 2, min = 0x80, cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        n = 3, min = 0x800, cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        n = 4, min = 0x10000, cp = c & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

static void put_string(struct nr_json *j, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    put(j, "\"", 1);
    while (*s) {
        char esc[8];
        size_t n;
        switch (*s) {
        case '"': puts_(j, "\\\""); s++; continue;
        case '\\': puts_(j, "\\\\"); s++; continue;
        case '\n': puts_(j, "\\n"); s++; continue;
        case '\r': puts_(j, "\\r"); s++; continue;
        case '\t': puts_(j, "\\t"); s++; continue;
        case '\b': puts_(j, "\\b"); s++; continue;
        case '\f': puts_(j, "\\f"); s++; continue;
        default: break;
        }
        if (*s < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", *s);
            puts_(j, esc);
            s++;
        } else if ((n = utf8_len(s)) > 0) {
            put(j, (const char *)s, n);
            s += n;
        } else {
            puts_(j, "\\ufffd");
            s++;
        }
    }
    put(j, "\"", 1);
}

static void key(struct nr_json *j, const char *k)
{
    put(j, ",", 1);
    put_string(j, k);
    put(j, ":", 1);
}

void nr_json_begin(struct nr_json *j, const char *record)
{
    memset(j, 0, sizeof *j);
    puts_(j, "{\"record\":");
    put_string(j, record);
}

void nr_json_str(struct nr_json *j, const char *k, const char *val)
{
    key(j, k);
    if (val)
        put_string(j, val);
    else
        puts_(j, "null");
}

void nr_json_int(struct nr_json *j, const char *k, int64_t val)
{
    char b[32];
    key(j, k);
    snprintf(b, sizeof b, "%" PRId64, val);
    puts_(j, b);
}

void nr_json_double(struct nr_json *j, const char *k, double val)
{
    char b[40];
    key(j, k);
    if (!isfinite(val)) {
        puts_(j, "null");
        return;
    }
    /* The shortest of 15 or 17 significant digits that reads back as the same double. */
    snprintf(b, sizeof b, "%.15g", val);
    if (strtod(b, NULL) != val)
        snprintf(b, sizeof b, "%.17g", val);
    puts_(j, b);
}

void nr_json_bool(struct nr_json *j, const char *k, int val)
{
    key(j, k);
    puts_(j, val ? "true" : "false");
}

void nr_json_null(struct nr_json *j, const char *k)
{
    key(j, k);
    puts_(j, "null");
}

void nr_json_int_array(struct nr_json *j, const char *k, const int64_t *vals, size_t n)
{
    char b[32];
    key(j, k);
    put(j, "[", 1);
    for (size_t i = 0; i < n; i++) {
        snprintf(b, sizeof b, "%s%" PRId64, i ? "," : "", vals[i]);
        puts_(j, b);
    }
    put(j, "]", 1);
}

const char *nr_json_text(const struct nr_json *j) { return j->buf ? j->buf : ""; }

int nr_json_emit(struct nr_json *j, FILE *out)
{
    put(j, "}\n", 2);
    int rc = 0;
    errno = 0;
    if (j->oom)
        rc = -ENOMEM;
    else if (fwrite(j->buf, 1, j->len, out) != j->len || fflush(out) != 0)
        rc = errno ? -errno : -EIO;
    nr_json_free(j);
    return rc;
}

void nr_json_free(struct nr_json *j)
{
    free(j->buf);
    memset(j, 0, sizeof *j);
}

int nr_json_error(FILE *out, const char *tool, const char *what, const char *hint)
{
    struct nr_json j;
    nr_json_begin(&j, "error");
    nr_json_str(&j, "tool", tool);
    nr_json_str(&j, "what", what);
    nr_json_str(&j, "hint", hint);
    return nr_json_emit(&j, out);
}
