/* The capture at host a's interface: a classic pcap file of raw IPv4 packets (link type 101,
 * as the stack hands the interface IP packets, not frames) with nanosecond timestamps of
 * virtual time, which tcpdump and tshark read.
 *
 * Packets are written in time order. A packet received is written at once, at the current
 * time; a packet sent is stamped when the host's CPU has finished it, which may still lie
 * ahead, so it waits in a queue until the simulation has reached its time. */
#ifndef NETSIM_PCAP_H
#define NETSIM_PCAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NS_PCAP_MAGIC_NS 0xa1b23c4du /* classic pcap, timestamps in nanoseconds */
#define NS_PCAP_LINKTYPE_RAW 101
#define NS_PCAP_SNAPLEN 65535

struct ns_pcap_pending;

struct ns_pcap {
    FILE *f;
    const char *path;
    FILE *err; /* where failures are told */
    struct ns_pcap_pending *head, *tail; /* sent packets not yet written, oldest first */
    uint64_t packets;                    /* written so far */
};

/* Each call returns 0, or a negative errno with what failed and what to do told on err. */

/* Creates path and writes the file header. */
int ns_pcap_open(struct ns_pcap *p, const char *path, FILE *err);
/* A packet host a sent at at_ns, which is no earlier than any packet recorded before. */
int ns_pcap_sent(struct ns_pcap *p, int64_t at_ns, const uint8_t *pkt, size_t len);
/* Writes the sent packets stamped at or before now_ns, then a packet host a received at
 * now_ns. */
int ns_pcap_received(struct ns_pcap *p, int64_t now_ns, const uint8_t *pkt, size_t len);
/* Writes what is still queued and closes the file; does nothing when it is not open. */
int ns_pcap_close(struct ns_pcap *p);

#endif
