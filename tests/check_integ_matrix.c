/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The integration matrix: one real iwcmd, and for every row of a table of
 * cases two real client processes, each with its own libiwcm context on
 * the daemon's socket.  The responder listens (on 127.0.0.1 or on a
 * [listener] of the configuration that carries a policy) and accepts or
 * rejects; the initiator connects (or, for Rev 0, asks the daemon to
 * negotiate through the admin socket as iwcmctl connect does, or speaks
 * as an RDMA Consortium RNIC itself).  Each process sends back what its
 * iwcm_conn_* accessors report; the test checks that the two sides agree
 * with each other and with the row.  Then each side writes one RDMAP
 * Send framed by wire/ with the handoff's markers, CRC and stream offset
 * and MSN, and the other side decodes it with mpa_rx from the handoff's
 * unread octets and receive offset: CRC, markers and payload must hold.
 */
#include "config.h"

#include <stdarg.h>
#include <sys/prctl.h>

#include "common.h"
#include "integ_util.h"
#include <iwcm/iwcm.h>
#include "integ_matrix.h"
#include "negotiate.h"

/* The payload of each FPDU: long enough for markers inside it. */
#define MX_PAYLOAD 1300
#define MX_WAIT_MS 10000

/* What one side reports over its pipe. */
struct mx_side {
	int event, reason;
	int initiator, mpa_rev, ddp_version, rdmap_version;
	int markers_tx, markers_rx, crc, enhanced, p2p, rtr_type, rtr_frame;
	int ird, ord, wait_first;
	int rtr_read_due; /* RFC 6581 §9.2: its Response still to come */
	uint32_t rtr_read_stag;
	uint64_t rtr_read_to;
	int peer_rev, peer_flags, peer_enh, peer_p2p, peer_rtr, peer_ird,
		peer_ord;
	uint8_t peer_pd[64];
	int peer_pd_len;
	uint64_t tx_off, rx_off;
	uint32_t msn[4];
	int n_msn;
	int unread;
	int local_port, peer_port;
	int sent;	    /* the FPDU went out */
	struct integ_rx rx; /* the FPDU that came in */
	char err[160];
};

static struct harness H;

static void mx_setup(void)
{
	char conf[1024];
	unsigned int uid = (unsigned int)getuid();

	snprintf(conf, sizeof(conf),
		 "# check_integ_matrix\n"
		 "request_timeout_ms = 3000\nreply_timeout_ms = 3000\n"
		 "[listener strict]\naddress = 127.0.0.1:0\nowner = %u\n"
		 "ird_ord = strict\n"
		 "[listener rev0p]\naddress = 127.0.0.1:0\nowner = %u\n"
		 "rev0 = permissive\n"
		 "[listener rev0s]\naddress = 127.0.0.1:0\nowner = %u\n"
		 "rev0 = strict\n"
		 "[listener v1only]\naddress = 127.0.0.1:0\nowner = %u\n"
		 "enhanced = no\n",
		 uid, uid, uid, uid);
	harness_start(&H, conf);
}

static void mx_teardown(void)
{
	int st = harness_stop(&H);

	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fprintf(stderr, "iwcmd log:\n%s\n", harness_log(&H));
	harness_cleanup(&H);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "iwcmd did not exit 0 (status 0x%x)\n", st);
		exit(EXIT_FAILURE);
	}
}

/* ---- in the client processes ---- */

static void side_err(struct mx_side *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void side_err(struct mx_side *s, const char *fmt, ...)
{
	va_list ap;

	if (s->err[0])
		return;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
}

static int sa_port(const struct sockaddr *sa)
{
	return sa && sa->sa_family == AF_INET ?
		       ntohs(((const struct sockaddr_in *)sa)->sin_port) :
		       -1;
}

/* Everything iwcm_conn_query() reports of a connection; -1 where the
 * group is not known. */
static void side_fill(struct mx_side *s, struct iwcm_conn *c)
{
	struct iwcm_conn_attr a = { .comp_mask = IWCM_CONN_ATTR_ALL };
	bool peer;
	unsigned int i;

	if (iwcm_conn_query(c, &a) < 0) {
		side_err(s, "iwcm_conn_query: %s", strerror(errno));
		return;
	}
	peer = a.comp_mask & IWCM_CONN_ATTR_PEER;
	s->reason = (int)a.reason;
	s->initiator = a.initiator;
	s->peer_rev = peer ? (int)a.peer_mpa_rev : -1;
	s->peer_flags = peer ? a.peer_flags : -1;
	s->peer_enh = peer ? a.peer_enhanced : -1;
	s->peer_p2p = peer ? a.peer_p2p : -1;
	s->peer_rtr = peer ? (int)a.peer_rtr_types : -1;
	s->peer_ird = peer ? (int)a.peer_ird : -1;
	s->peer_ord = peer ? (int)a.peer_ord : -1;
	s->peer_pd_len = peer ? (int)a.peer_private_data_len : -1;
	if (peer && a.peer_private_data_len &&
	    a.peer_private_data_len <= sizeof(s->peer_pd))
		memcpy(s->peer_pd, a.peer_private_data,
		       a.peer_private_data_len);
	if (s->event != IWCM_CM_EVENT_ESTABLISHED)
		return;
	if (!(a.comp_mask & IWCM_CONN_ATTR_NEGOTIATED) ||
	    !(a.comp_mask & IWCM_CONN_ATTR_RTR_READ))
		side_err(s, "ESTABLISHED without the negotiated state");
	s->rtr_read_due = a.rtr_read_due;
	s->rtr_read_stag = a.rtr_read_stag;
	s->rtr_read_to = a.rtr_read_to;
	s->mpa_rev = (int)a.mpa_rev;
	s->ddp_version = a.ddp_version;
	s->rdmap_version = a.rdmap_version;
	s->markers_tx = a.markers_tx;
	s->markers_rx = a.markers_rx;
	s->crc = a.crc;
	s->enhanced = a.enhanced;
	s->p2p = a.p2p;
	s->rtr_type = (int)a.rtr_type;
	s->rtr_frame = a.rtr_frame;
	s->ird = (int)a.ird;
	s->ord = (int)a.ord;
	s->wait_first = a.wait_first_fpdu;
	s->tx_off = a.tx_offset;
	s->rx_off = a.rx_offset;
	s->n_msn = (int)a.num_next_msn;
	for (i = 0; i < 4 && i < a.num_next_msn; i++)
		s->msn[i] = a.next_msn[i];
	s->local_port = sa_port((const struct sockaddr *)&a.local_addr);
	s->peer_port = sa_port((const struct sockaddr *)&a.peer_addr);
}

/* The octets the daemon read past the handshake. */
static const void *conn_unread(const struct iwcm_conn *c, size_t *len)
{
	struct iwcm_conn_attr a = { .comp_mask = IWCM_CONN_ATTR_NEGOTIATED };

	*len = 0;
	if (iwcm_conn_query(c, &a) < 0 ||
	    !(a.comp_mask & IWCM_CONN_ATTR_NEGOTIATED))
		return NULL;
	*len = a.unread_len;
	return a.unread;
}

/*
 * The next event of ctx within ms, or NULL (then *stopped tells whether
 * the test closed the stop pipe).
 */
static struct iwcm_event *mx_event(struct iwcm_ctx *ctx, int stop, int ms,
				   bool *stopped)
{
	long long end = harness_ms() + ms;
	struct iwcm_event *ev;

	*stopped = false;
	for (;;) {
		struct pollfd p[2] = { { iwcm_ctx_get_fd(ctx), POLLIN, 0 },
				       { stop, POLLIN, 0 } };
		long long left;

		if (iwcm_get_event(ctx, &ev) == 0)
			return ev;
		if (errno != EAGAIN && errno != EINTR)
			return NULL;
		if (*stopped)
			return NULL;
		left = end - harness_ms();
		if (left <= 0)
			return NULL;
		poll(p, stop >= 0 ? 2 : 1, (int)left);
		/* one more look at the context before giving up */
		if (stop >= 0 && p[1].revents)
			*stopped = true;
	}
}

/* The seed of the payload each way. */
static uint32_t mx_seed(int row, bool from_initiator)
{
	return (uint32_t)row * 2654435761u + (from_initiator ? 1 : 2);
}

/*
 * The datapath's first steps after the handoff: the initiator writes a
 * Send with its next MSN of QN 0; the responder decodes it (expecting
 * its own next MSN of QN 0) and answers with a Send of MSN 1, the first
 * of its direction (RFC 5041 §5.3).  A responder told to wait for the
 * first FPDU (RFC 5044 §7.1.2 rule 4) reads before it writes; one that
 * need not wait writes at once.
 */
static void mx_datapath(struct mx_side *s, int fd, const uint8_t *unread,
			size_t unread_len, int row)
{
	uint8_t ver = (uint8_t)s->ddp_version;
	struct mpa_dir tx = { s->markers_tx == 1, s->crc == 1,
			      (uint32_t)s->tx_off };
	uint32_t out_msn = s->initiator ? s->msn[0] : 1;
	uint32_t in_msn = s->initiator ? 1 : s->msn[0];
	bool first = s->initiator || !s->wait_first;
	uint32_t rx_off = (uint32_t)s->rx_off;

	/*
	 * RFC 6581 §9.2: an initiator handed off after its Read RTR reads
	 * the zero-length Read Response first, to the RTR's sink (what
	 * iwcm_create_qp()'s QP takes); the daemon read nothing past the
	 * Reply then.
	 */
	if (s->rtr_read_due) {
		if (unread_len) {
			side_err(s,
				 "%zu unread octets before the Read "
				 "Response",
				 unread_len);
			return;
		}
		integ_fpdu_recv(fd, NULL, 0, s->markers_rx == 1, s->crc == 1,
				rx_off, ver, 0, 0, &s->rx);
		if (s->rx.err[0] || s->rx.opcode != RDMAP_READ_RESP ||
		    !s->rx.tagged || !s->rx.payload_ok ||
		    s->rx.stag != s->rtr_read_stag ||
		    s->rx.to != s->rtr_read_to) {
			side_err(s, "not the Read RTR's Response: %s op %d",
				 s->rx.err, s->rx.opcode);
			return;
		}
		rx_off = s->rx.off_end;
	}
	if (first) {
		if (integ_fpdu_send(fd, &tx, ver, out_msn, MX_PAYLOAD,
				    mx_seed(row, s->initiator)) < 0) {
			side_err(s, "writing the FPDU: %s", strerror(errno));
			return;
		}
		s->sent = 1;
	}
	integ_fpdu_recv(fd, unread, unread_len, s->markers_rx == 1, s->crc == 1,
			rx_off, ver, MX_PAYLOAD, mx_seed(row, !s->initiator),
			&s->rx);
	if (s->rx.err[0])
		side_err(s, "reading the FPDU: %s", s->rx.err);
	else if (s->rx.msn != in_msn || s->rx.qn != DDP_QN_SEND)
		side_err(s, "FPDU QN %u MSN %u, expected QN 0 MSN %u", s->rx.qn,
			 s->rx.msn, in_msn);
	if (!first) {
		if (integ_fpdu_send(fd, &tx, ver, out_msn, MX_PAYLOAD,
				    mx_seed(row, s->initiator)) < 0) {
			side_err(s, "writing the FPDU: %s", strerror(errno));
			return;
		}
		s->sent = 1;
	}
}

static void mx_params_set(struct iwcm_conn_param *p, const struct mx_params *m)
{
	if (m->rev)
		iwcm_conn_param_set_mpa_rev(p, (unsigned int)m->rev - 1);
	if (m->p2p)
		iwcm_conn_param_set_p2p(p, m->p2p - 1);
	if (m->rtr)
		iwcm_conn_param_set_rtr_types(p, (unsigned int)m->rtr - 1);
	if (m->markers)
		iwcm_conn_param_set_markers(p, m->markers - 1);
	if (m->crc_off)
		iwcm_conn_param_set_crc(p, m->crc_off - 1 ?
						   IWCM_CRC_PREFER_OFF :
						   IWCM_CRC_REQUEST);
	if (m->ird)
		iwcm_conn_param_set_ird(p, (unsigned int)m->ird - 1);
	if (m->ord)
		iwcm_conn_param_set_ord(p, (unsigned int)m->ord - 1);
	if (m->fallback)
		iwcm_conn_param_set_fallback(p, m->fallback - 1);
	if (m->pd)
		iwcm_conn_param_set_private_data(p, m->pd, strlen(m->pd));
}

static void mx_report(int fd, const struct mx_side *s)
{
	if (integ_write(fd, s, sizeof(*s)) < 0)
		_exit(3);
	_exit(0);
}

/* The responder process: listen, tell the port, decide, hand over. */
static void mx_responder(const struct mx_row *r, int row, int out, int stop)
{
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	struct iwcm_listener *l;
	struct iwcm_event *ev;
	struct iwcm_conn *c;
	struct iwcm_ctx *ctx;
	struct sockaddr_in sin;
	struct mx_side s;
	uint32_t port = 0;
	const void *unread;
	size_t ulen = 0;
	bool stopped;

	memset(&s, 0, sizeof(s));
	ctx = iwcm_ctx_open_path(H.sock, IWCM_CTX_NONBLOCK);
	if (!ctx) {
		side_err(&s, "iwcm_ctx_open_path: %s", strerror(errno));
		goto tell;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = iwcm_listen(ctx, r->service ? NULL : (struct sockaddr *)&sin,
			r->service, NULL, 0);
	if (!l) {
		side_err(&s, "iwcm_listen: %s", strerror(errno));
		goto tell;
	}
	port = (uint32_t)iwcm_listener_get_port(l);
tell:
	if (integ_write(out, &port, sizeof(port)) < 0 || !port)
		mx_report(out, &s);
	ev = mx_event(ctx, stop, MX_WAIT_MS, &stopped);
	if (!ev) {
		if (!stopped)
			side_err(&s, "no connect request");
		mx_report(out, &s);
	}
	s.event = iwcm_event_get_type(ev);
	c = iwcm_event_get_conn(ev);
	iwcm_ack_event(ev);
	if (s.event != IWCM_CM_EVENT_CONNECT_REQUEST) {
		side_err(&s, "event %s first", iwcm_cm_event_str(s.event));
		mx_report(out, &s);
	}
	mx_params_set(p, &r->ap);
	if (r->reject) {
		if (iwcm_reject(c, r->ap.pd, r->ap.pd ? strlen(r->ap.pd) : 0))
			side_err(&s, "iwcm_reject: %s", strerror(errno));
		side_fill(&s, c);
		mx_report(out, &s);
	}
	if (iwcm_accept(c, p) < 0) {
		side_err(&s, "iwcm_accept: %s", strerror(errno));
		mx_report(out, &s);
	}
	ev = mx_event(ctx, -1, MX_WAIT_MS, &stopped);
	if (!ev) {
		side_err(&s, "no event after the accept");
		mx_report(out, &s);
	}
	s.event = iwcm_event_get_type(ev);
	iwcm_ack_event(ev);
	side_fill(&s, c);
	if (s.event == IWCM_CM_EVENT_ESTABLISHED && r->kind != MX_FORCE) {
		unread = conn_unread(c, &ulen);
		s.unread = (int)ulen;
		mx_datapath(&s, iwcm_conn_get_fd(c), unread, ulen, row);
	}
	mx_report(out, &s);
}

/* The initiator process of a MX_CLIENT row. */
static void mx_initiator(const struct mx_row *r, int row, uint16_t port,
			 int out)
{
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	struct iwcm_event *ev;
	struct iwcm_conn *c;
	struct iwcm_ctx *ctx;
	struct sockaddr_in sin;
	struct mx_side s;
	const void *unread;
	size_t ulen = 0;
	bool stopped;

	memset(&s, 0, sizeof(s));
	ctx = iwcm_ctx_open_path(H.sock, IWCM_CTX_NONBLOCK);
	if (!ctx) {
		side_err(&s, "iwcm_ctx_open_path: %s", strerror(errno));
		mx_report(out, &s);
	}
	mx_params_set(p, &r->ip);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(port);
	c = iwcm_connect(ctx, (struct sockaddr *)&sin, NULL, p);
	if (!c) {
		side_err(&s, "iwcm_connect: %s", strerror(errno));
		mx_report(out, &s);
	}
	ev = mx_event(ctx, -1, MX_WAIT_MS, &stopped);
	if (!ev) {
		side_err(&s, "no event after the connect");
		mx_report(out, &s);
	}
	s.event = iwcm_event_get_type(ev);
	iwcm_ack_event(ev);
	side_fill(&s, c);
	if (s.event == IWCM_CM_EVENT_ESTABLISHED) {
		unread = conn_unread(c, &ulen);
		s.unread = (int)ulen;
		mx_datapath(&s, iwcm_conn_get_fd(c), unread, ulen, row);
	}
	mx_report(out, &s);
}

/* The handoff state of a NegotiationReport (or of any Established). */
static void side_from_pb(struct mx_side *s, const Iwcm__Established *e)
{
	const Iwcm__PeerInfo *pi = e->peer_info;
	size_t i;

	s->event = IWCM_CM_EVENT_ESTABLISHED;
	s->initiator = e->initiator;
	s->mpa_rev = (int)e->mpa_rev;
	s->ddp_version = (int)e->ddp_version;
	s->rdmap_version = (int)e->rdmap_version;
	s->markers_tx = e->markers_tx;
	s->markers_rx = e->markers_rx;
	s->crc = e->crc;
	s->enhanced = e->enhanced;
	s->p2p = e->p2p;
	s->rtr_type = (int)e->rtr_type;
	s->rtr_frame = e->has_rtr_frame && e->rtr_frame;
	s->ird = (int)e->ird;
	s->ord = (int)e->ord;
	s->wait_first = e->wait_first_fpdu;
	s->tx_off = e->tx_offset;
	s->rx_off = e->rx_offset;
	s->n_msn = (int)e->n_next_msn;
	for (i = 0; i < 4 && i < e->n_next_msn; i++)
		s->msn[i] = e->next_msn[i];
	s->unread = e->has_unread ? (int)e->unread.len : 0;
	s->local_port = (int)e->local->port;
	s->peer_port = (int)e->peer->port;
	if (pi) {
		s->peer_rev = pi->has_mpa_rev ? (int)pi->mpa_rev : -1;
		s->peer_flags = pi->has_flags ? (int)pi->flags : -1;
		s->peer_enh = pi->has_enhanced ? pi->enhanced : -1;
		s->peer_pd_len = (int)pi->private_data.len;
		if (pi->private_data.len &&
		    pi->private_data.len <= sizeof(s->peer_pd))
			memcpy(s->peer_pd, pi->private_data.data,
			       pi->private_data.len);
	}
}

/* The initiator of a MX_FORCE row: the daemon negotiates by itself. */
static void mx_force(const struct mx_row *r, uint16_t port, int out)
{
	static struct ipc_msg m;
	Iwcm__Ctl__ForceConnect f = IWCM__CTL__FORCE_CONNECT__INIT;
	Iwcm__SockAddr dst = IWCM__SOCK_ADDR__INIT;
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	Iwcm__Ctl__NegotiationReport *nr;
	uint8_t lo[4] = { 127, 0, 0, 1 };
	struct mx_side s;
	int fd;

	memset(&s, 0, sizeof(s));
	s.initiator = 1;
	fd = ipc_open_hello(H.admin);
	if (fd < 0) {
		side_err(&s, "admin socket: %s", strerror(errno));
		mx_report(out, &s);
	}
	dst.addr.data = lo;
	dst.addr.len = 4;
	dst.port = port;
	f.dst = &dst;
	if (r->ip.rev) {
		p.has_mpa_rev = 1;
		p.mpa_rev = (uint32_t)r->ip.rev - 1;
	}
	f.params = &p;
	if (ipc_send(fd, IPC_CTL_CONNECT, 11, &f.base, -1) < 0 ||
	    ipc_wait(fd, &m) != 1 || m.hdr.type != IPC_CTL_NEGOTIATION) {
		side_err(&s, "no NegotiationReport");
		mx_report(out, &s);
	}
	nr = (Iwcm__Ctl__NegotiationReport *)ipc_unpack(
		&m, &iwcm__ctl__negotiation_report__descriptor);
	if (!nr) {
		side_err(&s, "malformed NegotiationReport");
		mx_report(out, &s);
	}
	if (nr->result) {
		side_from_pb(&s, nr->result);
	} else {
		s.event = IWCM_CM_EVENT_CONNECT_ERROR;
		/* enum iwcm_status mirrors the IPC result codes */
		s.reason = nr->has_error ? (int)nr->error : -1;
	}
	protobuf_c_message_free_unpacked(&nr->base, NULL);
	if (ipc_wait(fd, &m) != 1 || m.hdr.type != IPC_RESULT)
		side_err(&s, "no RESULT after the report");
	close(fd);
	mx_report(out, &s);
}

/*
 * The initiator of a MX_RDMAC row: an RDMA Consortium RNIC (seed 002,
 * RFC 5044 Appendix C) sends Rev 0 with M=1 and C=1 and decides with the
 * same negotiate.h the daemon uses; then the datapath runs with DDP and
 * RDMAP version 0 and markers both ways.
 */
static void mx_rdmac(const struct mx_row *r, int row, uint16_t port, int out)
{
	uint8_t raw[MPA_FRAME_MAX];
	struct neg_policy pol;
	struct neg_result res;
	struct mpa_frame req, rep;
	struct mx_side s;
	size_t i;
	int fd;

	memset(&s, 0, sizeof(s));
	neg_policy_init(&pol, NEG_INITIATOR);
	pol.rev = MPA_REV_RDMAC;
	pol.enhanced = false;
	pol.rev0_permissive = true;
	neg_mpa_request(&pol, &req);
	req.pd = (const uint8_t *)r->ip.pd;
	req.pd_len = (uint16_t)strlen(r->ip.pd);
	fd = integ_tcp_connect(port);
	if (fd < 0 || integ_send_frame(fd, &req) < 0 ||
	    integ_read_frame(fd, raw, &rep) < 0) {
		side_err(&s, "RDMAC handshake: %s", strerror(errno));
		mx_report(out, &s);
	}
	if (neg_mpa_reply(&req, &rep, &pol, &res) != NEG_A_ACCEPT) {
		side_err(&s, "RDMAC: the Reply is refused: %s",
			 neg_reason_name(res.reason));
		mx_report(out, &s);
	}
	s.event = IWCM_CM_EVENT_ESTABLISHED;
	s.initiator = 1;
	s.mpa_rev = res.rev;
	s.ddp_version = s.rdmap_version = res.version;
	s.markers_tx = neg_markers_tx(&res, NEG_INITIATOR);
	s.markers_rx = neg_markers_rx(&res, NEG_INITIATOR);
	s.crc = res.crc;
	s.peer_rev = rep.rev;
	s.peer_flags = rep.flags;
	s.peer_pd_len = rep.pd_len;
	memcpy(s.peer_pd, rep.pd, rep.pd_len < 64 ? rep.pd_len : 64);
	s.n_msn = 4;
	for (i = 0; i < 4; i++)
		s.msn[i] = 1;
	s.ird = s.ord = -1;
	mx_datapath(&s, fd, NULL, 0, row);
	close(fd);
	mx_report(out, &s);
}

/* ---- in the test ---- */

static pid_t mx_fork(int *rd)
{
	int p[2];
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		/* never outlive the test */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		*rd = p[1];
		return 0;
	}
	close(p[1]);
	*rd = p[0];
	return pid;
}

static void mx_read_side(int fd, struct mx_side *s, const char *who)
{
	size_t got = 0;

	memset(s, 0, sizeof(*s));
	ck_assert_msg(integ_read(fd, s, sizeof(*s), 3 * MX_WAIT_MS, &got) == 0,
		      "%s: no report (%zu octets)", who, got);
	close(fd);
}

static void mx_reaped(pid_t pid, const char *who)
{
	int st = harness_wait(pid);

	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "%s process ended with status 0x%x", who, st);
}

static void mx_pd(const struct mx_side *s, const char *want, const char *who)
{
	size_t len = want ? strlen(want) : 0;

	ck_assert_msg(s->peer_pd_len == (int)len &&
			      !memcmp(s->peer_pd, want ? want : "", len),
		      "%s: peer private data %d octets, expected %zu", who,
		      s->peer_pd_len, len);
}

/* The datapath result of one side, which received an FPDU. */
static void mx_check_rx(const struct mx_side *s, int markers, int crc,
			const char *who)
{
	const struct integ_rx *x = &s->rx;

	ck_assert_msg(x->done && x->parsed, "%s: no FPDU decoded", who);
	ck_assert_msg(x->crc_ok && x->crc_checked == crc,
		      "%s: CRC ok %d checked %d", who, x->crc_ok,
		      x->crc_checked);
	ck_assert_msg(x->markers_ok, "%s: markers wrong", who);
	/* MX_PAYLOAD octets cross a 512-octet boundary at any offset */
	ck_assert_msg(markers ? x->n_markers >= 2 : x->n_markers == 0,
		      "%s: %u markers", who, x->n_markers);
	ck_assert_msg(x->opcode == RDMAP_SEND && x->version_ok && x->payload_ok,
		      "%s: opcode %d version ok %d payload ok %d", who,
		      x->opcode, x->version_ok, x->payload_ok);
}

/* Both sides established: they agree, and with the row. */
static void mx_check_established(const struct mx_row *r,
				 const struct mx_side *i,
				 const struct mx_side *s)
{
	const struct mx_expect *x = &r->x;
	int q, due;

	ck_assert_int_eq(i->initiator, 1);
	ck_assert_int_eq(s->initiator, 0);
	ck_assert_int_eq(i->mpa_rev, x->rev);
	ck_assert_int_eq(s->mpa_rev, x->rev);
	ck_assert_int_eq(i->ddp_version, x->ver);
	ck_assert_int_eq(s->ddp_version, x->ver);
	ck_assert_int_eq(i->rdmap_version, x->ver);
	ck_assert_int_eq(s->rdmap_version, x->ver);
	ck_assert_int_eq(s->enhanced, x->enh);
	ck_assert_int_eq(s->p2p, x->p2p);
	ck_assert_int_eq(s->crc, x->crc);
	ck_assert_int_eq(s->rtr_type, x->rtr);
	ck_assert_int_eq(s->rtr_frame, 0);
	/* RFC 5044 §7.1.1: M asks for markers toward its sender */
	ck_assert_int_eq(i->markers_tx, x->m_ir);
	ck_assert_int_eq(s->markers_rx, x->m_ir);
	ck_assert_int_eq(s->markers_tx, x->m_ri);
	ck_assert_int_eq(i->markers_rx, x->m_ri);
	/* RFC 6581 §9.3: the RTR, and only it, went before the handoff */
	ck_assert_uint_eq(i->tx_off, x->off_ir);
	ck_assert_uint_eq(s->rx_off, x->off_ir);
	ck_assert_uint_eq(s->tx_off, x->off_ri);
	/* a Read RTR's Response is for the initiator's QP: iwcm_connect()
	 * hands off right after the RTR (iwcmctl connect waits for it) */
	due = r->kind == MX_CLIENT && x->p2p && x->rtr == IWCM_RTR_READ;
	ck_assert_int_eq(i->rtr_read_due, due);
	ck_assert_int_eq(s->rtr_read_due, 0);
	ck_assert_uint_eq(i->rx_off, due ? 0 : x->off_ri);
	/* RFC 5044 §7.1.2 rule 4: only a responder without an RTR waits */
	ck_assert_int_eq(i->wait_first, 0);
	ck_assert_int_eq(s->wait_first, !x->p2p);
	/* RFC 5041 §5.3: the RTR's queue goes on at MSN 2, others at 1 */
	ck_assert_int_eq(i->n_msn, 4);
	ck_assert_int_eq(s->n_msn, 4);
	for (q = 0; q < 4; q++) {
		uint32_t want = x->rtr_qn == V(q) ? 2 : 1;

		ck_assert_msg(i->msn[q] == want && s->msn[q] == want,
			      "QN %d: next MSN %u and %u, expected %u", q,
			      i->msn[q], s->msn[q], want);
	}
	if (r->kind != MX_RDMAC) {
		ck_assert_int_eq(i->enhanced, x->enh);
		ck_assert_int_eq(i->p2p, x->p2p);
		ck_assert_int_eq(i->crc, x->crc);
		ck_assert_int_eq(i->rtr_type, x->rtr);
		ck_assert_int_eq(i->rtr_frame, 0);
		ck_assert_int_eq(i->local_port, s->peer_port);
		ck_assert_int_eq(i->peer_port, s->local_port);
	}
	if (x->enh) {
		/*
		 * RFC 6581 §9.1: the initiator's ORD is at most the
		 * responder's IRD and the responder's ORD at most the
		 * initiator's IRD; each side hears the other's values as
		 * sent, 0x3FFF when the ULP negotiates.
		 */
		if (i->ord != 0x3FFF && s->ird != 0x3FFF)
			ck_assert_int_le(i->ord, s->ird);
		if (s->ord != 0x3FFF && i->ird != 0x3FFF)
			ck_assert_int_le(s->ord, i->ird);
		if (i->peer_ird != 0x3FFF)
			ck_assert_int_eq(i->peer_ird, s->ird);
		if (i->peer_ord != 0x3FFF)
			ck_assert_int_eq(i->peer_ord, s->ord);
		ck_assert_int_eq(s->peer_ird, r->ip.ird ? r->ip.ird - 1 : 16);
		ck_assert_int_eq(s->peer_ord, r->ip.ord ? r->ip.ord - 1 : 16);
		ck_assert_int_eq(s->peer_p2p, x->p2p);
		ck_assert_int_eq(i->peer_p2p, x->p2p);
	}
	if (x->irdord) {
		ck_assert_int_eq(i->ird, x->ird_i);
		ck_assert_int_eq(i->ord, x->ord_i);
		ck_assert_int_eq(s->ird, x->ird_r);
		ck_assert_int_eq(s->ord, x->ord_r);
	}
	ck_assert_int_eq(s->peer_rev,
			 r->kind == MX_CLIENT ? (x->enh ? 2 : 1) : 0);
	ck_assert_int_eq(i->peer_rev, x->rev);
	if (r->kind != MX_FORCE) {
		mx_pd(s, r->ip.pd, "responder");
		mx_pd(i, r->ap.pd, "initiator");
	}
}

START_TEST(matrix)
{
	const struct mx_row *r = &mx_rows[_i];
	struct mx_side si, sr;
	long long before = 0, after;
	int rfd, ifd, stop[2];
	uint32_t port = 0;
	pid_t rp, ip;
	size_t got;

	if (r->stat)
		before = integ_stat(&H, r->stat);
	ck_assert_int_eq(pipe(stop), 0);
	rp = mx_fork(&rfd);
	if (rp == 0) {
		close(stop[1]);
		mx_responder(r, _i, rfd, stop[0]);
	}
	close(stop[0]);
	ck_assert_msg(integ_read(rfd, &port, sizeof(port), MX_WAIT_MS, &got) ==
				      0 &&
			      port,
		      "the responder does not listen");
	ip = mx_fork(&ifd);
	if (ip == 0) {
		if (r->kind == MX_FORCE)
			mx_force(r, (uint16_t)port, ifd);
		else if (r->kind == MX_RDMAC)
			mx_rdmac(r, _i, (uint16_t)port, ifd);
		mx_initiator(r, _i, (uint16_t)port, ifd);
	}
	mx_read_side(ifd, &si, "initiator");
	/* a responder that never hears of the connection stops now */
	if (!r->x.ev_r)
		close(stop[1]);
	mx_read_side(rfd, &sr, "responder");
	if (r->x.ev_r)
		close(stop[1]);
	mx_reaped(ip, "initiator");
	mx_reaped(rp, "responder");

	ck_assert_msg(!si.err[0], "initiator: %s", si.err);
	ck_assert_msg(!sr.err[0], "responder: %s", sr.err);
	ck_assert_msg(si.event == r->x.ev_i, "initiator: %s (%d), not %s",
		      iwcm_cm_event_str(si.event), si.reason,
		      iwcm_cm_event_str(r->x.ev_i));
	ck_assert_msg(sr.event == r->x.ev_r, "responder: %s (%d), not %s",
		      iwcm_cm_event_str(sr.event), sr.reason,
		      iwcm_cm_event_str(r->x.ev_r));
	ck_assert_int_eq(si.reason, r->x.st_i);
	if (r->x.ev_r)
		ck_assert_int_eq(sr.reason, r->x.st_r);
	if (r->x.ev_i == IWCM_CM_EVENT_ESTABLISHED) {
		mx_check_established(r, &si, &sr);
		if (r->kind != MX_FORCE) {
			/* each side's FPDU arrived whole at the other */
			ck_assert(si.sent && sr.sent);
			mx_check_rx(&sr, r->x.m_ir, r->x.crc, "responder");
			mx_check_rx(&si, r->x.m_ri, r->x.crc, "initiator");
		}
	}
	if (r->x.ev_i == IWCM_CM_EVENT_REJECTED) {
		/* RFC 5044 §7.1.2 rule 3, RFC 6581 §9.1: R=1 with the
		 * responder's Private Data and IRD/ORD */
		ck_assert_int_eq(si.peer_flags & IWCM_MPA_FLAG_R,
				 IWCM_MPA_FLAG_R);
		if (r->reject)
			mx_pd(&si, r->ap.pd, "initiator");
		if (r->x.rej_ord)
			ck_assert_int_eq(si.peer_ord, r->x.rej_ord);
		mx_pd(&sr, r->ip.pd, "responder");
	}
	if (r->stat) {
		after = integ_stat(&H, r->stat);
		ck_assert_msg(after == before + (r->delta ? r->delta : 1),
			      "%s: %lld, then %lld", r->stat, before, after);
	}
	/* nothing is left behind in the daemon: the four services only */
	ck_assert_int_eq(integ_count_until(&H, IPC_CTL_CONNS, 0, 2000), 0);
	ck_assert_int_eq(integ_count_until(&H, IPC_CTL_LISTENERS, 4, 2000), 4);
}
END_TEST

static Suite *integ_matrix_suite(void)
{
	Suite *s = suite_create("integ_matrix");
	TCase *tc = tcase_create("matrix");

	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, mx_setup, mx_teardown);
	tcase_add_loop_test(tc, matrix, 0, (int)mx_n_rows);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(integ_matrix_suite)
