/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_SCTP_STACK_H
#define IWCM_SCTP_STACK_H

/*
 * The SCTP stack under iwcmd's DDP stream sessions: one interface over
 * usrsctp (UDP encapsulation, RFC 6951, the default) and the kernel's
 * SCTP.  One struct sctp_sock is a listener or one association
 * (one-to-one style), called and calling back on the loop thread.  The
 * rules of RFC 5043 it keeps (docs/sctp.md): an association is up only
 * once the peer's DDP Adaptation Layer Indication came, else aborted
 * (§5.1, §7.1); equal stream counts asked for, the smaller used (§8);
 * every message unordered with its PPID (§5), whole, never fragmented
 * (§9: EMSGSIZE over maxseg; one over SCTP_RX_MAX in aborts).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct event_base;

enum sctp_stack_kind {
	SCTP_STACK_USRSCTP = 0,
	SCTP_STACK_KERNEL,
	SCTP_STACK_MAX
};

#define SCTP_DEFAULT_UDP_PORT 9899 /* RFC 6951 encapsulation port */
#define SCTP_DEFAULT_STREAMS 16
#define SCTP_RX_MAX 65536	/* largest user message taken in */
#define SCTP_DDP_SEG_MIN 516	/* RFC 5043 §9 */
#define SCTP_ADAPT_WAIT_MS 1000 /* COMM_UP to the peer's indication */

struct sctp_stack_conf {
	enum sctp_stack_kind kind;
	/* the local UDP encapsulation port (RFC 6951), 0: none; the
	 * kernel's must be its net.sctp.udp_port */
	uint16_t udp_port;
	/* the peers' encapsulation port, 0: udp_port */
	uint16_t encap_port;
	uint16_t streams; /* inbound = outbound streams asked for */
	unsigned int adapt_wait_ms;
	/* usrsctp: packets for one peer leave as one UDP GSO send */
	bool udp_gso;
};

struct sctp_sock;
struct sctp_as;

/*
 * Datagrams on the UDP encapsulation port (RFC 6951) that were dropped:
 * what the user-space stack counts (the kernel's SCTP counts its own,
 * /proc/net/sctp/snmp).
 */
struct sctp_drops {
	uint64_t not_sctp;    /* shorter than an SCTP packet, or truncated */
	uint64_t bad_crc;     /* CRC32c wrong (RFC 4960 §6.8) */
	uint64_t bad_vtag;    /* Verification Tag wrong (RFC 4960 §8.5) */
	uint64_t no_room;     /* a new peer, and the table of peers full */
	uint64_t send_failed; /* a packet out that the host refused */
};

/* An association that came up (RFC 5043 §5.1 checks passed). */
struct sctp_assoc_info {
	uint16_t streams;    /* usable: min(in, out) */
	uint16_t in_streams; /* as negotiated */
	uint16_t out_streams;
	uint32_t peer_adapt; /* the peer's Adaptation Code Point */
	size_t maxseg;	     /* largest message sent unfragmented */
};

/* Whether a, an endpoint's local address, names b (len octets): the
 * same family, port and address (and IPv6 scope); with wildcard, a's
 * unspecified address names every address of its family
 * (sctp_addr.c). */
bool sctp_addr_match(const struct sockaddr_storage *a, const struct sockaddr *b,
		     socklen_t len, bool wildcard);
/* The port (network order) of an AF_INET or AF_INET6 address sa; set
 * it, which gives the address's length. */
uint16_t sctp_addr_port(const void *sa);
socklen_t sctp_addr_set_port(void *sa, uint16_t port);
/* The peer's UDP encapsulation port (RFC 6951 §5.1, host order) for a
 * connect naming rport (0: none) on a stack configured with c; 0: no
 * encapsulation of ours. */
uint16_t sctp_addr_encap_port(const struct sctp_stack_conf *c, uint16_t rport);

/*
 * Callbacks of one socket; arg is the one given with them.  A callback
 * may close any socket, its own included.
 */
struct sctp_cb {
	/* listener: a new association; s takes the listener's callbacks
	 * until sctp_stack_set_cb() */
	void (*accept)(void *arg, struct sctp_sock *l, struct sctp_sock *s);
	void (*up)(void *arg, struct sctp_sock *s,
		   const struct sctp_assoc_info *info);
	void (*msg)(void *arg, struct sctp_sock *s, uint16_t stream,
		    uint32_t ppid, bool unordered, const uint8_t *buf,
		    size_t len);
	/* a send failed with EAGAIN earlier and may be retried now */
	void (*writable)(void *arg, struct sctp_sock *s);
	/* the association is gone (aborted, shut down, failed to come up);
	 * the socket stays until sctp_stack_close() */
	void (*down)(void *arg, struct sctp_sock *s, const char *why);
};

/* A stack implementation (sctp_usrsctp.c, sctp_kernel.c), whose struct
 * sctp_sock begins with its struct sctp_as (sctp_assoc.h). */
struct sctp_stack_ops {
	int (*init)(struct event_base *base, const struct sctp_stack_conf *c,
		    char *err, size_t errlen);
	void (*fini)(void);
	struct sctp_sock *(*listen)(const struct sockaddr *sa, socklen_t len,
				    const struct sctp_cb *cb, void *arg);
	struct sctp_sock *(*connect)(const struct sockaddr *sa, socklen_t len,
				     uint16_t remote_udp_port,
				     const struct sctp_cb *cb, void *arg);
	int (*send)(struct sctp_sock *s, uint16_t stream, uint32_t ppid,
		    const void *buf, size_t len);
	/* s's address, or its peer's */
	int (*addr)(struct sctp_sock *s, bool peer, struct sockaddr_storage *ss,
		    socklen_t *len);
	void (*close)(struct sctp_sock *s, bool abort);
	void (*pause)(struct sctp_sock *s, bool pause);
	/* NULL where an association cannot leave iwcmd */
	int (*fd)(struct sctp_sock *s);
	/* NULL where the host's stack counts them itself */
	void (*drops)(struct sctp_drops *d);
};

extern const struct sctp_stack_ops sctp_stack_usrsctp;
#ifdef HAVE_KERNEL_SCTP
extern const struct sctp_stack_ops sctp_stack_kernel;
#endif

extern const char *const sctp_stack_names[SCTP_STACK_MAX];

/* Fill c with the defaults (usrsctp on UDP port 9899, 16 streams). */
void sctp_stack_defaults(struct sctp_stack_conf *c);

/*
 * Start the stack c names on base (once per process).  -1 with a message
 * in err when the stack is not built in, its UDP port is taken, or it
 * fails to start.
 */
int sctp_stack_init(struct event_base *base, const struct sctp_stack_conf *c,
		    char *err, size_t errlen);
/* Whether sctp_stack_init() succeeded. */
bool sctp_stack_running(void);
/* Stop the stack; every socket must be closed. */
void sctp_stack_fini(void);

/* Listen on sa; NULL with errno. */
struct sctp_sock *sctp_stack_listen(const struct sockaddr *sa, socklen_t len,
				    const struct sctp_cb *cb, void *arg);
/* Start an association to sa (the peer's UDP encapsulation port
 * remote_udp_port, 0 for the configured one); up or down follows.  NULL
 * with errno. */
struct sctp_sock *sctp_stack_connect(const struct sockaddr *sa, socklen_t len,
				     uint16_t remote_udp_port,
				     const struct sctp_cb *cb, void *arg);
/* Give s new callbacks (an accepted association). */
void sctp_stack_set_cb(struct sctp_sock *s, const struct sctp_cb *cb,
		       void *arg);
/*
 * Send one unordered user message on stream with ppid (host order).
 * 0, or -1 with errno: EAGAIN (writable follows), EMSGSIZE (over maxseg),
 * ENOTCONN, EINVAL (stream out of range).
 */
int sctp_stack_send(struct sctp_sock *s, uint16_t stream, uint32_t ppid,
		    const void *buf, size_t len);
int sctp_stack_local_addr(struct sctp_sock *s, struct sockaddr_storage *ss,
			  socklen_t *len);
int sctp_stack_peer_addr(struct sctp_sock *s, struct sockaddr_storage *ss,
			 socklen_t *len);
/*
 * Stop (pause) or resume taking messages from s: the peer's window
 * closes while its messages wait in the stack (backpressure).
 */
void sctp_stack_pause(struct sctp_sock *s, bool pause);
/* Close s (abort: ABORT chunk, else graceful SHUTDOWN, which the stack
 * completes on its own); no callback follows, and s is not to be used
 * again. */
void sctp_stack_close(struct sctp_sock *s, bool abort);
/* The socket of s, an association that is up, whose copy carries it on
 * once sctp_stack_close(s, false) closed iwcmd's (a kernel one-to-one
 * socket, RFC 6458 §4); -1 with errno EINVAL, ENOTSUP (usrsctp). */
int sctp_stack_fd(struct sctp_sock *s);
/* The sockets the stack holds for iwcmd: the open ones. */
unsigned int sctp_stack_sockets(void);
/* The dropped datagrams; false (d untouched) when the running stack
 * counts none of its own. */
bool sctp_stack_drops(struct sctp_drops *d);

#endif
