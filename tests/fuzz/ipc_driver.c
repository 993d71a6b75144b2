/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The daemon in-process for the IPC harnesses (see ipc_driver.h): what
 * main.c sets up, the peers on the client and admin sockets, and the
 * checks after each input.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <usrsctp.h>

#include "conn.h"
#include "fuzz/ipc_driver.h"
#include "log.h"
#include "sctp_stack.h"
#include "sctp_usrsctp_int.h" /* us_kick() */
#include "udp_port.h"

/* An hour: no timer expires by itself while an input runs. */
#define FZ_TIMEOUT_MS 3600000u

struct event_base *iwcmd_base;
const struct iwcmd_conf *iwcmd_conf;
struct iwcmd_stats iwcmd_stats;
struct timespec iwcmd_start;

struct fz_ipc FI;

/* main.c's tables. */
static const struct conn_notify fz_ipc_notify = {
	.request = client_api_request,
	.error = client_api_error,
	.rejected = client_api_rejected,
	.established = client_api_established,
	.report = admin_report,
};

static const struct control_handlers fz_ipc_handlers = {
	.client = client_api_dispatch,
	.admin = admin_dispatch,
	.gone = client_api_gone,
};

/* ---- what the daemon sends ---- */

static void fz_ipc_note_conn(int slot, uint64_t id)
{
	if (id)
		FI.conn_ids[slot][FI.n_conn[slot]++ % FZ_IPC_IDS] = id;
}

static void fz_ipc_note_lis(int slot, uint64_t id, const Iwcm__SockAddr *a)
{
	struct fz_ipc_addr *b;

	FI.lis_ids[slot][FI.n_lis[slot]++ % FZ_IPC_IDS] = id;
	if (!a || a->addr.len > sizeof(b->addr))
		return;
	b = &FI.bound[FI.n_bound++ % FZ_IPC_IDS];
	memcpy(b->addr, a->addr.data, a->addr.len);
	b->len = a->addr.len;
	b->port = a->port;
}

static const ProtobufCMessageDescriptor *fz_ipc_desc(uint16_t type)
{
	switch (type) {
	case IPC_VERSION:
		return &iwcm__version__descriptor;
	case IPC_RESULT:
		return &iwcm__ctl__result__descriptor;
	case IPC_CTL_STATUS_REPLY:
		return &iwcm__ctl__status__descriptor;
	case IPC_CTL_LISTENER_INFO:
		return &iwcm__ctl__listener_info__descriptor;
	case IPC_CTL_CONN_INFO:
		return &iwcm__ctl__conn_info__descriptor;
	case IPC_CTL_STATS_REPLY:
		return &iwcm__ctl__stats__descriptor;
	case IPC_CTL_NEGOTIATION:
		return &iwcm__ctl__negotiation_report__descriptor;
	case IPC_CLIENT_LISTEN_REPLY:
		return &iwcm__listen_reply__descriptor;
	case IPC_CLIENT_ACK:
		return &iwcm__ack__descriptor;
	case IPC_EVENT_CONNECT_REQUEST:
		return &iwcm__connect_request__descriptor;
	case IPC_EVENT_ESTABLISHED:
		return &iwcm__established__descriptor;
	case IPC_EVENT_REJECTED:
		return &iwcm__rejected__descriptor;
	case IPC_EVENT_UNREACHABLE:
	case IPC_EVENT_ERROR:
		return &iwcm__conn_error__descriptor;
	default:
		return NULL;
	}
}

/* One message from the daemon: it must unpack; remember its ids. */
static void fz_ipc_heard(int slot, uint16_t type, const uint8_t *body,
			 size_t len)
{
	const ProtobufCMessageDescriptor *d = fz_ipc_desc(type);
	ProtobufCMessage *m;

	if (type == IPC_END) {
		FZ_CHECK(len == 0);
		return;
	}
	FZ_CHECK(d != NULL);
	m = protobuf_c_message_unpack(d, NULL, len, body);
	FZ_CHECK(m != NULL);
	switch (type) {
	case IPC_CLIENT_LISTEN_REPLY: {
		Iwcm__ListenReply *r = (Iwcm__ListenReply *)m;

		if (r->has_listener_id)
			fz_ipc_note_lis(slot, r->listener_id, r->bound);
		break;
	}
	case IPC_CLIENT_ACK: {
		Iwcm__Ack *a = (Iwcm__Ack *)m;

		if (a->has_conn_id && a->result == IWCM__RESULT__RES_OK)
			fz_ipc_note_conn(slot, a->conn_id);
		break;
	}
	case IPC_EVENT_CONNECT_REQUEST:
		fz_ipc_note_conn(slot, ((Iwcm__ConnectRequest *)m)->conn_id);
		break;
	case IPC_CTL_CONN_INFO:
		fz_ipc_note_conn(slot, ((Iwcm__Ctl__ConnInfo *)m)->id);
		break;
	case IPC_CTL_LISTENER_INFO: {
		Iwcm__Ctl__ListenerInfo *li = (Iwcm__Ctl__ListenerInfo *)m;

		fz_ipc_note_lis(slot, li->id, li->addr);
		break;
	}
	}
	protobuf_c_message_free_unpacked(m, NULL);
}

/* Read what slot's peer was sent; 1 when something came. */
static int fz_ipc_read(int slot)
{
	static uint8_t buf[IPC_MAX_MSG + 1];
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(8 * sizeof(int))];
	} cbuf;
	struct msghdr mh;
	struct iovec iov;
	struct cmsghdr *cm;
	ssize_t n;
	int nfds = 0, got = 0;
	uint16_t type;

	while (FI.fd[slot] >= 0) {
		memset(&mh, 0, sizeof(mh));
		iov.iov_base = buf;
		iov.iov_len = sizeof(buf);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf.buf;
		mh.msg_controllen = sizeof(cbuf.buf);
		n = recvmsg(FI.fd[slot], &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (n <= 0) {
			/* the daemon closed this peer */
			close(FI.fd[slot]);
			FI.fd[slot] = -1;
			return 1;
		}
		got = 1;
		nfds = 0;
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			size_t i, k;

			FZ_CHECK(cm->cmsg_level == SOL_SOCKET &&
				 cm->cmsg_type == SCM_RIGHTS);
			k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (i = 0; i < k; i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int),
				       sizeof(fd));
				close(fd);
				nfds++;
			}
		}
		FZ_CHECK(!(mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)));
		FZ_CHECK(n >= IPC_HDR_LEN && buf[0] == 0 &&
			 buf[1] == IPC_PROTO_VERSION);
		type = (uint16_t)(buf[2] << 8 | buf[3]);
		/* one fd per handoff message, and only there */
		FZ_CHECK(nfds == (type == IPC_EVENT_ESTABLISHED));
		fz_ipc_heard(slot, type, buf + IPC_HDR_LEN,
			     (size_t)n - IPC_HDR_LEN);
	}
	return got;
}

/* The uids the clients have: ours, root and another (ipc_driver.h). */
#define FZ_IPC_UIDS 3

struct fz_ipc_pending {
	uid_t uid[FZ_IPC_UIDS];
	unsigned int n[FZ_IPC_UIDS];
};

static void fz_ipc_pending_add(struct fz_ipc_pending *p, uid_t uid)
{
	for (int k = 0; k < FZ_IPC_UIDS; k++)
		if (p->uid[k] == uid)
			p->n[k]++;
}

static void fz_ipc_pending_one(const struct conn *c, void *arg)
{
	if (c->role == NEG_RESPONDER && c->fsm.state == CONN_S_WAIT_ULP &&
	    c->owner)
		fz_ipc_pending_add(arg, c->owner->uid);
}

static void fz_ipc_pending_sctp(const struct sctp_conn_info *i, void *arg)
{
	if (!i->initiator && i->has_owner && !strcmp(i->state, "WAIT_ULP"))
		fz_ipc_pending_add(arg, i->owner_uid);
}

/* conn.c and sctp_conn.c keep the requests awaiting a decision on lists
 * of their own: conn_uid_pending() must count what a walk over every
 * connection of both counts, for each uid the clients have (one walk
 * for all: sctp_conn_foreach() asks usrsctp about each association). */
static void fz_ipc_check_pending(void)
{
	struct fz_ipc_pending p = { .uid = { getuid(), 0, 4242 } };

	conn_foreach(fz_ipc_pending_one, &p);
	sctp_conn_foreach(fz_ipc_pending_sctp, &p);
	for (int k = 0; k < FZ_IPC_UIDS; k++)
		if (k == 0 || p.uid[k] != p.uid[0])
			FZ_CHECK(conn_uid_pending(p.uid[k]) == p.n[k]);
}

/* Run the loop and read what the daemon sends until all is quiet: one
 * poll(2) tells which peers have something, so a quiet round costs two
 * system calls. */
static void fz_ipc_pump_quiet(void)
{
	struct pollfd pfd[FZ_IPC_PEERS];
	int i, slot, n, idle = 0, busy;

	for (i = 0; i < 1024 && idle < 3; i++) {
		event_base_loop(iwcmd_base, EVLOOP_NONBLOCK);
		busy = event_base_get_num_events(iwcmd_base,
						 EVENT_BASE_COUNT_ACTIVE) > 0;
		for (slot = 0; slot < FZ_IPC_PEERS; slot++) {
			pfd[slot].fd = FI.deaf[slot] ? -1 : FI.fd[slot];
			pfd[slot].events = POLLIN;
			pfd[slot].revents = 0;
		}
		n = poll(pfd, FZ_IPC_PEERS, 0);
		FZ_CHECK(n >= 0 || errno == EINTR);
		for (slot = 0; n > 0 && slot < FZ_IPC_PEERS; slot++)
			if (pfd[slot].revents)
				busy |= fz_ipc_read(slot);
		idle = busy ? 0 : idle + 1;
	}
}

/* Whether SCTP has something on its way: an association coming up, a
 * session message in flight, or an Initiate that has not reached its
 * passive side (the daemon is its own peer here: each Initiate answered
 * by nobody yet is one at a client, waiting for the input's next move,
 * or one still on its way). */
static bool fz_ipc_settling(void)
{
	unsigned int n[SCTP_CONN_STATES];

	sctp_conn_count_states(n);
	return n[SCTP_CONN_WAIT_ASSOC] || n[SESS_S_HANDOFF] ||
	       n[SESS_S_TERM_SENT] || n[SESS_S_WAIT_REPLY] > n[SESS_S_WAIT_ULP];
}

/* The same, and SCTP, whose packets cross the kernel's loopback and
 * whose retransmissions and delayed acknowledgements wait for usrsctp's
 * timers: while a connection waits on SCTP (fz_ipc_settling()), the
 * driver moves usrsctp's clock on by FZ_IPC_SCTP_STEP_MS and runs what
 * its timers send, a few steps per pump and FZ_IPC_SCTP_WAITS per
 * input, so that an input reaches the sessions' decisions and ends.
 * The clock is virtual: no step waits (usrsctp counts time only in what
 * usrsctp_handle_timers() is told, RFC 4960 §6.3's timers included). */
void fz_ipc_pump(void)
{
	int i;

	fz_ipc_pump_quiet();
	for (i = 0;
	     i < FZ_IPC_SCTP_STEPS && FI.sctp_waits_left && fz_ipc_settling();
	     i++) {
		FI.sctp_waits_left--;
		usrsctp_handle_timers(FZ_IPC_SCTP_STEP_MS);
		/* what the timers queued goes out, and their upcalls are
		 * served, on the loop's next pass */
		us_kick();
		fz_ipc_pump_quiet();
	}
	fz_ipc_check_pending();
}

/* ---- peers ---- */

void fz_ipc_close(int slot)
{
	if (FI.fd[slot] >= 0)
		close(FI.fd[slot]);
	FI.fd[slot] = -1;
}

/* A peer in slot (see ipc_driver.h for cred). */
void fz_ipc_open(int slot, bool admin, uint8_t cred)
{
	struct ucred uc = { getpid(), getuid(), getgid() };
	struct sockaddr_un sun;
	int sv[2];

	fz_ipc_close(slot);
	if ((cred & 3) == 3) {
		const char *path = admin ? FI.admin_path : FI.client_path;

		FI.fd[slot] = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		FZ_CHECK(FI.fd[slot] >= 0);
		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		memcpy(sun.sun_path, path, strlen(path) + 1);
		FZ_CHECK(fz_connect(FI.fd[slot], (struct sockaddr *)&sun,
				    sizeof(sun)) == 0);
		return;
	}
	if ((cred & 3) == 1) {
		uc.uid = 0;
		uc.gid = 0;
	} else if ((cred & 3) == 2) {
		uc.uid = 4242;
		uc.gid = 4242;
		uc.pid = 1;
	}
	FZ_CHECK(socketpair(AF_UNIX,
			    SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
			    sv) == 0);
	FI.fd[slot] = sv[0];
	/* the admin socket serves uid 0 and the daemon's own uid only */
	FZ_CHECK(control_peer_new(sv[1], admin, &uc) ==
		 (admin && uc.uid != 0 && uc.uid != geteuid() ? -1 : 0));
}

/* Send one datagram from slot with the descriptors fds asks for. */
void fz_ipc_send(int slot, const uint8_t *buf, size_t len, uint8_t fds)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(2 * sizeof(int))];
	} cbuf;
	struct msghdr mh;
	struct iovec iov;
	struct cmsghdr *cm;
	int pass[2] = { -1, -1 }, sv[2], n = 0, i;

	if (FI.fd[slot] < 0)
		return;
	if (buf != FI.last[slot]) {
		/* kept for fz_ipc_repeat() */
		FI.last_len[slot] = len < sizeof(FI.last[slot]) ?
					    len :
					    sizeof(FI.last[slot]);
		memcpy(FI.last[slot], buf, FI.last_len[slot]);
		FI.last_fds[slot] = fds;
	}
	switch (fds) {
	case 1:
		pass[n++] = open("/dev/null", O_RDWR | O_CLOEXEC);
		break;
	case 2:
		FZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				    sv) == 0);
		pass[n++] = sv[0];
		pass[n++] = sv[1];
		n = 1; /* one end travels, both are closed here */
		break;
	case 3:
		FZ_CHECK(pipe2(sv, O_CLOEXEC) == 0);
		pass[0] = sv[0];
		pass[1] = sv[1];
		n = 1;
		break;
	case 4:
		pass[n++] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		pass[n++] = open("/dev/null", O_WRONLY | O_CLOEXEC);
		break;
	}
	memset(&mh, 0, sizeof(mh));
	iov.iov_base = (void *)buf;
	iov.iov_len = len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (n) {
		memset(&cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf.buf;
		mh.msg_controllen = CMSG_SPACE(n * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(n * sizeof(int));
		memcpy(CMSG_DATA(cm), pass, n * sizeof(int));
	}
	/* a full queue (the daemon's XOFF) drops the datagram */
	if (sendmsg(FI.fd[slot], &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		FZ_CHECK(errno == EAGAIN || errno == EPIPE ||
			 errno == ECONNRESET || errno == EMSGSIZE ||
			 errno == ENOBUFS);
	for (i = 0; i < 2; i++)
		if (pass[i] >= 0)
			close(pass[i]);
}

static size_t fz_ipc_hdr(uint8_t *p, uint16_t type, uint32_t reqid)
{
	p[0] = 0;
	p[1] = IPC_PROTO_VERSION;
	p[2] = (uint8_t)(type >> 8);
	p[3] = (uint8_t)type;
	p[4] = (uint8_t)(reqid >> 24);
	p[5] = (uint8_t)(reqid >> 16);
	p[6] = (uint8_t)(reqid >> 8);
	p[7] = (uint8_t)reqid;
	return IPC_HDR_LEN;
}

/* The last datagram slot sent, again as sel says (a flood). */
void fz_ipc_repeat(int slot, uint8_t sel)
{
	unsigned int i, n;

	n = sel < 0xC0 ? (sel & 31u) + 1 : FZ_IPC_FLOOD_BIG;
	/* a bounded flood per input: each datagram may be a connection */
	if (n > FI.repeat_left)
		n = FI.repeat_left;
	FI.repeat_left -= n;
	for (i = 0; i < n && FI.last_len[slot]; i++) {
		fz_ipc_send(slot, FI.last[slot], FI.last_len[slot],
			    FI.last_fds[slot]);
		/* the daemon reads as they come, our socket does not fill */
		if (i % 32 == 31)
			event_base_loop(iwcmd_base, EVLOOP_NONBLOCK);
	}
}

/* Header and raw body octets from slot. */
void fz_ipc_send_raw(int slot, uint16_t type, uint32_t reqid,
		     const uint8_t *body, size_t len, uint8_t fds)
{
	static uint8_t buf[IPC_HDR_LEN + 0x10000];

	if (len > sizeof(buf) - IPC_HDR_LEN)
		len = sizeof(buf) - IPC_HDR_LEN;
	fz_ipc_hdr(buf, type, reqid);
	if (len)
		memcpy(buf + IPC_HDR_LEN, body, len);
	fz_ipc_send(slot, buf, IPC_HDR_LEN + len, fds);
}

/* A header and a packed body from slot. */
void fz_ipc_send_pb(int slot, uint16_t type, uint32_t reqid,
		    const ProtobufCMessage *body, uint8_t fds)
{
	static uint8_t buf[IPC_HDR_LEN + 0x10000];
	size_t len = 0;

	if (body) {
		len = protobuf_c_message_get_packed_size(body);
		if (len > sizeof(buf) - IPC_HDR_LEN)
			return;
		protobuf_c_message_pack(body, buf + IPC_HDR_LEN);
	}
	fz_ipc_hdr(buf, type, reqid);
	fz_ipc_send(slot, buf, IPC_HDR_LEN + len, fds);
}

/* HELLO from slot. */
void fz_ipc_hello(int slot, bool bad)
{
	Iwcm__Hello h = IWCM__HELLO__INIT;

	h.version = bad ? IPC_PROTO_VERSION + 1 : IPC_PROTO_VERSION;
	h.client_name = (char *)"fuzz";
	fz_ipc_send_pb(slot, IPC_HELLO, 1, &h.base, 0);
}

/* ---- timers, ids ---- */

static void fz_ipc_timer_one(const struct conn *c, void *arg)
{
	(void)arg;
	if (evtimer_pending(c->ev_timer, NULL))
		event_active(c->ev_timer, EV_TIMEOUT, 1);
}

/* Expire every armed connection timer. */
void fz_ipc_fire_timers(void)
{
	conn_foreach(fz_ipc_timer_one, NULL);
}

/* The sel-th most recent of n ids noted in ring (0: the latest). */
static uint64_t fz_ipc_recent(const uint64_t *ring, unsigned int n, uint8_t sel)
{
	unsigned int have = n < FZ_IPC_IDS ? n : FZ_IPC_IDS;

	if (!have)
		return sel; /* an id the daemon never gave */
	return ring[(n - 1 - sel % have) % FZ_IPC_IDS];
}

uint64_t fz_ipc_conn_id(int slot, uint8_t sel)
{
	return fz_ipc_recent(FI.conn_ids[slot], FI.n_conn[slot], sel);
}

uint64_t fz_ipc_lis_id(int slot, uint8_t sel)
{
	return fz_ipc_recent(FI.lis_ids[slot], FI.n_lis[slot], sel);
}

/* A bound listener address (127.0.0.1:1 when none yet). */
void fz_ipc_bound(uint8_t sel, Iwcm__SockAddr *a, uint8_t buf[16])
{
	static const uint8_t lo[4] = { 127, 0, 0, 1 };
	const struct fz_ipc_addr *b;
	unsigned int have;

	iwcm__sock_addr__init(a);
	a->addr.data = buf;
	if (!FI.n_bound) {
		memcpy(buf, lo, 4);
		a->addr.len = 4;
		a->port = 1;
		return;
	}
	have = FI.n_bound < FZ_IPC_IDS ? FI.n_bound : FZ_IPC_IDS;
	b = &FI.bound[(FI.n_bound - 1 - sel % have) % FZ_IPC_IDS];
	memcpy(buf, b->addr, b->len);
	a->addr.len = b->len;
	a->port = b->port;
}

/* The message d of the input's next 16-bit length and octets, or NULL. */
ProtobufCMessage *fz_ipc_unpack(struct fz_in *in,
				const ProtobufCMessageDescriptor *d)
{
	const uint8_t *p;
	size_t n;

	p = fz_bytes(in, fz_u16(in), &n);
	return protobuf_c_message_unpack(d, NULL, n, p);
}

/* ---- an input's life ---- */

static void fz_ipc_cleanup(void)
{
	unlink(FI.client_path);
	unlink(FI.admin_path);
	rmdir(FI.dir);
}

static const char fz_ipc_conf[] = "[listener fuzz]\n"
				  "address = 127.0.0.1:0\n"
				  "owner = 0\n"
				  "pending_max = 2\n";

static void fz_ipc_once(void)
{
	char err[256];

	signal(SIGPIPE, SIG_IGN);
	if (fz_netns()) {
		fz_netns_all_local(AF_INET);
		fz_netns_all_local(AF_INET6);
	}
	/* IWCM_FUZZ_LOG=1: the daemon's log on stderr, verbose */
	if (getenv("IWCM_FUZZ_LOG"))
		log_init(LOG_TO_STDERR, true, "fuzz");
	else
		log_init(LOG_TO_NONE, false, "fuzz");
	clock_gettime(CLOCK_MONOTONIC, &iwcmd_start);
	/* main.c's loop: control.c flushes when it is idle */
	iwcmd_base = control_base_new();
	FZ_CHECK(iwcmd_base != NULL);
	/* a configured service clients attach to (Listen{service}) */
	FZ_CHECK(conf_parse(fz_ipc_conf, strlen(fz_ipc_conf), "fuzz", &FI.conf,
			    err, sizeof(err)) == 0);
	iwcmd_conf = &FI.conf;
	conn_init(&fz_ipc_notify);
	/* SCTP as the daemon runs it: usrsctp, started here so that its
	 * descriptors and events are there before the first input */
	sctp_conn_init(&client_api_sctp_notify);
	FI.conf.sctp_udp_port = test_free_udp_port();
	FZ_CHECK(FI.conf.sctp_udp_port != 0);
	FZ_CHECK(sctp_conn_stack() == CONN_RES_OK);
	/* usrsctp keeps the verification tag of each association that
	 * ended for 60 s (sctp_vtag_time_wait), and picking a new tag
	 * scans them: at this driver's rate of associations, 8 % of its
	 * time after a few minutes.  The daemon never sees the tags, and
	 * a random 32-bit tag met again within a second is as unlikely. */
	usrsctp_sysctl_set_sctp_vtag_time_wait(1);
	snprintf(FI.dir, sizeof(FI.dir), "/tmp/iwcm-fuzz.XXXXXX");
	FZ_CHECK(mkdtemp(FI.dir) != NULL);
	snprintf(FI.client_path, sizeof(FI.client_path), "%s/iwcmd.sock",
		 FI.dir);
	control_admin_path(FI.client_path, FI.admin_path,
			   sizeof(FI.admin_path));
	FZ_CHECK(control_init(FI.client_path, -1, FI.admin_path, -1,
			      &fz_ipc_handlers) == 0);
	atexit(fz_ipc_cleanup);
	FZ_CHECK(listener_init_config(&FI.conf) == 0);
	FI.ev_base =
		event_base_get_num_events(iwcmd_base, EVENT_BASE_COUNT_ADDED);
}

/* The configured service as the configuration says (iwcmctl listener
 * set changes it). */
static void fz_ipc_reset_service(struct listener *l, void *arg)
{
	(void)arg;
	if (!l->service[0])
		return;
	l->policy = FI.conf.listeners[0].policy;
	l->pending_max = FI.conf.listeners[0].pending_max;
}

/* Once per process, then fresh state for an input. */
void fz_ipc_begin(void)
{
	static bool once;
	int i;

	if (!once) {
		once = true;
		for (i = 0; i < FZ_IPC_PEERS; i++)
			FI.fd[i] = -1;
		fz_ipc_once();
	}
	FI.conf.request_timeout_ms = FZ_TIMEOUT_MS;
	FI.conf.reply_timeout_ms = FZ_TIMEOUT_MS;
	FI.conf.ulp_timeout_ms = FZ_TIMEOUT_MS;
	FI.conf.rtr_timeout_ms = FZ_TIMEOUT_MS;
	FI.conf.max_conns = 16;
	FI.conf.max_listeners_per_uid = 4;
	FI.conf.max_pending_per_uid = 4;
	memset(&iwcmd_stats, 0, sizeof(iwcmd_stats));
	listener_foreach(fz_ipc_reset_service, NULL);
	log_setverbose(getenv("IWCM_FUZZ_LOG") != NULL);
	memset(FI.n_conn, 0, sizeof(FI.n_conn));
	memset(FI.n_lis, 0, sizeof(FI.n_lis));
	FI.n_bound = 0;
	FI.repeat_left = FZ_IPC_REPEAT_MAX;
	FI.sctp_waits_left = FZ_IPC_SCTP_WAITS;
	fz_fd_snapshot(&FI.fds);
}

/* Listeners left: bound by a client, or a service still attached. */
static void fz_ipc_count(struct listener *l, void *arg)
{
	if (!l->service[0] || l->client)
		(*(unsigned int *)arg)++;
}

/* Close every peer, let the daemon clean up, check nothing is left. */
void fz_ipc_end(void)
{
	unsigned int nl = 0;
	int i;

	for (i = 0; i < FZ_IPC_PEERS; i++) {
		fz_ipc_close(i);
		FI.deaf[i] = false;
		FI.last_len[i] = 0;
	}
	fz_ipc_pump();
	/* every peer is gone, and with them their listeners */
	FZ_CHECK(control_client_count() == 0);
	listener_foreach(fz_ipc_count, &nl);
	FZ_CHECK(nl == 0);
	/* a connection without an owner ends, at the latest when its
	 * timer expires */
	for (i = 0; i < 4 && conn_count(); i++) {
		fz_ipc_fire_timers();
		fz_ipc_pump();
	}
	FZ_CHECK(conn_count() == 0);
	conn_abort_all();
	/* SCTP associations: ended here (the stack runs on); usrsctp
	 * runs on this thread, so every socket is given back at once */
	sctp_conn_abort_all();
	fz_ipc_pump();
	FZ_CHECK(sctp_stack_sockets() == 0);
	FZ_CHECK(event_base_get_num_events(
			 iwcmd_base, EVENT_BASE_COUNT_ADDED) == FI.ev_base);
	fz_fd_check(&FI.fds);
}
