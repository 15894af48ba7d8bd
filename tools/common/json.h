/* JSON Lines records: one flat object per line, built in memory and written with one write and
 * a flush, so a record is never interleaved or half-written and costs no I/O while it is built.
 *
 *     struct nr_json j;
 *     nr_json_begin(&j, "message");          -> {"record":"message"
 *     nr_json_int(&j, "size", 12287);        -> ,"size":12287
 *     nr_json_emit(&j, stdout);              -> }\n, flushed
 *
 * Strings are escaped (quotes, backslash, control characters; invalid UTF-8 becomes U+FFFD);
 * non-finite doubles and NULL strings are written as null. */
#ifndef NR_JSON_H
#define NR_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct nr_json {
    char *buf;
    size_t len, cap;
    int oom; /* set when memory ran out; nr_json_emit then fails */
};

void nr_json_begin(struct nr_json *j, const char *record);
void nr_json_str(struct nr_json *j, const char *key, const char *val);
void nr_json_int(struct nr_json *j, const char *key, int64_t val);
void nr_json_double(struct nr_json *j, const char *key, double val);
void nr_json_bool(struct nr_json *j, const char *key, int val);
void nr_json_null(struct nr_json *j, const char *key);
void nr_json_int_array(struct nr_json *j, const char *key, const int64_t *vals, size_t n);
/* The record so far, without the closing brace (for tests and for keeping it to write later). */
const char *nr_json_text(const struct nr_json *j);
/* Closes the object, writes it and a newline to out, flushes, and frees the buffer.
 * Returns 0, or a negative errno (the record is lost). */
int nr_json_emit(struct nr_json *j, FILE *out);
/* Frees a record that will not be written. */
void nr_json_free(struct nr_json *j);

/* Writes {"record":"error","tool":tool,"what":what,"hint":hint}. Returns as nr_json_emit. */
int nr_json_error(FILE *out, const char *tool, const char *what, const char *hint);

#endif
