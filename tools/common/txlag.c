#include "txlag.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <linux/errqueue.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>

#include "pktstamp.h"

void nr_txlag_init(struct nr_txlag *t) { memset(t, 0, sizeof *t); }

int nr_txlag_enable(int fd)
{
    int flags = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE |
                SOF_TIMESTAMPING_OPT_TSONLY;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof flags) == 0 ? 0 : -errno;
}

static struct nr_txlag_call *call_at(struct nr_txlag *t, unsigned i)
{
    return &t->calls[(t->first + i) % NR_TXLAG_CALLS];
}

void nr_txlag_sent(struct nr_txlag *t, size_t len, int64_t at_ns)
{
    if (t->ncalls == NR_TXLAG_CALLS) {
        t->first = (t->first + 1) % NR_TXLAG_CALLS;
        t->ncalls--;
    }
    uint32_t octets = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
    *call_at(t, t->ncalls++) = (struct nr_txlag_call){at_ns, octets, 0};
}

static unsigned bucket(size_t len)
{
    unsigned b = 0;
    for (size_t top = 128; len > top && b + 1 < NR_TXLAG_BUCKETS; top *= 2)
        b++;
    return b;
}

static int64_t median(const int64_t *v, unsigned n)
{
    int64_t s[NR_TXLAG_WINDOW];
    memcpy(s, v, n * sizeof *v);
    for (unsigned i = 1; i < n; i++)
        for (unsigned j = i; j > 0 && s[j - 1] > s[j]; j--) {
            int64_t x = s[j];
            s[j] = s[j - 1];
            s[j - 1] = x;
        }
    return s[n / 2];
}

static void add_lag(struct nr_txlag *t, size_t len, int64_t lag)
{
    unsigned b = bucket(len);
    t->lags[b][t->next_lag[b]] = lag > 0 ? lag : 0;
    t->next_lag[b] = (t->next_lag[b] + 1) % NR_TXLAG_WINDOW;
    if (t->nlags[b] < NR_TXLAG_WINDOW)
        t->nlags[b]++;
    int64_t m = median(t->lags[b], t->nlags[b]);
    t->lead[b] = m < NR_TXLAG_MAX_LEAD_NS ? m : NR_TXLAG_MAX_LEAD_NS;
    t->samples++;
}

void nr_txlag_stamp(struct nr_txlag *t, int64_t stamp_ns)
{
    /* Calls followed by another call no later than this stamp can get no stamp after it. */
    while (t->ncalls >= 2 && call_at(t, 1)->at_ns <= stamp_ns) {
        t->first = (t->first + 1) % NR_TXLAG_CALLS;
        t->ncalls--;
    }
    struct nr_txlag_call *c = t->ncalls ? call_at(t, 0) : NULL;
    if (!c || c->at_ns > stamp_ns || c->matched)
        return;
    c->matched = 1;
    add_lag(t, c->len, stamp_ns - c->at_ns);
}

/* The extended error that comes with a stamp, at SOL_PACKET, SOL_IP or SOL_IPV6 by family. */
static int is_error_report(const struct cmsghdr *c)
{
    return (c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_TX_TIMESTAMP) ||
           (c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
           (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR);
}

/* The software stamp of a "sent" report in one error-queue message, or -1. */
static int64_t sent_stamp(struct msghdr *msg)
{
    int64_t stamp = -1;
    int sent = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPING &&
            c->cmsg_len >= CMSG_LEN(sizeof(struct scm_timestamping))) {
            struct scm_timestamping ts;
            memcpy(&ts, CMSG_DATA(c), sizeof ts);
            stamp = (int64_t)ts.ts[0].tv_sec * 1000000000LL + ts.ts[0].tv_nsec;
        } else if (is_error_report(c) &&
                   c->cmsg_len >= CMSG_LEN(sizeof(struct sock_extended_err))) {
            struct sock_extended_err ee;
            memcpy(&ee, CMSG_DATA(c), sizeof ee);
            sent = ee.ee_origin == SO_EE_ORIGIN_TIMESTAMPING && ee.ee_info == SCM_TSTAMP_SND;
        }
    }
    return sent ? stamp : -1;
}

int nr_txlag_collect(struct nr_txlag *t, int fd)
{
    int got = 0;
    int64_t real_offset = nr_real_offset_ns();
    for (;;) {
        union {
            char buf[256];
            struct cmsghdr align;
        } ctl;
        char data[64];
        struct iovec iov = {data, sizeof data};
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                             .msg_controllen = sizeof ctl.buf};
        if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return got;
            if (errno == EINTR)
                continue;
            return -errno;
        }
        int64_t stamp = sent_stamp(&msg);
        if (stamp > 0) {
            nr_txlag_stamp(t, stamp - real_offset);
            got++;
        }
    }
}

int64_t nr_txlag_lead(const struct nr_txlag *t, size_t len)
{
    for (int b = (int)bucket(len); b >= 0; b--)
        if (t->nlags[b])
            return t->lead[b];
    return 0;
}
