/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The JSON writer of every iwcmctl command (decode, sample, the admin
 * commands, listen and connect).
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "json.h"
#include "vocab.h"

static void json_escape(FILE *fp, const char *s, size_t n, bool utf8)
{
	size_t i;

	fputc('"', fp);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"':
			fputs("\\\"", fp);
			break;
		case '\\':
			fputs("\\\\", fp);
			break;
		case '\n':
			fputs("\\n", fp);
			break;
		case '\t':
			fputs("\\t", fp);
			break;
		default:
			/* control octets escaped, and without utf8 the
			 * non-ASCII ones: the output is ASCII whatever the
			 * input held */
			if (c < 0x20 || c == 0x7f || (c > 0x7f && !utf8))
				fprintf(fp, "\\u%04x", c);
			else
				fputc(c, fp);
		}
	}
	fputc('"', fp);
}

/* Write n octets of s as a JSON string, control and non-ASCII escaped. */
void json_string(FILE *fp, const char *s, size_t n)
{
	json_escape(fp, s, n, false);
}

/* Start writing on fp at the top level. */
void json_init(struct json *w, FILE *fp)
{
	w->fp = fp;
	w->utf8 = false;
	w->depth = 0;
	w->first[0] = true;
}

static void json_sep(struct json *w)
{
	if (!w->first[w->depth])
		fputc(',', w->fp);
	w->first[w->depth] = false;
}

/* A separator if needed, then "k":. */
void json_key(struct json *w, const char *k)
{
	json_sep(w);
	if (!k)
		return;
	json_escape(w->fp, k, strlen(k), w->utf8);
	fputc(':', w->fp);
}

/* Open an object or array under key k. */
void json_open(struct json *w, const char *k, char c)
{
	json_key(w, k);
	fputc(c, w->fp);
	if (w->depth < JSON_DEPTH - 1)
		w->depth++;
	w->first[w->depth] = true;
}

/* Close the innermost object or array. */
void json_close(struct json *w, char c)
{
	fputc(c, w->fp);
	if (w->depth > 0)
		w->depth--;
}

/* "k":"v". */
void json_str(struct json *w, const char *k, const char *v)
{
	json_key(w, k);
	if (v)
		json_escape(w->fp, v, strlen(v), w->utf8);
	else
		fputs("null", w->fp);
}

/* "k":v, unsigned. */
void json_uint(struct json *w, const char *k, uint64_t v)
{
	json_key(w, k);
	fprintf(w->fp, "%" PRIu64, v);
}

/* "k":v, signed. */
void json_int(struct json *w, const char *k, long long v)
{
	json_key(w, k);
	fprintf(w->fp, "%lld", v);
}

/* "k":true or false. */
void json_bool(struct json *w, const char *k, bool v)
{
	json_key(w, k);
	fputs(v ? "true" : "false", w->fp);
}

/* "k":null. */
void json_null(struct json *w, const char *k)
{
	json_key(w, k);
	fputs("null", w->fp);
}

/* "k":"0x%02x". */
void json_hex8(struct json *w, const char *k, uint8_t v)
{
	json_key(w, k);
	fprintf(w->fp, "\"0x%02x\"", v);
}

/* "k":"0x%08x". */
void json_hex32(struct json *w, const char *k, uint32_t v)
{
	json_key(w, k);
	fprintf(w->fp, "\"0x%08" PRIx32 "\"", v);
}

/* "k":"0x%016x". */
void json_hex64(struct json *w, const char *k, uint64_t v)
{
	json_key(w, k);
	fprintf(w->fp, "\"0x%016" PRIx64 "\"", v);
}

/* "k":"hex" of n octets. */
void json_bytes(struct json *w, const char *k, const uint8_t *p, size_t n)
{
	size_t i;

	json_key(w, k);
	fputc('"', w->fp);
	for (i = 0; i < n; i++)
		fprintf(w->fp, "%02x", p[i]);
	fputc('"', w->fp);
}

/* "k":[...] of the RTR type names in rtr. */
void json_rtr_array(struct json *w, const char *k, unsigned int rtr)
{
	size_t i;

	json_open(w, k, '[');
	for (i = 0; i < VOCAB_RTR_N; i++)
		if (rtr & vocab_rtr[i].bit)
			json_str(w, NULL, vocab_rtr[i].name);
	json_close(w, ']');
}
