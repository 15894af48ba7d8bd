/* The FTP control connection's text: CRLF lines, commands, reply codes and the
 * h1,h2,h3,h4,p1,p2 address form of PASV and PORT (RFC 959). */
#ifndef MFTP_FTP_H
#define MFTP_FTP_H

#include <stddef.h>
#include <stdint.h>

#define MFTP_LINE_MAX 1024

/* Accumulates received octets and hands out complete lines. */
struct mftp_lines {
    char buf[2 * MFTP_LINE_MAX];
    size_t len;
};
/* Room left for the next recv(). */
size_t mftp_lines_room(const struct mftp_lines *l);
char *mftp_lines_tail(struct mftp_lines *l);
void mftp_lines_added(struct mftp_lines *l, size_t n);
/* Takes the next line without its CR LF (a bare LF also ends a line) into out. Returns 1, 0
 * when no complete line is buffered, or -1 when a line is longer than MFTP_LINE_MAX. */
int mftp_lines_next(struct mftp_lines *l, char *out, size_t outlen);

/* Splits "retr  file name" into the upper-cased verb ("RETR") and the argument ("file name",
 * or "" when there is none). Returns -1 when the verb is empty or too long for verb[]. */
int mftp_split_command(const char *line, char *verb, size_t vlen, const char **arg);

/* The reply code of a reply line, or -1; *last is 0 for "123-" continuation lines. */
int mftp_reply_code(const char *line, int *last);

/* Parses the first h1,h2,h3,h4,p1,p2 in s (so a whole 227 reply may be passed). */
int mftp_parse_hostport(const char *s, uint32_t *ip_be, uint16_t *port);
void mftp_format_hostport(uint32_t ip_be, uint16_t port, char *buf, size_t len);

/* Finds "key=NUMBER" in s; returns 0 and sets *v, or -1. */
int mftp_find_kv(const char *s, const char *key, long long *v);

#endif
