#include <getopt.h>
#include <string.h>

#include "nrargs.h"
#include "nrtest.h"

static char err[256];

/* nr_args_operands on argv, its operands starting at first (as getopt leaves optind). */
static int operands(int argc, char **argv, int first, const char **host, const char *bind)
{
    err[0] = '\0';
    optind = first;
    return nr_args_operands(argc, argv, host, bind, "give exactly one HOST", err, sizeof err);
}

static void test_one_host_is_taken_and_checked(void)
{
    char *argv[] = {"tool", "--x", "10.0.0.2", "10.0.0.3"};
    const char *host = NULL;
    NRT_EQ_INT(operands(3, argv, 2, &host, NULL), 0);
    NRT_EQ_STR(host, "10.0.0.2");
    NRT_EQ_INT(operands(4, argv, 2, &host, NULL), -1);
    NRT_EQ_STR(err, "give exactly one HOST");
    NRT_EQ_INT(operands(2, argv, 2, &host, NULL), -1);
    char *name[] = {"tool", "localhost"};
    NRT_EQ_INT(operands(2, name, 1, &host, NULL), -1);
    NRT_EQ_STR(err, "localhost: not a dotted IPv4 address");
}

static void test_no_operand_where_none_is_taken_and_bind_is_checked(void)
{
    char *argv[] = {"tool", "extra"};
    NRT_EQ_INT(operands(1, argv, 1, NULL, NULL), 0);
    NRT_EQ_INT(operands(2, argv, 1, NULL, NULL), -1);
    NRT_EQ_STR(err, "extra: give exactly one HOST");
    NRT_EQ_INT(operands(1, argv, 1, NULL, "0.0.0.0"), 0);
    NRT_EQ_INT(operands(1, argv, 1, NULL, "::1"), -1);
    NRT_EQ_STR(err, "--bind ::1: not a dotted IPv4 address");
}

static void test_a_time_must_be_longer_than_another(void)
{
    NRT_EQ_INT(nr_args_longer("--timeout", 2, "--pause", 1, NULL, err, sizeof err), 0);
    NRT_EQ_INT(nr_args_longer("--timeout", 1, "--pause", 1, NULL, err, sizeof err), -1);
    NRT_EQ_STR(err, "--timeout must be longer than --pause");
    NRT_EQ_INT(nr_args_longer("--timeout", 1, "--pause", 5, "or it ends the run", err, sizeof err),
               -1);
    NRT_EQ_STR(err, "--timeout must be longer than --pause, or it ends the run");
}

static void test_the_stack_is_checked_and_named(void)
{
    struct nr_stack_opts net;
    nr_stack_opts_init(&net);
    const char *stack = NULL;
    NRT_EQ_INT(nr_args_stack(&net, &stack, err, sizeof err), 0);
    NRT_EQ_STR(stack, "kernel");
}

int main(void)
{
    NRT_RUN(test_one_host_is_taken_and_checked);
    NRT_RUN(test_no_operand_where_none_is_taken_and_bind_is_checked);
    NRT_RUN(test_a_time_must_be_longer_than_another);
    NRT_RUN(test_the_stack_is_checked_and_named);
    return nrt_summary("common/test_nrargs");
}
