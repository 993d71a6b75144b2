/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * DDP Stream Session Control (RFC 5043 §5.2.3, RFC 6581 §7): a vector per
 * function code with the fields written out, the private data limits,
 * malformed messages with their typed errors, every truncation, builder
 * errors, randomized round trips, and the legal sequences of RFC 5043 §6
 * and RFC 6581 §7 (every (direction, state, state, message) combination
 * against an independent statement of the patterns, plus whole sessions).
 */
#include "common.h"

#include "sctp_ss.h"

struct ss_vec {
	const char *name;
	const char *hex;
	uint16_t ssn;
	uint16_t fc;
	bool enhanced;
	bool p2p;
	uint8_t rtr;
	uint16_t ird, ord;
	uint16_t pd_len; /* whole Private Data */
	uint16_t ulp_pd_len;
	const char *ulp_hex; /* expected ULP Private Data */
};

#define W MPA_RTR_WRITE
#define R MPA_RTR_READ
#define S MPA_RTR_SEND

static const struct ss_vec vecs[] = {
	{ "Initiate, PD \"hello\"", "00 00 00 01 68 65 6c 6c 6f", 0,
	  SCTP_SS_INITIATE, false, false, 0, 0, 0, 5, 5, "68 65 6c 6c 6f" },
	{ "Initiate, no PD (zero-length PD allowed)", "00 00 00 01", 0,
	  SCTP_SS_INITIATE, false, false, 0, 0, 0, 0, 0, "" },
	{ "Accept, no PD", "00 00 00 02", 0, SCTP_SS_ACCEPT, false, false, 0, 0,
	  0, 0, 0, "" },
	{ "Accept, SSN 0x1234 big-endian", "12 34 00 02 aa", 0x1234,
	  SCTP_SS_ACCEPT, false, false, 0, 0, 0, 1, 1, "aa" },
	{ "Reject, PD ab cd", "00 00 00 03 ab cd", 0, SCTP_SS_REJECT, false,
	  false, 0, 0, 0, 2, 2, "ab cd" },
	{ "Terminate, SSN 7", "00 07 00 04", 7, SCTP_SS_TERMINATE, false, false,
	  0, 0, 0, 0, 0, "" },
	/* The word of the siw p2p capture: A=1 IRD=1 | C=1 D=1 ORD=1. */
	{ "Enhanced Initiate, siw p2p word + \"x\"",
	  "00 00 00 05 80 01 c0 01 78", 0, SCTP_SS_ENH_INITIATE, true, true,
	  W | R, 1, 1, 5, 1, "78" },
	/* siw's answer: A=1 IRD=1 | C=1 ORD=1 (Write RTR). */
	{ "Enhanced Accept, siw reply word", "00 00 00 06 80 01 80 01", 0,
	  SCTP_SS_ENH_ACCEPT, true, true, W, 1, 1, 4, 0, "" },
	{ "Enhanced Initiate, A=0, IRD=ORD=0x3FFF", "00 00 00 05 3f ff 3f ff",
	  0, SCTP_SS_ENH_INITIATE, true, false, 0, 0x3fff, 0x3fff, 4, 0, "" },
	{ "Enhanced Initiate, all ones", "00 00 00 05 ff ff ff ff", 0,
	  SCTP_SS_ENH_INITIATE, true, true, S | W | R, 0x3fff, 0x3fff, 4, 0,
	  "" },
	{ "Enhanced Accept, A=1 B=1 IRD=2 | ORD=0x10",
	  "00 01 00 06 c0 02 00 10 01 02", 1, SCTP_SS_ENH_ACCEPT, true, true, S,
	  2, 0x10, 6, 2, "01 02" },
	/* RFC 6581 §7: the word is in Initiate/Accept only. */
	{ "Enhanced Reject, ULP PD only", "00 00 00 07 01 02 03", 0,
	  SCTP_SS_ENH_REJECT, false, false, 0, 0, 0, 3, 3, "01 02 03" },
	{ "Enhanced Reject, no PD", "00 00 00 07", 0, SCTP_SS_ENH_REJECT, false,
	  false, 0, 0, 0, 0, 0, "" },
};

static size_t vec_bytes(const struct ss_vec *v, uint8_t *buf, size_t cap)
{
	return test_hex(v->hex, buf, cap);
}

START_TEST(test_vectors)
{
	const struct ss_vec *v = &vecs[_i];
	uint8_t buf[64], ulp[64], out[64];
	struct sctp_ss_msg m;
	size_t n, used = 0, ulp_n, w = 0;

	n = vec_bytes(v, buf, sizeof(buf));
	ulp_n = test_hex(v->ulp_hex, ulp, sizeof(ulp));
	ck_assert_msg(sctp_ss_parse(buf, n, &m, &used) == WIRE_OK, "%s",
		      v->name);
	ck_assert_uint_eq(used, n);
	ck_assert_uint_eq(m.ssn, v->ssn);
	ck_assert_uint_eq(m.fc, v->fc);
	ck_assert_int_eq(m.enhanced, v->enhanced);
	ck_assert_uint_eq(m.pd_len, v->pd_len);
	ck_assert_uint_eq(m.ulp_pd_len, v->ulp_pd_len);
	ck_assert_uint_eq(ulp_n, v->ulp_pd_len);
	if (ulp_n)
		ck_assert(memcmp(m.ulp_pd, ulp, ulp_n) == 0);
	if (m.pd_len)
		ck_assert_ptr_eq(m.pd, buf + SCTP_SS_HDR_LEN);
	if (v->enhanced) {
		ck_assert_int_eq(m.enh.p2p, v->p2p);
		ck_assert_uint_eq(m.enh.rtr, v->rtr);
		ck_assert_uint_eq(m.enh.ird, v->ird);
		ck_assert_uint_eq(m.enh.ord, v->ord);
		ck_assert_ptr_eq(m.ulp_pd, ulp_n ? buf + 8 : NULL);
	}
	/* Build from the parsed fields gives the same bytes. */
	ck_assert(sctp_ss_build(&m, out, sizeof(out), &w) == WIRE_OK);
	ck_assert_uint_eq(w, n);
	ck_assert(memcmp(out, buf, n) == 0);
}
END_TEST

/* Every prefix: ESHORT before the fixed part, a shorter message after. */
START_TEST(test_truncation)
{
	const struct ss_vec *v = &vecs[_i];
	uint8_t buf[64];
	size_t n, len, fixed;

	n = vec_bytes(v, buf, sizeof(buf));
	fixed = sctp_ss_fc_has_enh(v->fc) ? 8 : 4;
	for (len = 0; len < n; len++) {
		/* an exact-size heap copy: ASan sees any over-read */
		uint8_t *p = malloc(len ? len : 1);
		struct sctp_ss_msg m;
		size_t used = 99;
		enum wire_err e;

		memcpy(p, buf, len);
		e = sctp_ss_parse(p, len, &m, &used);
		if (len < fixed) {
			ck_assert_msg(e == WIRE_ESHORT, "%s len %zu: %s",
				      v->name, len, wire_errname(e));
			ck_assert_uint_eq(used, 99);
		} else {
			ck_assert_msg(e == WIRE_OK, "%s len %zu", v->name, len);
			ck_assert_uint_eq(used, len);
			ck_assert_uint_eq(m.pd_len, len - 4);
			ck_assert_uint_eq(m.ulp_pd_len, len - fixed);
		}
		free(p);
	}
}
END_TEST

struct bad_vec {
	const char *name;
	const char *hex; /* header; pd bytes appended */
	size_t pd;	 /* zero bytes of Private Data to append */
	enum wire_err err;
};

static const struct bad_vec bad[] = {
	{ "function code 0", "00 00 00 00", 0, WIRE_EOPCODE },
	{ "function code 8", "00 00 00 08", 0, WIRE_EOPCODE },
	{ "function code 0x0101", "00 00 01 01", 0, WIRE_EOPCODE },
	{ "function code 0x0100", "00 00 01 00", 4, WIRE_EOPCODE },
	{ "experimental 0xFFFF", "00 00 ff ff", 0, WIRE_EOPCODE },
	{ "Terminate with 1 octet PD", "00 00 00 04", 1, WIRE_ELEN },
	{ "Terminate with 512 octets PD", "00 00 00 04", 512, WIRE_ELEN },
	{ "Initiate 513 octets PD", "00 00 00 01", 513, WIRE_ELEN },
	{ "Accept 513 octets PD", "00 00 00 02", 513, WIRE_ELEN },
	{ "Reject 513 octets PD", "00 00 00 03", 513, WIRE_ELEN },
	{ "Enh Initiate 4 + 509 (word counts)", "00 00 00 05", 513, WIRE_ELEN },
	{ "Enh Accept 4 + 509", "00 00 00 06", 513, WIRE_ELEN },
	{ "Enh Reject 513", "00 00 00 07", 513, WIRE_ELEN },
	{ "Initiate 1000 octets PD", "00 00 00 01", 1000, WIRE_ELEN },
	{ "Enh Initiate without word", "00 00 00 05", 0, WIRE_ESHORT },
	{ "Enh Accept, 3 octets of word", "00 00 00 06", 3, WIRE_ESHORT },
};

START_TEST(test_malformed)
{
	const struct bad_vec *v = &bad[_i];
	uint8_t *buf = calloc(1, 4 + v->pd + 1);
	struct sctp_ss_msg m;
	size_t n, used = 0;
	enum wire_err e;

	n = test_hex(v->hex, buf, 4) + v->pd;
	e = sctp_ss_parse(buf, n, &m, &used);
	ck_assert_msg(e == v->err, "%s: got %s want %s", v->name,
		      wire_errname(e), wire_errname(v->err));
	free(buf);
}
END_TEST

/* The 512-octet limit is inclusive, the word included. */
START_TEST(test_pd_limits)
{
	static uint8_t buf[4 + 512];
	static const uint16_t fcs[] = { 1, 2, 3, 5, 6, 7 };
	struct sctp_ss_msg m;
	size_t i, used, w;
	uint8_t out[4 + 512];

	for (i = 0; i < ARRAY_SIZE(fcs); i++) {
		memset(buf, 0x5a, sizeof(buf));
		buf[0] = 0;
		buf[1] = 0;
		buf[2] = 0;
		buf[3] = (uint8_t)fcs[i];
		ck_assert(sctp_ss_parse(buf, sizeof(buf), &m, &used) ==
			  WIRE_OK);
		ck_assert_uint_eq(m.pd_len, 512);
		ck_assert_uint_eq(m.ulp_pd_len,
				  sctp_ss_fc_has_enh(fcs[i]) ? 508 : 512);
		ck_assert(sctp_ss_build(&m, out, sizeof(out), &w) == WIRE_OK);
		ck_assert_uint_eq(w, sizeof(buf));
		ck_assert(memcmp(out, buf, w) == 0);
	}
	/* Terminate: exactly 4 octets. */
	buf[3] = SCTP_SS_TERMINATE;
	ck_assert(sctp_ss_parse(buf, 4, &m, &used) == WIRE_OK);
	ck_assert_uint_eq(m.pd_len, 0);
	ck_assert_ptr_null(m.pd);
}
END_TEST

START_TEST(test_build_errors)
{
	uint8_t out[600], pd[600] = { 0 };
	struct sctp_ss_msg m;
	size_t w, cap;

	memset(&m, 0, sizeof(m));
	m.fc = 0;
	ck_assert(sctp_ss_build(&m, out, sizeof(out), &w) == WIRE_EINVAL);
	m.fc = 8;
	ck_assert(sctp_ss_build(&m, out, sizeof(out), &w) == WIRE_EINVAL);
	m.fc = SCTP_SS_EXPERIMENTAL;
	ck_assert(sctp_ss_build(&m, out, sizeof(out), &w) == WIRE_EINVAL);
	/* Terminate carries nothing (RFC 5043 §5.2.3). */
	m.fc = SCTP_SS_TERMINATE;
	m.pd = pd;
	m.pd_len = 1;
	ck_assert(sctp_ss_build(&m, out, sizeof(out), &w) == WIRE_ELEN);
	/* 512 is the limit, the word included (RFC 6581 §7). */
	m.fc = SCTP_SS_INITIATE;
	m.pd_len = 513;
	ck_assert(sctp_ss_build(&m, out, sizeof(out), &w) == WIRE_ELEN);
	m.pd_len = 512;
	ck_assert(sctp_ss_build(&m, out, sizeof(out), &w) == WIRE_OK);
	ck_assert_uint_eq(w, 516);
	m.fc = SCTP_SS_ENH_ACCEPT;
	m.ulp_pd = pd;
	m.ulp_pd_len = 509;
	ck_assert(sctp_ss_build(&m, out, sizeof(out), &w) == WIRE_ELEN);
	m.ulp_pd_len = 508;
	ck_assert(sctp_ss_build(&m, out, sizeof(out), &w) == WIRE_OK);
	ck_assert_uint_eq(w, 516);
	/* A 14-bit IRD/ORD and known RTR bits only. */
	m.enh.ird = 0x4000;
	ck_assert(sctp_ss_build(&m, out, sizeof(out), &w) == WIRE_EINVAL);
	m.enh.ird = 0x3fff;
	m.enh.ord = 0x4000;
	ck_assert(sctp_ss_build(&m, out, sizeof(out), &w) == WIRE_EINVAL);
	m.enh.ord = 0;
	m.enh.rtr = 0x08;
	ck_assert(sctp_ss_build(&m, out, sizeof(out), &w) == WIRE_EINVAL);
	m.enh.rtr = 0;
	/* Length without data. */
	m.ulp_pd = NULL;
	m.ulp_pd_len = 1;
	ck_assert(sctp_ss_build(&m, out, sizeof(out), &w) == WIRE_EINVAL);
	m.fc = SCTP_SS_REJECT;
	m.pd = NULL;
	m.pd_len = 3;
	ck_assert(sctp_ss_build(&m, out, sizeof(out), &w) == WIRE_EINVAL);
	/* Every capacity below the size: ENOSPC. */
	m.fc = SCTP_SS_ENH_INITIATE;
	m.ulp_pd = pd;
	m.ulp_pd_len = 10;
	for (cap = 0; cap < 18; cap++)
		ck_assert_msg(sctp_ss_build(&m, out, cap, &w) == WIRE_ENOSPC,
			      "cap %zu", cap);
	ck_assert(sctp_ss_build(&m, out, 18, &w) == WIRE_OK);
	ck_assert_uint_eq(w, 18);
}
END_TEST

/* Fields built from m are the fields parsed back. */
static void check_round_trip(const struct sctp_ss_msg *m)
{
	uint8_t out[SCTP_SS_MSG_MAX];
	struct sctp_ss_msg b;
	size_t w = 0, used = 0;
	const uint8_t *pd;
	uint16_t pd_len;

	ck_assert(sctp_ss_build(m, out, sizeof(out), &w) == WIRE_OK);
	ck_assert(sctp_ss_parse(out, w, &b, &used) == WIRE_OK);
	ck_assert_uint_eq(used, w);
	ck_assert_uint_eq(b.ssn, m->ssn);
	ck_assert_uint_eq(b.fc, m->fc);
	if (sctp_ss_fc_has_enh(m->fc)) {
		ck_assert(b.enhanced);
		ck_assert_int_eq(b.enh.p2p, m->enh.p2p);
		ck_assert_uint_eq(b.enh.rtr, m->enh.rtr);
		ck_assert_uint_eq(b.enh.ird, m->enh.ird);
		ck_assert_uint_eq(b.enh.ord, m->enh.ord);
		pd = m->ulp_pd;
		pd_len = m->ulp_pd_len;
		ck_assert_uint_eq(b.pd_len, pd_len + 4);
	} else {
		ck_assert(!b.enhanced);
		pd = m->pd;
		pd_len = m->pd_len;
		ck_assert_uint_eq(b.pd_len, pd_len);
	}
	ck_assert_uint_eq(b.ulp_pd_len, pd_len);
	if (pd_len)
		ck_assert(memcmp(b.ulp_pd, pd, pd_len) == 0);
}

START_TEST(test_random_round_trip)
{
	static uint8_t pd[SCTP_SS_PD_MAX];
	int i;

	for (i = 0; i < 20000; i++) {
		struct sctp_ss_msg m;
		uint16_t max;

		memset(&m, 0, sizeof(m));
		m.ssn = (uint16_t)test_rand32();
		m.fc = (uint16_t)(1 + test_rand32() % 7);
		m.enh.p2p = test_rand32() & 1;
		m.enh.rtr = (uint8_t)(test_rand32() & MPA_RTR_ALL);
		m.enh.ird = (uint16_t)(test_rand32() & 0x3fff);
		m.enh.ord = (uint16_t)(test_rand32() & 0x3fff);
		max = sctp_ss_fc_has_enh(m.fc) ? 508 : 512;
		if (m.fc == SCTP_SS_TERMINATE)
			max = 0;
		/* Favour the edges 0 and max. */
		switch (test_rand32() % 4) {
		case 0:
			m.pd_len = 0;
			break;
		case 1:
			m.pd_len = max;
			break;
		default:
			m.pd_len = (uint16_t)(test_rand32() % (max + 1u));
		}
		test_rand_bytes(pd, m.pd_len);
		m.pd = pd;
		m.ulp_pd = pd;
		m.ulp_pd_len = m.pd_len;
		check_round_trip(&m);
	}
}
END_TEST

/* Random bytes: a parse never lies; OK -> build gives the input back. */
START_TEST(test_random_bytes)
{
	uint8_t buf[SCTP_SS_MSG_MAX + 8], out[SCTP_SS_MSG_MAX];
	int i, ok = 0;

	for (i = 0; i < 20000; i++) {
		struct sctp_ss_msg m;
		size_t len = test_rand32() % sizeof(buf), used, w;
		enum wire_err e;

		test_rand_bytes(buf, len);
		if (len >= 4 && (test_rand32() & 1)) {
			buf[2] = 0;
			buf[3] = (uint8_t)(test_rand32() % 9);
		}
		e = sctp_ss_parse(buf, len, &m, &used);
		if (e != WIRE_OK) {
			ck_assert(e == WIRE_ESHORT || e == WIRE_EOPCODE ||
				  e == WIRE_ELEN);
			continue;
		}
		ok++;
		ck_assert_uint_eq(used, len);
		ck_assert(sctp_ss_build(&m, out, sizeof(out), &w) == WIRE_OK);
		ck_assert_uint_eq(w, len);
		ck_assert(memcmp(out, buf, len) == 0);
	}
	ck_assert_int_gt(ok, 100);
}
END_TEST

START_TEST(test_names)
{
	static const struct {
		uint16_t fc;
		const char *name;
		bool valid, enh;
	} t[] = {
		{ 0, "Unassigned", false, false },
		{ 1, "Initiate", true, false },
		{ 2, "Accept", true, false },
		{ 3, "Reject", true, false },
		{ 4, "Terminate", true, false },
		{ 5, "Enhanced Initiate", true, true },
		{ 6, "Enhanced Accept", true, true },
		{ 7, "Enhanced Reject", true, false },
		{ 8, "Unassigned", false, false },
		{ 0xfffe, "Unassigned", false, false },
		{ 0xffff, "Experimental", false, false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		ck_assert_str_eq(sctp_ss_fc_name(t[i].fc), t[i].name);
		ck_assert_int_eq(sctp_ss_fc_valid(t[i].fc), t[i].valid);
		ck_assert_int_eq(sctp_ss_fc_has_enh(t[i].fc), t[i].enh);
	}
	ck_assert_uint_eq(SCTP_PPID_DDP_SEGMENT, 16);
	ck_assert_uint_eq(SCTP_PPID_DDP_SESSION_CTL, 17);
	ck_assert_uint_eq(SCTP_ADAPT_IND_PARAM, 0xC006);
	ck_assert_uint_eq(SCTP_ADAPT_IND_DDP, 1);
	for (i = 0; i < SCTP_SS_D_MAX; i++)
		ck_assert_str_ne(sctp_ss_dstate_name((uint8_t)i), "unknown");
	ck_assert_str_eq(sctp_ss_dstate_name(SCTP_SS_D_MAX), "unknown");
	ck_assert_str_eq(sctp_ss_verdict_name(SCTP_SS_OK), "ok");
	ck_assert_str_eq(sctp_ss_verdict_name(SCTP_SS_ILLEGAL),
			 "illegal sequence");
	ck_assert_str_eq(sctp_ss_verdict_name(SCTP_SS_BAD_SSN),
			 "DDP-SSN out of sequence");
}
END_TEST

/* ---- Sequences ---- */

enum {
	NONE_ = SCTP_SS_D_NONE,
	OPEN = SCTP_SS_D_OPEN,
	EOPEN = SCTP_SS_D_EOPEN,
	TERM = SCTP_SS_D_TERM,
	ETERM = SCTP_SS_D_ETERM,
	REJ = SCTP_SS_D_REJ
};

#define SEG SCTP_SS_SEGMENT

/*
 * The patterns of RFC 5043 §6.2-6.4 and RFC 6581 §7 stated directly, as
 * the oracle for the table: -1 if illegal, else the new state.
 */
static int oracle(unsigned int dir, int d0, int d1, uint32_t msg)
{
	bool enh0 = d0 == EOPEN || d0 == ETERM;

	if (dir == 0) {
		/* Nothing after a rejection; the Initiate comes first. */
		if (d1 == REJ)
			return -1;
		if (d0 == NONE_) {
			if (d1 != NONE_)
				return -1;
			if (msg == SCTP_SS_INITIATE)
				return OPEN;
			if (msg == SCTP_SS_ENH_INITIATE)
				return EOPEN;
			return -1;
		}
		if (d0 == OPEN || d0 == EOPEN) {
			if (msg == SEG)
				return d0;
			if (msg == SCTP_SS_TERMINATE)
				return d0 == OPEN ? TERM : ETERM;
		}
		return -1;
	}
	/* The passive side answers an Initiate that exists. */
	if (d0 != OPEN && d0 != EOPEN && d0 != TERM && d0 != ETERM)
		return -1;
	switch (d1) {
	case NONE_:
		if (msg == SCTP_SS_ACCEPT && !enh0)
			return OPEN;
		if (msg == SCTP_SS_ENH_ACCEPT && enh0)
			return EOPEN;
		if (msg == SCTP_SS_REJECT && !enh0)
			return REJ;
		if (msg == SCTP_SS_ENH_REJECT && enh0)
			return REJ;
		if (msg == SCTP_SS_TERMINATE)
			return REJ; /* non-ULP reject */
		return -1;
	case OPEN:
	case EOPEN:
		if (msg == SEG)
			return d1;
		if (msg == SCTP_SS_TERMINATE)
			return d1 == OPEN ? TERM : ETERM;
		return -1;
	}
	return -1;
}

START_TEST(test_legal_next_exhaustive)
{
	static const uint32_t msgs[] = {
		0, 1, 2, 3, 4, 5, 6, 7, 8, 0xffff, SEG, SEG + 1,
	};
	unsigned int dir, d0, d1, i, legal = 0;

	for (dir = 0; dir < 3; dir++)
		for (d0 = 0; d0 <= SCTP_SS_D_MAX; d0++)
			for (d1 = 0; d1 <= SCTP_SS_D_MAX; d1++)
				for (i = 0; i < ARRAY_SIZE(msgs); i++) {
					uint8_t next = 0xee;
					bool ok;
					int want = -1;

					ok = sctp_ss_legal_next(dir,
								(uint8_t)d0,
								(uint8_t)d1,
								msgs[i], &next);
					if (dir < 2 && d0 < SCTP_SS_D_MAX &&
					    d1 < SCTP_SS_D_MAX)
						want = oracle(dir, (int)d0,
							      (int)d1, msgs[i]);
					ck_assert_msg(ok == (want >= 0),
						      "dir %u %s/%s msg %x: %d",
						      dir,
						      sctp_ss_dstate_name(d0),
						      sctp_ss_dstate_name(d1),
						      msgs[i], ok);
					if (ok) {
						ck_assert_int_eq(next, want);
						legal++;
					} else {
						ck_assert_uint_eq(next, 0xee);
					}
				}
	/*
	 * Legal rows, counted: direction 0: Initiate and Enhanced Initiate
	 * from (none, none) = 2, Segment and Terminate from open / open
	 * (enhanced) with the other direction in any of its 5 states but
	 * rejected = 2 x 2 x 5 = 20.  Direction 1, from none: 2 plain
	 * states of direction 0 x {Accept, Reject, Terminate} + 2 enhanced
	 * ones x {Enhanced Accept, Enhanced Reject, Terminate} = 12; from
	 * open / open (enhanced): 4 started states x {Segment,
	 * Terminate} x 2 = 16.
	 */
	ck_assert_uint_eq(legal, 2 + 20 + 12 + 16);
}
END_TEST

struct step {
	bool from_active;
	uint32_t msg;
	enum sctp_ss_verdict want;
};

struct scenario {
	const char *name;
	struct step steps[10];
	size_t n;
	bool established;
	bool done;
};

#define A(m)                          \
	{                             \
		true, (m), SCTP_SS_OK \
	}
#define P(m)                           \
	{                              \
		false, (m), SCTP_SS_OK \
	}
#define A_BAD(m)                           \
	{                                  \
		true, (m), SCTP_SS_ILLEGAL \
	}
#define P_BAD(m)                            \
	{                                   \
		false, (m), SCTP_SS_ILLEGAL \
	}

static const struct scenario scenarios[] = {
	/* RFC 5043 §6.2 */
	{ "6.2 accepted, both terminate",
	  { A(1), P(2), A(SEG), P(SEG), P(SEG), A(SEG), A(4), P(4) },
	  8,
	  true,
	  true },
	{ "6.2 accepted, only the active side terminates",
	  { A(1), P(2), A(SEG), A(4), P(SEG) },
	  5,
	  true,
	  false },
	{ "6.2 active segments before the Accept (after SCTP ack, §6.6)",
	  { A(1), A(SEG), A(SEG), P(2), P(SEG) },
	  5,
	  true,
	  false },
	{ "6.2 nothing after an own Terminate",
	  { A(1), P(2), A(4), A_BAD(SEG), A_BAD(4) },
	  5,
	  true,
	  false },
	{ "6.2 passive nothing after its Terminate",
	  { A(1), P(2), P(4), P_BAD(SEG), A(SEG), A(4) },
	  6,
	  true,
	  true },
	/* RFC 5043 §6.3 */
	{ "6.3 rejected", { A(1), P(3) }, 2, false, true },
	{ "6.3 nothing after a Reject",
	  { A(1), P(3), P_BAD(SEG), P_BAD(4), A_BAD(SEG), A_BAD(4) },
	  6,
	  false,
	  true },
	/* RFC 5043 §6.4 */
	{ "6.4 non-ULP rejected", { A(1), P(4) }, 2, false, true },
	{ "6.4 non-ULP rejected after active segments",
	  { A(1), A(SEG), P(4), A_BAD(SEG) },
	  4,
	  false,
	  true },
	/* RFC 6581 §7 */
	{ "7 enhanced accepted",
	  { A(5), P(6), A(SEG), P(SEG), A(4), P(4) },
	  6,
	  true,
	  true },
	{ "7 enhanced rejected", { A(5), P(7) }, 2, false, true },
	{ "7 enhanced non-ULP rejected", { A(5), P(4) }, 2, false, true },
	/* Illegal mixes */
	{ "Initiate answered by Enhanced Accept",
	  { A(1), P_BAD(6), P_BAD(7), P(2) },
	  4,
	  true,
	  false },
	{ "Enhanced Initiate answered by Accept / Reject",
	  { A(5), P_BAD(2), P_BAD(3), P(6) },
	  4,
	  true,
	  false },
	{ "no segment before the Initiate",
	  { A_BAD(SEG), A_BAD(2), A_BAD(4), A(1) },
	  4,
	  false,
	  false },
	{ "passive cannot start or answer nothing",
	  { P_BAD(1), P_BAD(5), P_BAD(2), P_BAD(4), P_BAD(SEG) },
	  5,
	  false,
	  false },
	{ "passive segment before its Accept",
	  { A(1), P_BAD(SEG), P(2) },
	  3,
	  true,
	  false },
	{ "Initiate twice", { A(1), A_BAD(1), A_BAD(5) }, 3, false, false },
	{ "passive Initiate on an open session",
	  { A(1), P(2), P_BAD(1), P_BAD(5), A_BAD(2), A_BAD(6) },
	  6,
	  true,
	  false },
	{ "unknown codes are never legal",
	  { A_BAD(0), A_BAD(8), A(1), P_BAD(0xffff), P_BAD(8) },
	  5,
	  false,
	  false },
	{ "active withdraws before the answer, then Terminate back",
	  { A(1), A(4), P(4) },
	  3,
	  false,
	  true },
	{ "enhanced withdraw then Enhanced Accept",
	  { A(5), A(4), P(6), P(4) },
	  4,
	  true,
	  true },
};

/* Play sc from one role's point of view with correct DDP-SSNs. */
static void play(const struct scenario *sc, enum sctp_ss_role role)
{
	struct sctp_ss_seq s;
	uint16_t ssn[2] = { 0, 0 };
	size_t i;

	sctp_ss_seq_init(&s, role);
	for (i = 0; i < sc->n; i++) {
		const struct step *st = &sc->steps[i];
		unsigned int dir = st->from_active ? 0 : 1;
		bool tx = st->from_active == (role == SCTP_SS_ACTIVE);
		enum sctp_ss_verdict v;

		v = sctp_ss_seq_step(&s, tx, st->msg, ssn[dir]);
		ck_assert_msg(v == st->want, "%s (%s) step %zu: %s", sc->name,
			      role == SCTP_SS_ACTIVE ? "active" : "passive", i,
			      sctp_ss_verdict_name(v));
		if (v == SCTP_SS_OK)
			ssn[dir]++;
	}
	ck_assert_msg(sctp_ss_seq_established(&s) == sc->established, "%s",
		      sc->name);
	ck_assert_msg(sctp_ss_seq_done(&s) == sc->done, "%s", sc->name);
}

START_TEST(test_scenarios)
{
	play(&scenarios[_i], SCTP_SS_ACTIVE);
	play(&scenarios[_i], SCTP_SS_PASSIVE);
}
END_TEST

START_TEST(test_ssn)
{
	struct sctp_ss_seq s;
	uint16_t i;

	/* RFC 5043 §6.1: DDP-SSN starts at 0 per session, no gaps. */
	sctp_ss_seq_init(&s, SCTP_SS_PASSIVE);
	ck_assert(sctp_ss_seq_step(&s, false, 1, 1) == SCTP_SS_BAD_SSN);
	ck_assert(sctp_ss_seq_step(&s, false, 1, 0) == SCTP_SS_OK);
	ck_assert(sctp_ss_seq_step(&s, true, 2, 1) == SCTP_SS_BAD_SSN);
	ck_assert(sctp_ss_seq_step(&s, true, 2, 0) == SCTP_SS_OK);
	ck_assert(sctp_ss_seq_step(&s, false, SEG, 2) == SCTP_SS_BAD_SSN);
	ck_assert(sctp_ss_seq_step(&s, false, SEG, 1) == SCTP_SS_OK);
	/* A refused step changes nothing: the same SSN is still next. */
	ck_assert(sctp_ss_seq_step(&s, false, 5, 2) == SCTP_SS_ILLEGAL);
	ck_assert(sctp_ss_seq_step(&s, false, SEG, 2) == SCTP_SS_OK);
	/* The 16-bit DDP-SSN wraps. */
	for (i = 3; i != 2; i++) {
		ck_assert(sctp_ss_seq_step(&s, false, SEG, i) == SCTP_SS_OK);
		if (i == 0xffff)
			ck_assert_uint_eq(s.ssn[0], 0);
	}
	ck_assert(sctp_ss_seq_step(&s, true, SEG, 1) == SCTP_SS_OK);
	ck_assert(sctp_ss_seq_step(&s, true, 4, 2) == SCTP_SS_OK);
	ck_assert(!sctp_ss_seq_done(&s));
	ck_assert(sctp_ss_seq_step(&s, false, 4, 2) == SCTP_SS_OK);
	ck_assert(sctp_ss_seq_done(&s));
}
END_TEST

static Suite *sctp_ss_suite(void)
{
	Suite *s = suite_create("sctp_ss");

	add_loop_tcase(s, "vectors", test_vectors, ARRAY_SIZE(vecs));
	add_loop_tcase(s, "truncation", test_truncation, ARRAY_SIZE(vecs));
	add_loop_tcase(s, "malformed", test_malformed, ARRAY_SIZE(bad));
	add_tcase(s, "pd_limits", test_pd_limits);
	add_tcase(s, "build_errors", test_build_errors);
	add_tcase(s, "random_round_trip", test_random_round_trip);
	add_tcase(s, "random_bytes", test_random_bytes);
	add_tcase(s, "names", test_names);
	add_tcase(s, "legal_next", test_legal_next_exhaustive);
	add_loop_tcase(s, "scenarios", test_scenarios, ARRAY_SIZE(scenarios));
	add_tcase(s, "ssn", test_ssn);
	return s;
}

TEST_MAIN(sctp_ss_suite)
