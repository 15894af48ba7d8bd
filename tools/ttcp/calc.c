#include "calc.h"

double ttcp_bps(long long bytes, int64_t ns)
{
    if (ns <= 0)
        return -1.0;
    return (double)bytes * 8.0 * 1e9 / (double)ns;
}

long long ttcp_write_count(long long total, long write_size)
{
    return write_size > 0 ? (total + write_size - 1) / write_size : 0;
}

long ttcp_write_len(long long total, long write_size, long long i)
{
    long long off = i * write_size;
    if (i < 0 || off >= total)
        return 0;
    return total - off < write_size ? (long)(total - off) : write_size;
}

long long ttcp_lost(long long sent, long long received)
{
    return sent > received ? sent - received : 0;
}
