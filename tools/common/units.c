#include "units.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Reads decimal digits at *p into *v; 0 when at least one digit was read. A whole number
 * has no leading zeros ("007" is refused, "0" is not): no padding a reader could take for
 * octal. A fraction's digits (after a point) may start with zeros. */
static int digits_of(const char **p, int whole, long long *v)
{
    const char *s = *p;
    long long x = 0;
    if (*s < '0' || *s > '9')
        return -EINVAL;
    if (whole && s[0] == '0' && s[1] >= '0' && s[1] <= '9')
        return -EINVAL;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (x > (LLONG_MAX - (*s - '0')) / 10)
            return -ERANGE;
        x = x * 10 + (*s - '0');
    }
    *p = s;
    *v = x;
    return 0;
}

static int digits(const char **p, long long *v)
{
    return digits_of(p, 1, v);
}

/* One size term, ending at '+', '-', ',' or the end of the text. */
static int size_term(const char **p, int unit_required, long long *out)
{
    long long v, mult = 1;
    int rc = digits(p, &v);
    if (rc)
        return rc;
    switch (**p) {
    case 'B': mult = 1; (*p)++; break;
    case 'K': mult = 1024; (*p)++; break;
    case 'M': mult = 1024 * 1024; (*p)++; break;
    default:
        if (unit_required)
            return -EINVAL;
    }
    if (**p != '\0' && **p != '+' && **p != '-' && **p != ',')
        return -EINVAL;
    if (v > LLONG_MAX / mult)
        return -ERANGE;
    *out = v * mult;
    return 0;
}

/* Parses a size that ends at ',' or the end; *p is left on that character. */
static int size_at(const char **p, long long *out)
{
    long long total, term;
    int rc = size_term(p, 1, &total);
    while (!rc && (**p == '+' || **p == '-')) {
        int sign = **p == '+' ? 1 : -1;
        (*p)++;
        rc = size_term(p, 0, &term);
        if (rc)
            break;
        if (sign > 0 && total > LLONG_MAX - term)
            return -ERANGE;
        total += sign * term;
    }
    if (rc)
        return rc;
    if (total < 0)
        return -ERANGE;
    *out = total;
    return 0;
}

int nr_parse_size(const char *s, long long *out)
{
    long long v;
    if (!s || !out)
        return -EINVAL;
    int rc = size_at(&s, &v);
    if (rc)
        return rc;
    if (*s != '\0')
        return -EINVAL;
    *out = v;
    return 0;
}

int nr_parse_size_list(const char *s, long long *out, int max, int *n)
{
    int k = 0;
    if (!s || !out || !n || max < 1)
        return -EINVAL;
    for (;;) {
        if (k == max)
            return -ERANGE;
        int rc = size_at(&s, &out[k]);
        if (rc)
            return rc;
        k++;
        if (*s == '\0')
            break;
        s++; /* the comma; an empty item after it fails in size_at */
    }
    *n = k;
    return 0;
}

int nr_parse_time_ns(const char *s, int64_t *out)
{
    static const struct {
        const char *name;
        long long ns;
    } units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
    long long whole, frac = 0, frac_scale = 1;
    if (!s || !out)
        return -EINVAL;
    int rc = digits(&s, &whole);
    if (rc)
        return rc;
    if (*s == '.') {
        s++;
        const char *start = s;
        rc = digits_of(&s, 0, &frac);
        if (rc)
            return rc;
        /* More than 9 decimals cannot be whole nanoseconds for any unit (and would overflow). */
        if (s - start > 9)
            return -EINVAL;
        for (const char *q = start; q < s; q++)
            frac_scale *= 10;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(s, units[i].name) != 0)
            continue;
        long long m = units[i].ns;
        if (whole > INT64_MAX / m)
            return -ERANGE;
        /* The fraction must come to whole nanoseconds: "1.5ns" is refused, "1.5us" is 1500. */
        if ((frac * m) % frac_scale != 0)
            return -EINVAL;
        long long f = frac * m / frac_scale;
        if (whole * m > INT64_MAX - f)
            return -ERANGE;
        *out = whole * m + f;
        return 0;
    }
    return -EINVAL;
}

int nr_parse_count(const char *s, long long max, long long *out)
{
    long long v;
    if (!s || !out)
        return -EINVAL;
    int rc = digits(&s, &v);
    if (rc)
        return rc;
    if (*s != '\0')
        return -EINVAL;
    if (v > max)
        return -ERANGE;
    *out = v;
    return 0;
}

/* Skips the digits at *p; the count of them. */
static size_t skip_digits(const char **p)
{
    const char *s = *p;
    while (*s >= '0' && *s <= '9')
        s++;
    size_t n = (size_t)(s - *p);
    *p = s;
    return n;
}

int nr_parse_decimal(const char *s, const char **end, double *out)
{
    if (!s || !end || !out)
        return -EINVAL;
    const char *p = s;
    if (*p == '0' && p[1] >= '0' && p[1] <= '9')
        return -EINVAL;
    if (skip_digits(&p) == 0)
        return -EINVAL;
    if (*p == '.') {
        p++;
        if (skip_digits(&p) == 0)
            return -EINVAL;
    }
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        if (*q == '+' || *q == '-')
            q++;
        if (skip_digits(&q) > 0)
            p = q;
    }
    /* The text is plain decimal now, which strtod reads as written (C locale, no hex). */
    char buf[64];
    size_t len = (size_t)(p - s);
    if (len >= sizeof buf)
        return -ERANGE;
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    double v = strtod(buf, NULL);
    if (errno == ERANGE || !isfinite(v))
        return -ERANGE;
    *out = v;
    *end = p;
    return 0;
}
