/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The Established event's SctpHandoff (iwcm.proto) as libiwcm takes it
 * (libclient/framing_sctp.c, fs_handoff_from_pb()) from arbitrary bytes:
 * the first two octets are the largest DDP Segment, the rest the packed
 * message.  What is accepted holds DDP-SSNs of 16 bits, at most
 * FS_HANDOFF_MAX messages, each of 2 octets to the segment and its
 * DDP-SSN (or a control message's 516), copied whole; what is refused
 * leaves nothing behind.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "framing_sctp.h"
#include "fuzz/fuzz.h"
#include "iwcm.pb-c.h"
#include "sctp_ss.h"

#define CHECK(c)                 \
	do {                     \
		if (!(c))        \
			abort(); \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Iwcm__SctpHandoff *pb;
	struct fs_handoff *h;
	size_t maxseg, cap;

	if (size < 2)
		return 0;
	maxseg = (size_t)data[0] << 8 | data[1];
	cap = maxseg + 2 < SCTP_SS_MSG_MAX ? SCTP_SS_MSG_MAX : maxseg + 2;
	pb = iwcm__sctp_handoff__unpack(NULL, size - 2, data + 2);
	if (!pb)
		return 0;
	h = fs_handoff_from_pb(pb, maxseg);
	if (h) {
		CHECK(pb->tx_ssn <= 0xffff && pb->rx_ssn <= 0xffff);
		CHECK(h->tx_ssn == pb->tx_ssn && h->rx_ssn == pb->rx_ssn);
		CHECK(h->n == pb->n_unread && h->n <= FS_HANDOFF_MAX);
		for (unsigned int i = 0; i < h->n; i++) {
			CHECK(h->msg[i].len >= 2 && h->msg[i].len <= cap);
			CHECK(h->msg[i].len == pb->unread[i]->data.len);
			CHECK(!memcmp(h->msg[i].buf, pb->unread[i]->data.data,
				      h->msg[i].len));
			CHECK(h->msg[i].stream == pb->unread[i]->stream);
		}
		fs_handoff_free(h);
	}
	iwcm__sctp_handoff__free_unpacked(pb, NULL);
	return 0;
}
