/* netsim: ttcp, pingx and echod, or mftp and mftpd, on two Tahoe stacks and an emulated link,
 * in virtual time. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "sim.h"

static int wall_now(int64_t *ns)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
        return -errno;
    *ns = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
    return 0;
}

int main(int argc, char **argv)
{
    static struct ns_args a;
    int rc = ns_parse_args(argc, argv, &a, stdout, stderr);
    if (rc == 1)
        return 0;
    if (rc < 0)
        return 2;
    int64_t t0, t1;
    if (wall_now(&t0) < 0) {
        fprintf(stderr, "netsim: reading CLOCK_MONOTONIC failed: %s\n", strerror(errno));
        return 1;
    }
    static struct ns_sim s;
    if (ns_sim_init(&s, &a, stdout, stderr) < 0) {
        ns_sim_free(&s);
        return 1;
    }
    rc = ns_sim_run(&s);
    int status = s.host[0].status || s.host[1].status ? 1 : 0;
    if (rc < 0) {
        fprintf(stderr, "netsim: the simulation stopped at %.9f s of virtual time: %s\n",
                s.now_ns / 1e9, rc == -EDEADLK ? "no event left while an application waits"
                                                 : strerror(-rc));
        status = 1;
    }
    int wall_rc = wall_now(&t1);
    if (wall_rc < 0)
        fprintf(stderr, "netsim: reading CLOCK_MONOTONIC failed: %s\n", strerror(-wall_rc));
    ns_emit_sim(stdout, &s, a.no_wall || wall_rc < 0 ? -1 : t1 - t0);
    ns_sim_free(&s);
    return status;
}
