#include <stdlib.h>

#include "json.h"
#include "nrtest.h"

static void test_types(void)
{
    struct nr_json j;
    nr_json_begin(&j, "message");
    nr_json_int(&j, "size", 12287);
    nr_json_int(&j, "neg", -5);
    nr_json_null(&j, "rtt_ns");
    nr_json_bool(&j, "complete", 0);
    nr_json_bool(&j, "ok", 7);
    nr_json_double(&j, "x", 0.25);
    nr_json_str(&j, "none", NULL);
    NRT_EQ_STR(nr_json_text(&j), "{\"record\":\"message\",\"size\":12287,\"neg\":-5,"
                                 "\"rtt_ns\":null,\"complete\":false,\"ok\":true,\"x\":0.25,"
                                 "\"none\":null");
    nr_json_free(&j);
}

static void test_doubles(void)
{
    struct nr_json j;
    nr_json_begin(&j, "d");
    nr_json_double(&j, "a", 0.1);
    nr_json_double(&j, "b", 1.0 / 3.0);
    nr_json_double(&j, "c", 1.0 / 0.0);
    nr_json_double(&j, "e", 1e300 * 1e300 - 1e300 * 1e300);
    NRT_EQ_STR(nr_json_text(&j),
               "{\"record\":\"d\",\"a\":0.1,\"b\":0.33333333333333331,\"c\":null,\"e\":null");
    nr_json_free(&j);
}

static void test_escaping(void)
{
    struct nr_json j;
    nr_json_begin(&j, "e");
    nr_json_str(&j, "k\"", "a\"b\\c\nd\te\x01 \xc3\xa9 \xff \xed\xa0\x80 \xe2\x82");
    NRT_EQ_STR(nr_json_text(&j), "{\"record\":\"e\",\"k\\\"\":"
                                 "\"a\\\"b\\\\c\\nd\\te\\u0001 \xc3\xa9 \\ufffd "
                                 "\\ufffd\\ufffd\\ufffd \\ufffd\\ufffd\"");
    nr_json_free(&j);
}

static void test_array(void)
{
    struct nr_json j;
    int64_t v[] = {512, 1024, -1};
    nr_json_begin(&j, "a");
    nr_json_int_array(&j, "sizes", v, 3);
    nr_json_int_array(&j, "empty", v, 0);
    NRT_EQ_STR(nr_json_text(&j), "{\"record\":\"a\",\"sizes\":[512,1024,-1],\"empty\":[]");
    nr_json_free(&j);
}

static void test_emit_one_line(void)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    NRT_CHECK(f != NULL);
    if (!f)
        return;
    struct nr_json j;
    nr_json_begin(&j, "one");
    nr_json_int(&j, "n", 1);
    NRT_EQ_INT(nr_json_emit(&j, f), 0);
    /* emit flushes, so the text is visible before the stream is closed */
    NRT_EQ_STR(out, "{\"record\":\"one\",\"n\":1}\n");
    nr_json_begin(&j, "two");
    NRT_EQ_INT(nr_json_emit(&j, f), 0);
    NRT_EQ_STR(out, "{\"record\":\"one\",\"n\":1}\n{\"record\":\"two\"}\n");
    fclose(f);
    free(out);
}

static void test_error_record(void)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    NRT_CHECK(f != NULL);
    if (!f)
        return;
    NRT_EQ_INT(nr_json_error(f, "pingx", "connect failed: \"refused\"", "start echod"), 0);
    NRT_EQ_STR(out, "{\"record\":\"error\",\"tool\":\"pingx\",\"what\":"
                    "\"connect failed: \\\"refused\\\"\",\"hint\":\"start echod\"}\n");
    fclose(f);
    free(out);
}

static void test_long_record(void)
{
    struct nr_json j;
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    nr_json_begin(&j, "big");
    nr_json_str(&j, "s", big);
    NRT_EQ_INT(strlen(nr_json_text(&j)), strlen("{\"record\":\"big\",\"s\":\"\"") + 2999);
    nr_json_free(&j);
}

int main(void)
{
    NRT_RUN(test_types);
    NRT_RUN(test_doubles);
    NRT_RUN(test_escaping);
    NRT_RUN(test_array);
    NRT_RUN(test_emit_one_line);
    NRT_RUN(test_long_record);
    NRT_RUN(test_error_record);
    return nrt_summary("common/test_json");
}
