#include <string.h>

#include "calc.h"
#include "json.h"
#include "ttcp.h"

static void opt_int(struct nr_json *j, const char *key, long long v)
{
    if (v < 0)
        nr_json_null(j, key);
    else
        nr_json_int(j, key, v);
}

static void opt_bps(struct nr_json *j, const char *key, long long bytes, int64_t ns)
{
    double bps = ttcp_bps(bytes, ns);
    if (bps < 0)
        nr_json_null(j, key);
    else
        nr_json_double(j, key, bps);
}

static void emit(struct nr_json *j, FILE *out)
{
    int rc = nr_json_emit(j, out);
    if (rc < 0)
        fprintf(stderr, "ttcp: writing a record to stdout failed: %s\n", strerror(-rc));
}

void ttcp_emit_transfer(FILE *out, const struct ttcp_args *a, const struct ttcp_result *r)
{
    struct nr_json j;
    int udp = a->proto == NRIO_UDP;
    nr_json_begin(&j, "transfer");
    nr_json_str(&j, "tool", "ttcp");
    nr_json_str(&j, "stack", a->stack);
    nr_json_str(&j, "role", a->transmit ? "transmitter" : "receiver");
    nr_json_str(&j, "proto", udp ? "udp" : "tcp");
    nr_json_int(&j, "index", r->index);
    nr_json_int(&j, "bytes", r->bytes);
    opt_int(&j, "writes", a->transmit ? r->writes : -1);
    opt_int(&j, "reads", a->transmit ? -1 : r->reads);
    nr_json_int(&j, "write_size", a->write_size);
    nr_json_int(&j, "sndbuf_requested", a->sndbuf);
    nr_json_int(&j, "sndbuf", r->sndbuf);
    nr_json_int(&j, "rcvbuf_requested", a->rcvbuf);
    nr_json_int(&j, "rcvbuf", r->rcvbuf);
    opt_int(&j, "receiver_rcvbuf_requested", a->transmit ? r->peer_rcvbuf_requested : a->rcvbuf);
    opt_int(&j, "receiver_rcvbuf", a->transmit ? r->peer_rcvbuf : r->rcvbuf);
    if (udp)
        nr_json_null(&j, "nodelay");
    else
        nr_json_bool(&j, "nodelay", r->nodelay);
    long long sent = a->transmit ? r->bytes : -1;
    opt_bps(&j, "sender_bps", sent, r->send_ns);
    opt_bps(&j, "receiver_bps", r->recv_bytes, r->recv_ns);
    opt_int(&j, "elapsed_ns", a->transmit ? r->send_ns : r->recv_ns);
    opt_int(&j, "sender_elapsed_ns", r->send_ns);
    opt_int(&j, "receiver_elapsed_ns", r->recv_ns);
    opt_int(&j, "receiver_bytes", r->recv_bytes);
    opt_int(&j, "pause_ns", r->pause_ns);
    if (udp) {
        opt_int(&j, "datagrams_sent", r->dgrams_sent);
        opt_int(&j, "datagrams_received", r->dgrams_received);
        if (r->dgrams_sent >= 0 && r->dgrams_received >= 0)
            nr_json_int(&j, "datagrams_lost", ttcp_lost(r->dgrams_sent, r->dgrams_received));
        else
            nr_json_null(&j, "datagrams_lost");
    } else {
        nr_json_null(&j, "datagrams_sent");
        nr_json_null(&j, "datagrams_received");
        nr_json_null(&j, "datagrams_lost");
    }
    nr_json_int(&j, "cool_gap_ns", a->cool_gap_ns);
    nr_json_int(&j, "cool_spin", a->cool_spin);
    if (r->spin_ns_per_iter < 0)
        nr_json_null(&j, "cool_spin_ns_per_iter");
    else
        nr_json_double(&j, "cool_spin_ns_per_iter", r->spin_ns_per_iter);
    emit(&j, out);
}

void ttcp_emit_error(FILE *out, const struct ttcp_args *a, int index, const char *message)
{
    struct nr_json j;
    nr_json_begin(&j, "error");
    nr_json_str(&j, "tool", "ttcp");
    nr_json_str(&j, "stack", a->stack);
    nr_json_str(&j, "role", a->transmit ? "transmitter" : "receiver");
    nr_json_str(&j, "proto", a->proto == NRIO_UDP ? "udp" : "tcp");
    nr_json_int(&j, "index", index);
    nr_json_str(&j, "error", message);
    emit(&j, out);
    fprintf(stderr, "ttcp: %s\n", message);
}
