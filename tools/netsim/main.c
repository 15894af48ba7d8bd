/* netsim: ttcp, pingx and echod, or mftp and mftpd, on two Tahoe stacks and an emulated link,
 * in virtual time. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "clock.h"
#include "sim.h"

int main(int argc, char **argv)
{
    static struct ns_args a;
    int rc = ns_parse_args(argc, argv, &a, stdout, stderr);
    if (rc == 1)
        return 0;
    if (rc < 0)
        return 2;
    int64_t t0 = nr_mono_ns();
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
    ns_emit_sim(stdout, &s, a.no_wall ? -1 : nr_mono_ns() - t0);
    ns_sim_free(&s);
    return status;
}
