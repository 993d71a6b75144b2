/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * What the local side wants from a negotiation: the configuration's and
 * the clients' connection parameters turned into the policy of
 * negotiate.h, and the Private Data a client asks to send.  Every
 * decision on the frames is negotiate.h's.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "log.h"

/*
 * The one translation of configuration and client parameters into the
 * negotiation policy of negotiate.h: the conf_policy (global or the
 * listener's), then the listener's default ConnParams, then the
 * connect's or accept's.  Every decision is negotiate.h's; this only
 * says what the local side wants.  -1 when the result is unusable.
 */
int conn_policy(struct neg_policy *p, enum neg_role role,
		const struct conf_policy *cp, const struct conn_params *lp,
		const struct conn_params *cparams)
{
	const struct conn_params *v[2] = { lp, cparams };
	size_t i;

	neg_policy_init(p, role);
	p->rev0_permissive = cp->rev0 == CONF_REV0_PERMISSIVE;
	p->ird_ord_strict = cp->irdord == CONF_IRDORD_STRICT;
	p->crc = cp->crc == CONF_CRC_REQUEST;
	p->markers = cp->markers;
	p->ird_max = (uint16_t)cp->max_ird;
	if (p->ird > p->ird_max)
		p->ird = p->ird_max;
	if (p->ord > cp->max_ord)
		p->ord = (uint16_t)cp->max_ord;
	memcpy(p->rtr_pref, cp->rtr_pref, sizeof(p->rtr_pref));
	if (role == NEG_RESPONDER) {
		p->enhanced = cp->enhanced;
		p->rev = cp->enhanced ? MPA_REV_2 : MPA_REV_1;
		p->rtr_types = cp->rtr_accept & MPA_RTR_ALL;
		p->legacy_rtr = cp->rtr_frame;
	}
	for (i = 0; i < 2; i++) {
		const struct conn_params *x = v[i];

		if (!x)
			continue;
		if (x->has_transport && x->sctp)
			return -1;
		if (x->has_ird) {
			if (x->ird > MPA_IRD_ORD_NONE)
				return -1;
			p->ird = (uint16_t)x->ird;
		}
		if (x->has_ord) {
			if (x->ord > MPA_IRD_ORD_NONE)
				return -1;
			p->ord = (uint16_t)x->ord;
			/* RFC 6581 §9.1: the ORD the ULP requires. */
			if (role == NEG_RESPONDER && p->ird_ord_strict &&
			    x->ord != MPA_IRD_ORD_NONE)
				p->ord_required = (uint16_t)x->ord;
		}
		if (x->has_markers)
			p->markers = x->markers;
		if (x->has_crc)
			p->crc = x->crc_request;
		if (x->has_rev0)
			p->rev0_permissive = x->rev0_permissive;
		if (x->has_rtr_types) {
			if (x->rtr_types & ~(uint32_t)MPA_RTR_ALL)
				return -1;
			p->rtr_types = (uint8_t)x->rtr_types;
			if (role == NEG_RESPONDER)
				p->rtr_types &= cp->rtr_accept;
		}
		if (x->has_rtr_frame)
			p->legacy_rtr = x->rtr_frame;
		if (role == NEG_INITIATOR) {
			if (x->has_p2p)
				p->p2p = x->p2p;
			if (x->has_mpa_rev) {
				if (x->mpa_rev > MPA_REV_2)
					return -1;
				p->rev = (uint8_t)x->mpa_rev;
				p->enhanced = x->mpa_rev == MPA_REV_2;
			}
			if (x->has_enhanced_fallback)
				p->fallback_v1 = x->enhanced_fallback;
		} else if (x->has_mpa_rev) {
			if (x->mpa_rev < MPA_REV_1 || x->mpa_rev > MPA_REV_2)
				return -1;
			p->rev = (uint8_t)x->mpa_rev;
			p->enhanced = p->enhanced && x->mpa_rev == MPA_REV_2;
		}
	}
	/* Seed 003: the RtR frame rides on unenhanced Rev 1 frames. */
	if (p->legacy_rtr) {
		p->rev = MPA_REV_1;
		p->enhanced = false;
	}
	return neg_policy_check(p, role) == NEG_R_NONE ? 0 : -1;
}

/* A copy of p (NULL for NULL); fatal when memory runs out. */
struct conn_params *conn_params_dup(const struct conn_params *p)
{
	struct conn_params *d;

	if (!p)
		return NULL;
	d = malloc(sizeof(*d));
	if (!d)
		fatal("conn: cannot copy connection parameters");
	*d = *p;
	return d;
}

/* Private Data a client asks to send: RFC 5044 §7.1.1 caps the frame's
 * at 512 octets, the RFC 6581 word included. */
/* The negotiation policy of an SCTP session: the configuration's, then
 * the client's parameters (the transport said SCTP, nothing else does). */
int conn_policy_sctp(const struct iwcmd_conf *conf, const struct conn_params *p,
		     enum neg_role role, struct neg_policy *out)
{
	struct conn_params x;

	if (!p)
		return conn_policy(out, role, &conf->policy, NULL, NULL);
	x = *p;
	x.has_transport = false;
	return conn_policy(out, role, &conf->policy, NULL, &x);
}

int conn_pd_set(struct conn *c, const uint8_t *pd, size_t len, bool enhanced)
{
	size_t max = MPA_PD_MAX - (enhanced ? MPA_ENH_LEN : 0);

	if (len > max)
		return -1;
	/*
	 * pd_send_max (siw and cxgb4 take no more than 256 octets) is the
	 * default; a client that passes more asks for it explicitly.
	 */
	if (len > iwcmd_conf->pd_send_max)
		log_debug("conn %llu: sending %zu octets of private data "
			  "(over private_data_send_max %u)",
			  (unsigned long long)c->id, len,
			  iwcmd_conf->pd_send_max);
	if (len)
		memcpy(conn_buf(c)->pd, pd, len);
	conn_buf(c)->pd_len = (uint16_t)len;
	return 0;
}
