/* The main() of a tool that runs on one nrio stack (ttcp, mftp, mftpd): its command line
 * parsed, with usage and status 0 after --help and "TOOL: message", usage and status 2 after a
 * bad one (nr_args_status); the stack its flags chose opened, or "TOOL: what; hint" and status 1;
 * the tool run on it; the stack closed. A tool's main.c names its parts in a struct nr_tool. */
#ifndef NR_MAIN_H
#define NR_MAIN_H

#include <stddef.h>
#include <stdio.h>

#include "nrio.h"
#include "stackopt.h"

struct nr_tool {
    const char *name;
    /* The tool's parser (0 run, 1 help, -1 error in err), on its own argument struct. */
    int (*parse)(int argc, char **argv, void *args, char *err, size_t errlen);
    void (*usage)(FILE *f);
    /* Runs the tool on the opened stack; returns the exit status. */
    int (*run)(nrio *io, void *args);
    /* Opens a stack (tahoe/if_packet.h's nr_stack_new): the tool gives it, so that common
     * does not depend on the Tahoe stack. */
    nrio *(*open)(const struct nr_stack_opts *o, char *what, size_t whatlen, char *hint,
                  size_t hintlen);
};

/* args is the tool's argument struct, net its stack flags within it. */
int nr_tool_main(const struct nr_tool *tool, void *args, const struct nr_stack_opts *net, int argc,
                 char **argv);

#endif
