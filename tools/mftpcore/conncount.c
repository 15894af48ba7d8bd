#include "conncount.h"

#include <math.h>

#include "blocks.h"

int mftp_conn_count(double target_bps, long window_octets, int64_t rtt_ns, double *exact)
{
    if (!(target_bps > 0) || window_octets <= 0 || rtt_ns <= 0)
        return -1;
    double n = target_bps * ((double)rtt_ns / 1e9) / ((double)window_octets * 8.0);
    if (exact)
        *exact = n;
    /* A hair of tolerance so that an exact multiple is not pushed up by rounding error. */
    double up = ceil(n - 1e-9);
    if (up < 1)
        return 1;
    if (up > MFTP_MAX_CONNS)
        return MFTP_MAX_CONNS;
    return (int)up;
}
