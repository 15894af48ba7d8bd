#include "errors.h"

#include <string.h>

#include "json.h"

void mftp_verror(FILE *out, const char *tool, const char *stack, int index, const char *fmt,
                 va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    struct nr_json j;
    nr_json_begin(&j, "error");
    nr_json_str(&j, "tool", tool);
    nr_json_str(&j, "stack", stack);
    if (index >= 0)
        nr_json_int(&j, "index", index);
    nr_json_str(&j, "error", msg);
    int rc = nr_json_emit(&j, out);
    fprintf(stderr, "%s: %s\n", tool, msg);
    if (rc < 0)
        fprintf(stderr, "%s: writing the error record failed: %s\n", tool, strerror(-rc));
}
