/* ttcp: a source-to-sink throughput test (comer94), TCP or UDP, on any nrio stack. */
#include <stdio.h>

#include "args.h"
#include "nrmain.h"
#include "tahoe/if_packet.h"
#include "ttcp.h"

static int parse(int argc, char **argv, void *a, char *err, size_t errlen)
{
    return ttcp_parse_args(argc, argv, a, err, errlen);
}

static int run(nrio *io, void *a)
{
    return ttcp_run(io, a, stdout, stderr);
}

int main(int argc, char **argv)
{
    static const struct nr_tool tool = {"ttcp", parse, ttcp_usage, run, nr_stack_new};
    struct ttcp_args a = {0};
    return nr_tool_main(&tool, &a, &a.net, argc, argv);
}
