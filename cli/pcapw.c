/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pcapw.h"

#define ETH_HDR_LEN 14
#define ETHERTYPE_IPV4 0x0800
#define IPV4_HDR_LEN 20
#define IPPROTO_TCP_NUM 6
#define TCP_HDR_LEN 20
#define TCP_OPT_MSS_LEN 4
#define FRAME_MAX                                                     \
	(ETH_HDR_LEN + IPV4_HDR_LEN + TCP_HDR_LEN + TCP_OPT_MSS_LEN + \
	 PCAPW_MSS_MAX)

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_PSH 0x08
#define TCP_ACK 0x10

/* Classic pcap file format, written little-endian whatever the host. */
#define PCAP_MAGIC 0xa1b2c3d4u
#define PCAP_VERSION_MAJOR 2
#define PCAP_VERSION_MINOR 4
#define PCAP_SNAPLEN 262144
#define PCAP_LINKTYPE_ETHERNET 1

struct pcapw {
	FILE *out;
	struct pcapw_conf conf;
	uint32_t snd_nxt[2]; /* next sequence number each side sends */
	uint32_t snd_una[2]; /* oldest byte of each side not yet acked */
	uint16_t ip_id[2];
	unsigned long n_pkts;
	int err; /* errno of the first failed write, or 0 */
	uint8_t frame[FRAME_MAX];
};

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* RFC 1071 one's complement sum, continued from sum. */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void out_write(struct pcapw *w, const void *p, size_t len)
{
	if (w->err)
		return;
	errno = 0;
	if (fwrite(p, 1, len, w->out) != len)
		w->err = errno ? errno : EIO;
}

static void write_file_header(struct pcapw *w)
{
	uint8_t h[24];

	put_le32(h, PCAP_MAGIC);
	put_le16(h + 4, PCAP_VERSION_MAJOR);
	put_le16(h + 6, PCAP_VERSION_MINOR);
	put_le32(h + 8, 0);  /* thiszone */
	put_le32(h + 12, 0); /* sigfigs */
	put_le32(h + 16, PCAP_SNAPLEN);
	put_le32(h + 20, PCAP_LINKTYPE_ETHERNET);
	out_write(w, h, sizeof(h));
}

static void write_record(struct pcapw *w, size_t len)
{
	uint64_t t = (uint64_t)w->conf.t0_sec * 1000000u +
		     (uint64_t)w->n_pkts * w->conf.step_usec;
	uint8_t h[16];

	put_le32(h, (uint32_t)(t / 1000000u));
	put_le32(h + 4, (uint32_t)(t % 1000000u));
	put_le32(h + 8, (uint32_t)len);
	put_le32(h + 12, (uint32_t)len);
	out_write(w, h, sizeof(h));
	out_write(w, w->frame, len);
	w->n_pkts++;
}

/*
 * Emit one TCP segment from side from with the given flags and payload.
 * Every segment but the initial SYN acknowledges all the peer has sent.
 */
static void emit(struct pcapw *w, int from, uint8_t flags, const uint8_t *data,
		 size_t len)
{
	const struct pcapw_host *src = &w->conf.host[from];
	const struct pcapw_host *dst = &w->conf.host[!from];
	size_t opt_len = (flags & TCP_SYN) ? TCP_OPT_MSS_LEN : 0;
	size_t tcp_len = TCP_HDR_LEN + opt_len + len;
	uint8_t *eth = w->frame;
	uint8_t *ip = eth + ETH_HDR_LEN;
	uint8_t *tcp = ip + IPV4_HDR_LEN;
	uint32_t ack = (flags & TCP_ACK) ? w->snd_nxt[!from] : 0;
	uint32_t sum;
	uint8_t pseudo[12];

	memcpy(eth, dst->mac, 6);
	memcpy(eth + 6, src->mac, 6);
	put_be16(eth + 12, ETHERTYPE_IPV4);

	ip[0] = 0x45; /* version 4, IHL 5 */
	ip[1] = 0;    /* DSCP/ECN */
	put_be16(ip + 2, (uint16_t)(IPV4_HDR_LEN + tcp_len));
	put_be16(ip + 4, w->ip_id[from]++);
	put_be16(ip + 6, 0x4000); /* DF, offset 0 */
	ip[8] = 64;		  /* TTL */
	ip[9] = IPPROTO_TCP_NUM;
	put_be16(ip + 10, 0);
	put_be32(ip + 12, src->addr);
	put_be32(ip + 16, dst->addr);
	put_be16(ip + 10, csum_fold(csum_add(0, ip, IPV4_HDR_LEN)));

	put_be16(tcp, src->port);
	put_be16(tcp + 2, dst->port);
	put_be32(tcp + 4, w->snd_nxt[from]);
	put_be32(tcp + 8, ack);
	tcp[12] = (uint8_t)(((TCP_HDR_LEN + opt_len) / 4) << 4);
	tcp[13] = flags;
	put_be16(tcp + 14, w->conf.window);
	put_be16(tcp + 16, 0); /* checksum */
	put_be16(tcp + 18, 0); /* urgent pointer */
	if (opt_len) {
		tcp[20] = 2; /* MSS option */
		tcp[21] = TCP_OPT_MSS_LEN;
		put_be16(tcp + 22, w->conf.mss);
	}
	if (len)
		memcpy(tcp + TCP_HDR_LEN + opt_len, data, len);

	put_be32(pseudo, src->addr);
	put_be32(pseudo + 4, dst->addr);
	pseudo[8] = 0;
	pseudo[9] = IPPROTO_TCP_NUM;
	put_be16(pseudo + 10, (uint16_t)tcp_len);
	sum = csum_add(0, pseudo, sizeof(pseudo));
	sum = csum_add(sum, tcp, tcp_len);
	put_be16(tcp + 16, csum_fold(sum));

	write_record(w, ETH_HDR_LEN + IPV4_HDR_LEN + tcp_len);

	w->snd_nxt[from] += (uint32_t)len;
	if (flags & (TCP_SYN | TCP_FIN))
		w->snd_nxt[from]++;
	if (flags & TCP_ACK)
		w->snd_una[!from] = w->snd_nxt[!from];
}

#define IPPROTO_UDP_NUM 17
#define UDP_HDR_LEN 8

/* Send one UDP datagram (RFC 768) from side from, host ports as ports. */
int pcapw_udp(struct pcapw *w, int from, const uint8_t *data, size_t len)
{
	const struct pcapw_host *src, *dst;
	uint8_t *eth = w->frame, *ip, *udp, pseudo[12];
	size_t udp_len = UDP_HDR_LEN + len;
	uint32_t sum;
	uint16_t c;

	if ((from != PCAPW_CLIENT && from != PCAPW_SERVER) ||
	    len > PCAPW_MSS_MAX) {
		errno = EINVAL;
		return -1;
	}
	src = &w->conf.host[from];
	dst = &w->conf.host[!from];
	ip = eth + ETH_HDR_LEN;
	udp = ip + IPV4_HDR_LEN;
	memcpy(eth, dst->mac, 6);
	memcpy(eth + 6, src->mac, 6);
	put_be16(eth + 12, ETHERTYPE_IPV4);
	ip[0] = 0x45;
	ip[1] = 0;
	put_be16(ip + 2, (uint16_t)(IPV4_HDR_LEN + udp_len));
	put_be16(ip + 4, w->ip_id[from]++);
	put_be16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = IPPROTO_UDP_NUM;
	put_be16(ip + 10, 0);
	put_be32(ip + 12, src->addr);
	put_be32(ip + 16, dst->addr);
	put_be16(ip + 10, csum_fold(csum_add(0, ip, IPV4_HDR_LEN)));
	put_be16(udp, src->port);
	put_be16(udp + 2, dst->port);
	put_be16(udp + 4, (uint16_t)udp_len);
	put_be16(udp + 6, 0);
	if (len)
		memcpy(udp + UDP_HDR_LEN, data, len);
	put_be32(pseudo, src->addr);
	put_be32(pseudo + 4, dst->addr);
	pseudo[8] = 0;
	pseudo[9] = IPPROTO_UDP_NUM;
	put_be16(pseudo + 10, (uint16_t)udp_len);
	sum = csum_add(0, pseudo, sizeof(pseudo));
	c = csum_fold(csum_add(sum, udp, udp_len));
	put_be16(udp + 6, c ? c : 0xffff); /* RFC 768: 0 means none */
	write_record(w, ETH_HDR_LEN + IPV4_HDR_LEN + udp_len);
	return w->err ? -1 : 0;
}

/* The peer of side from acknowledges everything from has sent. */
static void ack_from_peer(struct pcapw *w, int from)
{
	if (w->snd_una[from] != w->snd_nxt[from])
		emit(w, !from, TCP_ACK, NULL, 0);
}

/* Create a writer and emit the pcap file header. */
struct pcapw *pcapw_new(FILE *out, const struct pcapw_conf *conf)
{
	struct pcapw *w;
	int i;

	if (!out || !conf || conf->mss < PCAPW_MSS_MIN ||
	    conf->mss > PCAPW_MSS_MAX || !conf->window) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->out = out;
	w->conf = *conf;
	for (i = 0; i < 2; i++) {
		w->snd_nxt[i] = conf->host[i].isn;
		w->snd_una[i] = conf->host[i].isn;
		w->ip_id[i] = conf->host[i].ip_id;
	}
	write_file_header(w);
	return w;
}

/* Release a writer created by pcapw_new(). */
void pcapw_free(struct pcapw *w)
{
	free(w);
}

/* Emit SYN, SYN/ACK and ACK. */
int pcapw_connect(struct pcapw *w)
{
	emit(w, PCAPW_CLIENT, TCP_SYN, NULL, 0);
	emit(w, PCAPW_SERVER, TCP_SYN | TCP_ACK, NULL, 0);
	emit(w, PCAPW_CLIENT, TCP_ACK, NULL, 0);
	return pcapw_flush(w);
}

/* Emit one unit of data from one side, segmented to the MSS. */
int pcapw_send(struct pcapw *w, int from, const uint8_t *data, size_t len)
{
	size_t off = 0, seg;
	uint32_t in_flight;
	uint8_t flags;

	if ((from != PCAPW_CLIENT && from != PCAPW_SERVER) || (len && !data)) {
		errno = EINVAL;
		return -1;
	}
	/* The previous unit of this side is acknowledged before the next. */
	ack_from_peer(w, from);
	while (off < len) {
		seg = len - off;
		if (seg > w->conf.mss)
			seg = w->conf.mss;
		in_flight = w->snd_nxt[from] - w->snd_una[from];
		if (in_flight >= 2u * w->conf.mss ||
		    in_flight + seg > w->conf.window)
			ack_from_peer(w, from);
		flags = TCP_ACK;
		if (off + seg == len)
			flags |= TCP_PSH;
		emit(w, from, flags, data + off, seg);
		off += seg;
	}
	if (w->err) {
		errno = w->err;
		return -1;
	}
	return 0;
}

/* Emit the orderly close started by the client. */
int pcapw_close(struct pcapw *w)
{
	emit(w, PCAPW_CLIENT, TCP_FIN | TCP_ACK, NULL, 0);
	emit(w, PCAPW_SERVER, TCP_FIN | TCP_ACK, NULL, 0);
	emit(w, PCAPW_CLIENT, TCP_ACK, NULL, 0);
	return pcapw_flush(w);
}

/* Packets written so far. */
unsigned long pcapw_packets(const struct pcapw *w)
{
	return w->n_pkts;
}

/* Flush the FILE and report any earlier write failure. */
int pcapw_flush(struct pcapw *w)
{
	if (!w->err) {
		errno = 0;
		if (fflush(w->out) != 0 || ferror(w->out))
			w->err = errno ? errno : EIO;
	}
	if (w->err) {
		errno = w->err;
		return -1;
	}
	return 0;
}
