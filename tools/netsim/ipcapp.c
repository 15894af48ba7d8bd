/* ipcbench (milliner) in netsim: the client on host a, the server on host b. */
#include <string.h>

#include "appcmd.h"

static int parse_one(char **argv, int n, char **pre, int npre, struct ipc_args *a,
                     const char *which, FILE *err)
{
    struct ns_app_cmd c;
    if (ns_app_cmd_init(&c, "ipcbench", pre, npre, argv, n, which, err) < 0 ||
        ns_app_cmd_parsed(&c, ipc_parse_args(c.argc, c.args, a, c.msg, sizeof c.msg), which,
                          err) < 0)
        return -1;
    a->stack = NS_STACK;
    return 0;
}

static int check(const struct ns_args *a, FILE *err)
{
    const struct ipc_args *c = &a->ipc, *d = &a->ipcd;
    if (c->server || !d->server) {
        fprintf(err, "netsim: give the ipcbench client first and the server second\n");
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        int api = i == 0 ? c->api : d->api;
        if (api == IPC_TLI) {
            fprintf(err, "netsim: ipcbench --api tli is not reproducible: Linux has no TLI\n");
            return -1;
        }
        if (api == IPC_RPC) {
            fprintf(err, "netsim: ipcbench --api rpc runs on libtirpc, which drives the kernel's "
                         "sockets, not the simulated stack; run it with the emulated backend\n");
            return -1;
        }
    }
    if (!ns_is_host_b(c->host, 0)) {
        fprintf(err, "netsim: the ipcbench client sends to %s, but the server is host b, %s\n",
                c->host, NS_ADDR_B);
        return -1;
    }
    if (!ns_is_host_b(d->bind_ip, 1)) {
        fprintf(err, "netsim: the ipcbench server binds %s; use 0.0.0.0 or %s\n", d->bind_ip,
                NS_ADDR_B);
        return -1;
    }
    if (c->port != d->port || c->proto != d->proto) {
        fprintf(err, "netsim: give the ipcbench client and server the same -p and --proto\n");
        return -1;
    }
    return 0;
}

int ns_parse_ipcbench(char **argv1, int n1, char **argv2, int n2, struct ns_args *a, FILE *err)
{
    char *pre[] = {"--server"};
    if (parse_one(argv1, n1, NULL, 0, &a->ipc, "client", err) < 0 ||
        parse_one(argv2, n2, pre, 1, &a->ipcd, "server", err) < 0)
        return -1;
    /* The server ends with the client's last message, as a script would stop it. */
    if (a->ipcd.count == 0)
        a->ipcd.count = a->ipc.repeat;
    return check(a, err);
}
