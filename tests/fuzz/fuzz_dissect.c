/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * libFuzzer harness for the iwcmctl decode dissector and packet input.
 *
 * The first octet selects what runs:
 *   bit 7 clear - stream mode: the rest is records {c, c >> 1 octets of
 *                 data} fed to one dissector, side c & 1, so both
 *                 directions arrive interleaved and split anywhere.
 *                 With bit 6 the same streams are fed again one octet at
 *                 a time and the two JSON outputs must hold the same
 *                 lines (the decoder does not depend on where input is
 *                 split; only the interleaving of the two directions'
 *                 lines may change, each line carries its direction,
 *                 index and offset).
 *   bit 7 set   - packet mode: records {len16, link selector, len octets}
 *                 go through decode_packet() (IP, TCP, reassembly; UDP
 *                 and SCTP: SCTP over UDP port 9899 and raw SCTP, the
 *                 chunk walk, DATA reassembly, DDP over SCTP).
 *   bits 0-1    - output: 0 text, 1 JSON, 2-3 null; bit 2: verbose.
 * Every output goes to memory; nothing is printed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "dissect.h"
#include "fuzz/fuzz.h"
#include "output.h"

static const struct output *pick_output(uint8_t ctl)
{
	switch (ctl & 3) {
	case 0:
		return &output_text;
	case 1:
		return &output_json;
	default:
		return &output_null;
	}
}

/* Feed the records; bytewise splits every record into single octets. */
static void run_stream(const uint8_t *data, size_t size,
		       const struct output *ops, unsigned int flags,
		       int bytewise, char **text, size_t *text_len)
{
	struct dissect_stats st;
	struct out_sink out;
	struct dissect *d;
	FILE *fp;
	size_t i = 0;

	*text = NULL;
	*text_len = 0;
	fp = open_memstream(text, text_len);
	if (!fp)
		abort();
	memset(&st, 0, sizeof(st));
	out.ops = ops;
	out.fp = fp;
	out.flags = flags;
	d = dissect_new(&out, &st, 1, "a", "b", -1);
	if (!d)
		abort();
	while (i < size) {
		int side = data[i] & 1;
		size_t n = data[i] >> 1, k;

		i++;
		if (n > size - i)
			n = size - i;
		if (bytewise) {
			for (k = 0; k < n; k++)
				dissect_data(d, side, data + i + k, 1);
		} else {
			dissect_data(d, side, data + i, n);
		}
		i += n;
	}
	dissect_end(d);
	dissect_free(d);
	fprintf(fp, "fpdus %lu frames %lu crc %lu mk %lu mal %lu err %lu\n",
		st.fpdus, st.frames, st.crc_bad, st.marker_bad, st.malformed,
		st.errors);
	if (fclose(fp))
		abort();
}

#define N_LINKS 8

static void run_packets(const uint8_t *data, size_t size,
			const struct output *ops, unsigned int flags)
{
	static const int links[N_LINKS] = {
		DECODE_LINK_EN10MB,	DECODE_LINK_LINUX_SLL,
		DECODE_LINK_LINUX_SLL2, DECODE_LINK_NULL,
		DECODE_LINK_LOOP,	DECODE_LINK_RAW,
		DECODE_LINK_IPV4,	DECODE_LINK_IPV6,
	};
	struct out_sink out;
	struct decode *dc;
	char *text = NULL;
	size_t text_len = 0, i = 0;
	FILE *fp;

	fp = open_memstream(&text, &text_len);
	if (!fp)
		abort();
	out.ops = ops;
	out.fp = fp;
	out.flags = flags;
	dc = decode_new(&out, "fuzz");
	if (!dc)
		abort();
	while (size - i >= 3) {
		size_t n = (size_t)data[i] << 8 | data[i + 1];
		int lt = links[data[i + 2] % N_LINKS];
		uint8_t *pkt;

		i += 3;
		if (n > size - i)
			n = size - i;
		/* an exact-size copy: ASan sees any read past the packet */
		pkt = malloc(n ? n : 1);
		if (!pkt)
			abort();
		memcpy(pkt, data + i, n);
		decode_packet(dc, lt, pkt, n, n);
		free(pkt);
		i += n;
	}
	(void)decode_finish(dc);
	decode_free(dc);
	fclose(fp);
	free(text);
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort the lines of text in place: NUL-terminates each line. */
static char **sorted_lines(char *text, size_t len, size_t *n)
{
	char **v;
	size_t i, k = 0;

	for (i = 0; i < len; i++)
		k += text[i] == '\n';
	v = calloc(k + 1, sizeof(*v));
	if (!v)
		abort();
	*n = 0;
	for (i = 0; i < len; i++) {
		if (i == 0 || text[i - 1] == '\0')
			v[(*n)++] = text + i;
		if (text[i] == '\n')
			text[i] = '\0';
	}
	qsort(v, *n, sizeof(*v), cmp_line);
	return v;
}

static void same_lines(char *a, size_t alen, char *b, size_t blen)
{
	char **va, **vb;
	size_t na, nb, i;

	va = sorted_lines(a, alen, &na);
	vb = sorted_lines(b, blen, &nb);
	for (i = 0; i < na && i < nb; i++)
		if (strcmp(va[i], vb[i]))
			break;
	if (na != nb || i < na) {
		fprintf(stderr,
			"decode differs when fed octet by octet:\n"
			"whole records: %s\noctet by octet: %s\n",
			i < na ? va[i] : "(end)", i < nb ? vb[i] : "(end)");
		abort();
	}
	free(va);
	free(vb);
}

/* Run one input: see the comment at the top for its layout. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct output *ops;
	unsigned int flags;
	uint8_t ctl;
	char *a, *b;
	size_t alen, blen;

	if (size < 1)
		return 0;
	ctl = data[0];
	data++;
	size--;
	ops = pick_output(ctl);
	flags = (ctl & 4) ? OUT_VERBOSE : 0;
	if (ctl & 0x80) {
		run_packets(data, size, ops, flags);
		return 0;
	}
	if (!(ctl & 0x40)) {
		run_stream(data, size, ops, flags, 0, &a, &alen);
		free(a);
		return 0;
	}
	run_stream(data, size, &output_json, OUT_VERBOSE, 0, &a, &alen);
	run_stream(data, size, &output_json, OUT_VERBOSE, 1, &b, &blen);
	same_lines(a, alen, b, blen);
	free(a);
	free(b);
	return 0;
}
