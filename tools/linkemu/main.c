/* linkemu: emulates a 1990s link between two interfaces of a middle node in user space. */
#include <stdio.h>

#include "cli.h"
#include "fwd.h"

int main(int argc, char **argv)
{
    struct le_opts opts;
    int parsed = le_parse_args(argc, argv, &opts, stdout, stderr);
    if (parsed != 0)
        return parsed > 0 ? 0 : 2;
    return le_run(&opts, stderr);
}
