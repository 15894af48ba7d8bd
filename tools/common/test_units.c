#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "nrtest.h"
#include "units.h"

static long long size_of(const char *s)
{
    long long v = -1;
    return nr_parse_size(s, &v) == 0 ? v : -1;
}

static int64_t time_of(const char *s)
{
    int64_t v = -1;
    return nr_parse_time_ns(s, &v) == 0 ? v : -1;
}

static void test_sizes(void)
{
    NRT_EQ_INT(size_of("16K"), 16384);
    NRT_EQ_INT(size_of("12K-1"), 12287);
    NRT_EQ_INT(size_of("16K+1"), 16385);
    NRT_EQ_INT(size_of("9188B"), 9188);
    NRT_EQ_INT(size_of("4M"), 4194304);
    NRT_EQ_INT(size_of("4K+1K-3B"), 5117);
    NRT_EQ_INT(size_of("0B"), 0);
}

static void test_sizes_refused(void)
{
    long long v;
    NRT_EQ_INT(nr_parse_size("8192", &v), -EINVAL); /* a unit is required */
    NRT_EQ_INT(nr_parse_size("", &v), -EINVAL);
    NRT_EQ_INT(nr_parse_size("16k", &v), -EINVAL);
    NRT_EQ_INT(nr_parse_size("16KB", &v), -EINVAL);
    NRT_EQ_INT(nr_parse_size("K", &v), -EINVAL);
    NRT_EQ_INT(nr_parse_size("12K-", &v), -EINVAL);
    NRT_EQ_INT(nr_parse_size("-1K", &v), -EINVAL);
    NRT_EQ_INT(nr_parse_size("1K-2K", &v), -ERANGE);
    NRT_EQ_INT(nr_parse_size("99999999999999999999B", &v), -ERANGE);
    NRT_EQ_INT(nr_parse_size("9999999999999999M", &v), -ERANGE);
}

static void test_times(void)
{
    NRT_EQ_INT(time_of("200ms"), 200000000);
    NRT_EQ_INT(time_of("1s"), 1000000000);
    NRT_EQ_INT(time_of("50us"), 50000);
    NRT_EQ_INT(time_of("7ns"), 7);
    NRT_EQ_INT(time_of("2.5ms"), 2500000);
    NRT_EQ_INT(time_of("0.000000001s"), 1);
    NRT_EQ_INT(time_of("0s"), 0);
}

static void test_times_refused(void)
{
    int64_t v;
    NRT_EQ_INT(nr_parse_time_ns("200", &v), -EINVAL);
    NRT_EQ_INT(nr_parse_time_ns("1.5ns", &v), -EINVAL);
    NRT_EQ_INT(nr_parse_time_ns("1m", &v), -EINVAL);
    NRT_EQ_INT(nr_parse_time_ns(".5s", &v), -EINVAL);
    NRT_EQ_INT(nr_parse_time_ns("1.s", &v), -EINVAL);
    NRT_EQ_INT(nr_parse_time_ns("-1s", &v), -EINVAL);
    NRT_EQ_INT(nr_parse_time_ns("1s ", &v), -EINVAL);
    NRT_EQ_INT(nr_parse_time_ns("99999999999s", &v), -ERANGE);
}

static void test_lists(void)
{
    long long v[4];
    int n = 0;
    NRT_EQ_INT(nr_parse_size_list("512B,1K,2K", v, 4, &n), 0);
    NRT_EQ_INT(n, 3);
    NRT_EQ_INT(v[0], 512);
    NRT_EQ_INT(v[1], 1024);
    NRT_EQ_INT(v[2], 2048);
    NRT_EQ_INT(nr_parse_size_list("12K-1,12K", v, 4, &n), 0);
    NRT_EQ_INT(n, 2);
    NRT_EQ_INT(v[0], 12287);
    NRT_EQ_INT(v[1], 12288);
    NRT_EQ_INT(nr_parse_size_list("1K,,2K", v, 4, &n), -EINVAL);
    NRT_EQ_INT(nr_parse_size_list("1K,", v, 4, &n), -EINVAL);
    NRT_EQ_INT(nr_parse_size_list("1K,2K,3K,4K,5K", v, 4, &n), -ERANGE);
}

static void test_counts(void)
{
    long long v = -1;
    NRT_EQ_INT(nr_parse_count("2000", 1000000, &v), 0);
    NRT_EQ_INT(v, 2000);
    NRT_EQ_INT(nr_parse_count("2000", 1999, &v), -ERANGE);
    NRT_EQ_INT(nr_parse_count("2K", 1000000, &v), -EINVAL);
    NRT_EQ_INT(nr_parse_count("-3", 1000000, &v), -EINVAL);
    NRT_EQ_INT(nr_parse_count("", 1000000, &v), -EINVAL);
}

/* Issue 32: no padding (spaces, signs, leading zeros), no hex, no overflow. */
static void test_numbers_are_plain_decimal(void)
{
    long long v;
    int64_t t;
    NRT_EQ_INT(nr_parse_count("007", 100, &v), -EINVAL);
    NRT_EQ_INT(nr_parse_count(" 7", 100, &v), -EINVAL);
    NRT_EQ_INT(nr_parse_count("+7", 100, &v), -EINVAL);
    NRT_EQ_INT(nr_parse_count("0x10", 100, &v), -EINVAL);
    NRT_EQ_INT(nr_parse_count("0", 100, &v), 0);
    NRT_EQ_INT(nr_parse_count("9223372036854775808", LLONG_MAX, &v), -ERANGE);
    NRT_EQ_INT(nr_parse_size("016K", &v), -EINVAL);
    NRT_EQ_INT(nr_parse_size(" 16K", &v), -EINVAL);
    NRT_EQ_INT(nr_parse_time_ns("05ms", &t), -EINVAL);
    NRT_EQ_INT(nr_parse_time_ns("1.05ms", &t), 0); /* a fraction's zeros are no padding */
    NRT_EQ_INT(t, 1050000);
    NRT_EQ_INT(nr_parse_time_ns("9223372036854775807ns", &t), 0);
    NRT_EQ_INT(nr_parse_time_ns("9223372036854775808ns", &t), -ERANGE);
    NRT_EQ_INT(nr_parse_time_ns("9223372037s", &t), -ERANGE);
}

static void test_decimals(void)
{
    const char *end;
    double d;
    NRT_EQ_INT(nr_parse_decimal("155.52Mbit", &end, &d), 0);
    NRT_CHECK(d == 155.52 && strcmp(end, "Mbit") == 0);
    NRT_EQ_INT(nr_parse_decimal("1.0000000000000001e-05", &end, &d), 0);
    NRT_CHECK(d == 1e-05 && *end == '\0');
    NRT_EQ_INT(nr_parse_decimal("0", &end, &d), 0);
    NRT_EQ_INT(nr_parse_decimal("0x10", &end, &d), 0); /* the number 0, then "x10": no unit */
    NRT_CHECK(strcmp(end, "x10") == 0);
    NRT_EQ_INT(nr_parse_decimal("010", &end, &d), -EINVAL);
    NRT_EQ_INT(nr_parse_decimal(" 10", &end, &d), -EINVAL);
    NRT_EQ_INT(nr_parse_decimal("+10", &end, &d), -EINVAL);
    NRT_EQ_INT(nr_parse_decimal("-10", &end, &d), -EINVAL);
    NRT_EQ_INT(nr_parse_decimal(".5", &end, &d), -EINVAL);
    NRT_EQ_INT(nr_parse_decimal("1.", &end, &d), -EINVAL);
    NRT_EQ_INT(nr_parse_decimal("inf", &end, &d), -EINVAL);
    NRT_EQ_INT(nr_parse_decimal("nan", &end, &d), -EINVAL);
    NRT_EQ_INT(nr_parse_decimal("1e400", &end, &d), -ERANGE);
}

int main(void)
{
    NRT_RUN(test_sizes);
    NRT_RUN(test_sizes_refused);
    NRT_RUN(test_times);
    NRT_RUN(test_times_refused);
    NRT_RUN(test_lists);
    NRT_RUN(test_counts);
    NRT_RUN(test_numbers_are_plain_decimal);
    NRT_RUN(test_decimals);
    return nrt_summary("common/test_units");
}
