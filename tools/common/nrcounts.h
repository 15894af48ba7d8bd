/* A transfer's paging and disk counts in its record, from a backend that models the host. */
#ifndef NR_COUNTS_H
#define NR_COUNTS_H

#include "json.h"
#include "nrio.h"

/* Adds pageins, pageouts, disk_ios, disk_busy_ns and disk_wait_ns since the previous call (on
 * this io) to j; adds nothing on a backend that does not model them (a real host). */
void nr_json_counts(struct nr_json *j, nrio *io);

#endif
