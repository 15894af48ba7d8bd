/* Building an application's command line inside netsim's, shared by args.c and the
 * applications parsed in their own files (ipcapp.c). */
#ifndef NETSIM_APPCMD_H
#define NETSIM_APPCMD_H

#include <stdio.h>

#include "args.h"

#define MAX_APP_ARGS 64

/* An application's command line as its own main would see it. */
struct ns_app_cmd {
    char *args[MAX_APP_ARGS + 2];
    int argc;
    char msg[256];
};

/* c->args gets prog, then pre, then argv[0..n-1]; -1 with the reason printed to err when there
 * are too many or they hold stack flags. */
int ns_app_cmd_init(struct ns_app_cmd *c, const char *prog, char **pre, int npre, char **argv,
                    int n, const char *which, FILE *err);
/* rc is what the program's parser returned for c: 0 is success, anything else is reported. */
int ns_app_cmd_parsed(const struct ns_app_cmd *c, int rc, const char *which, FILE *err);
/* Whether ip is host b's address, or with any_ok 0.0.0.0 too. */
int ns_is_host_b(const char *ip, int any_ok);
/* The ipcbench client's and server's command lines (ipcapp.c). */
int ns_parse_ipcbench(char **argv1, int n1, char **argv2, int n2, struct ns_args *a, FILE *err);

#endif
