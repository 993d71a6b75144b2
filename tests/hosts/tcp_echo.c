/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * tcp_echo: the plain-TCP baseline of the multi-host harness's loss
 * case, the shape of an iwcm-rping ping without RDMA: the client sends
 * SIZE octets, the server checks them and sends them back, the client
 * checks the echo; COUNT times on one connection.
 *
 *   tcp_echo -s ADDR PORT SIZE COUNT     serve one client
 *   tcp_echo -c ADDR PORT SIZE COUNT     prints "tcp_echo: N octets in
 *                                        S s, M MB/s" (both ways)
 *
 * Exit status 0 when every octet came back as sent.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int io(int fd, uint8_t *p, size_t len, int out)
{
	while (len) {
		ssize_t n = out ? write(fd, p, len) : read(fd, p, len);

		if (n <= 0) {
			perror(out ? "tcp_echo: write" : "tcp_echo: read");
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static uint8_t pat(long round, size_t i)
{
	return (uint8_t)(round * 7 + i * 13 + (i >> 9));
}

static int check(const uint8_t *p, size_t len, long round)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != pat(round, i)) {
			fprintf(stderr,
				"tcp_echo: round %ld octet %zu differs\n",
				round, i);
			return -1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct timespec t0, t1;
	int server, fd, one = 1;
	size_t size;
	long count;
	uint8_t *buf;

	if (argc != 6 || (strcmp(argv[1], "-s") && strcmp(argv[1], "-c"))) {
		fprintf(stderr, "usage: tcp_echo -s|-c ADDR PORT SIZE COUNT\n");
		return 2;
	}
	server = !strcmp(argv[1], "-s");
	size = strtoul(argv[4], NULL, 10);
	count = strtol(argv[5], NULL, 10);
	a.sin_port = htons((uint16_t)atoi(argv[3]));
	if (inet_pton(AF_INET, argv[2], &a.sin_addr) != 1 || !size ||
	    count <= 0) {
		fprintf(stderr, "tcp_echo: bad arguments\n");
		return 2;
	}
	buf = malloc(size);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (!buf || fd < 0)
		return 1;
	if (server) {
		int l = fd;

		setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1)) {
			perror("tcp_echo: bind");
			return 1;
		}
		printf("listening\n");
		fflush(stdout);
		fd = accept(l, NULL, NULL);
		close(l);
		if (fd < 0)
			return 1;
	} else if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("tcp_echo: connect");
		return 1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long r = 0; r < count; r++) {
		if (!server)
			for (size_t i = 0; i < size; i++)
				buf[i] = pat(r, i);
		if (!server && io(fd, buf, size, 1))
			return 1;
		memset(buf, 0, size);
		if (io(fd, buf, size, 0) || check(buf, size, r))
			return 1;
		if (server && io(fd, buf, size, 1))
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!server) {
		double s = (double)(t1.tv_sec - t0.tv_sec) +
			   (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

		printf("tcp_echo: %zu octets in %.3f s, %.2f MB/s\n",
		       size * (size_t)count, s,
		       (double)size * (double)count / s / 1e6);
	}
	close(fd);
	free(buf);
	return 0;
}
