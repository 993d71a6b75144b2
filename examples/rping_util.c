/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/* iwcm-rping: output, rping's message and data, addresses. */
#include "config.h"

#include <netinet/in.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "rping.h"

int debug;
volatile sig_atomic_t stop_signal;

void on_signal(int sig)
{
	stop_signal = sig;
}

void dbg(const char *fmt, ...)
{
	va_list ap;

	if (!debug)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

void err(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("iwcm-rping: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- rping's message and data ---- */

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

void info_build(uint8_t *p, uint64_t addr, uint32_t stag, uint32_t size)
{
	put_be32(p, addr >> 32);
	put_be32(p + 4, (uint32_t)addr);
	put_be32(p + 8, stag);
	put_be32(p + 12, size);
}

void info_parse(const uint8_t *p, uint64_t *addr, uint32_t *stag,
		uint32_t *size)
{
	*addr = (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
	*stag = get_be32(p + 8);
	*size = get_be32(p + 12);
}

/* The data of ping number ping, exactly as rping's client writes it. */
void ping_fill(char *buf, size_t size, int ping)
{
	int c = RPING_CHAR_FIRST +
		ping % (RPING_CHAR_LAST - RPING_CHAR_FIRST + 1);
	int cc = snprintf(buf, size, RPING_MSG_FMT, ping);
	size_t i;

	for (i = cc > 0 ? (size_t)cc : 0; i < size; i++) {
		buf[i] = (char)c;
		if (++c > RPING_CHAR_LAST)
			c = RPING_CHAR_FIRST;
	}
	buf[size - 1] = '\0';
}

/* What libiwcm knows of a connection (iwcm_conn_query(3)); zero where
 * nothing is known. */
struct iwcm_conn_attr conn_attr(const struct iwcm_conn *conn)
{
	struct iwcm_conn_attr a = { .comp_mask = IWCM_CONN_ATTR_ALL };

	if (iwcm_conn_query(conn, &a) < 0)
		a.comp_mask = 0;
	return a;
}

const char *rtr_name(int rtr)
{
	switch (rtr) {
	case IWCM_RTR_SEND:
		return "send";
	case IWCM_RTR_WRITE:
		return "write";
	case IWCM_RTR_READ:
		return "read";
	default:
		return "none";
	}
}

void set_port(struct sockaddr_storage *ss, int port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
}

int addr_port(const struct sockaddr *sa)
{
	if (!sa)
		return -1;
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return ntohs(((const struct sockaddr_in *)sa)->sin_port);
}
