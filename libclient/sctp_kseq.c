/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * A DDP Stream Session on the owner's own association (sctp_kseq.h):
 * the DDP-SSNs of RFC 5043 §5.2.1, the order of §6.1 restored from
 * unordered delivery (§5), the peer's Terminate (§6.2) and strangers'
 * Initiates (§6.4).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sctp_kseq.h"

static unsigned int kseq_rx_dir(const struct sctp_kseq *q)
{
	return 1 - q->tx_dir;
}

static bool kseq_dir_over(uint8_t d)
{
	return d == SCTP_SS_D_TERM || d == SCTP_SS_D_ETERM ||
	       d == SCTP_SS_D_REJ;
}

/* Start from the handoff. */
void sctp_kseq_init(struct sctp_kseq *q, bool active, bool enhanced,
		    uint16_t stream, uint16_t tx_ssn, uint16_t rx_ssn)
{
	memset(q, 0, sizeof(*q));
	sctp_ss_seq_init(&q->seq, active ? SCTP_SS_ACTIVE : SCTP_SS_PASSIVE);
	/* both directions opened by the (Enhanced) Initiate and Accept */
	q->seq.d[0] = q->seq.d[1] = enhanced ? SCTP_SS_D_EOPEN : SCTP_SS_D_OPEN;
	q->tx_dir = active ? 0 : 1;
	q->seq.ssn[q->tx_dir] = tx_ssn;
	q->seq.ssn[kseq_rx_dir(q)] = rx_ssn;
	q->stream = stream;
}

void sctp_kseq_fini(struct sctp_kseq *q)
{
	for (unsigned int i = 0; i < SCTP_KSEQ_HOLD; i++)
		free(q->held[i].buf);
	free(q->cur);
	memset(q->held, 0, sizeof(q->held));
	q->cur = NULL;
	q->n_held = 0;
	q->held_bytes = 0;
}

/* A message in its turn (its DDP-SSN the next): what it is (§6.1). */
static enum sctp_kseq_verdict kseq_judge(struct sctp_kseq *q, uint32_t ppid,
					 const uint8_t *buf, size_t len,
					 const uint8_t **seg, size_t *seg_len)
{
	struct sctp_ss_msg m;
	size_t used;
	uint16_t ssn = (uint16_t)(buf[0] << 8 | buf[1]);

	if (ppid == SCTP_PPID_DDP_SEGMENT) {
		/* RFC 5043 §5.2.2: DDP-SSN, then the DDP Segment */
		if (sctp_ss_seq_step(&q->seq, false, SCTP_SS_SEGMENT, ssn) !=
		    SCTP_SS_OK)
			return SCTP_KSEQ_ILLEGAL;
		*seg = buf + 2;
		*seg_len = len - 2;
		return SCTP_KSEQ_SEGMENT;
	}
	/* PPID 17: only the peer's Terminate may come now (§6.2) */
	if (sctp_ss_parse(buf, len, &m, &used) != WIRE_OK ||
	    m.fc != SCTP_SS_TERMINATE ||
	    sctp_ss_seq_step(&q->seq, false, m.fc, m.ssn) != SCTP_SS_OK)
		return SCTP_KSEQ_ILLEGAL;
	return SCTP_KSEQ_TERMINATE;
}

/* Keep a message that came ahead of its turn. */
static enum sctp_kseq_verdict kseq_hold(struct sctp_kseq *q, uint16_t ssn,
					uint32_t ppid, const uint8_t *buf,
					size_t len)
{
	struct sctp_kseq_held *h = &q->held[ssn % SCTP_KSEQ_HOLD];

	if (h->buf || q->held_bytes + len > SCTP_KSEQ_HOLD_BYTES)
		return SCTP_KSEQ_ILLEGAL; /* a duplicate, or too much */
	h->buf = malloc(len);
	if (!h->buf)
		return SCTP_KSEQ_NOMEM;
	memcpy(h->buf, buf, len);
	h->len = len;
	h->ppid = ppid;
	h->ssn = ssn;
	q->n_held++;
	q->held_bytes += len;
	return SCTP_KSEQ_HELD;
}

/* A message of another stream: only an Initiate gets an answer. */
static enum sctp_kseq_verdict kseq_stranger(uint32_t ppid, const uint8_t *buf,
					    size_t len)
{
	struct sctp_ss_msg m;
	size_t used;

	if (ppid == SCTP_PPID_DDP_SESSION_CTL &&
	    sctp_ss_parse(buf, len, &m, &used) == WIRE_OK &&
	    (m.fc == SCTP_SS_INITIATE || m.fc == SCTP_SS_ENH_INITIATE))
		return SCTP_KSEQ_INITIATE;
	return SCTP_KSEQ_IGNORE;
}

/* One received user message. */
enum sctp_kseq_verdict sctp_kseq_input(struct sctp_kseq *q, uint16_t stream,
				       uint32_t ppid, bool unordered,
				       const uint8_t *buf, size_t len,
				       const uint8_t **seg, size_t *seg_len)
{
	uint16_t ssn, ahead;

	if (stream != q->stream)
		return kseq_stranger(ppid, buf, len);
	/* RFC 5043 §5: every message of the adaptation is unordered */
	if (!unordered || len < 2 ||
	    (ppid != SCTP_PPID_DDP_SEGMENT &&
	     ppid != SCTP_PPID_DDP_SESSION_CTL) ||
	    kseq_dir_over(q->seq.d[kseq_rx_dir(q)]))
		return SCTP_KSEQ_ILLEGAL;
	ssn = (uint16_t)(buf[0] << 8 | buf[1]);
	ahead = (uint16_t)(ssn - q->seq.ssn[kseq_rx_dir(q)]);
	if (ahead == 0)
		return kseq_judge(q, ppid, buf, len, seg, seg_len);
	if (ahead < SCTP_KSEQ_HOLD)
		return kseq_hold(q, ssn, ppid, buf, len);
	return SCTP_KSEQ_ILLEGAL; /* behind: a duplicate; or too far */
}

/* The held message whose turn has come. */
enum sctp_kseq_verdict sctp_kseq_next(struct sctp_kseq *q, const uint8_t **seg,
				      size_t *seg_len)
{
	uint16_t want = q->seq.ssn[kseq_rx_dir(q)];
	struct sctp_kseq_held *h = &q->held[want % SCTP_KSEQ_HOLD];
	struct sctp_kseq_held t;

	free(q->cur);
	q->cur = NULL;
	if (!h->buf || h->ssn != want ||
	    kseq_dir_over(q->seq.d[kseq_rx_dir(q)]))
		return SCTP_KSEQ_IGNORE;
	t = *h;
	memset(h, 0, sizeof(*h));
	q->n_held--;
	q->held_bytes -= t.len;
	q->cur = t.buf;
	return kseq_judge(q, t.ppid, t.buf, t.len, seg, seg_len);
}

/* Our next DDP Segment's DDP-SSN. */
int sctp_kseq_tx_peek(const struct sctp_kseq *q, uint16_t *ssn)
{
	struct sctp_ss_seq n = q->seq;

	*ssn = q->seq.ssn[q->tx_dir];
	if (sctp_ss_seq_step(&n, true, SCTP_SS_SEGMENT, *ssn) != SCTP_SS_OK) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

/* It went out. */
void sctp_kseq_tx_done(struct sctp_kseq *q)
{
	(void)sctp_ss_seq_step(&q->seq, true, SCTP_SS_SEGMENT,
			       q->seq.ssn[q->tx_dir]);
}

/* Our Terminate (§6.2). */
int sctp_kseq_term(struct sctp_kseq *q, uint8_t *buf, size_t cap, size_t *len)
{
	struct sctp_ss_msg m;

	if (kseq_dir_over(q->seq.d[q->tx_dir])) {
		errno = EALREADY;
		return -1;
	}
	memset(&m, 0, sizeof(m));
	m.fc = SCTP_SS_TERMINATE;
	m.ssn = q->seq.ssn[q->tx_dir];
	if (sctp_ss_build(&m, buf, cap, len) != WIRE_OK ||
	    sctp_ss_seq_step(&q->seq, true, m.fc, m.ssn) != SCTP_SS_OK) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

/* The Terminate that answers a stranger's Initiate: its first message
 * back, DDP-SSN 0 (§6.1, §6.4). */
int sctp_kseq_stranger_term(uint8_t *buf, size_t cap, size_t *len)
{
	struct sctp_ss_msg m;

	memset(&m, 0, sizeof(m));
	m.fc = SCTP_SS_TERMINATE;
	if (sctp_ss_build(&m, buf, cap, len) != WIRE_OK) {
		errno = ENOSPC;
		return -1;
	}
	return 0;
}

/* The peer's direction is over. */
bool sctp_kseq_peer_done(const struct sctp_kseq *q)
{
	return kseq_dir_over(q->seq.d[kseq_rx_dir(q)]);
}
