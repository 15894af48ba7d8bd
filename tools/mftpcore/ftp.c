#include "ftp.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t mftp_lines_room(const struct mftp_lines *l) { return sizeof l->buf - l->len; }
char *mftp_lines_tail(struct mftp_lines *l) { return l->buf + l->len; }
void mftp_lines_added(struct mftp_lines *l, size_t n) { l->len += n; }

int mftp_lines_next(struct mftp_lines *l, char *out, size_t outlen)
{
    char *nl = memchr(l->buf, '\n', l->len);
    if (!nl)
        return l->len >= MFTP_LINE_MAX ? -1 : 0;
    size_t n = (size_t)(nl - l->buf);
    size_t consumed = n + 1;
    if (n > 0 && l->buf[n - 1] == '\r')
        n--;
    if (n >= outlen || n >= MFTP_LINE_MAX)
        return -1;
    memcpy(out, l->buf, n);
    out[n] = 0;
    memmove(l->buf, l->buf + consumed, l->len - consumed);
    l->len -= consumed;
    return 1;
}

int mftp_split_command(const char *line, char *verb, size_t vlen, const char **arg)
{
    while (*line == ' ')
        line++;
    size_t n = 0;
    while (line[n] && line[n] != ' ') {
        if (n + 1 >= vlen)
            return -1;
        verb[n] = (char)toupper((unsigned char)line[n]);
        n++;
    }
    verb[n] = 0;
    if (n == 0)
        return -1;
    const char *a = line + n;
    while (*a == ' ')
        a++;
    *arg = a;
    return 0;
}

int mftp_reply_code(const char *line, int *last)
{
    if (!isdigit((unsigned char)line[0]) || !isdigit((unsigned char)line[1]) ||
        !isdigit((unsigned char)line[2]) || (line[3] != ' ' && line[3] != '-' && line[3] != 0))
        return -1;
    *last = line[3] != '-';
    return (line[0] - '0') * 100 + (line[1] - '0') * 10 + (line[2] - '0');
}

int mftp_parse_hostport(const char *s, uint32_t *ip_be, uint16_t *port)
{
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s))
            continue;
        unsigned v[6];
        int used = 0;
        if (sscanf(s, "%u,%u,%u,%u,%u,%u%n", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &used) == 6
            && used > 0) {
            for (int i = 0; i < 6; i++)
                if (v[i] > 255)
                    return -1;
            uint8_t b[4] = {(uint8_t)v[0], (uint8_t)v[1], (uint8_t)v[2], (uint8_t)v[3]};
            memcpy(ip_be, b, 4);
            *port = (uint16_t)(v[4] << 8 | v[5]);
            return 0;
        }
        while (isdigit((unsigned char)s[1]))
            s++;
    }
    return -1;
}

void mftp_format_hostport(uint32_t ip_be, uint16_t port, char *buf, size_t len)
{
    const uint8_t *b = (const uint8_t *)&ip_be;
    snprintf(buf, len, "%u,%u,%u,%u,%u,%u", b[0], b[1], b[2], b[3], port >> 8, port & 0xff);
}

int mftp_find_kv(const char *s, const char *key, long long *v)
{
    size_t k = strlen(key);
    for (const char *p = s; (p = strstr(p, key)); p++) {
        if ((p == s || p[-1] == ' ' || p[-1] == ',' || p[-1] == ';') && p[k] == '=') {
            char *end;
            long long x = strtoll(p + k + 1, &end, 10);
            if (end == p + k + 1)
                return -1;
            *v = x;
            return 0;
        }
    }
    return -1;
}
