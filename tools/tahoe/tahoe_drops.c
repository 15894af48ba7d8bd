#include "tahoe_drops.h"

#include "ip_var.h"
#include "nrio_tahoe.h"
#include "udp_var.h"

void tahoe_json_drops(struct nr_json *j, const char *prefix, const struct tahoe_stack *st)
{
    const struct udpstat *u = tahoe_udpstat(st);
    const struct ipstat *ip = tahoe_ipstat(st);
    char k[64];
#define STAT(s, field)                                   \
    snprintf(k, sizeof k, "%s_%s", prefix, #field);      \
    nr_json_int(j, k, (int64_t)(s)->field)
    STAT(u, udps_ipackets);
    STAT(u, udps_fullsock);
    STAT(u, udps_opackets);
    STAT(u, udps_odropped);
    STAT(ip, ips_qdrop);
    STAT(ip, ips_fragments);
    STAT(ip, ips_fragdropped);
    STAT(ip, ips_fragtimeout);
    STAT(ip, ips_reassembled);
    STAT(ip, ips_odropped);
#undef STAT
    snprintf(k, sizeof k, "%s_le_no_tmds", prefix);
    nr_json_int(j, k, (int64_t)tahoe_le_no_tmds(st));
}

int tahoe_emit_drops(FILE *out, const char *tool, nrio *io)
{
    struct nr_json j;
    nr_json_begin(&j, "drops");
    nr_json_str(&j, "tool", tool);
    tahoe_json_drops(&j, "host", nrio_tahoe_stack(io));
    return nr_json_emit(&j, out);
}
