/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * iwcmd: arguments, configuration, sockets (bound here or inherited from
 * systemd by name), signals and the libevent loop.  SIGHUP reloads the
 * configuration, SIGTERM and SIGINT stop the daemon after failing every
 * handshake still in progress.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "iwcmd.h"
#include "log.h"
#include "sd_compat.h"

#define IWCMD_CONF_DEFAULT "/etc/iwcm/iwcmd.conf"
/* Descriptors kept beside the connections: clients, listeners, logs. */
#define IWCMD_FD_RESERVE 256

struct event_base *iwcmd_base;
const struct iwcmd_conf *iwcmd_conf;
struct iwcmd_stats iwcmd_stats;
struct timespec iwcmd_start;

static struct iwcmd_conf *main_conf; /* what iwcmd_conf points to */
static const char *main_conf_path = IWCMD_CONF_DEFAULT;
static bool main_conf_explicit;
static bool main_verbose;
static const char *main_socket; /* --socket */
static struct event *main_sig[3];

/* Who hears what happens to connections. */
static const struct conn_notify main_notify = {
	.request = client_api_request,
	.error = client_api_error,
	.rejected = client_api_rejected,
	.established = client_api_established,
	.report = admin_report,
};

/* What the control sockets hand their peers' messages to. */
static const struct control_handlers main_handlers = {
	.client = client_api_dispatch,
	.admin = admin_dispatch,
	.gone = client_api_gone,
};

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: iwcmd [-dhnv] [--version] [-f|--config FILE] "
		"[-s|--socket PATH]\n"
		"  -d, --debug        stay in the foreground, log to stderr\n"
		"  -f, --config FILE  configuration (default %s)\n"
		"  -s, --socket PATH  client socket (default from the "
		"configuration,\n"
		"                     else /run/iwcm/iwcmd.sock); the admin "
		"socket is beside it\n"
		"  -n, --check        check the configuration and exit\n"
		"  -v, --verbose      log debug messages\n"
		"  -h, --help         this text\n"
		"      --version      print the version\n",
		IWCMD_CONF_DEFAULT);
}

/* Load the configuration into a fresh struct; a missing default file
 * means the built-in defaults. */
static struct iwcmd_conf *main_load(char *err, size_t errlen)
{
	struct iwcmd_conf *c = malloc(sizeof(*c));

	if (!c)
		fatal("configuration");
	if (conf_load(main_conf_path, c, err, errlen) == 0)
		return c;
	if (errno == ENOENT && !main_conf_explicit) {
		conf_defaults(c);
		return c;
	}
	free(c);
	return NULL;
}

/*
 * Every connection being negotiated holds a socket: raise the soft
 * RLIMIT_NOFILE (1024 by default, also under systemd) to the hard limit
 * and size max_conns from it, with IWCMD_FD_RESERVE left for the clients
 * and listeners (conf_limits()).  A configured max_conns that does not
 * fit is lowered rather than run out of descriptors: at EMFILE neither
 * the listeners nor the control sockets could accept.
 */
static void main_nofile(struct iwcmd_conf *c)
{
	unsigned long long cur = 0;
	struct rlimit rl;
	unsigned int lowered;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0) {
		log_warn("getrlimit");
	} else {
		if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
				log_warn("setrlimit");
			if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
				rl.rlim_cur = 0;
		}
		if (rl.rlim_cur != RLIM_INFINITY)
			cur = (unsigned long long)rl.rlim_cur;
	}
	lowered = conf_limits(c, cur, IWCMD_FD_RESERVE);
	if (lowered)
		log_warnx("descriptor limit %llu: max_conns %u lowered to %u",
			  cur, lowered, c->lim.max_conns);
	log_debug("descriptor limit %llu: max_conns %u, halfopen_max %u "
		  "(%u per source), conn_reserve %u",
		  cur, c->lim.max_conns, c->lim.halfopen_max,
		  c->halfopen_per_source, c->lim.conn_reserve);
}

static void main_reload(void)
{
	struct iwcmd_conf *c, *old = main_conf;
	char err[512];

	sd_notify(0, "RELOADING=1");
	c = main_load(err, sizeof(err));
	if (!c) {
		log_warnx("reload: %s; keeping the current configuration", err);
		watchdog_notify("READY=1");
		return;
	}
	if (!main_socket && strcmp(c->socket_path, old->socket_path))
		log_warnx("reload: the socket path changes only at restart");
	main_nofile(c);
	main_conf = c;
	iwcmd_conf = c;
	if (!main_verbose)
		log_setverbose(c->verbose);
	if (listener_init_config(c) < 0)
		log_warnx("reload: some listeners could not be set up");
	if (sctp_conn_init_config(c) < 0)
		log_warnx("reload: some SCTP listeners could not be set up");
	free(old);
	log_info("configuration reloaded from %s", main_conf_path);
	watchdog_notify("READY=1");
}

static void main_stop(int sig)
{
	log_info("%s received, stopping", strsignal(sig));
	sd_notify(0, "STOPPING=1");
	/* handshakes in progress fail with RES_ESHUTDOWN first, then the
	 * sockets close */
	conn_abort_all();
	sctp_conn_shutdown();
	listener_shutdown();
	control_shutdown();
	watchdog_stop();
	loop_stop();
}

static void main_signal(evutil_socket_t sig, short what, void *arg)
{
	switch (sig) {
	case SIGHUP:
		main_reload();
		break;
	case SIGTERM:
	case SIGINT:
		main_stop((int)sig);
		break;
	}
}

/* The path a socket-activated UNIX socket is bound to, if any. */
static bool main_sock_path(int fd, char *out, size_t len)
{
	struct sockaddr_un sun;
	socklen_t sl = sizeof(sun);

	if (getsockname(fd, (struct sockaddr *)&sun, &sl) < 0 ||
	    sun.sun_family != AF_UNIX ||
	    sl <= offsetof(struct sockaddr_un, sun_path) || !sun.sun_path[0])
		return false;
	snprintf(out, len, "%.*s", (int)sizeof(sun.sun_path), sun.sun_path);
	return true;
}

/*
 * Sockets passed by systemd, by FileDescriptorName= (never by order):
 * "client", "admin", or the name of a configured listener.
 */
static void main_activation(int *client_fd, int *admin_fd)
{
	char **names = NULL;
	int n, i;

	*client_fd = *admin_fd = -1;
	n = sd_listen_fds_with_names(1, &names);
	if (n < 0) {
		errno = -n;
		log_warn("socket activation");
		return;
	}
	for (i = 0; i < n; i++) {
		int fd = SD_LISTEN_FDS_START + i;
		const char *name = names && names[i] ? names[i] : "";

		if (!strcmp(name, "client") && *client_fd < 0) {
			*client_fd = fd;
		} else if (!strcmp(name, "admin") && *admin_fd < 0) {
			*admin_fd = fd;
		} else {
			/* a TCP socket for the [listener NAME] of its name */
			listener_adopt(name, fd);
		}
	}
	if (names) {
		for (i = 0; i < n; i++)
			free(names[i]);
		free(names);
	}
}

static enum log_dest main_log_dest(bool debug)
{
	if (debug)
		return LOG_TO_STDERR;
	/* under systemd stderr goes to the journal */
	if (getenv("JOURNAL_STREAM") || getenv("INVOCATION_ID") ||
	    getenv("NOTIFY_SOCKET"))
		return LOG_TO_JOURNAL;
	return LOG_TO_SYSLOG;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "debug", no_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'f' },
		{ "socket", required_argument, NULL, 's' },
		{ "check", no_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const int sigs[3] = { SIGTERM, SIGINT, SIGHUP };
	char client_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char admin_path[sizeof(client_path)], err[512];
	bool debug = false, check = false;
	int ch, client_fd, admin_fd, i;
	enum log_dest dest;

	clock_gettime(CLOCK_MONOTONIC, &iwcmd_start);
	while ((ch = getopt_long(argc, argv, "df:s:nvh", opts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			debug = true;
			break;
		case 'f':
			main_conf_path = optarg;
			main_conf_explicit = true;
			break;
		case 's':
			main_socket = optarg;
			break;
		case 'n':
			check = true;
			break;
		case 'v':
			main_verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("iwcmd %s\n", PACKAGE_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	dest = main_log_dest(debug || check);
	log_init(dest, main_verbose, "iwcmd");
	main_conf = main_load(err, sizeof(err));
	if (!main_conf)
		fatalx("%s", err);
	iwcmd_conf = main_conf;
	if (check) {
		fprintf(stderr, "configuration OK\n");
		return 0;
	}
	log_init(dest, main_verbose || main_conf->verbose, "iwcmd");
	main_nofile(main_conf);

	signal(SIGPIPE, SIG_IGN);
	iwcmd_base = control_base_new();
	if (!iwcmd_base)
		fatalx("event_base_new failed");

	main_activation(&client_fd, &admin_fd);
	snprintf(client_path, sizeof(client_path), "%s",
		 main_socket ? main_socket : main_conf->socket_path);
	if (strlen(main_socket ? main_socket : main_conf->socket_path) >=
	    sizeof(client_path))
		fatalx("socket path too long");
	if (client_fd >= 0)
		main_sock_path(client_fd, client_path, sizeof(client_path));
	conn_init(&main_notify);
	sctp_conn_init(&client_api_sctp_notify);
	control_admin_path(client_path, admin_path, sizeof(admin_path));
	if (!admin_path[0])
		fatalx("socket path too long: %s", client_path);
	if (control_init(client_path, client_fd, admin_path, admin_fd,
			 &main_handlers) < 0)
		fatalx("cannot set up the control sockets");
	if (listener_init_config(main_conf) < 0)
		fatalx("cannot set up the configured listeners");
	if (sctp_conn_init_config(main_conf) < 0)
		fatalx("cannot set up the configured SCTP listeners");
	/* detach only once the sockets are up, so that a failure to start
	 * shows in the exit status */
	if (dest == LOG_TO_SYSLOG) {
		if (daemon(0, 0) < 0)
			fatal("daemon");
		if (event_reinit(iwcmd_base) < 0)
			fatalx("event_reinit failed");
	}

	for (i = 0; i < 3; i++) {
		main_sig[i] =
			evsignal_new(iwcmd_base, sigs[i], main_signal, NULL);
		if (!main_sig[i] || evsignal_add(main_sig[i], NULL) < 0)
			fatalx("signal setup failed");
	}
	watchdog_init();
	log_info("iwcmd %s started, pid %ld, socket %s%s", PACKAGE_VERSION,
		 (long)getpid(), client_path,
		 client_fd >= 0 ? " (socket activation)" : "");
	watchdog_notify("READY=1");

	if (loop_run(iwcmd_base) < 0)
		fatalx("event loop failed");

	for (i = 0; i < 3; i++)
		event_free(main_sig[i]);
	event_base_free(iwcmd_base);
	iwcmd_base = NULL;
	iwcmd_conf = NULL;
	free(main_conf);
	log_info("stopped");
	return 0;
}
