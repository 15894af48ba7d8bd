#include "nrcounts.h"

void nr_json_counts(struct nr_json *j, nrio *io)
{
    struct nrio_counts c;
    if (nrio_counts_since(io, &c) < 0)
        return;
    nr_json_int(j, "pageins", (int64_t)c.pageins);
    nr_json_int(j, "pageouts", (int64_t)c.pageouts);
    nr_json_int(j, "disk_ios", (int64_t)c.disk_ios);
    nr_json_int(j, "disk_busy_ns", c.disk_busy_ns);
    nr_json_int(j, "disk_wait_ns", c.disk_wait_ns);
}
