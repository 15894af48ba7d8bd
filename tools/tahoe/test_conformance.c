/* The conformance suite: scripts (tahoe/conformance/<name>.tahoe, format in docs/conformance.md)
 * that pin the stack's behaviour segment by segment. Each script drives one Tahoe stack through its
 * public interface in virtual time: the test makes socket calls, injects the peer's segments,
 * and names every segment the stack must send, when, and with which fields. The first
 * difference is reported with the script's file and line; a segment the script did not expect
 * is a difference too.
 *
 *   test_conformance                       every script in tahoe/conformance (run from tools/)
 *   test_conformance [-v] SCRIPT...        these scripts; -v names each one that passes
 *
 * Prints "FAIL <script>" for each script that fails, then "<name>: N passed, N failed". */
#include <ctype.h>
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "testnet.h"

#define SCRIPT_DIR "tahoe/conformance"
#define SCRIPT_EXT ".tahoe"
#define MAX_LINE 512
#define MAX_VARS 8
#define MAX_FIELDS 16
#define MAX_RAWOPT 40
#define PEER_IP_D 2 /* the peer is 10.0.0.2, the stack 10.0.0.1 (testnet's host 0) */

enum ev_kind { EV_IN, EV_OUT, EV_CALL, EV_TCPCB, EV_TCPSTAT, EV_WAIT, EV_REFUSE };

/* A segment: injected (in) or expected (out). Fields not given are defaulted (in) or not
 * checked (out); len and the options are always checked on out. */
struct seg {
    int flags;
    int has_seq, has_ack, has_win;
    uint32_t seq, ack, win, len;
    int mss, wscale; /* -1: no such option */
    int rule;        /* out: TCPO_* the stack must give, -1: not checked */
    /* in only: malformed segments and other addresses */
    int bad_csum, doff, tcplen; /* -1: as built */
    int has_dst, has_sport, has_dport;
    uint32_t dst;
    uint16_t sport, dport;
    uint8_t raw[MAX_RAWOPT];
    size_t rawlen;
};

enum call_kind {
    C_SOCKET, C_BIND, C_LISTEN, C_ACCEPT, C_CONNECT, C_SEND, C_RECV, C_SETSOCKOPT,
    C_GETSOCKOPT, C_SHUTDOWN, C_CLOSE, C_POLL,
};

struct call {
    int kind;
    int var;    /* the socket argument, -1 for socket() */
    int assign; /* variable set by socket() or accept(), -1 */
    long arg[2];
    int nargs;
    int has_ret;
    long ret;
};

/* One tcpcb or tcpstat field to compare. */
struct field {
    int id;
    long long val;
};

struct check {
    int var;  /* tcpcb: the socket */
    int none; /* tcpcb: the socket has no control block */
    int n;
    struct field f[MAX_FIELDS];
};

struct event {
    int line;
    int kind;
    int rel;        /* time relative to the previous event */
    int64_t t, tol; /* tol < 0: the script's default */
    struct seg seg;
    struct call call;
    struct check check;
    long n; /* refuse: packets */
};

struct script {
    const char *path;
    struct tahoe_config cfg;
    int64_t tolerance;
    uint16_t port, peer_port;
    uint32_t peer_isn;
    char vars[MAX_VARS][16];
    int nvars;
    struct event *ev;
    int nev, cap;
};

/* The state of a run. */
struct run {
    struct script *sc;
    struct tn_net net;
    struct tahoe_stack *st;
    int fd[MAX_VARS];
    size_t next_rec;    /* first captured packet not yet matched */
    int64_t last;       /* time of the previous event */
    uint32_t our_isn;   /* the stack's ISN: its last SYN's sequence number */
    uint32_t peer_nxt;  /* relative: the peer's next new sequence number */
    uint32_t peer_win;  /* the window the peer last advertised */
    uint64_t written;   /* octets the test has sent on the connection */
    uint64_t read;      /* octets the test has read */
    uint16_t port;      /* the stack's port: the script's, or the one its last SYN came from */
    int line;
    int failed;
};

static int verbose;
static int passed, failed;

static void fail(struct run *r, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%d: ", r->sc->path, r->line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Octets of each direction's stream are a pattern of their offset, so data that is resent,
 * reassembled or read can be checked wherever it comes from. */
static uint8_t our_octet(uint64_t i) { return (uint8_t)(i * 13 + 1 + (i >> 8)); }
static uint8_t peer_octet(uint64_t i) { return (uint8_t)(i * 7 + 3 + (i >> 9)); }

/* ---- names ---- */

struct name {
    const char *name;
    long val;
};

static const struct name errnos[] = {
    {"EAGAIN", EAGAIN}, {"EINPROGRESS", EINPROGRESS}, {"ECONNREFUSED", ECONNREFUSED},
    {"ECONNRESET", ECONNRESET}, {"ETIMEDOUT", ETIMEDOUT}, {"EPIPE", EPIPE},
    {"ENOTCONN", ENOTCONN}, {"EINVAL", EINVAL}, {"EISCONN", EISCONN}, {"EALREADY", EALREADY},
    {"ECONNABORTED", ECONNABORTED}, {"EADDRINUSE", EADDRINUSE}, {"ENOPROTOOPT", ENOPROTOOPT},
    {"EBADF", EBADF}, {"ENOBUFS", ENOBUFS}, {NULL, 0},
};

static const struct name sockopts[] = {
    {"SO_SNDBUF", TAHOE_SO_SNDBUF}, {"SO_RCVBUF", TAHOE_SO_RCVBUF},
    {"SO_REUSEADDR", TAHOE_SO_REUSEADDR}, {"SO_KEEPALIVE", TAHOE_SO_KEEPALIVE},
    {"SO_ERROR", TAHOE_SO_ERROR}, {"TCP_NODELAY", TAHOE_TCP_NODELAY},
    {"TCP_WINDOW_CLAMP", TAHOE_TCP_WINDOW_CLAMP}, {"TCP_MAXSEG", TAHOE_TCP_MAXSEG}, {NULL, 0},
};

static const struct name pollbits[] = {
    {"POLLIN", TAHOE_POLLIN}, {"POLLOUT", TAHOE_POLLOUT}, {"POLLERR", TAHOE_POLLERR},
    {"POLLHUP", TAHOE_POLLHUP}, {"CONNECTED", TAHOE_CONNECTED}, {NULL, 0},
};

static const struct name states[] = {
    {"CLOSED", TCPS_CLOSED}, {"LISTEN", TCPS_LISTEN}, {"SYN_SENT", TCPS_SYN_SENT},
    {"SYN_RECEIVED", TCPS_SYN_RECEIVED}, {"ESTABLISHED", TCPS_ESTABLISHED},
    {"CLOSE_WAIT", TCPS_CLOSE_WAIT}, {"FIN_WAIT_1", TCPS_FIN_WAIT_1}, {"CLOSING", TCPS_CLOSING},
    {"LAST_ACK", TCPS_LAST_ACK}, {"FIN_WAIT_2", TCPS_FIN_WAIT_2}, {"TIME_WAIT", TCPS_TIME_WAIT},
    {NULL, 0},
};

static const struct name rules[] = {
    {"S1", TCPO_S1}, {"S2", TCPO_S2}, {"nodelay", TCPO_NODELAY}, {"S3", TCPO_S3},
    {"rexmt", TCPO_REXMT}, {"persist", TCPO_PERSIST}, {"R1", TCPO_R1}, {"R2", TCPO_R2},
    {"acknow", TCPO_ACKNOW}, {"ctl", TCPO_CTL}, {"fin", TCPO_FIN}, {NULL, 0},
};

static int lookup(const struct name *t, const char *s, long *val)
{
    for (; t->name; t++) {
        if (strcmp(t->name, s) == 0) {
            *val = t->val;
            return 0;
        }
    }
    return -1;
}

/* tcpcb fields a script may check. Sequence numbers are relative to the ISN of their side. */
enum cb_field {
    CB_STATE, CB_REXMT, CB_PERSIST, CB_KEEP, CB_2MSL, CB_RXTSHIFT, CB_RXTCUR, CB_DUPACKS,
    CB_MAXSEG, CB_SND_UNA, CB_SND_NXT, CB_SND_MAX, CB_SND_WND, CB_SND_CWND, CB_SND_SSTHRESH,
    CB_RCV_NXT, CB_RCV_ADV, CB_RCV_WND, CB_IDLE, CB_RTT, CB_SRTT, CB_RTTVAR, CB_MAX_SNDWND,
    CB_SND_SCALE, CB_RCV_SCALE,
};

static const struct name cb_fields[] = {
    {"t_state", CB_STATE}, {"t_timer[REXMT]", CB_REXMT}, {"t_timer[PERSIST]", CB_PERSIST},
    {"t_timer[KEEP]", CB_KEEP}, {"t_timer[2MSL]", CB_2MSL}, {"t_rxtshift", CB_RXTSHIFT},
    {"t_rxtcur", CB_RXTCUR}, {"t_dupacks", CB_DUPACKS}, {"t_maxseg", CB_MAXSEG},
    {"snd_una", CB_SND_UNA}, {"snd_nxt", CB_SND_NXT}, {"snd_max", CB_SND_MAX},
    {"snd_wnd", CB_SND_WND}, {"snd_cwnd", CB_SND_CWND}, {"snd_ssthresh", CB_SND_SSTHRESH},
    {"rcv_nxt", CB_RCV_NXT}, {"rcv_adv", CB_RCV_ADV}, {"rcv_wnd", CB_RCV_WND},
    {"t_idle", CB_IDLE}, {"t_rtt", CB_RTT}, {"t_srtt", CB_SRTT}, {"t_rttvar", CB_RTTVAR},
    {"max_sndwnd", CB_MAX_SNDWND}, {"snd_scale", CB_SND_SCALE}, {"rcv_scale", CB_RCV_SCALE},
    {NULL, 0},
};

#define STAT(f) {#f, (long)offsetof(struct tcpstat, f)}
static const struct name stat_fields[] = {
    STAT(tcps_connattempt), STAT(tcps_accepts), STAT(tcps_connects), STAT(tcps_drops),
    STAT(tcps_conndrops), STAT(tcps_closed), STAT(tcps_segstimed), STAT(tcps_rttupdated),
    STAT(tcps_delack), STAT(tcps_timeoutdrop), STAT(tcps_rexmttimeo), STAT(tcps_persisttimeo),
    STAT(tcps_keeptimeo), STAT(tcps_keepprobe), STAT(tcps_keepdrops), STAT(tcps_sndtotal),
    STAT(tcps_sndpack), STAT(tcps_sndbyte), STAT(tcps_sndrexmitpack), STAT(tcps_sndrexmitbyte),
    STAT(tcps_sndacks), STAT(tcps_sndprobe), STAT(tcps_sndwinup), STAT(tcps_sndctrl),
    STAT(tcps_sndrst), STAT(tcps_rcvtotal), STAT(tcps_rcvpack), STAT(tcps_rcvbyte),
    STAT(tcps_rcvbadsum), STAT(tcps_rcvbadoff), STAT(tcps_rcvshort), STAT(tcps_rcvduppack),
    STAT(tcps_rcvdupbyte), STAT(tcps_rcvpartduppack), STAT(tcps_rcvpartdupbyte),
    STAT(tcps_rcvoopack), STAT(tcps_rcvoobyte), STAT(tcps_rcvpackafterwin),
    STAT(tcps_rcvbyteafterwin), STAT(tcps_rcvafterclose), STAT(tcps_rcvwinprobe),
    STAT(tcps_rcvdupack), STAT(tcps_rcvacktoomuch), STAT(tcps_rcvackpack),
    STAT(tcps_rcvackbyte), STAT(tcps_rcvwinupd), STAT(tcps_out_s1), STAT(tcps_out_s2),
    STAT(tcps_out_nodelay), STAT(tcps_out_s3), STAT(tcps_out_rexmt), STAT(tcps_out_persist),
    STAT(tcps_out_r1), STAT(tcps_out_r2), STAT(tcps_out_acknow), STAT(tcps_out_ctl),
    STAT(tcps_out_fin), STAT(tcps_fastrexmt), STAT(tcps_sndbehind), {NULL, 0},
};

/* ---- parsing ---- */

struct cursor {
    const char *p;
    struct script *sc;
    int line;
    int err;
};

static void perr(struct cursor *c, const char *fmt, ...)
{
    if (c->err)
        return;
    c->err = 1;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%d: error: ", c->sc->path, c->line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void skip_ws(struct cursor *c)
{
    while (*c->p == ' ' || *c->p == '\t')
        c->p++;
}

/* The next word: letters, digits and _[]|.-+~ (anything up to a separator). */
static int word(struct cursor *c, char *out, size_t n)
{
    skip_ws(c);
    size_t i = 0;
    while (*c->p && !isspace((unsigned char)*c->p) && !strchr("(),=", *c->p)) {
        if (i + 1 >= n) {
            perr(c, "word too long at '%.20s'", c->p);
            return -1;
        }
        out[i++] = *c->p++;
    }
    out[i] = '\0';
    return i ? 0 : -1;
}

static int expect_char(struct cursor *c, char ch)
{
    skip_ws(c);
    if (*c->p != ch) {
        perr(c, "expected '%c' at '%.20s'", ch, c->p);
        return -1;
    }
    c->p++;
    return 0;
}

static int parse_long(const char *s, long *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 0);
    if (errno || end == s || *end)
        return -1;
    *v = x;
    return 0;
}

/* A duration: a number of seconds, or with a unit (s, ms, us). */
static int parse_duration(const char *s, int64_t *ns)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0)
        return -1;
    double scale = 1e9;
    if (strcmp(end, "ms") == 0)
        scale = 1e6;
    else if (strcmp(end, "us") == 0)
        scale = 1e3;
    else if (*end && strcmp(end, "s") != 0)
        return -1;
    *ns = llround(v * scale);
    return 0;
}

static int var_index(struct cursor *c, const char *name, int create)
{
    struct script *sc = c->sc;
    for (int i = 0; i < sc->nvars; i++)
        if (strcmp(sc->vars[i], name) == 0)
            return i;
    if (!create) {
        perr(c, "unknown socket '%s' (make it with: %s = socket())", name, name);
        return -1;
    }
    if (sc->nvars == MAX_VARS || strlen(name) >= sizeof sc->vars[0] ||
        !isalpha((unsigned char)name[0])) {
        perr(c, "bad socket name '%s'", name);
        return -1;
    }
    strcpy(sc->vars[sc->nvars], name);
    return sc->nvars++;
}

/* A return value: a number, -ENAME, ENAME (getsockopt SO_ERROR) or POLL|BITS. */
static int parse_value(struct cursor *c, const char *s, long *v)
{
    if (parse_long(s, v) == 0)
        return 0;
    int neg = s[0] == '-';
    if (lookup(errnos, s + neg, v) == 0) {
        if (neg)
            *v = -*v;
        return 0;
    }
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    long bits = 0;
    for (char *tok = strtok(buf, "|"); tok; tok = strtok(NULL, "|")) {
        long b;
        if (lookup(pollbits, tok, &b) < 0) {
            perr(c, "bad value '%s' (a number, -ENAME or POLL|BITS)", s);
            return -1;
        }
        bits |= b;
    }
    *v = bits;
    return 0;
}

static int parse_flags(struct cursor *c, const char *s, int *flags)
{
    *flags = 0;
    for (const char *p = s; *p; p++) {
        switch (*p) {
        case 'S': *flags |= TH_SYN; break;
        case 'A': *flags |= TH_ACK; break;
        case 'F': *flags |= TH_FIN; break;
        case 'R': *flags |= TH_RST; break;
        case 'P': *flags |= TH_PUSH; break;
        case 'U': *flags |= TH_URG; break;
        case '-': break;
        default:
            perr(c, "bad flags '%s' (letters of SAFRPU, or - for none)", s);
            return -1;
        }
    }
    return 0;
}

static int parse_hex(struct cursor *c, const char *s, uint8_t *out, size_t *n)
{
    size_t len = strlen(s);
    if (len % 2 || len / 2 > MAX_RAWOPT) {
        perr(c, "bad option octets '%s' (pairs of hex digits, at most %d)", s, MAX_RAWOPT);
        return -1;
    }
    for (size_t i = 0; i < len / 2; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) {
            perr(c, "bad option octets '%s'", s);
            return -1;
        }
        out[i] = (uint8_t)v;
    }
    *n = len / 2;
    return 0;
}

static int parse_seg(struct cursor *c, struct seg *sg, int out)
{
    memset(sg, 0, sizeof *sg);
    sg->mss = sg->wscale = sg->rule = sg->doff = sg->tcplen = -1;
    char w[64];
    if (word(c, w, sizeof w) < 0) {
        perr(c, "expected the segment's flags");
        return -1;
    }
    if (parse_flags(c, w, &sg->flags) < 0)
        return -1;
    while (!c->err) {
        skip_ws(c);
        if (!*c->p)
            break;
        char key[32], val[96];
        if (word(c, key, sizeof key) < 0 || expect_char(c, '=') < 0 ||
            word(c, val, sizeof val) < 0) {
            perr(c, "expected key=value at '%.20s'", c->p);
            return -1;
        }
        long v = 0;
        int isnum = parse_long(val, &v) == 0;
        if (strcmp(key, "rule") == 0 && out) {
            if (lookup(rules, val, &v) < 0) {
                perr(c, "unknown rule '%s'", val);
                return -1;
            }
            sg->rule = (int)v;
        } else if (strcmp(key, "opt") == 0 && !out) {
            if (parse_hex(c, val, sg->raw, &sg->rawlen) < 0)
                return -1;
        } else if (strcmp(key, "csum") == 0 && !out && strcmp(val, "bad") == 0) {
            sg->bad_csum = 1;
        } else if (strcmp(key, "dst") == 0 && !out) {
            unsigned a, b, cc, d;
            if (sscanf(val, "%u.%u.%u.%u", &a, &b, &cc, &d) != 4 || a > 255 || b > 255 ||
                cc > 255 || d > 255) {
                perr(c, "bad address '%s'", val);
                return -1;
            }
            sg->dst = tn_ip((int)a, (int)b, (int)cc, (int)d);
            sg->has_dst = 1;
        } else if (!isnum || v < 0 || v > UINT32_MAX) {
            perr(c, "bad %s segment field %s=%s", out ? "out" : "in", key, val);
            return -1;
        } else if (strcmp(key, "seq") == 0) {
            sg->seq = (uint32_t)v;
            sg->has_seq = 1;
        } else if (strcmp(key, "ack") == 0) {
            sg->ack = (uint32_t)v;
            sg->has_ack = 1;
        } else if (strcmp(key, "win") == 0) {
            sg->win = (uint32_t)v;
            sg->has_win = 1;
        } else if (strcmp(key, "len") == 0) {
            sg->len = (uint32_t)v;
        } else if (strcmp(key, "mss") == 0 && v <= 65535) {
            sg->mss = (int)v;
        } else if (strcmp(key, "wscale") == 0 && v <= 255) {
            sg->wscale = (int)v;
        } else if (strcmp(key, "doff") == 0 && !out && v <= 15) {
            sg->doff = (int)v;
        } else if (strcmp(key, "tcplen") == 0 && !out) {
            sg->tcplen = (int)v;
        } else if (strcmp(key, "sport") == 0 && !out && v <= 65535) {
            sg->sport = (uint16_t)v;
            sg->has_sport = 1;
        } else if (strcmp(key, "dport") == 0 && !out && v <= 65535) {
            sg->dport = (uint16_t)v;
            sg->has_dport = 1;
        } else {
            perr(c, "bad %s segment field %s=%s", out ? "out" : "in", key, val);
            return -1;
        }
    }
    if (!out && (sg->flags & TH_ACK) && !sg->has_ack)
        perr(c, "an injected segment with A needs ack=");
    return c->err ? -1 : 0;
}

static const struct {
    const char *name;
    int kind, nargs; /* arguments after the socket */
} calls[] = {
    {"socket", C_SOCKET, 0}, {"bind", C_BIND, -1}, {"listen", C_LISTEN, 1},
    {"accept", C_ACCEPT, 0}, {"connect", C_CONNECT, 0}, {"send", C_SEND, 1},
    {"recv", C_RECV, 1}, {"setsockopt", C_SETSOCKOPT, 2}, {"getsockopt", C_GETSOCKOPT, 1},
    {"shutdown", C_SHUTDOWN, 0}, {"close", C_CLOSE, 0}, {"poll", C_POLL, 0},
};

/* [var =] name(args) [= value] */
static int parse_call(struct cursor *c, struct call *cl, const char *first)
{
    memset(cl, 0, sizeof *cl);
    cl->var = cl->assign = -1;
    char name[64];
    snprintf(name, sizeof name, "%s", first);
    skip_ws(c);
    if (*c->p == '=') {
        c->p++;
        cl->assign = var_index(c, first, 1);
        if (word(c, name, sizeof name) < 0) {
            perr(c, "expected a call after '%s ='", first);
            return -1;
        }
    }
    size_t k = 0;
    while (k < sizeof calls / sizeof calls[0] && strcmp(calls[k].name, name) != 0)
        k++;
    if (k == sizeof calls / sizeof calls[0]) {
        perr(c, "unknown action '%s'", name);
        return -1;
    }
    cl->kind = calls[k].kind;
    if (cl->kind == C_SOCKET && cl->assign < 0) {
        perr(c, "socket() needs a name: s = socket()");
        return -1;
    }
    if (cl->assign >= 0 && cl->kind != C_SOCKET && cl->kind != C_ACCEPT) {
        perr(c, "%s() returns no socket to name", name);
        return -1;
    }
    if (expect_char(c, '(') < 0)
        return -1;
    char w[64];
    if (cl->kind != C_SOCKET) {
        if (word(c, w, sizeof w) < 0) {
            perr(c, "%s() needs a socket", name);
            return -1;
        }
        cl->var = var_index(c, w, 0);
    }
    for (;;) {
        skip_ws(c);
        if (*c->p == ')')
            break;
        if (expect_char(c, ',') < 0 || word(c, w, sizeof w) < 0 || cl->nargs == 2) {
            perr(c, "bad arguments to %s()", name);
            return -1;
        }
        long v;
        if (lookup(sockopts, w, &v) < 0 && parse_long(w, &v) < 0) {
            perr(c, "bad argument '%s' to %s()", w, name);
            return -1;
        }
        cl->arg[cl->nargs++] = v;
    }
    c->p++;
    if (calls[k].nargs >= 0 ? cl->nargs != calls[k].nargs : cl->nargs > 1) {
        perr(c, "%s() takes %d argument(s) after the socket", name,
             calls[k].nargs < 0 ? 1 : calls[k].nargs);
        return -1;
    }
    skip_ws(c);
    if (*c->p == '=' && cl->assign >= 0) {
        perr(c, "%s() names its socket, so its return value is not given", name);
        return -1;
    }
    if (*c->p == '=') {
        c->p++;
        if (word(c, w, sizeof w) < 0 || parse_value(c, w, &cl->ret) < 0) {
            perr(c, "expected the return value after '='");
            return -1;
        }
        cl->has_ret = 1;
    } else if (cl->assign < 0) {
        perr(c, "%s() needs its expected return value: %s(...) = VALUE", name, name);
        return -1;
    }
    skip_ws(c);
    if (*c->p)
        perr(c, "unexpected '%s' after the call", c->p);
    return c->err ? -1 : 0;
}

static int parse_check(struct cursor *c, struct check *ck, const struct name *fields,
                       const char *what)
{
    while (!c->err) {
        skip_ws(c);
        if (!*c->p)
            break;
        char key[40], val[40];
        if (word(c, key, sizeof key) < 0)
            break;
        if (strcmp(key, "none") == 0 && fields == cb_fields) {
            ck->none = 1;
            continue;
        }
        if (expect_char(c, '=') < 0 || word(c, val, sizeof val) < 0)
            return -1;
        long id, v;
        if (lookup(fields, key, &id) < 0) {
            perr(c, "unknown %s field '%s'", what, key);
            return -1;
        }
        if (parse_long(val, &v) < 0 && !(id == CB_STATE && fields == cb_fields &&
                                         lookup(states, val, &v) == 0)) {
            perr(c, "bad value %s=%s", key, val);
            return -1;
        }
        if (ck->n == MAX_FIELDS) {
            perr(c, "at most %d fields per check", MAX_FIELDS);
            return -1;
        }
        ck->f[ck->n].id = (int)id;
        ck->f[ck->n].val = v;
        ck->n++;
    }
    if (!ck->n && !ck->none)
        perr(c, "%s: name at least one field", what);
    return c->err ? -1 : 0;
}

/* config key=value ...: the stack and the peer, before the first event. */
static int parse_config(struct cursor *c)
{
    struct script *sc = c->sc;
    while (!c->err) {
        skip_ws(c);
        if (!*c->p)
            break;
        char key[32], val[40];
        if (word(c, key, sizeof key) < 0 || expect_char(c, '=') < 0 || word(c, val, sizeof val) < 0)
            return -1;
        long v = 0;
        int64_t ns;
        unsigned a, b, cc, d;
        if (strcmp(key, "netmask") == 0 &&
            sscanf(val, "%u.%u.%u.%u", &a, &b, &cc, &d) == 4) {
            sc->cfg.netmask = tn_ip((int)a, (int)b, (int)cc, (int)d);
        } else if (strcmp(key, "tolerance") == 0 && parse_duration(val, &ns) == 0) {
            sc->tolerance = ns;
        } else if (strcmp(key, "boot") == 0 && parse_duration(val, &ns) == 0) {
            sc->cfg.boot_ns = ns;
        } else if (parse_long(val, &v) < 0 || v < 0) {
            perr(c, "bad config %s=%s", key, val);
        } else if (strcmp(key, "mtu") == 0) {
            sc->cfg.mtu = (int)v;
        } else if (strcmp(key, "sendspace") == 0) {
            sc->cfg.tcp_sendspace = (int)v;
        } else if (strcmp(key, "recvspace") == 0) {
            sc->cfg.tcp_recvspace = (int)v;
        } else if (strcmp(key, "sb_max") == 0) {
            sc->cfg.sb_max = (int)v;
        } else if (strcmp(key, "window_scale") == 0) {
            sc->cfg.window_scale = (int)v;
        } else if (strcmp(key, "iss") == 0) {
            sc->cfg.iss = (uint32_t)v;
        } else if (strcmp(key, "port") == 0 && v <= 65535) {
            sc->port = (uint16_t)v;
        } else if (strcmp(key, "peer_port") == 0 && v <= 65535) {
            sc->peer_port = (uint16_t)v;
        } else if (strcmp(key, "peer_isn") == 0) {
            sc->peer_isn = (uint32_t)v;
        } else {
            perr(c, "unknown config key %s (mtu, sendspace, recvspace, sb_max, window_scale, "
                 "netmask, iss, boot, port, peer_port, peer_isn, tolerance)", key);
        }
    }
    return c->err ? -1 : 0;
}

static int parse_line(struct cursor *c, struct event *ev, int *is_event)
{
    *is_event = 0;
    skip_ws(c);
    if (!*c->p)
        return 0;
    char w[64];
    if (strncmp(c->p, "config", 6) == 0 && isspace((unsigned char)c->p[6])) {
        c->p += 6;
        if (c->sc->nev) {
            perr(c, "config must come before the first event");
            return -1;
        }
        return parse_config(c);
    }
    memset(ev, 0, sizeof *ev);
    ev->line = c->line;
    ev->tol = -1;
    if (word(c, w, sizeof w) < 0) {
        perr(c, "expected a time");
        return -1;
    }
    char *t = w, *tilde = strchr(w, '~');
    if (*t == '+') {
        ev->rel = 1;
        t++;
    }
    if (tilde) {
        *tilde = '\0';
        if (parse_duration(tilde + 1, &ev->tol) < 0) {
            perr(c, "bad tolerance '%s'", tilde + 1);
            return -1;
        }
    }
    if (parse_duration(t, &ev->t) < 0) {
        perr(c, "bad time '%s' (seconds, or +seconds after the previous event; units s, ms, us)",
             t);
        return -1;
    }
    *is_event = 1;
    if (word(c, w, sizeof w) < 0) {
        perr(c, "expected an action after the time");
        return -1;
    }
    if (strcmp(w, "in") == 0 || strcmp(w, "out") == 0) {
        ev->kind = w[0] == 'i' ? EV_IN : EV_OUT;
        return parse_seg(c, &ev->seg, ev->kind == EV_OUT);
    }
    if (strcmp(w, "wait") == 0) {
        ev->kind = EV_WAIT;
        skip_ws(c);
        if (*c->p)
            perr(c, "wait takes nothing");
        return c->err ? -1 : 0;
    }
    if (strcmp(w, "refuse") == 0) {
        ev->kind = EV_REFUSE;
        if (word(c, w, sizeof w) < 0 || parse_long(w, &ev->n) < 0 || ev->n < 1)
            perr(c, "refuse N: the number of packets the interface refuses");
        return c->err ? -1 : 0;
    }
    if (strcmp(w, "tcpstat") == 0) {
        ev->kind = EV_TCPSTAT;
        return parse_check(c, &ev->check, stat_fields, "tcpstat");
    }
    if (strcmp(w, "tcpcb") == 0) {
        ev->kind = EV_TCPCB;
        if (expect_char(c, '(') < 0 || word(c, w, sizeof w) < 0)
            return -1;
        ev->check.var = var_index(c, w, 0);
        if (expect_char(c, ')') < 0)
            return -1;
        return parse_check(c, &ev->check, cb_fields, "tcpcb");
    }
    ev->kind = EV_CALL;
    return parse_call(c, &ev->call, w);
}

static int parse_script(struct script *sc)
{
    FILE *f = fopen(sc->path, "r");
    if (!f) {
        fprintf(stderr, "%s: cannot open: %s\n", sc->path, strerror(errno));
        return -1;
    }
    char buf[MAX_LINE];
    struct cursor c = {.sc = sc};
    while (!c.err && fgets(buf, sizeof buf, f)) {
        c.line++;
        size_t n = strlen(buf);
        if (n == sizeof buf - 1 && buf[n - 1] != '\n') {
            perr(&c, "line longer than %d characters", MAX_LINE - 2);
            break;
        }
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = '\0';
        while (n && isspace((unsigned char)buf[n - 1]))
            buf[--n] = '\0';
        c.p = buf;
        struct event ev;
        int is_event;
        if (parse_line(&c, &ev, &is_event) < 0 || !is_event)
            continue;
        if (sc->nev == sc->cap) {
            sc->cap = sc->cap ? 2 * sc->cap : 64;
            sc->ev = realloc(sc->ev, (size_t)sc->cap * sizeof *sc->ev);
        }
        sc->ev[sc->nev++] = ev;
    }
    fclose(f);
    if (!c.err && sc->nev == 0)
        perr(&c, "no events");
    return c.err ? -1 : 0;
}

/* ---- running ---- */

static void fmt_time(char *buf, size_t n, int64_t ns)
{
    snprintf(buf, n, "%" PRId64 ".%06" PRId64, (int64_t)(ns / TN_SEC),
             (int64_t)(ns % TN_SEC / 1000));
}

static void fmt_flags(char *buf, int flags)
{
    size_t i = 0;
    static const struct {
        int bit;
        char ch;
    } fl[] = {{TH_SYN, 'S'}, {TH_FIN, 'F'}, {TH_RST, 'R'},
              {TH_PUSH, 'P'}, {TH_URG, 'U'}, {TH_ACK, 'A'}};
    for (size_t k = 0; k < sizeof fl / sizeof fl[0]; k++)
        if (flags & fl[k].bit)
            buf[i++] = fl[k].ch;
    if (!i)
        buf[i++] = '-';
    buf[i] = '\0';
}

/* A captured segment as a script line would give it, sequence numbers relative. */
static void fmt_actual(const struct run *r, const struct tn_rec *rec, char *buf, size_t n)
{
    if (rec->proto != IPPROTO_TCP || rec->frag) {
        snprintf(buf, n, "a non-TCP packet (protocol %d%s)", rec->proto,
                 rec->frag ? ", fragment" : "");
        return;
    }
    char fl[8], at[32], opts[40] = "";
    fmt_flags(fl, rec->flags);
    fmt_time(at, sizeof at, rec->at_ns);
    int mss, ws;
    tn_tcp_options(rec->data, rec->size, &mss, &ws);
    size_t k = 0;
    if (mss >= 0)
        k += (size_t)snprintf(opts + k, sizeof opts - k, " mss=%d", mss);
    if (ws >= 0)
        snprintf(opts + k, sizeof opts - k, " wscale=%d", ws);
    snprintf(buf, n, "out %s seq=%u ack=%u win=%u len=%u%s rule=%s at %s", fl,
             rec->seq - r->our_isn, rec->ack - r->sc->peer_isn, rec->win, rec->len, opts,
             tcp_out_reason_name(rec->reason), at);
}

static void fmt_expected(const struct seg *sg, int64_t t, int64_t tol, char *buf, size_t n)
{
    char fl[8], at[32], tl[32];
    fmt_flags(fl, sg->flags);
    fmt_time(at, sizeof at, t);
    fmt_time(tl, sizeof tl, tol);
    size_t k = (size_t)snprintf(buf, n, "out %s", fl);
    if (sg->has_seq)
        k += (size_t)snprintf(buf + k, n - k, " seq=%u", sg->seq);
    if (sg->has_ack)
        k += (size_t)snprintf(buf + k, n - k, " ack=%u", sg->ack);
    if (sg->has_win)
        k += (size_t)snprintf(buf + k, n - k, " win=%u", sg->win);
    k += (size_t)snprintf(buf + k, n - k, " len=%u", sg->len);
    if (sg->mss >= 0)
        k += (size_t)snprintf(buf + k, n - k, " mss=%d", sg->mss);
    if (sg->wscale >= 0)
        k += (size_t)snprintf(buf + k, n - k, " wscale=%d", sg->wscale);
    if (sg->rule >= 0)
        k += (size_t)snprintf(buf + k, n - k, " rule=%s", tcp_out_reason_name(sg->rule));
    snprintf(buf + k, n - k, " at %s~%s", at, tl);
}

/* Fails on the first captured packet no out line has matched. */
static void no_unexpected(struct run *r, const char *when)
{
    if (r->failed || r->next_rec >= r->net.nlog)
        return;
    char a[160];
    fmt_actual(r, &r->net.log[r->next_rec], a, sizeof a);
    fail(r, "unexpected segment %s\n    actual:   %s", when, a);
}

static void advance(struct run *r, int64_t t)
{
    if (t < r->net.now) {
        char a[32], b[32];
        fmt_time(a, sizeof a, t);
        fmt_time(b, sizeof b, r->net.now);
        fail(r, "time %s is before the clock (%s)", a, b);
        return;
    }
    tn_clock(&r->net, t);
}

static void do_out(struct run *r, const struct event *ev, int64_t t, int64_t tol)
{
    const struct seg *sg = &ev->seg;
    char e[200], a[160];
    fmt_expected(sg, t, tol, e, sizeof e);
    /* Step from deadline to deadline until the stack sends or the window closes. */
    int64_t deadline = t + tol;
    while (r->next_rec >= r->net.nlog && !r->failed) {
        int64_t next = tahoe_next_deadline(r->st);
        if (next <= r->net.now || next > deadline)
            next = deadline;
        if (next < r->net.now) {
            fail(r, "nothing sent\n    expected: %s (the clock is already past it)", e);
            return;
        }
        tn_clock(&r->net, next);
        if (next == deadline && r->next_rec >= r->net.nlog) {
            fail(r, "nothing sent\n    expected: %s", e);
            return;
        }
    }
    if (r->failed)
        return;
    const struct tn_rec *rec = &r->net.log[r->next_rec++];
    if ((rec->flags & TH_SYN) && rec->proto == IPPROTO_TCP && !rec->frag) {
        /* A new connection: its sequence numbers and our stream start over, from the port
         * the stack chose. */
        r->our_isn = rec->seq;
        r->written = 0;
        r->port = get16(rec->data + IP_HDRLEN + THO_SPORT);
    }
    fmt_actual(r, rec, a, sizeof a);
    int mss = -1, ws = -1;
    int other = rec->proto == IPPROTO_TCP && !rec->frag
                    ? tn_tcp_options(rec->data, rec->size, &mss, &ws)
                    : -1;
    const char *what = NULL;
    char why[80] = "";
    if (rec->proto != IPPROTO_TCP || rec->frag)
        what = "not a TCP segment";
    else if (!tn_checksums_ok(rec->data, rec->size))
        what = "bad checksum";
    else if (rec->flags != sg->flags)
        what = "flags";
    else if (sg->has_seq && rec->seq - r->our_isn != sg->seq)
        what = "seq";
    else if (sg->has_ack && rec->ack - r->sc->peer_isn != sg->ack)
        what = "ack";
    else if (sg->has_win && rec->win != sg->win)
        what = "win";
    else if (rec->len != sg->len)
        what = "len";
    else if (other != 0 || mss != sg->mss || ws != sg->wscale)
        what = "options";
    else if (sg->rule >= 0 && rec->reason != sg->rule)
        what = "rule";
    else if (rec->at_ns < t - tol || rec->at_ns > t + tol)
        what = "time";
    if (!what && rec->len) {
        /* The payload must be our stream at the segment's offset. */
        const uint8_t *th = rec->data + IP_HDRLEN;
        const uint8_t *d = th + ((th[THO_OFF] >> 4) << 2);
        uint64_t off = (uint64_t)(rec->seq - r->our_isn + ((rec->flags & TH_SYN) ? 1 : 0) - 1);
        for (uint32_t k = 0; k < rec->len; k++) {
            if (d[k] != our_octet(off + k)) {
                snprintf(why, sizeof why, " at stream offset %" PRIu64, off + k);
                what = "payload";
                break;
            }
        }
    }
    if (what)
        fail(r, "segment differs (%s%s)\n    expected: %s\n    actual:   %s", what, why, e, a);
    r->last = rec->at_ns;
}

static void do_in(struct run *r, const struct seg *sg)
{
    struct script *sc = r->sc;
    uint32_t seq = sg->has_seq ? sg->seq : r->peer_nxt;
    if (sg->has_win)
        r->peer_win = sg->win;
    uint8_t opt[MAX_RAWOPT + 12];
    size_t optlen = 0;
    if (sg->mss >= 0) {
        opt[optlen++] = TCPOPT_MAXSEG;
        opt[optlen++] = 4;
        put16(opt + optlen, (uint16_t)sg->mss);
        optlen += 2;
    }
    if (sg->wscale >= 0) {
        opt[optlen++] = TCPOPT_NOP;
        opt[optlen++] = TCPOPT_WINDOW;
        opt[optlen++] = 3;
        opt[optlen++] = (uint8_t)sg->wscale;
    }
    memcpy(opt + optlen, sg->raw, sg->rawlen);
    optlen += sg->rawlen;
    while (optlen % 4)
        opt[optlen++] = TCPOPT_EOL;
    if (optlen > 40) {
        fail(r, "options longer than 40 octets");
        return;
    }
    static uint8_t data[65536], pkt[65536 + 80];
    if (sg->len > sizeof data) {
        fail(r, "len=%u: at most %zu octets", sg->len, sizeof data);
        return;
    }
    uint64_t off = (uint64_t)seq + ((sg->flags & TH_SYN) ? 1 : 0) - 1;
    for (uint32_t k = 0; k < sg->len; k++)
        data[k] = peer_octet(off + k);
    uint32_t src = tn_ip(10, 0, 0, PEER_IP_D);
    uint32_t dst = sg->has_dst ? sg->dst : tn_ip(10, 0, 0, 1);
    size_t n = tn_build_tcp(pkt, src, dst, sg->has_sport ? sg->sport : sc->peer_port,
                            sg->has_dport ? sg->dport : r->port, sc->peer_isn + seq,
                            sg->has_ack ? r->our_isn + sg->ack : 0, sg->flags,
                            (uint16_t)r->peer_win, opt, optlen, data, sg->len);
    uint8_t *th = pkt + IP_HDRLEN;
    if (sg->doff >= 0) {
        th[THO_OFF] = (uint8_t)(sg->doff << 4);
        put16(th + THO_SUM, 0);
        put16(th + THO_SUM, in_pseudo_cksum(src, dst, IPPROTO_TCP, th, n - IP_HDRLEN));
    }
    if (sg->tcplen >= 0 && (size_t)sg->tcplen < n - IP_HDRLEN) {
        n = IP_HDRLEN + (size_t)sg->tcplen;
        put16(pkt + IPO_LEN, (uint16_t)n);
        put16(pkt + IPO_SUM, 0);
        put16(pkt + IPO_SUM, in_cksum(pkt, IP_HDRLEN));
    }
    if (sg->bad_csum)
        th[THO_SUM] ^= 0x01;
    if (sg->flags & TH_SYN)
        r->read = 0; /* a new connection from the peer */
    uint32_t end = seq + sg->len + ((sg->flags & TH_SYN) ? 1 : 0) + ((sg->flags & TH_FIN) ? 1 : 0);
    if (SEQ_GT(end, r->peer_nxt))
        r->peer_nxt = end;
    tahoe_ip_input(r->st, pkt, n);
}

static int sockfd(struct run *r, int var)
{
    if (r->fd[var] < 0)
        fail(r, "socket '%s' is not open", r->sc->vars[var]);
    return r->fd[var];
}

static void do_call(struct run *r, const struct call *cl)
{
    struct script *sc = r->sc;
    struct tahoe_stack *st = r->st;
    long got = 0;
    int fd = cl->var >= 0 ? sockfd(r, cl->var) : -1;
    if (r->failed)
        return;
    static uint8_t buf[1 << 20];
    switch (cl->kind) {
    case C_SOCKET:
        got = tahoe_socket(st, TAHOE_SOCK_STREAM);
        break;
    case C_BIND: {
        struct tahoe_addr a = {0, cl->nargs ? (uint16_t)cl->arg[0] : sc->port};
        got = tahoe_bind(st, fd, &a);
        break;
    }
    case C_LISTEN:
        got = tahoe_listen(st, fd, (int)cl->arg[0]);
        break;
    case C_ACCEPT:
        got = tahoe_accept(st, fd, NULL);
        break;
    case C_CONNECT: {
        struct tahoe_addr a = {tn_ip(10, 0, 0, PEER_IP_D), sc->peer_port};
        got = tahoe_connect(st, fd, &a);
        break;
    }
    case C_SEND: {
        size_t n = (size_t)cl->arg[0];
        if (n > sizeof buf) {
            fail(r, "send of more than %zu octets", sizeof buf);
            return;
        }
        for (size_t k = 0; k < n; k++)
            buf[k] = our_octet(r->written + k);
        got = tahoe_send(st, fd, buf, n);
        if (got > 0)
            r->written += (uint64_t)got;
        break;
    }
    case C_RECV: {
        size_t n = (size_t)cl->arg[0] < sizeof buf ? (size_t)cl->arg[0] : sizeof buf;
        got = tahoe_recv(st, fd, buf, n);
        for (long k = 0; k < got; k++) {
            if (buf[k] != peer_octet(r->read + (uint64_t)k)) {
                fail(r, "recv: octet %" PRIu64 " of the peer's stream differs",
                     r->read + (uint64_t)k);
                return;
            }
        }
        if (got > 0)
            r->read += (uint64_t)got;
        break;
    }
    case C_SETSOCKOPT:
        got = tahoe_setsockopt(st, fd, (int)cl->arg[0], (int)cl->arg[1]);
        break;
    case C_GETSOCKOPT: {
        int v = 0;
        got = tahoe_getsockopt(st, fd, (int)cl->arg[0], &v);
        if (got == 0)
            got = v;
        break;
    }
    case C_SHUTDOWN:
        got = tahoe_shutdown(st, fd);
        break;
    case C_CLOSE:
        got = tahoe_close(st, fd);
        if (got == 0)
            r->fd[cl->var] = -1;
        break;
    case C_POLL:
        got = tahoe_poll(st, fd);
        break;
    }
    if (cl->assign >= 0 && !cl->has_ret) {
        if (got < 0)
            fail(r, "%s failed: %ld (%s)", cl->kind == C_SOCKET ? "socket()" : "accept()", got,
                 strerror((int)-got));
        else
            r->fd[cl->assign] = (int)got;
        return;
    }
    if (got != cl->ret)
        fail(r, "call returned %ld, expected %ld%s%s", got, cl->ret, got < 0 ? " -- " : "",
             got < 0 ? strerror((int)-got) : "");
}

static long long cb_value(const struct run *r, const struct tcpcb *tp, int id)
{
    uint32_t us = r->our_isn, peer = r->sc->peer_isn;
    switch (id) {
    case CB_STATE: return tp->t_state;
    case CB_REXMT: return tp->t_timer[TCPT_REXMT];
    case CB_PERSIST: return tp->t_timer[TCPT_PERSIST];
    case CB_KEEP: return tp->t_timer[TCPT_KEEP];
    case CB_2MSL: return tp->t_timer[TCPT_2MSL];
    case CB_RXTSHIFT: return tp->t_rxtshift;
    case CB_RXTCUR: return tp->t_rxtcur;
    case CB_DUPACKS: return tp->t_dupacks;
    case CB_MAXSEG: return tp->t_maxseg;
    case CB_SND_UNA: return (uint32_t)(tp->snd_una - us);
    case CB_SND_NXT: return (uint32_t)(tp->snd_nxt - us);
    case CB_SND_MAX: return (uint32_t)(tp->snd_max - us);
    case CB_SND_WND: return tp->snd_wnd;
    case CB_SND_CWND: return tp->snd_cwnd;
    case CB_SND_SSTHRESH: return tp->snd_ssthresh;
    case CB_RCV_NXT: return (uint32_t)(tp->rcv_nxt - peer);
    case CB_RCV_ADV: return (uint32_t)(tp->rcv_adv - peer);
    case CB_RCV_WND: return tp->rcv_wnd;
    case CB_IDLE: return tp->t_idle;
    case CB_RTT: return tp->t_rtt;
    case CB_SRTT: return tp->t_srtt;
    case CB_RTTVAR: return tp->t_rttvar;
    case CB_MAX_SNDWND: return tp->max_sndwnd;
    case CB_SND_SCALE: return tp->snd_scale;
    default: return tp->rcv_scale;
    }
}

static const char *field_name(const struct name *t, int id)
{
    for (; t->name; t++)
        if (t->val == id)
            return t->name;
    return "?";
}

static void do_tcpcb(struct run *r, const struct check *ck)
{
    int fd = sockfd(r, ck->var);
    if (r->failed)
        return;
    const struct tcpcb *tp = tahoe_tcpcb(r->st, fd);
    if (ck->none || !tp) {
        if (ck->none != !tp)
            fail(r, ck->none ? "the socket still has a tcpcb (state %d)"
                             : "the socket has no tcpcb",
                 tp ? tp->t_state : 0);
        return;
    }
    for (int i = 0; i < ck->n && !r->failed; i++) {
        long long v = cb_value(r, tp, ck->f[i].id);
        if (v != ck->f[i].val)
            fail(r, "tcpcb %s = %lld, expected %lld", field_name(cb_fields, ck->f[i].id), v,
                 ck->f[i].val);
    }
}

static void do_tcpstat(struct run *r, const struct check *ck)
{
    const uint8_t *ts = (const uint8_t *)tahoe_tcpstat(r->st);
    for (int i = 0; i < ck->n && !r->failed; i++) {
        uint64_t v;
        memcpy(&v, ts + ck->f[i].id, sizeof v);
        if ((long long)v != ck->f[i].val)
            fail(r, "tcpstat %s = %llu, expected %lld", field_name(stat_fields, ck->f[i].id),
                 (unsigned long long)v, ck->f[i].val);
    }
}

static int run_script(struct script *sc)
{
    struct run r;
    memset(&r, 0, sizeof r);
    r.sc = sc;
    for (int i = 0; i < MAX_VARS; i++)
        r.fd[i] = -1;
    tn_init(&r.net, sc->cfg.mtu, 100000000LL, 0);
    r.st = tn_host(&r.net, 0, &sc->cfg);
    r.net.h[1] = NULL; /* the script plays the peer */
    r.our_isn = sc->cfg.iss;
    r.port = sc->port;
    r.peer_win = TCP_MAXWIN;
    if (!r.st) {
        fprintf(stderr, "%s: the stack refused the config\n", sc->path);
        return -1;
    }
    r.last = sc->cfg.boot_ns;
    tn_clock(&r.net, sc->cfg.boot_ns);
    for (int i = 0; i < sc->nev && !r.failed; i++) {
        const struct event *ev = &sc->ev[i];
        r.line = ev->line;
        int64_t t = ev->rel ? r.last + ev->t : ev->t;
        int64_t tol = ev->tol >= 0 ? ev->tol : sc->tolerance;
        if (ev->kind == EV_OUT) {
            do_out(&r, ev, t, tol);
            continue;
        }
        advance(&r, t);
        no_unexpected(&r, "before this line");
        r.last = t;
        switch (ev->kind) {
        case EV_IN: do_in(&r, &ev->seg); break;
        case EV_CALL: do_call(&r, &ev->call); break;
        case EV_TCPCB: do_tcpcb(&r, &ev->check); break;
        case EV_TCPSTAT: do_tcpstat(&r, &ev->check); break;
        case EV_REFUSE: r.net.refuse = (int)ev->n; break;
        default: break;
        }
    }
    if (!r.failed) {
        r.line = sc->ev[sc->nev - 1].line;
        no_unexpected(&r, "after the last line");
    }
    tn_free(&r.net);
    return r.failed ? -1 : 0;
}

static int run_file(const char *path)
{
    struct script sc;
    memset(&sc, 0, sizeof sc);
    sc.path = path;
    tahoe_config_defaults(&sc.cfg);
    sc.port = 80;
    sc.peer_port = 7000;
    sc.peer_isn = 1000000;
    int rc = parse_script(&sc);
    if (rc == 0)
        rc = run_script(&sc);
    free(sc.ev);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    int first = 1;
    if (argc > 1 && strcmp(argv[1], "-v") == 0) {
        verbose = 1;
        first = 2;
    }
    char **paths = NULL;
    size_t n = 0;
    if (first < argc) {
        paths = argv + first;
        n = (size_t)(argc - first);
    } else {
        DIR *d = opendir(SCRIPT_DIR);
        if (!d) {
            fprintf(stderr, "test_conformance: cannot open %s: %s (run from tools/)\n", SCRIPT_DIR,
                    strerror(errno));
            return 1;
        }
        size_t cap = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t len = strlen(e->d_name);
            size_t ext = strlen(SCRIPT_EXT);
            if (len <= ext || strcmp(e->d_name + len - ext, SCRIPT_EXT) != 0)
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 128;
                paths = realloc(paths, cap * sizeof *paths);
            }
            paths[n] = malloc(sizeof SCRIPT_DIR + 1 + len);
            sprintf(paths[n++], "%s/%s", SCRIPT_DIR, e->d_name);
        }
        closedir(d);
        qsort(paths, n, sizeof *paths, by_name);
    }
    for (size_t i = 0; i < n; i++) {
        if (run_file(paths[i]) == 0) {
            passed++;
            if (verbose)
                printf("PASS %s\n", paths[i]);
        } else {
            failed++;
            fprintf(stderr, "FAIL %s\n", paths[i]);
        }
    }
    if (first >= argc) {
        for (size_t i = 0; i < n; i++)
            free(paths[i]);
        free(paths);
    }
    printf("tahoe/test_conformance: %d passed, %d failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}
