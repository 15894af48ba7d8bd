/* The connection-count formula, the FTP text helpers and CRC-32. */
#include <string.h>

#include "conncount.h"
#include "crc32.h"
#include "ftp.h"
#include "nrtest.h"

static void test_conn_count(void)
{
    double exact;
    /* W = 10000 octets = 80000 bit, D = 100 ms: one connection gives 800 kbit/s. */
    NRT_EQ_INT(mftp_conn_count(800e3, 10000, 100000000, &exact), 1);
    NRT_CHECK(exact > 0.999 && exact < 1.001);
    NRT_EQ_INT(mftp_conn_count(800e3 * 4, 10000, 100000000, NULL), 4); /* exact multiple */
    NRT_EQ_INT(mftp_conn_count(800e3 * 4 + 1, 10000, 100000000, NULL), 5); /* rounds up */
    NRT_EQ_INT(mftp_conn_count(1e3, 10000, 100000000, &exact), 1); /* at least one */
    NRT_CHECK(exact < 0.01);
    NRT_EQ_INT(mftp_conn_count(1e12, 10000, 100000000, &exact), 16); /* at most 16 */
    NRT_CHECK(exact > 16);
    /* Twice the RTT needs twice the connections; twice the window, half. */
    NRT_EQ_INT(mftp_conn_count(800e3 * 3, 10000, 200000000, NULL), 6);
    NRT_EQ_INT(mftp_conn_count(800e3 * 6, 20000, 100000000, NULL), 3);
    NRT_EQ_INT(mftp_conn_count(0, 10000, 100000000, NULL), -1);
    NRT_EQ_INT(mftp_conn_count(1e6, 0, 100000000, NULL), -1);
    NRT_EQ_INT(mftp_conn_count(1e6, 10000, 0, NULL), -1);
}

static void test_lines(void)
{
    struct mftp_lines l = {.len = 0};
    char line[MFTP_LINE_MAX];
    const char *in = "USER anon\r\nPASS x\nRE";
    memcpy(mftp_lines_tail(&l), in, strlen(in));
    mftp_lines_added(&l, strlen(in));
    NRT_EQ_INT(mftp_lines_next(&l, line, sizeof line), 1);
    NRT_EQ_STR(line, "USER anon");
    NRT_EQ_INT(mftp_lines_next(&l, line, sizeof line), 1);
    NRT_EQ_STR(line, "PASS x");
    NRT_EQ_INT(mftp_lines_next(&l, line, sizeof line), 0);
    memcpy(mftp_lines_tail(&l), "TR f\r\n", 6);
    mftp_lines_added(&l, 6);
    NRT_EQ_INT(mftp_lines_next(&l, line, sizeof line), 1);
    NRT_EQ_STR(line, "RETR f");
    /* A line that never ends is refused rather than buffered forever. */
    memset(mftp_lines_tail(&l), 'x', MFTP_LINE_MAX);
    mftp_lines_added(&l, MFTP_LINE_MAX);
    NRT_EQ_INT(mftp_lines_next(&l, line, sizeof line), -1);
}

static void test_commands(void)
{
    char verb[8];
    const char *arg;
    NRT_EQ_INT(mftp_split_command("retr  my file", verb, sizeof verb, &arg), 0);
    NRT_EQ_STR(verb, "RETR");
    NRT_EQ_STR(arg, "my file");
    NRT_EQ_INT(mftp_split_command("QUIT", verb, sizeof verb, &arg), 0);
    NRT_EQ_STR(arg, "");
    NRT_EQ_INT(mftp_split_command("", verb, sizeof verb, &arg), -1);
    NRT_EQ_INT(mftp_split_command("ABCDEFGHIJ x", verb, sizeof verb, &arg), -1);
    int last;
    NRT_EQ_INT(mftp_reply_code("226 Transfer complete", &last), 226);
    NRT_EQ_INT(last, 1);
    NRT_EQ_INT(mftp_reply_code("211-Features:", &last), 211);
    NRT_EQ_INT(last, 0);
    NRT_EQ_INT(mftp_reply_code(" MCON", &last), -1);
    long long v;
    NRT_EQ_INT(mftp_find_kv("226 Transfer complete: bytes=1048576 window=24576", "window", &v), 0);
    NRT_EQ_INT(v, 24576);
    NRT_EQ_INT(mftp_find_kv("226 done: xwindow=5", "window", &v), -1);
}

static void test_hostport(void)
{
    uint32_t ip;
    uint16_t port;
    char buf[32];
    NRT_EQ_INT(mftp_parse_hostport("227 Entering Passive Mode (127,0,0,1,195,80).", &ip, &port), 0);
    NRT_EQ_INT(port, 195 * 256 + 80);
    const uint8_t *b = (const uint8_t *)&ip;
    NRT_CHECK(b[0] == 127 && b[1] == 0 && b[2] == 0 && b[3] == 1);
    mftp_format_hostport(ip, port, buf, sizeof buf);
    NRT_EQ_STR(buf, "127,0,0,1,195,80");
    NRT_EQ_INT(mftp_parse_hostport("10,0,0,300,1,1", &ip, &port), -1);
    NRT_EQ_INT(mftp_parse_hostport("227 no address here", &ip, &port), -1);
}

static void test_crc32(void)
{
    NRT_EQ_INT(mftp_crc32(0, "123456789", 9), 0xcbf43926u); /* the standard check value */
    uint32_t c = mftp_crc32(0, "1234", 4);
    NRT_EQ_INT(mftp_crc32(c, "56789", 5), 0xcbf43926u);      /* continues across calls */
    NRT_EQ_INT(mftp_crc32(0, "", 0), 0);
}

/* The CRC's definition, one bit at a time, as the sliced loop must give it. */
static uint32_t crc32_bitwise(const uint8_t *p, size_t len)
{
    uint32_t crc = 0xffffffffu;
    while (len--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = crc & 1 ? 0xedb88320u ^ (crc >> 1) : crc >> 1;
    }
    return ~crc;
}

static void test_crc32_sliced(void)
{
    uint8_t data[1037];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof data; i++) {
        x = x * 1103515245u + 12345u;
        data[i] = (uint8_t)(x >> 16);
    }
    /* every start alignment, lengths around the 8-octet step, and a split at every offset */
    for (size_t start = 0; start < 8; start++)
        for (size_t len = 0; len < 40; len++)
            NRT_EQ_INT(mftp_crc32(0, data + start, len), crc32_bitwise(data + start, len));
    uint32_t whole = crc32_bitwise(data, sizeof data);
    for (size_t cut = 0; cut <= 24; cut++)
        NRT_EQ_INT(mftp_crc32(mftp_crc32(0, data, cut), data + cut, sizeof data - cut), whole);
}

int main(void)
{
    NRT_RUN(test_conn_count);
    NRT_RUN(test_lines);
    NRT_RUN(test_commands);
    NRT_RUN(test_hostport);
    NRT_RUN(test_crc32);
    NRT_RUN(test_crc32_sliced);
    return nrt_summary("mftpcore/test_proto");
}
