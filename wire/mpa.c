/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * MPA startup frames: Request, Reply (RFC 5044 §7.1.1), the RFC 6581 §9
 * enhanced connection establishment word, and the seed-003 "MPA ID RtR
 * Frame" of the 2007 peer-to-peer proposal.
 */
#include "config.h"

#include <string.h>

#include "mpa.h"
#include "wbuf.h"

/* RFC 5044 §7.1.1: "MPA ID Req Frame" */
const uint8_t mpa_key_req[MPA_KEY_LEN] = {
	0x4D, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6D, 0x65,
};

/* RFC 5044 §7.1.1: "MPA ID Rep Frame" */
const uint8_t mpa_key_rep[MPA_KEY_LEN] = {
	0x4D, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6D, 0x65,
};

/*
 * Seed 003 (2007 proposal), frame diagram row 12: the hex bytes given are
 * 4D 50 41 20 49 44 20 52 74 52 20 46 72 61 6D 65 = "MPA ID RtR Frame",
 * while the prose beside them says "MPA ID Rtr Frame" (72, lower-case r,
 * at byte 10).  We send the hex bytes, which are the normative-looking
 * part, and accept both spellings on receive (mpa_key_rtr_alt).
 */
const uint8_t mpa_key_rtr[MPA_KEY_LEN] = {
	0x4D, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x74, 0x52, 0x20, 0x46, 0x72, 0x61, 0x6D, 0x65,
};

static const uint8_t mpa_key_rtr_alt[MPA_KEY_LEN] = {
	0x4D, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x74, 0x72, 0x20, 0x46, 0x72, 0x61, 0x6D, 0x65,
};

static const struct {
	const uint8_t *key;
	enum mpa_frame_type type;
} mpa_keys[] = {
	{ mpa_key_req, MPA_FRAME_REQ },
	{ mpa_key_rep, MPA_FRAME_REP },
	{ mpa_key_rtr, MPA_FRAME_RTR },
	{ mpa_key_rtr_alt, MPA_FRAME_RTR },
};

#define MPA_N_KEYS (sizeof(mpa_keys) / sizeof(mpa_keys[0]))

/*
 * Match the first n (<= 16) bytes of a key.  Returns the frame type when n
 * is 16 and a key matches, -1 when no key has this prefix and 0 when the
 * prefix is valid but short.
 */
static int mpa_key_match(const uint8_t *buf, size_t n)
{
	size_t i;
	int prefix = 0;

	if (n == 0)
		return 0;
	for (i = 0; i < MPA_N_KEYS; i++) {
		if (memcmp(buf, mpa_keys[i].key, n) != 0)
			continue;
		if (n == MPA_KEY_LEN)
			return (int)mpa_keys[i].type;
		prefix = 1;
	}
	return prefix ? 0 : -1;
}

static const uint8_t *mpa_key_of(enum mpa_frame_type t)
{
	switch (t) {
	case MPA_FRAME_REQ:
		return mpa_key_req;
	case MPA_FRAME_REP:
		return mpa_key_rep;
	case MPA_FRAME_RTR:
		return mpa_key_rtr;
	}
	return NULL;
}

/* Decode the RFC 6581 §9 enhanced word (IRD/ORD and the A/B/C/D flags). */
enum wire_err mpa_enh_parse(const uint8_t *buf, size_t len, struct mpa_enh *out)
{
	struct wbuf b;
	uint16_t w0, w1;

	wbuf_init(&b, buf, len);
	if (wbuf_get_u16(&b, &w0) != WIRE_OK ||
	    wbuf_get_u16(&b, &w1) != WIRE_OK)
		return WIRE_ESHORT;
	/* RFC 6581 §9: |A|B| IRD (14) |C|D| ORD (14)|, network byte order */
	out->p2p = (w0 & MPA_ENH_A) != 0;
	out->rtr = 0;
	if (w0 & MPA_ENH_B)
		out->rtr |= MPA_RTR_SEND;
	if (w1 & MPA_ENH_C)
		out->rtr |= MPA_RTR_WRITE;
	if (w1 & MPA_ENH_D)
		out->rtr |= MPA_RTR_READ;
	out->ird = w0 & MPA_ENH_IRD_MASK;
	out->ord = w1 & MPA_ENH_ORD_MASK;
	return WIRE_OK;
}

/* The 32-bit enhanced word for e (IRD/ORD masked to 14 bits). */
uint32_t mpa_enh_word(const struct mpa_enh *e)
{
	uint32_t w0, w1;

	w0 = e->ird & MPA_ENH_IRD_MASK;
	if (e->p2p)
		w0 |= MPA_ENH_A;
	if (e->rtr & MPA_RTR_SEND)
		w0 |= MPA_ENH_B;
	w1 = e->ord & MPA_ENH_ORD_MASK;
	if (e->rtr & MPA_RTR_WRITE)
		w1 |= MPA_ENH_C;
	if (e->rtr & MPA_RTR_READ)
		w1 |= MPA_ENH_D;
	return w0 << 16 | w1;
}

static enum wire_err mpa_enh_check(const struct mpa_enh *e)
{
	/* RFC 6581 §9.1: IRD and ORD are 14-bit fields. */
	if (e->ird > MPA_ENH_IRD_MASK || e->ord > MPA_ENH_ORD_MASK)
		return WIRE_EINVAL;
	if (e->rtr & ~MPA_RTR_ALL)
		return WIRE_EINVAL;
	return WIRE_OK;
}

/* Encode the RFC 6581 §9 enhanced word into buf (4 bytes). */
enum wire_err mpa_enh_build(const struct mpa_enh *e, uint8_t *buf, size_t cap)
{
	struct wbuf_w w;
	enum wire_err err;

	err = mpa_enh_check(e);
	if (err != WIRE_OK)
		return err;
	wbuf_w_init(&w, buf, cap);
	return wbuf_put_u32(&w, mpa_enh_word(e));
}

/* Parse one Request/Reply/RtR frame; never looks past 20 + PD_Length. */
enum wire_err mpa_frame_parse(const uint8_t *buf, size_t len,
			      struct mpa_frame *out, size_t *used)
{
	struct wbuf b;
	struct mpa_frame f;
	int type;
	size_t n;

	/*
	 * A short buffer is ESHORT only while it is a prefix of some key, so
	 * a stream that is not MPA is refused from its first bytes.
	 */
	n = len < MPA_KEY_LEN ? len : MPA_KEY_LEN;
	type = mpa_key_match(buf, n);
	if (type < 0)
		return WIRE_EKEY;
	if (type == 0)
		return WIRE_ESHORT;

	memset(&f, 0, sizeof(f));
	f.type = (enum mpa_frame_type)type;
	wbuf_init(&b, buf, len);
	(void)wbuf_skip(&b, MPA_KEY_LEN);
	if (wbuf_get_u8(&b, &f.flags) != WIRE_OK ||
	    wbuf_get_u8(&b, &f.rev) != WIRE_OK ||
	    wbuf_get_u16(&b, &f.pd_len) != WIRE_OK)
		return WIRE_ESHORT;

	/* RFC 5044 §7.1.1 PD_Length and §7.1.2 rule 9: at most 512. */
	if (f.pd_len > MPA_PD_MAX)
		return WIRE_ELEN;
	/*
	 * RFC 6581 §6: with S=1 (Rev 2) the first 4 octets of Private Data
	 * are the enhanced word, so PD_Length must cover it.  Rev 1 frames
	 * with S=1 exist only in the seed-003 legacy mode, where S means
	 * "an RtR frame will be / can be sent" and carries no word: S is
	 * kept in flags and nothing is decoded.
	 */
	if ((f.flags & MPA_FLAG_S) && f.rev >= MPA_REV_2 &&
	    f.pd_len < MPA_ENH_LEN)
		return WIRE_EFLAGS;
	if (wbuf_left(&b) < f.pd_len)
		return WIRE_ESHORT;
	f.pd = wbuf_cur(&b);
	f.ulp_pd = f.pd;
	f.ulp_pd_len = f.pd_len;
	if ((f.flags & MPA_FLAG_S) && f.rev >= MPA_REV_2) {
		(void)mpa_enh_parse(f.pd, f.pd_len, &f.enh);
		f.enhanced = true;
		f.ulp_pd = f.pd + MPA_ENH_LEN;
		f.ulp_pd_len = (uint16_t)(f.pd_len - MPA_ENH_LEN);
	}
	*out = f;
	*used = MPA_FRAME_HDR_LEN + f.pd_len;
	return WIRE_OK;
}

/* Build one Request/Reply/RtR frame into buf. */
enum wire_err mpa_frame_build(const struct mpa_frame *f, uint8_t *buf,
			      size_t cap, size_t *written)
{
	struct wbuf_w w;
	const uint8_t *key = mpa_key_of(f->type);
	const uint8_t *pd;
	size_t pd_len, total;
	uint8_t flags;
	enum wire_err err;

	if (!key)
		return WIRE_EINVAL;
	/* RFC 5044 §7.1.1: Res MUST be set to zero when sending. */
	flags = f->flags & (uint8_t)~MPA_FLAG_RES;
	if (f->enhanced) {
		/* The word is only defined for Rev >= 2 (RFC 6581 §6). */
		if (f->rev < MPA_REV_2)
			return WIRE_EINVAL;
		err = mpa_enh_check(&f->enh);
		if (err != WIRE_OK)
			return err;
		flags |= MPA_FLAG_S;
		pd = f->ulp_pd;
		pd_len = f->ulp_pd_len;
		total = MPA_ENH_LEN + pd_len;
	} else {
		/* A Rev >= 2 receiver would take S=1 as "word follows". */
		if ((flags & MPA_FLAG_S) && f->rev >= MPA_REV_2 &&
		    f->pd_len < MPA_ENH_LEN)
			return WIRE_EINVAL;
		pd = f->pd;
		pd_len = f->pd_len;
		total = pd_len;
	}
	if (total > MPA_PD_MAX)
		return WIRE_ELEN;
	if (pd_len && !pd)
		return WIRE_EINVAL;
	if (cap < MPA_FRAME_HDR_LEN + total)
		return WIRE_ENOSPC;

	wbuf_w_init(&w, buf, cap);
	(void)wbuf_put_bytes(&w, key, MPA_KEY_LEN);
	(void)wbuf_put_u8(&w, flags);
	(void)wbuf_put_u8(&w, f->rev);
	(void)wbuf_put_u16(&w, (uint16_t)total);
	if (f->enhanced)
		(void)wbuf_put_u32(&w, mpa_enh_word(&f->enh));
	(void)wbuf_put_bytes(&w, pd, pd_len);
	*written = w.off;
	return WIRE_OK;
}

/* Name of a frame type for logs and the decoder. */
const char *mpa_frame_type_name(enum mpa_frame_type t)
{
	switch (t) {
	case MPA_FRAME_REQ:
		return "Request";
	case MPA_FRAME_REP:
		return "Reply";
	case MPA_FRAME_RTR:
		return "RtR";
	}
	return "unknown";
}
