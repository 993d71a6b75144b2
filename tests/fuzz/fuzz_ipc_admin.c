/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The daemon's admin socket: up to three iwcmctl peers (slots 1-3), each
 * with the credentials the input gives it, send a sequence of datagrams
 * (header and protobuf body; descriptors too, which the admin socket
 * must refuse) through the real control.c and admin.c (ipc_driver.h).
 * So that the requests find something to show, kill, set or connect to,
 * a client on the client socket (slot 0) listens on the loopback; forced
 * negotiations (iwcmctl connect) go to it, and it accepts or rejects
 * what comes when the input says so.
 *
 * Input: 2 octets of setup, then records.
 *   0: bits 0-1 admin peers (1-3), bit 2 they say HELLO first, bit 3 the
 *      client listens on [::1] (else 127.0.0.1), bit 4 it listens twice.
 *   1: the credentials of the admin peers 1-3, 2 bits each (ipc_driver.h:
 *      another uid is refused).
 * Records: h, then by h & 7 (s = (h >> 3) & 3 the peer, 0 taken as 1;
 * f = h >> 5):
 *   0: a raw datagram: 16-bit length and octets; f: descriptors
 *   1: a message: type (an octet, from the table below), an octet of
 *      request id, 16-bit body length and body; f: descriptors
 *   2: HELLO (f == 7: of a version the daemon does not speak)
 *   3: an octet sel, then a body for Show or Kill (sel & 1) whose id
 *      becomes one the daemon gave (sel >> 1), or for ListenerSet
 *      (f & 1) whose port becomes a bound listener's
 *   4: an octet sel, then a ForceConnect body to a bound listener (sel),
 *      its peer's SCTP UDP port dropped unless f & 1
 *   5: the client decides on the last request: accept (f & 1) or reject
 *      it; f & 2: it connects to its own listener instead
 *   6: peer s closes; f & 1: a new one takes its place (f >> 1 its
 *      credentials)
 *   7: f & 1: every armed connection timer expires; f & 2: the last
 *      datagram of s again, as often as an octet says (a flood, see
 *      fz_ipc_repeat()); f & 4: the driver stops (or starts again)
 *      reading what s is sent
 * Bodies are a 16-bit length and octets; one that does not unpack as the
 * message is sent as the empty message.
 *
 * Checks: as fuzz_ipc_client.c.
 */
#include "config.h"

#include "fuzz/fuzz.h"
#include "fuzz/ipc_driver.h"

static const uint16_t adm_types[] = {
	IPC_HELLO,
	IPC_CTL_STATUS,
	IPC_CTL_LISTENERS,
	IPC_CTL_CONNS,
	IPC_CTL_SHOW,
	IPC_CTL_STATS,
	IPC_CTL_LOG,
	IPC_CTL_KILL,
	IPC_CTL_LISTENER_SET,
	IPC_CTL_CONNECT,
	IPC_CLIENT_LISTEN,
	IPC_RESULT,
	IPC_CTL_STATUS_REPLY,
	0,
	0xFFFF,
};

#define N_TYPES (sizeof(adm_types) / sizeof(adm_types[0]))

static void adm_msg(struct fz_in *in, int s, uint8_t fds)
{
	uint16_t type = adm_types[fz_u8(in) % N_TYPES];
	uint32_t reqid = fz_u8(in);
	const uint8_t *p;
	size_t n;

	p = fz_bytes(in, fz_u16(in), &n);
	fz_ipc_send_raw(s, type, reqid, p, n, fds);
}

static void adm_listener_set(struct fz_in *in, int s, uint8_t sel)
{
	Iwcm__Ctl__ListenerSet e = IWCM__CTL__LISTENER_SET__INIT, *m;
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	Iwcm__SockAddr a;
	uint8_t buf[16];

	m = (Iwcm__Ctl__ListenerSet *)fz_ipc_unpack(
		in, &iwcm__ctl__listener_set__descriptor);
	if (!m) {
		m = &e;
		e.params = &p;
	}
	fz_ipc_bound(sel, &a, buf);
	m->port = a.port;
	fz_ipc_send_pb(s, IPC_CTL_LISTENER_SET, sel, &m->base, 0);
	if (m != &e)
		protobuf_c_message_free_unpacked(&m->base, NULL);
}

/* Show or Kill of a connection the daemon told of, or ListenerSet. */
static void adm_patched(struct fz_in *in, int s, uint8_t f)
{
	uint8_t sel = fz_u8(in);
	Iwcm__Ctl__Show e = IWCM__CTL__SHOW__INIT, *m;
	const ProtobufCMessageDescriptor *d;

	if (f & 1) {
		adm_listener_set(in, s, sel);
		return;
	}
	/* Show and Kill are both { required uint64 conn_id = 1; } */
	d = sel & 1 ? &iwcm__ctl__kill__descriptor :
		      &iwcm__ctl__show__descriptor;
	m = (Iwcm__Ctl__Show *)fz_ipc_unpack(in, &iwcm__ctl__show__descriptor);
	if (!m)
		m = &e;
	m->conn_id = fz_ipc_conn_id(s, sel >> 1);
	fz_ipc_send_pb(s,
		       d == &iwcm__ctl__kill__descriptor ? IPC_CTL_KILL :
							   IPC_CTL_SHOW,
		       sel, &m->base, 0);
	if (m != &e)
		protobuf_c_message_free_unpacked(&m->base, NULL);
}

static void adm_force(struct fz_in *in, int s, uint8_t f)
{
	Iwcm__Ctl__ForceConnect e = IWCM__CTL__FORCE_CONNECT__INIT, *m;
	Iwcm__SockAddr a, *old;
	uint8_t sel = fz_u8(in), buf[16];

	m = (Iwcm__Ctl__ForceConnect *)fz_ipc_unpack(
		in, &iwcm__ctl__force_connect__descriptor);
	if (!m)
		m = &e;
	old = m->dst;
	fz_ipc_bound(sel, &a, buf);
	m->dst = &a;
	/* as fuzz_ipc_client.c's Connect */
	if (m->params && !(f & 1))
		m->params->has_sctp_udp_port = 0;
	fz_ipc_send_pb(s, IPC_CTL_CONNECT, sel, &m->base, 0);
	m->dst = old;
	if (m != &e)
		protobuf_c_message_free_unpacked(&m->base, NULL);
}

/* The client on the client socket: decide, or connect to itself. */
static void adm_client(uint8_t f)
{
	Iwcm__Accept a = IWCM__ACCEPT__INIT;
	Iwcm__Reject r = IWCM__REJECT__INIT;
	Iwcm__Connect c = IWCM__CONNECT__INIT;
	Iwcm__SockAddr dst;
	uint8_t buf[16];

	if (f & 2) {
		fz_ipc_bound(0, &dst, buf);
		c.dst = &dst;
		fz_ipc_send_pb(0, IPC_CLIENT_CONNECT, 3, &c.base, 0);
	} else if (f & 1) {
		a.conn_id = fz_ipc_conn_id(0, 0);
		fz_ipc_send_pb(0, IPC_CLIENT_ACCEPT, 4, &a.base, 0);
	} else {
		r.conn_id = fz_ipc_conn_id(0, 0);
		fz_ipc_send_pb(0, IPC_CLIENT_REJECT, 5, &r.base, 0);
	}
}

/* The client on the client socket listens on the loopback. */
static void adm_listen(bool v6)
{
	static const uint8_t lo4[4] = { 127, 0, 0, 1 };
	static const uint8_t lo6[16] = { [15] = 1 };
	Iwcm__Listen l = IWCM__LISTEN__INIT;
	Iwcm__SockAddr a = IWCM__SOCK_ADDR__INIT;

	a.addr.data = (uint8_t *)(v6 ? lo6 : lo4);
	a.addr.len = v6 ? 16 : 4;
	l.addr = &a;
	fz_ipc_send_pb(0, IPC_CLIENT_LISTEN, 2, &l.base, 0);
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
	n = setup & 3 ? setup & 3 : 1;
	fz_ipc_open(0, false, 0);
	fz_ipc_hello(0, false);
	adm_listen(setup & 0x08);
	if (setup & 0x10)
		adm_listen(!(setup & 0x08));
	for (i = 1; i <= n; i++) {
		fz_ipc_open(i, true, (uint8_t)(creds >> (2 * (i - 1))));
		if (setup & 0x04)
			fz_ipc_hello(i, false);
	}
	fz_ipc_pump();
	while (fz_more(&in)) {
		h = fz_u8(&in);
		s = (h >> 3) & 3;
		s = s ? s : 1;
		f = h >> 5;
		switch (h & 7) {
		case 0: {
			const uint8_t *p;
			size_t len;

			p = fz_bytes(&in, fz_u16(&in), &len);
			fz_ipc_send(s, p, len, f);
			break;
		}
		case 1:
			adm_msg(&in, s, f);
			break;
		case 2:
			fz_ipc_hello(s, f == 7);
			break;
		case 3:
			adm_patched(&in, s, f);
			break;
		case 4:
			adm_force(&in, s, f);
			break;
		case 5:
			adm_client(f);
			break;
		case 6:
			fz_ipc_close(s);
			if (f & 1)
				fz_ipc_open(s, true, f >> 1);
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
