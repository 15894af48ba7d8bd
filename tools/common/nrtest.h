/* A minimal unit-test harness for the tools: checks record failures, NRT_RUN runs one test
 * function, nrt_summary() prints "<file>: N passed, N failed" and gives the exit status. */
#ifndef NRTEST_H
#define NRTEST_H

#include <stdio.h>
#include <string.h>

static int nrt_failed_checks;
static int nrt_passed;
static int nrt_failed;

#define NRT_CHECK(cond)                                                            \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            nrt_failed_checks++;                                                   \
        }                                                                          \
    } while (0)

#define NRT_EQ_INT(a, b)                                                           \
    do {                                                                           \
        long long nrt_a_ = (long long)(a), nrt_b_ = (long long)(b);                \
        if (nrt_a_ != nrt_b_) {                                                    \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__,    \
                    __LINE__, #a, #b, nrt_a_, nrt_b_);                             \
            nrt_failed_checks++;                                                   \
        }                                                                          \
    } while (0)

#define NRT_EQ_STR(a, b)                                                           \
    do {                                                                           \
        const char *nrt_a_ = (a), *nrt_b_ = (b);                                   \
        if (strcmp(nrt_a_, nrt_b_) != 0) {                                         \
            fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n",          \
                    __FILE__, __LINE__, #a, #b, nrt_a_, nrt_b_);                   \
            nrt_failed_checks++;                                                   \
        }                                                                          \
    } while (0)

#define NRT_RUN(fn)                                                                \
    do {                                                                           \
        int nrt_before_ = nrt_failed_checks;                                       \
        fn();                                                                      \
        if (nrt_failed_checks == nrt_before_) {                                    \
            nrt_passed++;                                                          \
        } else {                                                                   \
            nrt_failed++;                                                          \
            fprintf(stderr, "FAIL %s\n", #fn);                                     \
        }                                                                          \
    } while (0)

static inline int nrt_summary(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, nrt_passed, nrt_failed);
    return nrt_failed == 0 && nrt_passed > 0 ? 0 : 1;
}

#endif
