/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Check tests of the decoder library (cli/libdissect.la) without libpcap:
 * the Linux siw vectors (frames, negotiated framing, every FPDU's offset,
 * length and CRC), synthetic sessions of every kind written by iwcmctl
 * sample --hex, the same streams fed split at every offset and octet by
 * octet (identical output), damaged input (truncated, bad CRC, bad
 * marker, bad key, gaps, garbage: reported, never a crash), the bounds
 * on what a direction may hold, and the TCP reassembly of decode.c.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "decode.h"
#include "dissect.h"
#include "json.h"
#include "output.h"
#include "vectors/mpa_siw.h"
#include "vocab.h"

#define IWCMCTL BUILDDIR "/../cli/iwcmctl"
#define REC_MAX 256

/* ---- a sink that records what the dissector reports ---- */

struct rec_fpdu {
	enum out_dir dir;
	uint64_t off;
	uint16_t ulpdu_len;
	enum out_crc crc;
	bool markers_ok;
	unsigned int n_markers;
	bool bad;
	bool has_msg;
	uint8_t opcode;
	char rtr[16];
};

struct rec {
	unsigned int conns, frames, params, conn_ends;
	struct out_params p;
	unsigned int n_fpdus;
	struct rec_fpdu fpdu[REC_MAX];
	unsigned int n_ev[OUT_EV_MAX];
	unsigned int n_bad_ev;
	unsigned int frame_type[4];
};

static struct rec rec;

static void rec_conn(struct out_sink *o, const struct out_conn *c)
{
	rec.conns++;
}

static void rec_frame(struct out_sink *o, const struct out_frame *f)
{
	rec.frames++;
	if ((unsigned int)f->f->type < 4)
		rec.frame_type[f->f->type]++;
}

static void rec_params(struct out_sink *o, const struct out_params *p)
{
	rec.params++;
	rec.p = *p;
	rec.p.initiator = rec.p.responder = rec.p.problem = NULL;
}

static void rec_fpdu(struct out_sink *o, const struct out_fpdu *f)
{
	struct rec_fpdu *r;

	if (rec.n_fpdus >= REC_MAX)
		return;
	r = &rec.fpdu[rec.n_fpdus++];
	r->dir = f->dir;
	r->off = f->off;
	r->ulpdu_len = f->ulpdu_len;
	r->crc = f->crc;
	r->markers_ok = f->markers_ok;
	r->n_markers = f->n_markers;
	r->bad = f->bad;
	r->has_msg = f->msg != NULL;
	r->opcode = f->opcode;
	snprintf(r->rtr, sizeof(r->rtr), "%s", f->rtr ? f->rtr : "");
}

static void rec_event(struct out_sink *o, const struct out_event *e)
{
	if ((unsigned int)e->kind < OUT_EV_MAX)
		rec.n_ev[e->kind]++;
	if (e->bad)
		rec.n_bad_ev++;
}

static void rec_conn_end(struct out_sink *o, const struct out_conn_end *c)
{
	rec.conn_ends++;
}

static void rec_summary(struct out_sink *o, const struct out_summary *s)
{
}

static const struct output output_rec = {
	.name = "record",
	.conn = rec_conn,
	.frame = rec_frame,
	.params = rec_params,
	.fpdu = rec_fpdu,
	.event = rec_event,
	.conn_end = rec_conn_end,
	.summary = rec_summary,
};

/* ---- sessions: two byte streams, initiator side 0 ---- */

struct session {
	char name[96];
	uint8_t *s[2];
	size_t len[2];
	size_t frame_len[2]; /* startup frame octets at the start */
};

static void session_free(struct session *ss)
{
	free(ss->s[0]);
	free(ss->s[1]);
	memset(ss, 0, sizeof(*ss));
}

static void session_add(struct session *ss, int side, const uint8_t *p,
			size_t n)
{
	uint8_t *np = realloc(ss->s[side], ss->len[side] + n + 1);

	ck_assert_ptr_nonnull(np);
	memcpy(np + ss->len[side], p, n);
	ss->s[side] = np;
	ss->len[side] += n;
}

/* The siw connections of tests/vectors/mpa_siw.h. */
struct siw_conn {
	const char *name;
	int req, rep; /* mpa_siw_frames[] */
	int i2r, r2i; /* mpa_siw_streams[], -1: none */
	bool crc;
	bool p2p;
};

static const struct siw_conn siw_conns[] = {
	{ "siw-readbw-mpa1-crc#0", 0, 1, 0, 1, true, false },
	{ "siw-readbw-mpa1-crc#1", 2, 3, 2, 3, true, false },
	{ "siw-rping-default#0", 4, 5, 4, 5, false, false },
	{ "siw-rping-mpa1#0", 6, 7, 6, -1, false, false },
	{ "siw-rping-mpa2-p2p-writertr#0", 8, 9, 7, 8, false, true },
};

static void session_siw(struct session *ss, const struct siw_conn *c)
{
	const struct mpa_siw_frame *fq = &mpa_siw_frames[c->req];
	const struct mpa_siw_frame *fp = &mpa_siw_frames[c->rep];

	memset(ss, 0, sizeof(*ss));
	snprintf(ss->name, sizeof(ss->name), "%s", c->name);
	session_add(ss, 0, fq->bytes, fq->len);
	session_add(ss, 1, fp->bytes, fp->len);
	ss->frame_len[0] = fq->len;
	ss->frame_len[1] = fp->len;
	if (c->i2r >= 0)
		session_add(ss, 0, mpa_siw_streams[c->i2r].bytes,
			    mpa_siw_streams[c->i2r].len);
	if (c->r2i >= 0)
		session_add(ss, 1, mpa_siw_streams[c->r2i].bytes,
			    mpa_siw_streams[c->r2i].len);
}

/* Options of iwcmctl sample for the synthetic sessions. */
static const char *const sample_opts[] = {
	"",
	"--rev 1",
	"--rev0",
	"--rev 0",
	"--client-server",
	"--rtr read",
	"--rtr send",
	"--rev 1 --rtr-frame",
	"--markers",
	"--markers-i2r",
	"--markers-r2i",
	"--no-crc",
	"--markers --no-crc --swap --terminate",
	"--markers --no-ddp-seg --mss 300",
	"--markers --corrupt 5",
};

/* A sample session from iwcmctl sample --hex; false when unavailable. */
static bool session_sample(struct session *ss, const char *opts)
{
	char cmd[512], line[512];
	FILE *fp;
	int rc, side;

	memset(ss, 0, sizeof(*ss));
	snprintf(ss->name, sizeof(ss->name), "sample %s", opts);
	snprintf(cmd, sizeof(cmd), "'%s' sample --hex -o - %s 2>/dev/null",
		 IWCMCTL, opts);
	fp = popen(cmd, "r");
	if (!fp)
		return false;
	while (fgets(line, sizeof(line), fp)) {
		uint8_t buf[64];
		size_t n;

		if (line[0] != '>' && line[0] != '<')
			continue;
		side = line[0] == '>' ? 0 : 1;
		n = test_hex(line + 1, buf, sizeof(buf));
		session_add(ss, side, buf, n);
	}
	rc = pclose(fp);
	if (rc != 0 || !ss->len[0] || !ss->len[1])
		return false;
	for (side = 0; side < 2; side++) {
		struct mpa_frame f;
		size_t used = 0;

		if (mpa_frame_parse(ss->s[side], ss->len[side], &f, &used) ==
		    WIRE_OK)
			ss->frame_len[side] = used;
	}
	return true;
}

/* ---- running the dissector ---- */

/* Split points of one run: side 0 then side 1, each cut at cut[side]. */
struct feed {
	size_t cut[2]; /* 0: no cut */
	bool bytewise;
	bool interleave; /* alternate the sides chunk by chunk */
	size_t chunk;	 /* interleave: chunk size */
	bool verbose;	 /* OUT_VERBOSE */
};

static void feed_side(struct dissect *d, const struct session *ss, int side,
		      const struct feed *f)
{
	const uint8_t *p = ss->s[side];
	size_t n = ss->len[side], i;

	if (f->bytewise) {
		for (i = 0; i < n; i++)
			dissect_data(d, side, p + i, 1);
		return;
	}
	if (f->cut[side] && f->cut[side] < n) {
		dissect_data(d, side, p, f->cut[side]);
		dissect_data(d, side, p + f->cut[side], n - f->cut[side]);
		return;
	}
	dissect_data(d, side, p, n);
}

/* Dissect ss with ops into a string (free it); stats in *st. */
static char *run(const struct session *ss, const struct output *ops,
		 const struct feed *f, struct dissect_stats *st)
{
	struct out_sink out;
	struct dissect *d;
	char *text = NULL;
	size_t text_len = 0;
	FILE *fp = open_memstream(&text, &text_len);

	ck_assert_ptr_nonnull(fp);
	memset(st, 0, sizeof(*st));
	if (ops == &output_rec)
		memset(&rec, 0, sizeof(rec));
	out.ops = ops;
	out.fp = fp;
	out.flags = f && f->verbose ? OUT_VERBOSE : 0;
	d = dissect_new(&out, st, 1, "10.0.0.1:1000", "10.0.0.2:2000", -1);
	ck_assert_ptr_nonnull(d);
	if (f && f->interleave) {
		size_t off[2] = { 0, 0 };

		while (off[0] < ss->len[0] || off[1] < ss->len[1]) {
			int side;

			for (side = 0; side < 2; side++) {
				size_t n = ss->len[side] - off[side];

				if (n > f->chunk)
					n = f->chunk;
				if (n)
					dissect_data(d, side,
						     ss->s[side] + off[side],
						     n);
				off[side] += n;
			}
		}
	} else {
		struct feed none;

		memset(&none, 0, sizeof(none));
		feed_side(d, ss, 0, f ? f : &none);
		feed_side(d, ss, 1, f ? f : &none);
	}
	dissect_end(d);
	dissect_free(d);
	ck_assert_int_eq(fclose(fp), 0);
	return text;
}

static bool stats_clean(const struct dissect_stats *st)
{
	return !st->crc_bad && !st->marker_bad && !st->malformed && !st->errors;
}

/* ---- vectors ---- */

START_TEST(t_siw_vectors)
{
	const struct siw_conn *c = &siw_conns[_i];
	struct dissect_stats st;
	struct session ss;
	unsigned int k, n_i2r = 0, n_r2i = 0;
	char *out;

	session_siw(&ss, c);
	out = run(&ss, &output_rec, NULL, &st);
	free(out);
	ck_assert_uint_eq(rec.conns, 1);
	ck_assert_uint_eq(rec.frames, 2);
	ck_assert_uint_eq(rec.frame_type[MPA_FRAME_REQ], 1);
	ck_assert_uint_eq(rec.frame_type[MPA_FRAME_REP], 1);
	ck_assert_uint_eq(rec.params, 1);
	ck_assert_uint_eq(rec.conn_ends, 1);
	/* RFC 5044 §7.1.1: C in either frame turns CRC on; siw sends no
	 * markers and asks for none. */
	ck_assert_int_eq(rec.p.crc, c->crc);
	ck_assert(!rec.p.markers_i2r && !rec.p.markers_r2i);
	ck_assert(!rec.p.rdmac);
	ck_assert_uint_eq(rec.p.version, 1);
	ck_assert_int_eq(rec.p.p2p, c->p2p);
	ck_assert_msg(stats_clean(&st), "%s: not clean", c->name);
	ck_assert_uint_eq(rec.n_bad_ev, 0);
	for (k = 0; k < rec.n_fpdus; k++) {
		const struct rec_fpdu *r = &rec.fpdu[k];
		const struct mpa_siw_stream *vs;
		unsigned int idx;

		ck_assert(!r->bad);
		ck_assert(r->has_msg);
		ck_assert_int_eq(r->crc, c->crc ? OUT_CRC_GOOD : OUT_CRC_OFF);
		if (r->dir == OUT_DIR_I2R) {
			vs = &mpa_siw_streams[c->i2r];
			idx = n_i2r++;
		} else {
			ck_assert_int_eq(r->dir, OUT_DIR_R2I);
			ck_assert_int_ge(c->r2i, 0);
			vs = &mpa_siw_streams[c->r2i];
			idx = n_r2i++;
		}
		ck_assert_uint_lt(idx, vs->n_fpdus);
		ck_assert_uint_eq(r->off, vs->fpdu_off[idx]);
		ck_assert_uint_eq(r->ulpdu_len, vs->ulpdu_len[idx]);
	}
	ck_assert_uint_eq(n_i2r, mpa_siw_streams[c->i2r].n_fpdus);
	ck_assert_uint_eq(n_r2i,
			  c->r2i < 0 ? 0 : mpa_siw_streams[c->r2i].n_fpdus);
	ck_assert_uint_eq(st.fpdus, n_i2r + n_r2i);
	if (c->p2p)
		/* RFC 6581 §9.2: the first i2r FPDU is the Write RTR */
		ck_assert_str_eq(rec.fpdu[0].rtr, "write");
	session_free(&ss);
}
END_TEST

/* What each sample session must show: markers each way, CRC, version. */
struct sample_want {
	bool mi2r, mr2i, crc, rdmac;
	const char *rtr; /* first i2r FPDU's RTR, "" none */
	int corrupt;	 /* --corrupt N, else -1 */
};

static const struct sample_want sample_wants[] = {
	{ false, false, true, false, "write", -1 },
	{ false, false, true, false, "", -1 },
	{ true, true, true, true, "", -1 },
	{ true, true, true, true, "", -1 },
	{ false, false, true, false, "", -1 },
	{ false, false, true, false, "read", -1 },
	{ false, false, true, false, "send", -1 },
	{ false, false, true, false, "", -1 },
	{ true, true, true, false, "write", -1 },
	{ true, false, true, false, "write", -1 },
	{ false, true, true, false, "write", -1 },
	{ false, false, false, false, "write", -1 },
	{ true, true, false, false, "write", -1 },
	{ true, true, true, false, "write", -1 },
	{ true, true, true, false, "write", 5 },
};

START_TEST(t_sample_sessions)
{
	const struct sample_want *w = &sample_wants[_i];
	struct dissect_stats st;
	struct session ss;
	unsigned int k, markers = 0;
	char *out;

	if (!session_sample(&ss, sample_opts[_i])) {
		session_free(&ss);
		ck_abort_msg("%s: iwcmctl sample failed (%s)", ss.name,
			     IWCMCTL);
	}
	out = run(&ss, &output_rec, NULL, &st);
	free(out);
	ck_assert_uint_eq(rec.params, 1);
	ck_assert_int_eq(rec.p.markers_i2r, w->mi2r);
	ck_assert_int_eq(rec.p.markers_r2i, w->mr2i);
	ck_assert_int_eq(rec.p.crc, w->crc);
	ck_assert_int_eq(rec.p.rdmac, w->rdmac);
	/* seed 002 §5.1: version 0 with an RDMA Consortium peer */
	ck_assert_uint_eq(rec.p.version, w->rdmac ? 0 : 1);
	ck_assert_uint_gt(rec.n_fpdus, 4);
	/* --corrupt N: FPDU N fails its CRC (RFC 5044 §8), nothing else */
	ck_assert_uint_eq(st.crc_bad, w->corrupt >= 0);
	ck_assert_msg(!st.marker_bad && !st.malformed && !st.errors,
		      "%s: mk %lu mal %lu err %lu", ss.name, st.marker_bad,
		      st.malformed, st.errors);
	for (k = 0; k < rec.n_fpdus; k++) {
		ck_assert(rec.fpdu[k].markers_ok);
		if (rec.fpdu[k].crc == OUT_CRC_BAD) {
			ck_assert(rec.fpdu[k].bad);
			continue;
		}
		ck_assert(!rec.fpdu[k].bad);
		ck_assert_int_eq(rec.fpdu[k].crc,
				 w->crc ? OUT_CRC_GOOD : OUT_CRC_OFF);
		markers += rec.fpdu[k].n_markers;
	}
	ck_assert_int_eq(markers > 0, w->mi2r || w->mr2i);
	ck_assert_str_eq(rec.fpdu[0].rtr, w->rtr);
	session_free(&ss);
}
END_TEST

/* ---- split anywhere ---- */

#define N_SIW ARRAY_SIZE(siw_conns)
#define N_SPLIT (N_SIW + ARRAY_SIZE(sample_opts))
#define SPLIT_ALL 1100
#define SPLIT_STEP 7

static bool session_nth(struct session *ss, int i)
{
	if ((size_t)i < N_SIW) {
		session_siw(ss, &siw_conns[i]);
		return true;
	}
	return session_sample(ss, sample_opts[i - N_SIW]);
}

START_TEST(t_split_every_offset)
{
	struct dissect_stats st0, st;
	struct session ss;
	struct feed f;
	char *ref, *out;
	size_t k;
	int side;

	ck_assert_msg(session_nth(&ss, _i), "no session %d", _i);
	ref = run(&ss, &output_json, NULL, &st0);
	ck_assert_uint_gt(strlen(ref), 0);
	for (side = 0; side < 2; side++) {
		/* every offset of the vectors; of the longer sample sessions
		 * every offset of the first SPLIT_ALL octets (the frames,
		 * the first FPDUs, the markers at 512 and 1024), then every
		 * SPLIT_STEP-th */
		for (k = 1; k < ss.len[side];
		     k += (size_t)_i < N_SIW || k < SPLIT_ALL ? 1 :
								SPLIT_STEP) {
			memset(&f, 0, sizeof(f));
			f.cut[side] = k;
			out = run(&ss, &output_json, &f, &st);
			ck_assert_msg(!strcmp(out, ref),
				      "%s: side %d split at %zu differs",
				      ss.name, side, k);
			ck_assert_uint_eq(st.fpdus, st0.fpdus);
			free(out);
		}
	}
	memset(&f, 0, sizeof(f));
	f.bytewise = true;
	out = run(&ss, &output_json, &f, &st);
	ck_assert_msg(!strcmp(out, ref), "%s: bytewise differs", ss.name);
	free(out);
	free(ref);
	session_free(&ss);
}
END_TEST

/* The text output too, and the sides interleaved in random chunks: the
 * reports may come in another order, but the same FPDUs are found. */
START_TEST(t_split_random)
{
	struct dissect_stats st0, st;
	struct session ss;
	struct feed f;
	char *ref, *out;
	int round;

	ck_assert_msg(session_nth(&ss, _i), "no session %d", _i);
	ref = run(&ss, &output_text, NULL, &st0);
	for (round = 0; round < 8; round++) {
		memset(&f, 0, sizeof(f));
		f.cut[0] = test_rand32() % (ss.len[0] + 1);
		f.cut[1] = test_rand32() % (ss.len[1] + 1);
		out = run(&ss, &output_text, &f, &st);
		ck_assert_msg(!strcmp(out, ref), "%s: cut %zu/%zu differs",
			      ss.name, f.cut[0], f.cut[1]);
		free(out);
		memset(&f, 0, sizeof(f));
		f.interleave = true;
		f.chunk = 1 + test_rand32() % 97;
		out = run(&ss, &output_null, &f, &st);
		free(out);
		ck_assert_uint_eq(st.fpdus, st0.fpdus);
		ck_assert_uint_eq(st.frames, st0.frames);
		ck_assert_uint_eq(st.crc_bad, st0.crc_bad);
		ck_assert_uint_eq(st.malformed, st0.malformed);
	}
	free(ref);
	session_free(&ss);
}
END_TEST

/* ---- damaged input ---- */

/* Every prefix of both streams: no crash; a cut inside a PDU is
 * reported as truncated and makes the run bad. */
START_TEST(t_truncated)
{
	struct dissect_stats st;
	struct session ss, cut;
	size_t k;
	int side;

	ck_assert(session_nth(&ss, _i));
	for (side = 0; side < 2; side++) {
		for (k = 0; k < ss.len[side]; k++) {
			char *out;

			cut = ss;
			cut.len[side] = k;
			out = run(&cut, &output_rec, NULL, &st);
			free(out);
			ck_assert_uint_eq(rec.conn_ends, 1);
			if (k && k < ss.frame_len[side])
				/* RFC 5044 §7.1: a startup frame cut short */
				ck_assert_uint_ge(rec.n_ev[OUT_EV_TRUNCATED],
						  1);
			if (rec.n_ev[OUT_EV_TRUNCATED])
				ck_assert_uint_ge(st.errors, 1);
		}
	}
	session_free(&ss);
}
END_TEST

/* RFC 5044 §8: a CRC error is reported on that FPDU. */
START_TEST(t_bad_crc)
{
	struct dissect_stats st;
	struct session ss;
	unsigned int k, bad = 0;
	char *out;

	session_siw(&ss, &siw_conns[0]); /* CRC on */
	out = run(&ss, &output_rec, NULL, &st);
	free(out);
	/* flip one ULPDU octet of the third i2r FPDU */
	ss.s[0][ss.frame_len[0] + mpa_siw_streams[0].fpdu_off[2] + 6] ^= 0x40;
	out = run(&ss, &output_rec, NULL, &st);
	free(out);
	ck_assert_uint_eq(st.crc_bad, 1);
	for (k = 0; k < rec.n_fpdus; k++)
		if (rec.fpdu[k].crc == OUT_CRC_BAD) {
			bad++;
			ck_assert(rec.fpdu[k].bad);
			ck_assert_uint_eq(rec.fpdu[k].off,
					  mpa_siw_streams[0].fpdu_off[2]);
		}
	ck_assert_uint_eq(bad, 1);
	/* framing goes on after a CRC error */
	ck_assert_uint_eq(st.fpdus, 32);
	session_free(&ss);
}
END_TEST

/* RFC 5044 §4.3: a marker that does not point at its FPDU's header. */
START_TEST(t_bad_marker)
{
	struct dissect_stats st;
	struct session ss;
	size_t at;
	char *out;

	ck_assert(session_sample(&ss, "--markers --no-crc"));
	/* the marker at stream offset 512 of the i2r direction: its
	 * FPDUPTR (low half) */
	at = ss.frame_len[0] + 512 + 3;
	ck_assert_uint_lt(at, ss.len[0]);
	ss.s[0][at] ^= 0x10;
	out = run(&ss, &output_rec, NULL, &st);
	free(out);
	ck_assert_uint_ge(st.marker_bad, 1);
	session_free(&ss);
}
END_TEST

/* A damaged key after "MPA ID " is a bad frame, not FPDUs. */
START_TEST(t_bad_key)
{
	struct dissect_stats st;
	struct session ss;
	char *out;

	session_siw(&ss, &siw_conns[2]);
	ss.s[1][9] = 'x'; /* "MPA ID Rxp Frame" */
	out = run(&ss, &output_rec, NULL, &st);
	free(out);
	ck_assert_uint_ge(st.malformed, 1);
	ck_assert_uint_eq(rec.params, 0);
	ck_assert_uint_eq(rec.frames, 1);
	session_free(&ss);
}
END_TEST

/* Random garbage on both sides, and garbage after a good handshake. */
START_TEST(t_garbage)
{
	struct dissect_stats st;
	struct session ss;
	uint8_t junk[2][4096];
	int round;
	char *out;

	for (round = 0; round < 64; round++) {
		memset(&ss, 0, sizeof(ss));
		test_rand_bytes(junk[0], sizeof(junk[0]));
		test_rand_bytes(junk[1], sizeof(junk[1]));
		if (round & 1)
			memcpy(junk[0], "MPA ID Req Frame", 16);
		session_add(&ss, 0, junk[0], 1 + test_rand32() % 4096);
		session_add(&ss, 1, junk[1], 1 + test_rand32() % 4096);
		out = run(&ss, round & 2 ? &output_json : &output_text, NULL,
			  &st);
		free(out);
		session_free(&ss);
	}
	/* full operation, then noise: the direction stops or CRCs fail */
	session_siw(&ss, &siw_conns[1]);
	test_rand_bytes(junk[0], 600);
	session_add(&ss, 0, junk[0], 600);
	out = run(&ss, &output_rec, NULL, &st);
	free(out);
	ck_assert(!stats_clean(&st));
	ck_assert_uint_ge(st.fpdus, 5);
	session_free(&ss);
}
END_TEST

/* A gap stops the direction and is counted. */
START_TEST(t_gap)
{
	struct dissect_stats st;
	struct out_sink out;
	struct dissect *d;
	struct session ss;

	session_siw(&ss, &siw_conns[0]);
	memset(&rec, 0, sizeof(rec));
	memset(&st, 0, sizeof(st));
	out.ops = &output_rec;
	out.fp = stdout;
	out.flags = 0;
	d = dissect_new(&out, &st, 7, "a", "b", -1);
	ck_assert_ptr_nonnull(d);
	dissect_data(d, 0, ss.s[0], 100);
	dissect_data(d, 1, ss.s[1], ss.len[1]);
	dissect_gap(d, 0, 40);
	dissect_data(d, 0, ss.s[0] + 140, ss.len[0] - 140);
	dissect_gap(d, 5, 1); /* no such side: ignored */
	dissect_data(d, -1, ss.s[0], 1);
	dissect_end(d);
	dissect_free(d);
	ck_assert_uint_eq(rec.n_ev[OUT_EV_GAP], 1);
	ck_assert_uint_ge(st.errors, 1);
	ck_assert_uint_eq(st.fpdus, mpa_siw_streams[1].n_fpdus + 2);
	session_free(&ss);
}
END_TEST

/* ---- bounds ---- */

/* A direction waiting for the peer's frame holds at most
 * DISSECT_PEND_MAX octets; the ULPDU of an FPDU at most its length. */
START_TEST(t_bounds)
{
	struct dissect_stats st;
	struct session ss;
	uint8_t *big;
	size_t n = DISSECT_PEND_MAX + 4096;
	char *out;

	big = calloc(1, n);
	ck_assert_ptr_nonnull(big);
	memset(&ss, 0, sizeof(ss));
	session_add(&ss, 0, mpa_siw_frames[0].bytes, mpa_siw_frames[0].len);
	session_add(&ss, 0, big, n);
	session_add(&ss, 1, (const uint8_t *)"MPA", 3);
	out = run(&ss, &output_rec, NULL, &st);
	free(out);
	ck_assert_uint_ge(rec.n_ev[OUT_EV_PROTOCOL], 1);
	ck_assert_uint_ge(st.errors, 1);
	session_free(&ss);

	/* no handshake, one FPDU claiming 65535 octets, then the end */
	memset(&ss, 0, sizeof(ss));
	big[0] = 0xff;
	big[1] = 0xff;
	session_add(&ss, 0, big, 70000);
	session_add(&ss, 1, big, 1);
	out = run(&ss, &output_rec, NULL, &st);
	free(out);
	ck_assert_uint_ge(rec.n_ev[OUT_EV_NOTE], 1);
	ck_assert_uint_ge(st.fpdus, 1);
	session_free(&ss);
	free(big);
}
END_TEST

/* ---- the reassembly: pcap records of iwcmctl sample, reordered ---- */

struct pkts {
	uint8_t *buf;
	size_t len;
	size_t n;
	size_t off[4096];
	size_t caplen[4096];
};

static bool pkts_sample(struct pkts *pk, const char *opts)
{
	char cmd[512];
	uint8_t tmp[65536];
	size_t n, o;
	FILE *fp;

	memset(pk, 0, sizeof(*pk));
	snprintf(cmd, sizeof(cmd), "'%s' sample -o - %s 2>/dev/null", IWCMCTL,
		 opts);
	fp = popen(cmd, "r");
	if (!fp)
		return false;
	while ((n = fread(tmp, 1, sizeof(tmp), fp)) > 0) {
		uint8_t *np = realloc(pk->buf, pk->len + n);

		ck_assert_ptr_nonnull(np);
		memcpy(np + pk->len, tmp, n);
		pk->buf = np;
		pk->len += n;
	}
	if (pclose(fp) != 0 || pk->len < 24)
		return false;
	/* classic little-endian pcap: 24-octet header, 16-octet records */
	for (o = 24; o + 16 <= pk->len && pk->n < 4096;) {
		const uint8_t *h = pk->buf + o;
		size_t cl = (size_t)h[8] | (size_t)h[9] << 8 |
			    (size_t)h[10] << 16 | (size_t)h[11] << 24;

		if (cl > pk->len - o - 16)
			return false;
		pk->off[pk->n] = o + 16;
		pk->caplen[pk->n++] = cl;
		o += 16 + cl;
	}
	return pk->n > 3;
}

static char *decode_pkts(const struct pkts *pk, const size_t *order,
			 int *status)
{
	struct out_sink out;
	struct decode *dc;
	char *text = NULL;
	size_t text_len = 0, i;
	FILE *fp = open_memstream(&text, &text_len);

	ck_assert_ptr_nonnull(fp);
	out.ops = &output_json;
	out.fp = fp;
	out.flags = 0;
	dc = decode_new(&out, "test");
	ck_assert_ptr_nonnull(dc);
	ck_assert_str_eq(decode_input(dc), "test");
	for (i = 0; i < pk->n; i++) {
		size_t j = order ? order[i] : i;

		decode_packet(dc, DECODE_LINK_EN10MB, pk->buf + pk->off[j],
			      pk->caplen[j], pk->caplen[j]);
	}
	*status = decode_finish(dc);
	decode_free(dc);
	ck_assert_int_eq(fclose(fp), 0);
	return text;
}

START_TEST(t_reassembly)
{
	static const char *const opts[] = { "", "--mss 200 --no-ddp-seg",
					    "--markers --mss 128" };
	size_t order[4096], i;
	struct pkts *pk = malloc(sizeof(*pk));
	char *ref, *out;
	int st0, st;

	ck_assert_ptr_nonnull(pk);
	ck_assert(pkts_sample(pk, opts[_i]));
	ck_assert(decode_link_supported(DECODE_LINK_EN10MB));
	ref = decode_pkts(pk, NULL, &st0);
	ck_assert_int_eq(st0, 0);
	ck_assert_ptr_nonnull(strstr(ref, "\"type\":\"summary\""));
	/* swap neighbouring packets after the handshake: held out of
	 * order, released in order, the same stream comes out */
	for (i = 0; i < pk->n; i++)
		order[i] = i;
	for (i = 4; i + 1 < pk->n - 4; i += 3) {
		size_t t = order[i];

		order[i] = order[i + 1];
		order[i + 1] = t;
	}
	out = decode_pkts(pk, order, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_uint_eq(strlen(out), strlen(ref));
	free(out);
	/* a packet lost: a gap is reported and the status is bad */
	for (i = 0; i < pk->n; i++)
		order[i] = i;
	for (i = pk->n / 2; i < pk->n && pk->caplen[i] <= 66; i++)
		;
	ck_assert_uint_lt(i, pk->n);
	order[i] = order[i - 1]; /* a data segment lost */
	out = decode_pkts(pk, order, &st);
	ck_assert_int_eq(st, 1);
	ck_assert_ptr_nonnull(strstr(out, "\"event\":\"gap\""));
	free(out);
	free(ref);
	free(pk->buf);
	free(pk);
}
END_TEST

/* ---- the shared words and the JSON writer ---- */

START_TEST(t_vocab_json)
{
	char buf[32], *text = NULL;
	size_t len = 0;
	unsigned int rtr;
	struct json w;
	bool b;
	FILE *fp;

	ck_assert_str_eq(vocab_rtr_list(0, buf, sizeof(buf)), "none");
	ck_assert_str_eq(vocab_rtr_list(7, buf, sizeof(buf)),
			 "send,write,read");
	ck_assert_str_eq(vocab_rtr_list(MPA_RTR_READ | MPA_RTR_SEND, buf,
					sizeof(buf)),
			 "send,read");
	ck_assert_str_eq(vocab_rtr_name(MPA_RTR_WRITE), "write");
	ck_assert_str_eq(vocab_rtr_name(0), "none");
	ck_assert_str_eq(vocab_rtr_name(3), "several");
	ck_assert_int_eq(vocab_rtr_parse("read,send", &rtr), 0);
	ck_assert_uint_eq(rtr, MPA_RTR_READ | MPA_RTR_SEND);
	ck_assert_int_eq(vocab_rtr_parse("", &rtr), -1);
	ck_assert_int_eq(vocab_rtr_parse("send,", &rtr), -1);
	ck_assert_int_eq(vocab_rtr_parse("send,,read", &rtr), -1);
	ck_assert_int_eq(vocab_rtr_parse("writes", &rtr), -1);
	ck_assert_int_eq(vocab_onoff_parse("yes", &b), 0);
	ck_assert(b);
	ck_assert_int_eq(vocab_onoff_parse("0", &b), 0);
	ck_assert(!b);
	ck_assert_int_eq(vocab_onoff_parse("maybe", &b), -1);
	ck_assert_str_eq(vocab_onoff(true), "on");

	fp = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(fp);
	json_init(&w, fp);
	json_open(&w, NULL, '{');
	json_str(&w, "s", "a\"b\\c\n\t\x01\xc3");
	json_int(&w, "i", -3);
	json_uint(&w, "u", 18446744073709551615ull);
	json_bool(&w, "b", false);
	json_null(&w, "n");
	json_hex8(&w, "h8", 0x5);
	json_bytes(&w, "x", (const uint8_t *)"\x0a\xff", 2);
	json_rtr_array(&w, "rtr", MPA_RTR_WRITE | MPA_RTR_READ);
	json_open(&w, "o", '[');
	json_close(&w, ']');
	json_close(&w, '}');
	fclose(fp);
	ck_assert_str_eq(text,
			 "{\"s\":\"a\\\"b\\\\c\\n\\t\\u0001\\u00c3\","
			 "\"i\":-3,\"u\":18446744073709551615,\"b\":false,"
			 "\"n\":null,\"h8\":\"0x05\",\"x\":\"0aff\","
			 "\"rtr\":[\"write\",\"read\"],\"o\":[]}");
	free(text);

	/* text from iwcmd and libiwcm keeps its UTF-8 */
	text = NULL;
	fp = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(fp);
	json_init(&w, fp);
	w.utf8 = true;
	json_str(&w, NULL,
		 "RFC 6581 \xc2\xa7"
		 "9.2\t\x7f");
	fclose(fp);
	ck_assert_str_eq(text, "\"RFC 6581 \xc2\xa7"
			       "9.2\\t\\u007f\"");
	free(text);
}
END_TEST

static Suite *dissect_suite(void)
{
	Suite *s = suite_create("dissect");

	add_loop_tcase(s, "siw vectors", t_siw_vectors, N_SIW);
	add_loop_tcase(s, "sample sessions", t_sample_sessions,
		       ARRAY_SIZE(sample_opts));
	add_loop_tcase(s, "split at every offset", t_split_every_offset,
		       N_SPLIT);
	add_loop_tcase(s, "split at random", t_split_random, N_SPLIT);
	add_loop_tcase(s, "truncated", t_truncated, N_SPLIT);
	add_tcase(s, "bad CRC", t_bad_crc);
	add_tcase(s, "bad marker", t_bad_marker);
	add_tcase(s, "bad key", t_bad_key);
	add_tcase(s, "garbage", t_garbage);
	add_tcase(s, "gap", t_gap);
	add_tcase(s, "bounds", t_bounds);
	add_loop_tcase(s, "reassembly", t_reassembly, 3);
	add_tcase(s, "vocab and json", t_vocab_json);
	return s;
}

TEST_MAIN(dissect_suite)
