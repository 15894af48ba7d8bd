#include "flags.h"

#include <string.h>

#include "blocks.h"
#include "nrargs.h"

int mftp_xfer_opt(int code, const char *val, long *window, long *block, long long *reorder_max,
                  int *blocking_writes, char *err, size_t errlen)
{
    long long v;
    if (code == MFTP_OPT_BLOCKING) {
        *blocking_writes = 1;
        return 0;
    }
    if (code == MFTP_OPT_REORDER)
        return nr_arg_size("--reorder-max", val, 0, MFTP_MAX_REORDER, "a size", "e.g. 256K",
                           reorder_max, err, errlen);
    if (code == MFTP_OPT_WINDOW) {
        if (nr_arg_size("--window", val, 0, MFTP_MAX_WINDOW, "a size", "e.g. 24K", &v, err,
                        errlen))
            return -1;
        *window = (long)v;
        return 0;
    }
    if (nr_arg_size("--block", val, 1, MFTP_MAX_BLOCK, "a size", "e.g. 32K", &v, err, errlen))
        return -1;
    *block = (long)v;
    return 0;
}

static int buffers_are_window(const nrio *io)
{
    return strcmp(io->ops->name, "tahoe") == 0;
}

struct nrio_sockopts mftp_window_opts(const nrio *io, long window)
{
    struct nrio_sockopts o = {0};
    if (window <= 0)
        return o;
    if (buffers_are_window(io)) {
        o.rcvbuf = o.sndbuf = (int)window;
    } else {
        o.window_clamp = (int)window;
        o.rcvbuf = o.sndbuf = (int)(2 * window);
    }
    return o;
}

int mftp_window_in_force(const nrio *io, const struct nrio_sockopts *o)
{
    return buffers_are_window(io) ? o->rcvbuf : o->window_clamp;
}
