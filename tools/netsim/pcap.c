#include "pcap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "safeopen.h"

struct ns_pcap_pending {
    struct ns_pcap_pending *next;
    int64_t at_ns;
    size_t len;
    uint8_t data[];
};

/* The file and record headers of the classic format, written in this host's byte order,
 * which the magic number tells readers. */
struct file_header {
    uint32_t magic;
    uint16_t version_major, version_minor;
    int32_t thiszone;
    uint32_t sigfigs, snaplen, linktype;
};

struct record_header {
    uint32_t ts_sec, ts_nsec, incl_len, orig_len;
};

static int write_failed(struct ns_pcap *p, int rc)
{
    fprintf(p->err, "netsim: writing the capture file %s failed: %s; free some disk space or "
                    "give --pcap another path\n", p->path, strerror(-rc));
    return rc;
}

/* fwrite sets errno on a failed write, but not on every way of writing short. */
static int write_all(struct ns_pcap *p, const void *buf, size_t len)
{
    errno = 0;
    if (fwrite(buf, 1, len, p->f) != len)
        return write_failed(p, errno ? -errno : -EIO);
    return 0;
}

int ns_pcap_open(struct ns_pcap *p, const char *path, FILE *err)
{
    *p = (struct ns_pcap){.path = path, .err = err};
    p->f = nr_fopen_write(path, "wb");
    if (!p->f) {
        int rc = -errno;
        fprintf(err, "netsim: creating the capture file %s failed: %s; give --pcap a path in a "
                     "writable folder\n", path, nr_open_write_error(rc));
        return rc;
    }
    struct file_header h = {NS_PCAP_MAGIC_NS, 2, 4, 0, 0, NS_PCAP_SNAPLEN, NS_PCAP_LINKTYPE_RAW};
    return write_all(p, &h, sizeof h);
}

static int write_packet(struct ns_pcap *p, int64_t at_ns, const uint8_t *pkt, size_t len)
{
    size_t keep = len < NS_PCAP_SNAPLEN ? len : NS_PCAP_SNAPLEN;
    struct record_header r = {(uint32_t)(at_ns / 1000000000), (uint32_t)(at_ns % 1000000000),
                              (uint32_t)keep, (uint32_t)len};
    int rc = write_all(p, &r, sizeof r);
    if (rc == 0)
        rc = write_all(p, pkt, keep);
    if (rc == 0)
        p->packets++;
    return rc;
}

/* Writes the queued sent packets stamped at or before until_ns. */
static int flush_until(struct ns_pcap *p, int64_t until_ns)
{
    while (p->head && p->head->at_ns <= until_ns) {
        struct ns_pcap_pending *q = p->head;
        int rc = write_packet(p, q->at_ns, q->data, q->len);
        if (rc < 0)
            return rc;
        p->head = q->next;
        if (!p->head)
            p->tail = NULL;
        free(q);
    }
    return 0;
}

int ns_pcap_sent(struct ns_pcap *p, int64_t at_ns, const uint8_t *pkt, size_t len)
{
    struct ns_pcap_pending *q = malloc(sizeof *q + len);
    if (!q) {
        fprintf(p->err, "netsim: out of memory keeping a packet for the capture file %s; give "
                        "the run more memory or leave out --pcap\n", p->path);
        return -ENOMEM;
    }
    *q = (struct ns_pcap_pending){.at_ns = at_ns, .len = len};
    memcpy(q->data, pkt, len);
    if (p->tail)
        p->tail->next = q;
    else
        p->head = q;
    p->tail = q;
    return 0;
}

int ns_pcap_received(struct ns_pcap *p, int64_t now_ns, const uint8_t *pkt, size_t len)
{
    int rc = flush_until(p, now_ns);
    return rc < 0 ? rc : write_packet(p, now_ns, pkt, len);
}

int ns_pcap_close(struct ns_pcap *p)
{
    if (!p->f)
        return 0;
    int rc = flush_until(p, INT64_MAX);
    while (p->head) {
        struct ns_pcap_pending *q = p->head;
        p->head = q->next;
        free(q);
    }
    p->tail = NULL;
    if (fclose(p->f) != 0 && rc == 0)
        rc = write_failed(p, -errno);
    p->f = NULL;
    return rc;
}
