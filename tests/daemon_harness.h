/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_TESTS_DAEMON_HARNESS_H
#define IWCM_TESTS_DAEMON_HARNESS_H

/*
 * Runs the real iwcmd binary for a test: a fresh mkdtemp directory holds
 * its config, its client and admin sockets, its stderr log and a
 * NOTIFY_SOCKET the harness reads, so that starting waits for READY=1
 * (poll with a timeout, no sleeps) and the test sees RELOADING, STOPPING
 * and WATCHDOG notifications.  Without libsystemd the daemon sends none;
 * then the harness polls the client socket until it answers.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "ipc.h"
#include "iwcm.pb-c.h"
#include "ctl.pb-c.h"

#define IWCMD_BIN BUILDDIR "/../daemon/iwcmd"
#define HARNESS_TIMEOUT_MS 5000

struct harness {
	pid_t pid;
	char dir[64];
	char conf[96];
	char sock[96];
	char admin[96];
	char log[96];
	char notify[96];
	int notify_fd;
	unsigned int nofile; /* RLIMIT_NOFILE for the daemon, or 0 */
};

static inline long long harness_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline void harness_write(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	if (!fp || fputs(text, fp) < 0 || fclose(fp) != 0) {
		perror(path);
		abort();
	}
}

/* Read the whole log (what iwcmd -d wrote to stderr). */
static inline char *harness_log(const struct harness *h)
{
	static char buf[65536];
	int fd = open(h->log, O_RDONLY);
	ssize_t n = 0;

	buf[0] = '\0';
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/*
 * Wait for a notification containing what ("READY=1"); other messages
 * are skipped.  Returns true when seen within ms.
 */
static inline bool harness_notified(struct harness *h, const char *what, int ms)
{
	long long end = harness_ms() + ms;
	char buf[1024];

	for (;;) {
		struct pollfd p = { h->notify_fd, POLLIN, 0 };
		long long left = end - harness_ms();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return false;
		n = recv(h->notify_fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		if (strstr(buf, what))
			return true;
	}
}

static inline int harness_connect(const char *path)
{
	struct sockaddr_un sun;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* Prepare the directory and config; the daemon is not started. */
static inline void harness_init(struct harness *h, const char *conf_text)
{
	struct sockaddr_un sun;

	memset(h, 0, sizeof(*h));
	h->pid = -1;
	snprintf(h->dir, sizeof(h->dir), "/tmp/iwcmd-test.XXXXXX");
	if (!mkdtemp(h->dir)) {
		perror("mkdtemp");
		abort();
	}
	snprintf(h->conf, sizeof(h->conf), "%s/iwcmd.conf", h->dir);
	snprintf(h->sock, sizeof(h->sock), "%s/iwcmd.sock", h->dir);
	snprintf(h->admin, sizeof(h->admin), "%s/iwcmd.admin.sock", h->dir);
	snprintf(h->log, sizeof(h->log), "%s/log", h->dir);
	snprintf(h->notify, sizeof(h->notify), "%s/notify", h->dir);
	harness_write(h->conf, conf_text ? conf_text : "");
	h->notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", h->notify);
	if (h->notify_fd < 0 ||
	    bind(h->notify_fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		perror("notify socket");
		abort();
	}
}

/* Start iwcmd -d with extra "NAME=VALUE" environment (NULL-ended). */
static inline pid_t harness_spawn(struct harness *h, const char *const *env,
				  const char *const *args)
{
	pid_t pid = fork();

	if (pid < 0)
		abort();
	if (pid == 0) {
		const char *argv[16];
		int fd = open(h->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		size_t n = 0;

		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(126);
		if (h->nofile) {
			struct rlimit rl = { h->nofile, h->nofile };

			if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
				_exit(125);
		}
		setenv("NOTIFY_SOCKET", h->notify, 1);
		unsetenv("WATCHDOG_USEC");
		unsetenv("WATCHDOG_PID");
		unsetenv("LISTEN_FDS");
		unsetenv("LISTEN_PID");
		unsetenv("LISTEN_FDNAMES");
		for (; env && *env; env++)
			putenv((char *)*env);
		argv[n++] = "iwcmd";
		if (args) {
			for (; *args && n < 14; args++)
				argv[n++] = *args;
		} else {
			argv[n++] = "-d";
			argv[n++] = "-f";
			argv[n++] = h->conf;
			argv[n++] = "-s";
			argv[n++] = h->sock;
		}
		argv[n] = NULL;
		execv(IWCMD_BIN, (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* Wait until the daemon serves (READY=1, else its socket answers). */
static inline bool harness_ready(struct harness *h)
{
#ifdef HAVE_SYSTEMD
	return harness_notified(h, "READY=1", HARNESS_TIMEOUT_MS);
#else
	long long end = harness_ms() + HARNESS_TIMEOUT_MS;

	while (harness_ms() < end) {
		int fd = harness_connect(h->admin);

		if (fd >= 0) {
			close(fd);
			return true;
		}
		poll(NULL, 0, 10);
	}
	return false;
#endif
}

static inline void harness_start_env(struct harness *h, const char *conf,
				     const char *const *env)
{
	harness_init(h, conf);
	h->pid = harness_spawn(h, env, NULL);
	if (!harness_ready(h)) {
		fprintf(stderr, "iwcmd did not start:\n%s\n", harness_log(h));
		abort();
	}
}

static inline void harness_start(struct harness *h, const char *conf)
{
	harness_start_env(h, conf, NULL);
}

/* Wait for pid to exit (up to the timeout); its wait status or -1. */
static inline int harness_wait(pid_t pid)
{
	long long end = harness_ms() + HARNESS_TIMEOUT_MS;
	int st;

	while (harness_ms() < end) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return st;
		if (r < 0)
			return -1;
		poll(NULL, 0, 5);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

/* Stop the daemon with SIGTERM; its wait status. */
static inline int harness_stop(struct harness *h)
{
	int st;

	if (h->pid <= 0)
		return 0;
	kill(h->pid, SIGTERM);
	st = harness_wait(h->pid);
	h->pid = -1;
	return st;
}

static inline void harness_cleanup(struct harness *h)
{
	char cmd[160];

	harness_stop(h);
	if (h->notify_fd >= 0)
		close(h->notify_fd);
	h->notify_fd = -1;
	if (h->dir[0] && strncmp(h->dir, "/tmp/iwcmd-test.", 16) == 0) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", h->dir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", h->dir);
	}
}

/* ---- IPC helpers ---- */

/* Receive one message within the timeout: 1, 0 on EOF, -1 on error. */
static inline int ipc_wait(int fd, struct ipc_msg *m)
{
	struct pollfd p = { fd, POLLIN, 0 };

	if (poll(&p, 1, HARNESS_TIMEOUT_MS) <= 0) {
		errno = ETIMEDOUT;
		return -1;
	}
	return ipc_recv(fd, m, true);
}

/* Open a socket and do the HELLO/VERSION handshake; the fd or -1. */
static inline int ipc_open_hello(const char *path)
{
	static struct ipc_msg m;
	Iwcm__Hello h = IWCM__HELLO__INIT;
	Iwcm__Version *v;
	int fd = harness_connect(path), ok;

	if (fd < 0)
		return -1;
	h.version = IPC_PROTO_VERSION;
	h.client_name = (char *)"check";
	if (ipc_send(fd, IPC_HELLO, 1, &h.base, -1) < 0 ||
	    ipc_wait(fd, &m) != 1 || m.hdr.type != IPC_VERSION) {
		close(fd);
		return -1;
	}
	v = (Iwcm__Version *)ipc_unpack(&m, &iwcm__version__descriptor);
	ok = v && v->result == IWCM__RESULT__RES_OK;
	if (v)
		protobuf_c_message_free_unpacked(&v->base, NULL);
	if (!ok) {
		close(fd);
		return -1;
	}
	return fd;
}

#endif
