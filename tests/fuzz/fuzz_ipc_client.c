/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The daemon's client socket: up to four clients, each with the
 * credentials the input gives it, send a sequence of datagrams (header
 * and protobuf body, some with descriptors) through the real control.c,
 * client_api.c, listener.c and the connection engine, all on one event
 * loop (ipc_driver.h).  A client may listen on the loopback and connect
 * to a listener of the daemon: the daemon then negotiates with itself,
 * and the clients accept or reject what comes, up to the handoff.
 *
 * Input: 2 octets of setup, then records.
 *   0: bits 0-1 clients - 1, bits 2-3 max_pending_per_uid - 1, bit 4 the
 *      clients say HELLO first (the driver builds it).
 *   1: the credentials of clients 0-3, 2 bits each (ipc_driver.h).
 * Records: h, then by h & 7 (s = (h >> 3) & 3 the client, f = h >> 5):
 *   0: a raw datagram: 16-bit length and octets; f: descriptors (f == 7:
 *      padded with zeros to one octet over IPC_MAX_MSG)
 *   1: a message: type (an octet, from the table below), an octet of
 *      request id, 16-bit body length and body; f: descriptors
 *   2: HELLO (f == 7: of a version the daemon does not speak)
 *   3: an octet sel, then a body for Accept, Reject, Disconnect or
 *      Unlisten (sel & 3) whose id becomes one the daemon gave (sel >> 2)
 *   4: a Listen body whose address becomes 127.0.0.1:0 (f & 1: [::1]:0,
 *      f & 2: none, the body's service stays)
 *   5: an octet sel, then a Connect body to a listener the daemon bound
 *      (sel), its source address dropped unless f & 1, its peer's SCTP
 *      UDP port unless f & 2
 *   6: client s closes; f & 1: a new one takes its place (f >> 1 its
 *      credentials)
 *   7: f & 1: every armed connection timer expires; f & 2: the last
 *      datagram of s again, as often as an octet says (a flood, see
 *      fz_ipc_repeat()); f & 4: the driver stops (or starts again)
 *      reading what s is sent
 * Bodies are a 16-bit length and octets; one that does not unpack as the
 * message is sent as the empty message.
 *
 * Checks: everything the daemon sends unpacks, an fd travels with
 * ESTABLISHED only (one), and after each input, with every client gone,
 * no client, listener, connection, event or descriptor is left; ASan and
 * LeakSanitizer for the rest.
 */
#include "config.h"

#include "fuzz/fuzz.h"
#include "fuzz/ipc_driver.h"

static const uint16_t cl_types[] = {
	IPC_HELLO,
	IPC_CLIENT_LISTEN,
	IPC_CLIENT_UNLISTEN,
	IPC_CLIENT_CONNECT,
	IPC_CLIENT_ACCEPT,
	IPC_CLIENT_REJECT,
	IPC_CLIENT_DISCONNECT,
	IPC_VERSION,
	IPC_END,
	IPC_CTL_STATUS,
	IPC_CLIENT_ACK,
	IPC_EVENT_ESTABLISHED,
	0,
	0xFFFF,
};

#define N_TYPES (sizeof(cl_types) / sizeof(cl_types[0]))

/* A datagram as it is; f == 7 makes it one octet too long. */
static void cl_raw(struct fz_in *in, int s, uint8_t f)
{
	static uint8_t buf[IPC_MAX_MSG + 1];
	const uint8_t *p;
	size_t n;

	p = fz_bytes(in, fz_u16(in), &n);
	if (f != 7) {
		fz_ipc_send(s, p, n, f);
		return;
	}
	memset(buf, 0, sizeof(buf));
	memcpy(buf, p, n);
	fz_ipc_send(s, buf, sizeof(buf), 0);
}

static void cl_msg(struct fz_in *in, int s, uint8_t fds)
{
	uint16_t type = cl_types[fz_u8(in) % N_TYPES];
	uint32_t reqid = fz_u8(in);
	const uint8_t *p;
	size_t n;

	p = fz_bytes(in, fz_u16(in), &n);
	fz_ipc_send_raw(s, type, reqid, p, n, fds);
}

/* A decision or a release whose id the daemon gave. */
static void cl_patched(struct fz_in *in, int s, uint8_t fds)
{
	static const ProtobufCMessageDescriptor *const d[4] = {
		&iwcm__accept__descriptor,
		&iwcm__reject__descriptor,
		&iwcm__disconnect__descriptor,
		&iwcm__unlisten__descriptor,
	};
	static const uint16_t type[4] = { IPC_CLIENT_ACCEPT, IPC_CLIENT_REJECT,
					  IPC_CLIENT_DISCONNECT,
					  IPC_CLIENT_UNLISTEN };
	uint8_t sel = fz_u8(in);
	ProtobufCMessage *m = fz_ipc_unpack(in, d[sel & 3]);
	union {
		Iwcm__Accept a;
		Iwcm__Reject r;
		Iwcm__Disconnect x;
		Iwcm__Unlisten u;
	} e;

	if (!m) {
		protobuf_c_message_init(d[sel & 3], &e);
		m = (ProtobufCMessage *)&e;
	}
	switch (sel & 3) {
	case 0:
		((Iwcm__Accept *)m)->conn_id = fz_ipc_conn_id(s, sel >> 2);
		break;
	case 1:
		((Iwcm__Reject *)m)->conn_id = fz_ipc_conn_id(s, sel >> 2);
		break;
	case 2:
		((Iwcm__Disconnect *)m)->conn_id = fz_ipc_conn_id(s, sel >> 2);
		break;
	default:
		((Iwcm__Unlisten *)m)->listener_id = fz_ipc_lis_id(s, sel >> 2);
		break;
	}
	fz_ipc_send_pb(s, type[sel & 3], sel, m, fds);
	if (m != (ProtobufCMessage *)&e)
		protobuf_c_message_free_unpacked(m, NULL);
}

static void cl_listen(struct fz_in *in, int s, uint8_t f)
{
	static const uint8_t lo4[4] = { 127, 0, 0, 1 };
	static const uint8_t lo6[16] = { [15] = 1 };
	Iwcm__Listen e = IWCM__LISTEN__INIT, *l;
	Iwcm__SockAddr a = IWCM__SOCK_ADDR__INIT, *old_addr;
	char *old_service;

	l = (Iwcm__Listen *)fz_ipc_unpack(in, &iwcm__listen__descriptor);
	if (!l)
		l = &e;
	old_addr = l->addr;
	old_service = l->service;
	a.addr.data = (uint8_t *)(f & 1 ? lo6 : lo4);
	a.addr.len = f & 1 ? 16 : 4;
	a.port = 0;
	if (!(f & 2)) {
		l->addr = &a;
		l->service = NULL;
	}
	fz_ipc_send_pb(s, IPC_CLIENT_LISTEN, 200, &l->base, 0);
	l->addr = old_addr;
	l->service = old_service;
	if (l != &e)
		protobuf_c_message_free_unpacked(&l->base, NULL);
}

static void cl_connect(struct fz_in *in, int s, uint8_t f)
{
	Iwcm__Connect e = IWCM__CONNECT__INIT, *c;
	Iwcm__SockAddr a, *old_dst, *old_src;
	uint8_t sel = fz_u8(in), buf[16];

	c = (Iwcm__Connect *)fz_ipc_unpack(in, &iwcm__connect__descriptor);
	if (!c)
		c = &e;
	old_dst = c->dst;
	old_src = c->src;
	fz_ipc_bound(sel, &a, buf);
	c->dst = &a;
	if (!(f & 1))
		c->src = NULL;
	/* the peer's UDP encapsulation port: a port where nobody answers
	 * holds the association's setup until it times out */
	if (c->params && !(f & 2))
		c->params->has_sctp_udp_port = 0;
	fz_ipc_send_pb(s, IPC_CLIENT_CONNECT, 300, &c->base, 0);
	c->dst = old_dst;
	c->src = old_src;
	if (c != &e)
		protobuf_c_message_free_unpacked(&c->base, NULL);
}

/* Timers, floods and peers that stop reading. */
static void ipc_misc(struct fz_in *in, int s, uint8_t f)
{
	if (f & 1)
		fz_ipc_fire_timers();
	if (f & 2)
		fz_ipc_repeat(s, fz_u8(in));
	if (f & 4)
		FI.deaf[s] = !FI.deaf[s];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	uint8_t setup, creds, h, f;
	int i, n, s;

	fz_ipc_begin();
	setup = fz_u8(&in);
	creds = fz_u8(&in);
	n = (setup & 3) + 1;
	FI.conf.max_pending_per_uid = ((setup >> 2) & 3) + 1u;
	for (i = 0; i < n; i++) {
		fz_ipc_open(i, false, (uint8_t)(creds >> (2 * i)));
		if (setup & 0x10)
			fz_ipc_hello(i, false);
	}
	fz_ipc_pump();
	while (fz_more(&in)) {
		h = fz_u8(&in);
		s = (h >> 3) & 3;
		f = h >> 5;
		switch (h & 7) {
		case 0:
			cl_raw(&in, s, f);
			break;
		case 1:
			cl_msg(&in, s, f);
			break;
		case 2:
			fz_ipc_hello(s, f == 7);
			break;
		case 3:
			cl_patched(&in, s, f);
			break;
		case 4:
			cl_listen(&in, s, f);
			break;
		case 5:
			cl_connect(&in, s, f);
			break;
		case 6:
			fz_ipc_close(s);
			if (f & 1)
				fz_ipc_open(s, false, f >> 1);
			break;
		default:
			ipc_misc(&in, s, f);
			break;
		}
		fz_ipc_pump();
	}
	fz_ipc_end();
	return 0;
}
