/* TCP header wire format. */
#ifndef TAHOE_TCP_H
#define TAHOE_TCP_H

#define TCP_HDRLEN 20

#define TH_FIN 0x01
#define TH_SYN 0x02
#define TH_RST 0x04
#define TH_PUSH 0x08
#define TH_ACK 0x10
#define TH_URG 0x20

/* Offsets inside the TCP header. */
#define THO_SPORT 0
#define THO_DPORT 2
#define THO_SEQ 4
#define THO_ACK 8
#define THO_OFF 12
#define THO_FLAGS 13
#define THO_WIN 14
#define THO_SUM 16
#define THO_URP 18

#define TCPOPT_EOL 0
#define TCPOPT_NOP 1
#define TCPOPT_MAXSEG 2
#define TCPOPT_WINDOW 3
#define TCP_MAXWIN 65535
#define TCP_MAX_WINSHIFT 14

/* Default MSS when the peer is not on a local network (4.3BSD TCP_MSS). */
#define TCP_MSS 512

#endif
