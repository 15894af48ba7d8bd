#include "flags.h"

#include "blocks.h"
#include "nrargs.h"

int mftp_xfer_opt(int code, const char *val, long *window, long *block, char *err,
                  size_t errlen)
{
    long long v;
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
