/* Command-line values with explicit units, as CONTRIBUTING.md asks.
 *
 * Sizes: terms joined by + or -, each an integer with a unit B (octets), K (1024) or M (1048576):
 * "16K", "9188B", "4M", "12K-1". Only terms after the first may omit the unit (octets), so a bare
 * "8192" is refused and a typo cannot silently mean octets.
 * Times: a decimal number with a unit ns, us, ms or s, giving whole nanoseconds: "200ms", "1s",
 * "50us", "2.5ms".
 * Lists: items separated by commas, e.g. "512B,1K,2K".
 * Numbers are decimal, without padding: no spaces, signs or leading zeros ("007").
 * Every parser returns 0, or -EINVAL for malformed text and -ERANGE for values out of range. */
#ifndef NR_UNITS_H
#define NR_UNITS_H

#include <stdint.h>

int nr_parse_size(const char *s, long long *out);
int nr_parse_time_ns(const char *s, int64_t *out);
/* Parses a comma list of sizes into out[0..max-1]; *n gets the count (at least one). */
int nr_parse_size_list(const char *s, long long *out, int max, int *n);
/* A plain non-negative decimal integer (counts, seeds, iterations) no larger than max. */
int nr_parse_count(const char *s, long long max, long long *out);
/* A non-negative decimal number at s, as a person or printf("%.17g") writes it: digits without
 * leading zeros, an optional fraction, an optional exponent ("155.52", "1e-05"); no sign,
 * space, hex, inf or nan. *end gets the first character after it (a unit, or the end), *out its
 * value. -EINVAL for text that is no such number, -ERANGE past a double or 63 characters. */
int nr_parse_decimal(const char *s, const char **end, double *out);

#endif
