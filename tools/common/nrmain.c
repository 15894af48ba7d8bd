#include "nrmain.h"

#include "nrargs.h"

int nr_tool_main(const struct nr_tool *tool, void *args, const struct nr_stack_opts *net, int argc,
                 char **argv)
{
    char err[256];
    int rc = nr_args_status(tool->parse(argc, argv, args, err, sizeof err), tool->name, err,
                            tool->usage);
    if (rc >= 0)
        return rc;
    char what[256], hint[256];
    nrio *io = tool->open(net, what, sizeof what, hint, sizeof hint);
    if (!io) {
        fprintf(stderr, "%s: %s; %s\n", tool->name, what, hint);
        return 1;
    }
    rc = tool->run(io, args);
    nrio_destroy(io);
    return rc;
}
