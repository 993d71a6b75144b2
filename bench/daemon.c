/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The daemon of a run: unless --socket names a running one, iwcm-bench
 * starts its own iwcmd -d on a private socket in a temporary directory
 * and stops it at the end.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <iwcm/iwcm.h>

#include "bench.h"
#include "sctp_raw.h"

struct daemon D;

/* Ctrl-C: stop our daemon and remove its directory. */
void daemon_signal(int sig)
{
	if (D.pid > 0)
		kill(D.pid, SIGKILL);
	if (D.dir[0]) {
		unlink(D.sock);
		unlink(D.admin);
		unlink(D.conf);
		unlink(D.log);
		rmdir(D.dir);
	}
	_exit(128 + sig);
}

static bool executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

/*
 * iwcmd beside this program: in the build tree (bench/ and daemon/ side
 * by side, or bench/.libs/ under libtool), then installed (bin/ and
 * sbin/), then where configure installs it.
 */
static int daemon_find(const struct bench_opts *o)
{
	static const char *const rel[] = {
		"iwcmd",
		"../daemon/iwcmd",
		"../../daemon/iwcmd",
		"../sbin/iwcmd",
	};
	char self[PATH_MAX], *slash;
	ssize_t n;
	size_t i;

	if (o->iwcmd) {
		if (!executable(o->iwcmd)) {
			fprintf(stderr, "iwcm-bench: %s: not an executable\n",
				o->iwcmd);
			return -1;
		}
		snprintf(D.bin, sizeof(D.bin), "%s", o->iwcmd);
		return 0;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash)
			*slash = '\0';
		for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
			if (snprintf(D.bin, sizeof(D.bin), "%s/%s", self,
				     rel[i]) >= (int)sizeof(D.bin))
				continue;
			if (executable(D.bin))
				return 0;
		}
	}
	snprintf(D.bin, sizeof(D.bin), "%s", IWCMD_SBIN);
	if (executable(D.bin))
		return 0;
	fprintf(stderr,
		"iwcm-bench: iwcmd not found beside this program "
		"nor at %s; name it with --iwcmd or use --socket\n",
		IWCMD_SBIN);
	return -1;
}

static void daemon_print_log(void)
{
	char buf[4096];
	FILE *fp = fopen(D.log, "r");
	size_t n;

	if (!fp)
		return;
	fprintf(stderr, "iwcm-bench: iwcmd's log:\n");
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(fp);
}

static void daemon_rmdir(void)
{
	if (!D.dir[0])
		return;
	unlink(D.conf);
	unlink(D.log);
	unlink(D.sock);
	unlink(D.admin);
	rmdir(D.dir);
	D.dir[0] = '\0';
}

/* The pid serving a UNIX socket (SO_PEERCRED), or 0. */
static pid_t socket_peer_pid(const char *path)
{
	struct sockaddr_un sun;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	pid_t pid = 0;
	int fd;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0 &&
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0)
		pid = cred.pid;
	close(fd);
	return pid;
}

/* The UDP port of our daemon's SCTP: IWCM_BENCH_SCTP_UDP_PORT the first
 * time (1 to 65535; iwcm-bench(1)), else a free one. */
static uint16_t daemon_udp_port(void)
{
	static bool asked;
	const char *v = getenv("IWCM_BENCH_SCTP_UDP_PORT");
	char *end;
	long n;

	if (asked || !v || !*v) {
		asked = true;
		return sraw_udp_port_pick();
	}
	asked = true;
	errno = 0;
	n = strtol(v, &end, 10);
	if (!errno && !*end && n >= 1 && n <= 65535)
		return (uint16_t)n;
	fprintf(stderr,
		"iwcm-bench: IWCM_BENCH_SCTP_UDP_PORT '%s' is not a port: a "
		"free one\n",
		v);
	return sraw_udp_port_pick();
}

/*
 * Start iwcmd -d on a private socket and wait until it serves (its
 * client socket accepts a context, at most 5 s).
 */
static int daemon_spawn(const struct bench_opts *o)
{
	const char *tmp = getenv("TMPDIR");
	pid_t parent = getpid();
	struct iwcm_ctx *ctx = NULL;
	FILE *fp;
	int i, st = 0;

	if (!tmp || !*tmp || strlen(tmp) > 40)
		tmp = "/tmp";
	snprintf(D.dir, sizeof(D.dir), "%s/iwcm-bench.XXXXXX", tmp);
	if (!mkdtemp(D.dir)) {
		fprintf(stderr, "iwcm-bench: mkdtemp %s: %s\n", D.dir,
			strerror(errno));
		D.dir[0] = '\0';
		return -1;
	}
	snprintf(D.sock, sizeof(D.sock), "%s/iwcmd.sock", D.dir);
	snprintf(D.admin, sizeof(D.admin), "%s/iwcmd.admin.sock", D.dir);
	snprintf(D.conf, sizeof(D.conf), "%s/iwcmd.conf", D.dir);
	snprintf(D.log, sizeof(D.log), "%s/iwcmd.log", D.dir);
	/* SCTP: a UDP port of its own (RFC 6951), not the shared 9899;
	 * IWCM_BENCH_SCTP_UDP_PORT for the first daemon */
	if (o->sctp && !o->sctp_kernel)
		D.sctp_udp_port = daemon_udp_port();
	fp = fopen(D.conf, "w");
	if (!fp || fputs("# iwcm-bench\nlog_level = info\n", fp) < 0 ||
	    (o->busy_poll_us &&
	     fprintf(fp, "busy_poll_us = %lu\n", o->busy_poll_us) < 0) ||
	    /* --idle: iwcmd keeps them for the whole run */
	    (o->idle && fputs("request_timeout_ms = 600000\n", fp) < 0) ||
	    /* over SCTP all come from 127.0.0.1, past the default 256 per
	     * source, and the default halfopen_max (max_conns / 4, from
	     * the descriptor limit) may be lower too */
	    (o->idle && o->sctp &&
	     fprintf(fp, "halfopen_per_source = %lu\nhalfopen_max = %lu\n",
		     o->idle + BENCH_IDLE_SLACK,
		     o->idle + BENCH_IDLE_SLACK) < 0) ||
	    (D.sctp_udp_port &&
	     fprintf(fp, "sctp_udp_port = %u\nsctp_streams = %u\n",
		     D.sctp_udp_port, SRAW_STREAMS) < 0) ||
	    /* plain SCTP on loopback, as the kernel baseline's */
	    (o->sctp_kernel &&
	     fprintf(fp,
		     "sctp_stack = kernel\nsctp_udp_port = 0\n"
		     "sctp_streams = %u\n",
		     SRAW_STREAMS) < 0) ||
	    fclose(fp) != 0) {
		fprintf(stderr, "iwcm-bench: %s: %s\n", D.conf,
			strerror(errno));
		daemon_rmdir();
		return -1;
	}
	D.pid = fork();
	if (D.pid < 0) {
		perror("iwcm-bench: fork");
		D.pid = 0;
		daemon_rmdir();
		return -1;
	}
	if (D.pid == 0) {
		int fd = open(D.log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		/* Never outlive the benchmark. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent || fd < 0)
			_exit(126);
		dup2(fd, STDERR_FILENO);
		close(fd);
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, STDIN_FILENO);
			dup2(fd, STDOUT_FILENO);
			close(fd);
		}
		unsetenv("NOTIFY_SOCKET");
		unsetenv("LISTEN_FDS");
		unsetenv("LISTEN_PID");
		unsetenv("LISTEN_FDNAMES");
		unsetenv("WATCHDOG_USEC");
		unsetenv("WATCHDOG_PID");
		execl(D.bin, "iwcmd", "-d", "-f", D.conf, "-s", D.sock,
		      (char *)NULL);
		_exit(127);
	}
	D.path = D.sock;
	D.peer_pid = D.pid;
	for (i = 0; i < 500; i++) {
		ctx = iwcm_ctx_open_path(D.sock, IWCM_CTX_NONBLOCK);
		if (ctx || (errno != ECONNREFUSED && errno != ENOENT))
			break;
		if (waitpid(D.pid, &st, WNOHANG) == D.pid) {
			D.pid = 0;
			break;
		}
		poll(NULL, 0, 10);
	}
	if (!ctx) {
		if (D.pid == 0 && WIFEXITED(st))
			fprintf(stderr,
				"iwcm-bench: %s did not start: exit "
				"status %d\n",
				D.bin, WEXITSTATUS(st));
		else if (D.pid == 0)
			fprintf(stderr,
				"iwcm-bench: %s did not start: "
				"status %d\n",
				D.bin, st);
		else
			fprintf(stderr, "iwcm-bench: %s did not start: %s\n",
				D.bin, strerror(errno));
		daemon_print_log();
		if (D.pid > 0) {
			kill(D.pid, SIGKILL);
			waitpid(D.pid, &st, 0);
			D.pid = 0;
		}
		daemon_rmdir();
		return -1;
	}
	iwcm_ctx_close(ctx);
	return 0;
}

/*
 * iwcmd binds its sctp_udp_port at its first SCTP request, and the port
 * was only free when it was picked: the baselines' usrsctp stacks take
 * free UDP ports too, and could take that one first (the iwcm row then
 * fails, "iwcm_listen 127.0.0.1: Address already in use").  A listen
 * over SCTP, closed again, makes iwcmd bind it now; -1 with errno.
 */
static int daemon_sctp_bind(void)
{
	struct iwcm_ctx *ctx = iwcm_ctx_open_path(D.sock, 0);
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	struct iwcm_listener *l = NULL;
	struct sockaddr_in sin;
	int e = ENOMEM;

	if (ctx && p &&
	    iwcm_conn_param_set_transport(p, IWCM_TRANSPORT_SCTP) == 0) {
		bench_sin_loopback(&sin, 0);
		l = iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, p, 1);
		e = errno;
	} else if (!ctx) {
		e = errno;
	}
	if (l)
		iwcm_listener_close(l);
	iwcm_conn_param_free(p);
	if (ctx)
		iwcm_ctx_close(ctx);
	errno = e;
	return l ? 0 : -1;
}

/* The daemon of the run: the one --socket names, or our own. */
int daemon_start(const struct bench_opts *o)
{
	struct iwcm_ctx *ctx;
	int tries;

	if (o->socket) {
		D.path = o->socket;
		ctx = iwcm_ctx_open_path(D.path, IWCM_CTX_NONBLOCK);
		if (!ctx) {
			fprintf(stderr, "iwcm-bench: iwcmd at %s: %s\n", D.path,
				strerror(errno));
			return -1;
		}
		iwcm_ctx_close(ctx);
		D.peer_pid = socket_peer_pid(o->socket);
		return 0;
	}
	if (daemon_find(o) < 0)
		return -1;
	for (tries = 1;; tries++) {
		if (daemon_spawn(o) < 0)
			return -1;
		if (!D.sctp_udp_port || daemon_sctp_bind() == 0)
			return 0;
		if (errno != EADDRINUSE || tries == 3) {
			fprintf(stderr,
				"iwcm-bench: iwcmd's SCTP on UDP port %u: %s\n",
				D.sctp_udp_port, strerror(errno));
			daemon_print_log();
			daemon_stop();
			return -1;
		}
		/* taken meanwhile: another port, another daemon */
		fprintf(stderr,
			"iwcm-bench: iwcmd's SCTP UDP port %u was taken; "
			"another\n",
			D.sctp_udp_port);
		if (daemon_stop() < 0)
			return -1;
	}
}

/*
 * The server process of a run between two hosts (--server-netns): into
 * the server's network namespace, on the iwcmd serving --server-socket
 * (its CPU time measured as the client's daemon's is).  -1 with why on
 * stderr.
 */
int daemon_server_side(const struct bench_opts *o)
{
	char path[PATH_MAX];
	struct iwcm_ctx *ctx;
	int fd;

	if (!o->server_netns)
		return 0;
	if (strchr(o->server_netns, '/'))
		snprintf(path, sizeof(path), "%s", o->server_netns);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", o->server_netns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
		fprintf(stderr, "iwcm-bench: network namespace %s: %s\n", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	D.pid = 0;
	D.path = o->server_socket;
	ctx = iwcm_ctx_open_path(D.path, IWCM_CTX_NONBLOCK);
	if (!ctx) {
		fprintf(stderr, "iwcm-bench: the server's iwcmd at %s: %s\n",
			D.path, strerror(errno));
		return -1;
	}
	iwcm_ctx_close(ctx);
	D.peer_pid = socket_peer_pid(D.path);
	return 0;
}

/* SIGTERM our daemon; -1 when it does not exit cleanly. */
int daemon_stop(void)
{
	uint64_t end = bench_now_ns() + 5 * NS_PER_S;
	int st = 0, rc = 0;

	if (D.pid <= 0)
		return 0;
	kill(D.pid, SIGTERM);
	for (;;) {
		pid_t r = waitpid(D.pid, &st, WNOHANG);

		if (r == D.pid)
			break;
		if (r < 0 || bench_now_ns() > end) {
			kill(D.pid, SIGKILL);
			waitpid(D.pid, &st, 0);
			st = -1;
			break;
		}
		poll(NULL, 0, 5);
	}
	D.pid = 0;
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr,
			"iwcm-bench: iwcmd did not exit cleanly "
			"(status %d)\n",
			st);
		daemon_print_log();
		rc = -1;
	}
	daemon_rmdir();
	return rc;
}
