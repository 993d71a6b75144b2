#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# <iwcm/iwcm.h> (which includes <iwcm/verbs.h>) stands alone: each
# compiles as the first and only include in C (c99, c11) and C++ (g++)
# with warnings as errors, twice in a row, names no protobuf-c type and no
# internal header, and the man pages in docs/ are exactly what
# docs/kdoc2man.sh makes of their kernel-doc.
set -eu
: "${top_srcdir:?}"

hdr=$top_srcdir/include/iwcm/iwcm.h
vhdr=$top_srcdir/include/iwcm/verbs.h
tmp=$(mktemp -d "${TMPDIR:-/tmp}/iwcm-hdr-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/iwcm"
cp "$hdr" "$tmp/iwcm/iwcm.h"
cp "$vhdr" "$tmp/iwcm/verbs.h"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

cat >"$tmp/t.c" <<'EOT'
#include <iwcm/iwcm.h>
#include <iwcm/iwcm.h>
#include <string.h>

#ifdef __cplusplus
#include <type_traits>
/* CM events and the verbs' async events are two types. */
static_assert(!std::is_same<iwcm_cm_event_type,
			    iwcm_event_type>::value,
	      "one enum for CM and async events");
#endif

/* The public structure, its comp_mask and its enum-typed fields. */
static int negotiated_crc(const struct iwcm_conn *c)
{
	struct iwcm_conn_attr a;

	memset(&a, 0, sizeof(a));
	a.comp_mask = IWCM_CONN_ATTR_ALL;
	if (iwcm_conn_query(c, &a) < 0 ||
	    !(a.comp_mask & IWCM_CONN_ATTR_NEGOTIATED))
		return -1;
	return a.crc && a.mpa_rev == IWCM_MPA_REV_2 &&
	       a.transport == IWCM_TRANSPORT_TCP &&
	       a.reason == IWCM_STATUS_OK;
}

int main(void)
{
	struct iwcm_ctx *ctx = iwcm_ctx_open(IWCM_CTX_NONBLOCK);
	struct iwcm_event *ev;
	int r = 0;

	if (ctx && iwcm_get_event(ctx, &ev) == 0) {
		if (iwcm_event_get_type(ev) == IWCM_CM_EVENT_ESTABLISHED)
			r = negotiated_crc(iwcm_event_get_conn(ev));
		(void)iwcm_cm_event_str(iwcm_event_get_type(ev));
		iwcm_ack_event(ev);
	}
	iwcm_ctx_close(ctx);
	return r + (iwcm_status_str(IWCM_STATUS_OK) == 0);
}
EOT
cp "$tmp/t.c" "$tmp/t.cc"
# verbs.h: the ibverbs return convention of the post calls, the inline
# iwcm_poll_cq() and iwcm_get_async_event() over their sized symbols, and
# (in C++) enum-typed fields.
cat >"$tmp/v.c" <<'EOT'
#include <iwcm/verbs.h>
#include <iwcm/verbs.h>
#include <string.h>

#ifdef __cplusplus
#include <type_traits>
static_assert(std::is_same<decltype(iwcm_wc::status),
			   iwcm_wc_status>::value &&
		      std::is_same<decltype(iwcm_wc::opcode),
				   iwcm_wc_opcode>::value &&
		      std::is_same<decltype(iwcm_send_wr::opcode),
				   iwcm_wr_opcode>::value &&
		      std::is_same<decltype(iwcm_qp_attr::state),
				   iwcm_qp_state>::value &&
		      std::is_same<decltype(iwcm_async_event::type),
				   iwcm_event_type>::value,
	      "enum-typed fields");
#endif

int f(struct iwcm_ctx *ctx, struct iwcm_qp *qp, struct iwcm_cq *cq);

int f(struct iwcm_ctx *ctx, struct iwcm_qp *qp, struct iwcm_cq *cq)
{
	struct iwcm_send_wr wr, *bad = 0;
	struct iwcm_async_event ev;
	struct iwcm_wc wc[2];
	int err;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = IWCM_WR_SEND;
	wr.send_flags = IWCM_SEND_SIGNALED;
	err = iwcm_post_send(qp, &wr, &bad);
	if (err)
		return err;
	if (iwcm_get_async_event(ctx, &ev) == 0 &&
	    ev.type == IWCM_EVENT_QP_FATAL)
		return -1;
	return iwcm_poll_cq(cq, 2, wc) +
	       iwcm_poll_cq_sz(cq, 1, wc, sizeof(wc[0]));
}
EOT
cp "$tmp/v.c" "$tmp/v.cc"

cc=${CC:-cc}
for std in c99 c11; do
	$cc -std=$std -pedantic -Wall -Wextra -Werror -Wstrict-prototypes \
		-I"$tmp" -c "$tmp/t.c" -o "$tmp/t.o" ||
		fail "iwcm.h does not compile alone as C ($std)"
	$cc -std=$std -pedantic -Wall -Wextra -Werror -Wstrict-prototypes \
		-I"$tmp" -c "$tmp/v.c" -o "$tmp/v.o" ||
		fail "verbs.h does not compile alone as C ($std)"
done
echo "ok: C (c99, c11)"

cxx=
for c in g++ c++ clang++; do
	if command -v "$c" >/dev/null 2>&1; then
		cxx=$c
		break
	fi
done
if [ -z "$cxx" ]; then
	echo "SKIP: no C++ compiler (install g++)" >&2
	exit 77
fi
$cxx -std=c++11 -pedantic -Wall -Wextra -Werror -I"$tmp" \
	-c "$tmp/t.cc" -o "$tmp/t.o" ||
	fail "iwcm.h does not compile alone as C++ ($cxx)"
$cxx -std=c++11 -pedantic -Wall -Wextra -Werror -I"$tmp" \
	-c "$tmp/v.cc" -o "$tmp/v.o" ||
	fail "verbs.h does not compile alone as C++ ($cxx)"
echo "ok: C++ ($cxx)"

if grep -n -i -E 'protobuf|Iwcm__|#include "' "$hdr" "$vhdr"; then
	fail "iwcm.h or verbs.h names protobuf-c or an internal header"
fi
echo "ok: no protobuf-c or internal names"

mkdir "$tmp/man"
for h in "$hdr" "$vhdr"; do
	mkdir "$tmp/one"
	sh "$top_srcdir/docs/kdoc2man.sh" "$h" "$tmp/one"
	for f in "$tmp"/one/*.3; do
		cmp -s "$f" "$top_srcdir/docs/${f##*/}" ||
			fail "docs/${f##*/} differs from the kernel-doc" \
				"(run: sh docs/kdoc2man.sh" \
				"include/iwcm/${h##*/} docs)"
	done
	mv "$tmp"/one/*.3 "$tmp/man/"
	rmdir "$tmp/one"
done
for f in "$top_srcdir"/docs/iwcm_*.3; do
	[ -f "$tmp/man/${f##*/}" ] ||
		fail "docs/${f##*/} documents no function of iwcm.h or verbs.h"
done
echo "ok: $(ls "$tmp"/man | wc -l) man pages mirror the kernel-doc"
