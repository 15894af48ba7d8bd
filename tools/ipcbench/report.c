#include <stdarg.h>
#include <string.h>

#include "bench.h"

static const char *proto_name(const struct ipc_args *a)
{
    return a->proto == NRIO_TCP ? "tcp" : "udp";
}

void ipc_record_begin(struct nr_json *j, const struct ipc_args *a, int index)
{
    nr_json_begin(j, "message");
    nr_json_str(j, "tool", "ipcbench");
    nr_json_str(j, "stack", a->stack);
    nr_json_str(j, "api", ipc_api_name(a->api));
    nr_json_str(j, "proto", proto_name(a));
    nr_json_str(j, "role", a->server ? "server" : "client");
    nr_json_int(j, "index", index);
}

static void emit(struct nr_json *j, FILE *out)
{
    int rc = nr_json_emit(j, out);
    if (rc < 0)
        fprintf(stderr, "ipcbench: writing a record failed: %s\n", strerror(-rc));
}

void ipc_record_finish(struct nr_json *j, FILE *out, long long size, int64_t ns,
                       const char *timing_end)
{
    nr_json_int(j, "elapsed_ns", ns);
    nr_json_str(j, "timing_end", timing_end);
    if (ns > 0)
        nr_json_double(j, "throughput_bps", (double)size * 8e9 / (double)ns);
    else
        nr_json_null(j, "throughput_bps");
    emit(j, out);
}

void ipc_announce(const struct ipc_args *a)
{
    fprintf(stderr, "ipcbench: serving %s on port %d\n", proto_name(a), a->port);
    fflush(stderr);
}

void ipc_error(FILE *out, const struct ipc_args *a, int index, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct nr_json j;
    nr_json_begin(&j, "error");
    nr_json_str(&j, "tool", "ipcbench");
    nr_json_str(&j, "stack", a->stack);
    nr_json_str(&j, "api", ipc_api_name(a->api));
    nr_json_str(&j, "proto", proto_name(a));
    nr_json_str(&j, "role", a->server ? "server" : "client");
    nr_json_int(&j, "index", index);
    nr_json_str(&j, "error", msg);
    emit(&j, out);
    fprintf(stderr, "ipcbench: %s\n", msg);
}

void ipc_vmstat(FILE *out, const struct ipc_args *a, const struct vmstat *v)
{
    struct nr_json j;
    nr_json_begin(&j, "vmstat");
    nr_json_str(&j, "tool", "ipcbench");
    nr_json_str(&j, "stack", a->stack);
    nr_json_str(&j, "role", a->server ? "server" : "client");
    nr_json_int(&j, "v_zfod", (int64_t)v->v_zfod);
    nr_json_int(&j, "v_pgin", (int64_t)v->v_pgin);
    nr_json_int(&j, "v_pgout", (int64_t)v->v_pgout);
    nr_json_int(&j, "v_frees", (int64_t)v->v_frees);
    nr_json_int(&j, "v_maxres", (int64_t)v->v_maxres);
    emit(&j, out);
}

void ipc_not_reproducible(FILE *out, const struct ipc_args *a)
{
    static const char msg[] =
        "System V TLI (t_open, t_connect, t_snd) is not reproducible on Linux: Linux has no "
        "TLI/XTI library and no STREAMS transport providers. milliner's TLI curve cannot be "
        "rerun here; compare the sockets TCP curve, which TLI wrapped on SunOS 4.1.3.";
    struct nr_json j;
    nr_json_begin(&j, "error");
    nr_json_str(&j, "tool", "ipcbench");
    nr_json_str(&j, "stack", a->stack);
    nr_json_str(&j, "api", "tli");
    nr_json_bool(&j, "reproducible", 0);
    nr_json_str(&j, "error", msg);
    emit(&j, out);
    fprintf(stderr, "ipcbench: %s\n", msg);
}
