#include "linkopt.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

#define MTU_MIN 68
#define MTU_MAX 65535

static const char *const framing_names[] = {
    [LE_FRAMING_ETHERNET] = "ethernet",
    [LE_FRAMING_AAL5_LLC_SNAP] = "aal5-llc-snap",
    [LE_FRAMING_AAL5_VC_MUX] = "aal5-vc-mux",
    [LE_FRAMING_NONE] = "none",
};

/* The per-direction flags' names, by code less LE_OPT_RATE, for messages. */
static const char *const dir_names[LE_NDIR_OPTS] = {
    "rate", "delay", "jitter", "reorder", "loss-pct", "cell-loss-ratio", "bit-error-ratio",
    "queue-packets", "queue-bytes",
};

const char *le_framing_name(enum le_framing framing)
{
    return framing_names[framing];
}

int le_parse_framing(const char *text, enum le_framing *framing)
{
    for (size_t i = 0; i < sizeof framing_names / sizeof framing_names[0]; i++) {
        if (strcmp(text, framing_names[i]) == 0) {
            *framing = (enum le_framing)i;
            return 0;
        }
    }
    return -1;
}

struct unit {
    const char *name;
    double factor;
};

/* A non-negative decimal number (nr_parse_decimal: no hex, padding or sign) followed by one of
 * units (an empty name allows a bare number). */
static int parse_with_unit(const char *text, const struct unit *units, double *value)
{
    const char *end;
    double number;
    if (nr_parse_decimal(text, &end, &number) < 0)
        return -1;
    for (const struct unit *u = units; u->name; u++) {
        if (strcmp(end, u->name) == 0) {
            *value = number * u->factor;
            return 0;
        }
    }
    return -1;
}

int le_parse_rate(const char *text, double *bps)
{
    static const struct unit units[] = {{"bit", 1}, {"Kbit", 1e3}, {"Mbit", 1e6}, {"Gbit", 1e9}, {0}};
    return parse_with_unit(text, units, bps);
}

int le_parse_time(const char *text, int64_t *ns)
{
    static const struct unit units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {0}};
    double value;
    if (parse_with_unit(text, units, &value) < 0 || value > 1e15)
        return -1;
    *ns = (int64_t)llround(value);
    return 0;
}

int le_parse_size(const char *text, uint64_t *octets)
{
    static const struct unit units[] = {{"", 1}, {"B", 1}, {"K", 1024}, {"KB", 1024},
                                        {"M", 1048576}, {"MB", 1048576}, {0}};
    double value;
    if (parse_with_unit(text, units, &value) < 0 || value != floor(value) || value > 1e15)
        return -1;
    *octets = (uint64_t)value;
    return 0;
}

int le_parse_number(const char *text, double lo, double hi, double *value)
{
    const char *end;
    double number;
    if (nr_parse_decimal(text, &end, &number) < 0 || *end || !(number >= lo && number <= hi))
        return -1;
    *value = number;
    return 0;
}

int le_parse_whole(const char *text, double hi, uint64_t *value)
{
    double number;
    if (le_parse_number(text, 0, hi, &number) < 0 || number != floor(number))
        return -1;
    *value = (uint64_t)number;
    return 0;
}

void le_link_init(struct le_link_opts *o)
{
    *o = (struct le_link_opts){.framing = LE_FRAMING_ETHERNET, .mtu = LE_DEFAULT_MTU,
                               .forward = {.queue_packets = LE_DEFAULT_QUEUE_PACKETS}};
}

/* One per-direction value into c; 0, or -1 when it is out of its unit or range. */
static int set_dir(struct le_dir_cfg *c, int code, const char *arg)
{
    switch (code) {
    case LE_OPT_RATE:
        return le_parse_rate(arg, &c->rate_bps) < 0 || c->rate_bps <= 0 ? -1 : 0;
    case LE_OPT_DELAY:
        return le_parse_time(arg, &c->delay_ns);
    case LE_OPT_JITTER:
        return le_parse_time(arg, &c->jitter_ns);
    case LE_OPT_REORDER:
        c->reorder = true;
        return 0;
    case LE_OPT_LOSS:
        return le_parse_number(arg, 0, 100, &c->loss_pct);
    case LE_OPT_CLR:
        return le_parse_number(arg, 0, 1, &c->cell_loss_ratio);
    case LE_OPT_BER:
        return le_parse_number(arg, 0, 1, &c->bit_error_ratio);
    case LE_OPT_QPKT:
        return le_parse_whole(arg, 1e9, &c->queue_packets);
    case LE_OPT_QBYTES:
        return le_parse_size(arg, &c->queue_bytes);
    }
    return -1;
}

int le_link_opt(struct le_link_opts *o, int code, const char *arg, const char *prog, FILE *err)
{
    uint64_t size;
    switch (code) {
    case LE_OPT_FRAMING:
        if (le_parse_framing(arg, &o->framing) < 0) {
            fprintf(err, "%s: unknown --framing '%s'; use ethernet, aal5-llc-snap, aal5-vc-mux "
                         "or none\n", prog, arg);
            return -1;
        }
        return 0;
    case LE_OPT_MTU:
        if (le_parse_size(arg, &size) < 0 || size < MTU_MIN || size > MTU_MAX) {
            fprintf(err, "%s: bad --mtu '%s'; give %dB to %dB, e.g. 1500B\n", prog, arg, MTU_MIN,
                    MTU_MAX);
            return -1;
        }
        o->mtu = (uint32_t)size;
        return 0;
    }
    int reverse = code >= LE_OPT_RATE + LE_OPT_REVERSE;
    int i = code - LE_OPT_RATE - (reverse ? LE_OPT_REVERSE : 0);
    if (i < 0 || i >= LE_NDIR_OPTS) {
        fprintf(err, "%s: internal error: option code %d is not a link flag\n", prog, code);
        return -1;
    }
    /* Reverse values wait in o->reverse until le_link_finish, as the forward ones they
     * override may still come later on the command line. */
    if (set_dir(reverse ? &o->reverse : &o->forward, LE_OPT_RATE + i, arg) < 0) {
        fprintf(err, "%s: bad value '%s' for --%s%s; see --help for its unit and range\n", prog,
                arg, reverse ? "reverse-" : "", dir_names[i]);
        return -1;
    }
    if (reverse)
        o->reverse_set[i] = true;
    else
        o->rate_set |= code == LE_OPT_RATE;
    return 0;
}

bool le_link_shared_ok(const struct le_link_opts *o, const char *prog, FILE *err)
{
    bool reverse = false;
    for (int i = 0; i < LE_NDIR_OPTS; i++)
        reverse = reverse || o->reverse_set[i];
    const struct le_dir_cfg *f = &o->forward;
    if (o->framing != LE_FRAMING_ETHERNET || reverse || f->jitter_ns || f->loss_pct ||
        f->cell_loss_ratio || f->bit_error_ratio || f->queue_bytes) {
        fprintf(err, "%s: --medium shared is an Ethernet: give --framing ethernet, no "
                     "--reverse-* flags, no --jitter, --loss-pct, --cell-loss-ratio, "
                     "--bit-error-ratio or --queue-bytes\n", prog);
        return false;
    }
    return true;
}

int le_background_opt(const char *flag, const char *arg, double *fps, uint32_t *octets,
                      const char *prog, FILE *err)
{
    if (strcmp(flag, "background-fps") == 0) {
        if (le_parse_number(arg, 0, LE_BACKGROUND_FPS_MAX, fps) < 0) {
            fprintf(err, "%s: bad --background-fps '%s'; give 0 to %.0f frames a second\n", prog,
                    arg, LE_BACKGROUND_FPS_MAX);
            return -1;
        }
        return 0;
    }
    uint64_t size;
    if (le_parse_size(arg, &size) < 0 || size < 28 || size > 1500) {
        fprintf(err, "%s: bad --background-size '%s'; give 28B to 1500B of IP\n", prog, arg);
        return -1;
    }
    *octets = (uint32_t)size;
    return 0;
}

int le_link_finish(struct le_link_opts *o, const char *prog, FILE *err)
{
    if (!o->rate_set) {
        fprintf(err, "%s: --rate is required, e.g. --rate 10Mbit\n", prog);
        return -1;
    }
    const struct le_dir_cfg *r = &o->reverse;
    struct le_dir_cfg d = o->forward;
    const bool *set = o->reverse_set;
    if (set[LE_OPT_RATE - LE_OPT_RATE]) d.rate_bps = r->rate_bps;
    if (set[LE_OPT_DELAY - LE_OPT_RATE]) d.delay_ns = r->delay_ns;
    if (set[LE_OPT_JITTER - LE_OPT_RATE]) d.jitter_ns = r->jitter_ns;
    if (set[LE_OPT_REORDER - LE_OPT_RATE]) d.reorder = r->reorder;
    if (set[LE_OPT_LOSS - LE_OPT_RATE]) d.loss_pct = r->loss_pct;
    if (set[LE_OPT_CLR - LE_OPT_RATE]) d.cell_loss_ratio = r->cell_loss_ratio;
    if (set[LE_OPT_BER - LE_OPT_RATE]) d.bit_error_ratio = r->bit_error_ratio;
    if (set[LE_OPT_QPKT - LE_OPT_RATE]) d.queue_packets = r->queue_packets;
    if (set[LE_OPT_QBYTES - LE_OPT_RATE]) d.queue_bytes = r->queue_bytes;
    o->reverse = d;
    return 0;
}

void le_link_usage_reverse(FILE *out)
{
    fputs("  --reverse-rate RATE        the b->a direction's rate (default: as --rate)\n"
          "  --reverse-delay TIME       (default: as --delay)\n"
          "  --reverse-jitter TIME      (default: as --jitter)\n"
          "  --reverse-reorder          (default: as --reorder)\n"
          "  --reverse-loss-pct PCT     (default: as --loss-pct)\n"
          "  --reverse-cell-loss-ratio R (default: as --cell-loss-ratio)\n"
          "  --reverse-bit-error-ratio R (default: as --bit-error-ratio)\n"
          "  --reverse-queue-packets N  (default: as --queue-packets)\n"
          "  --reverse-queue-bytes SIZE (default: as --queue-bytes)\n",
          out);
}
