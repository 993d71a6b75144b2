/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_CONF_H
#define IWCM_CONF_H

/*
 * iwcmd.conf(5): "key = value" lines, '#' comments, and [listener NAME]
 * sections declaring listeners that clients attach to by service name.
 * Parsing is table-driven and bounded (line length, listener and
 * allow-list counts); an error names the file, the line and the key.
 * SIGHUP parses into a fresh struct and swaps only on success.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#define CONF_LINE_MAX 1024
#define CONF_NAME_MAX 64
#define CONF_PATH_MAX 108 /* sun_path */
#define CONF_MAX_LISTENERS 64
#define CONF_MAX_PRIV_ALLOW 64

enum conf_rev0 { CONF_REV0_STRICT, CONF_REV0_PERMISSIVE };
enum conf_irdord { CONF_IRDORD_RELAXED, CONF_IRDORD_STRICT };
enum conf_crc { CONF_CRC_REQUEST, CONF_CRC_PREFER_OFF };

/* Negotiation policy, global defaults overridable per listener. */
struct conf_policy {
	enum conf_rev0 rev0;
	enum conf_irdord irdord;
	enum conf_crc crc;
	bool markers;	     /* ask the peer for markers */
	bool rtr_frame;	     /* seed-003 legacy RtR frame */
	bool enhanced;	     /* answer RFC 6581 enhanced requests */
	uint8_t rtr_accept;  /* MPA_RTR_* types we accept */
	uint8_t rtr_pref[3]; /* responder choice order */
	unsigned int max_ird;
	unsigned int max_ord;
};

struct conf_listener {
	char name[CONF_NAME_MAX];
	struct sockaddr_storage addr;
	socklen_t addrlen;
	bool has_owner;
	uid_t owner;
	unsigned int backlog;
	unsigned int pending_max;
	struct conf_policy policy;
	unsigned int transport; /* 0 MPA over TCP, 1 DDP over SCTP */
};

struct conf_priv_allow {
	uid_t uid;
	uint16_t port;
};

/* The longest an initiator holds its first FPDU (first_fpdu_delay_ms). */
#define CONF_FIRST_FPDU_DELAY_MAX 10000u /* IWCM_FIRST_FPDU_DELAY_MAX */

/* The longest tcp_user_timeout_ms (an hour). */
#define CONF_TCP_USER_TIMEOUT_MAX 3600000u

/* The longest iwcmd polls before it sleeps (busy_poll_us,
 * adaptive_poll_us). */
#define CONF_BUSY_POLL_MAX 100000u

/* max_conns when the descriptor limit allows more (or has none). */
#define CONF_MAX_CONNS_AUTO 1048576u

struct iwcmd_conf {
	char socket_path[CONF_PATH_MAX];
	bool verbose;
	unsigned int request_timeout_ms;  /* 5 s: waiting for a Request */
	unsigned int reply_timeout_ms;	  /* 10 s: waiting for a Reply */
	unsigned int ulp_timeout_ms;	  /* ULP decision, not the peer's */
	unsigned int rtr_timeout_ms;	  /* 5 s: waiting for the RTR */
	unsigned int first_fpdu_delay_ms; /* initiator: hold the first FPDU */
	unsigned int tcp_user_timeout_ms; /* handed-over sockets, 0: none */
	unsigned int max_listeners_per_uid;
	unsigned int max_pending_per_uid;
	/* as configured (0: derived, see conf_limits()) */
	unsigned int max_conns;		  /* 0: from the descriptor limit */
	unsigned int halfopen_max;	  /* 0: max_conns / 4 */
	unsigned int halfopen_per_source; /* half-open from one address */
	unsigned int conn_reserve;	  /* 0: max_conns / 8, for connects */
	struct conf_lim {		  /* in force (conf_limits()) */
		unsigned int max_conns;
		unsigned int halfopen_max;
		unsigned int conn_reserve;
	} lim;
	unsigned int pd_send_max;      /* private data we send */
	unsigned int busy_poll_us;     /* awake after a client's message */
	unsigned int adaptive_poll_us; /* the same, adaptive, up to this */
	/* DDP over SCTP (RFC 5043): the stack and its UDP encapsulation
	 * port (RFC 6951; 0: none), struct sctp_stack_conf's source */
	unsigned int sctp_stack; /* enum sctp_stack_kind */
	unsigned int sctp_udp_port;
	unsigned int sctp_encap_port; /* the peers' UDP port, 0: ours */
	unsigned int sctp_streams;
	bool sctp_udp_gso;   /* usrsctp: UDP GSO sends (sctp_usrsctp_udp.c) */
	bool sctp_multiplex; /* usrsctp: our sessions to a peer share one
			      * association (sctp_conn.c sc_assoc_to()) */
	struct conf_policy policy;
	struct conf_listener listeners[CONF_MAX_LISTENERS];
	size_t n_listeners;
	struct conf_priv_allow priv_allow[CONF_MAX_PRIV_ALLOW];
	size_t n_priv_allow;
};

/* Fill c with the built-in defaults (DESIGN.md "Defaults"). */
void conf_defaults(struct iwcmd_conf *c);

/*
 * Parse text (len bytes, not necessarily NUL-terminated) on top of the
 * defaults into *c.  fname is used in messages.  Returns 0, or -1 with a
 * "fname:line: message" in err and errno EINVAL (c is then unspecified).
 */
int conf_parse(const char *text, size_t len, const char *fname,
	       struct iwcmd_conf *c, char *err, size_t errlen);

/* Read and parse path; -1 with err set on I/O or parse errors. */
int conf_load(const char *path, struct iwcmd_conf *c, char *err, size_t errlen);

/* Find a configured listener by service name, or NULL. */
const struct conf_listener *conf_listener_find(const struct iwcmd_conf *c,
					       const char *name);

/*
 * Set c->lim, the connection limits in force, for a descriptor limit of
 * nofile (0: none known; conf_defaults() and conf_parse() assume that):
 * max_conns 0 takes every descriptor but reserve (clients, listeners), a
 * configured one too large is lowered the same way; halfopen_max and
 * conn_reserve 0 become their share of it.  Returns the configured
 * max_conns when it had to be lowered, else 0.
 */
unsigned int conf_limits(struct iwcmd_conf *c, unsigned long long nofile,
			 unsigned int reserve);

/* Whether uid may bind port (ports below 1024 need uid 0 or the list). */
bool conf_port_allowed(const struct iwcmd_conf *c, uid_t uid, uint16_t port);

#endif
