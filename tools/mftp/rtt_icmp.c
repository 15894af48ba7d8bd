#include "rtt_icmp.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static uint16_t cksum(const void *p, size_t len)
{
    const uint8_t *b = p;
    uint32_t sum = 0;
    for (size_t i = 0; i + 1 < len; i += 2)
        sum += (uint32_t)(b[i] << 8 | b[i + 1]);
    if (len & 1)
        sum += (uint32_t)(b[len - 1] << 8);
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return htons((uint16_t)~sum);
}

int mftp_icmp_rtt(nrio *io, uint32_t ip_be, int samples, int64_t timeout_ns, int64_t *rtt_ns)
{
    int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
    if (fd < 0)
        return -errno;
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_addr.s_addr = ip_be};
    uint16_t id = (uint16_t)getpid();
    int64_t best = -1;
    int err = -ETIMEDOUT;
    for (int seq = 0; seq < samples; seq++) {
        uint8_t pkt[16] = {0};
        struct icmphdr *h = (struct icmphdr *)pkt;
        h->type = ICMP_ECHO;
        h->un.echo.id = htons(id);
        h->un.echo.sequence = htons((uint16_t)seq);
        h->checksum = cksum(pkt, sizeof pkt);
        int64_t t0 = nrio_now_ns(io);
        if (sendto(fd, pkt, sizeof pkt, 0, (struct sockaddr *)&to, sizeof to) < 0) {
            err = -errno;
            break;
        }
        for (;;) {
            int64_t left = t0 + timeout_ns - nrio_now_ns(io);
            if (left <= 0)
                break;
            struct pollfd pfd = {.fd = fd, .events = POLLIN};
            int r = poll(&pfd, 1, (int)((left + 999999) / 1000000));
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0) {
                err = -errno;
                break;
            }
            if (r == 0)
                break;
            uint8_t buf[1500];
            ssize_t n = recv(fd, buf, sizeof buf, 0);
            int64_t t1 = nrio_now_ns(io);
            if (n < 0) {
                err = -errno;
                break;
            }
            size_t ihl = (size_t)(buf[0] & 0x0f) * 4;
            if ((size_t)n < ihl + sizeof(struct icmphdr))
                continue;
            const struct icmphdr *r_h = (const struct icmphdr *)(buf + ihl);
            /* The raw socket sees every ICMP message, our own requests on loopback too. */
            if (r_h->type != ICMP_ECHOREPLY || ntohs(r_h->un.echo.id) != id ||
                ntohs(r_h->un.echo.sequence) != seq)
                continue;
            if (best < 0 || t1 - t0 < best)
                best = t1 - t0;
            break;
        }
    }
    close(fd);
    if (best < 0)
        return err;
    *rtt_ns = best;
    return 0;
}
