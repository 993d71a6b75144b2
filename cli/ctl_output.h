/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_CLI_CTL_OUTPUT_H
#define IWCM_CLI_CTL_OUTPUT_H

/*
 * The output of iwcmctl's admin commands (ctl.c): one vtable, the bgpctl
 * model, with a text implementation (ctl_text.c) and a JSON one
 * (ctl_json.c, through the writer of json.h).  ctl.c talks to iwcmd and
 * hands every reply to ctl_out; the field names are those of iwcmctl(8).
 */
#include <stdbool.h>
#include <stdio.h>

#include "iwcm.pb-c.h"
#include "ctl.pb-c.h"
#include "mpa.h"

/* One offer of iwcmctl probe and what the peer made of it (probe.c). */
struct ctl_probe_row {
	const char *offer; /* its name, "rev1", "p2p-write", ... */
	const char *what;  /* what it offers, in words */
	bool ran;	   /* false: not run (reason says why) */
	Iwcm__Result result;
	const char *reason; /* iwcmd's message, or "" */
	bool have_reply;    /* reply: the peer's Reply frame */
	bool reply_ok;	    /* it parsed */
	struct mpa_frame reply;
	const Iwcm__Established *est; /* negotiated, or NULL */
	/* DDP over SCTP: no MPA frame; what the session control said */
	bool sctp_answer;
	bool sctp_enhanced; /* an Enhanced Accept or Reject (codes 6, 7) */
	uint32_t sctp_ird, sctp_ord;
};

struct ctl_output {
	/* A RESULT that ends a request (what names the object for an
	 * error message); a text error goes to stderr. */
	void (*result)(const char *what, const Iwcm__Ctl__Result *r);
	void (*status)(const Iwcm__Ctl__Status *s);
	void (*listeners_begin)(void);
	void (*listener)(const Iwcm__Ctl__ListenerInfo *li, unsigned int n);
	void (*conns_begin)(void);
	void (*conn)(const Iwcm__Ctl__ConnInfo *c, unsigned int n);
	void (*list_end)(unsigned int n);
	void (*show)(const Iwcm__Ctl__ConnInfo *c);
	void (*stats)(const Iwcm__Ctl__Stats *s);
	/* connect --daemon: the reports, then the RESULT (NULL when the
	 * daemon gave none) */
	void (*reports_begin)(void);
	void (*report)(const Iwcm__Ctl__NegotiationReport *r, unsigned int n);
	void (*reports_end)(const char *target, const Iwcm__Ctl__Result *r);
	/* probe: the target, then a row per offer, then the count run */
	void (*probe_begin)(const char *target, const char *transport);
	void (*probe_row)(const struct ctl_probe_row *row, unsigned int n);
	void (*probe_end)(unsigned int n);
};

extern const struct ctl_output ctl_output_text;
extern const struct ctl_output ctl_output_json;

/* ctl_openmetrics.c: stats' metric families in the OpenMetrics text
 * format, '# EOF' last. */
void ctl_openmetrics(FILE *fp, const Iwcm__Ctl__Stats *s);

/* ctl_text.c: words both formats use. */

/* "ADDR:PORT" or "[ADDR]:PORT" of a ctl.proto address, "-" for none. */
const char *ctl_addr_str(const Iwcm__SockAddr *a, char *buf, size_t len);

/* The address alone, "?" when there is none. */
const char *ctl_host_str(const Iwcm__SockAddr *a, char *buf, size_t len);

/* "ENOENT" for RES_ENOENT: the JSON name of a result. */
const char *ctl_result_name(Iwcm__Result r);

/* "not found" for RES_ENOENT: the text of a result. */
const char *ctl_result_text(Iwcm__Result r);

#endif
