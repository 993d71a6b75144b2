/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_MPA_H
#define IWCM_MPA_H

/*
 * MPA (RFC 5044) startup frames with the RFC 6581 enhancements and the
 * seed-003 "MPA ID RtR Frame", and the FPDU framing of the full operation
 * phase: ULPDU_Length, pad, CRC32c, markers.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "wire_err.h"

/* ---- Request / Reply / RtR frames (RFC 5044 §7.1.1, RFC 6581 §6) ---- */

#define MPA_KEY_LEN 16
#define MPA_FRAME_HDR_LEN 20 /* key + flags + rev + PD_Length */
#define MPA_PD_MAX 512	     /* RFC 5044 §7.1.1: Private Data <= 512 */
#define MPA_FRAME_MAX (MPA_FRAME_HDR_LEN + MPA_PD_MAX)

/* Byte 16 of the frame. */
#define MPA_FLAG_M 0x80 /* markers required toward the sender */
#define MPA_FLAG_C 0x40 /* CRC preferred */
#define MPA_FLAG_R 0x20 /* reply: connection rejected */
#define MPA_FLAG_S \
	0x10 /* RFC 6581: enhanced data first in PD;
				 * seed 003: RtR frame will be / can be sent */
#define MPA_FLAG_RES 0x0F

/* Revisions. 0 = RDMA Consortium (seed 002), 1 = RFC 5044, 2 = RFC 6581. */
#define MPA_REV_RDMAC 0
#define MPA_REV_1 1
#define MPA_REV_2 2

enum mpa_frame_type {
	MPA_FRAME_REQ = 1, /* "MPA ID Req Frame" */
	MPA_FRAME_REP,	   /* "MPA ID Rep Frame" */
	MPA_FRAME_RTR,	   /* "MPA ID RtR Frame" (seed 003, opt-in);
				 * "MPA ID Rtr Frame" also accepted */
};

extern const uint8_t mpa_key_req[MPA_KEY_LEN];
extern const uint8_t mpa_key_rep[MPA_KEY_LEN];
extern const uint8_t mpa_key_rtr[MPA_KEY_LEN];

/*
 * RFC 6581 §9 enhanced connection establishment data: the first 4 octets
 * of Private Data when S=1.  Masks as used by Linux siw, irdma and cxgb4.
 */
#define MPA_ENH_LEN 4
#define MPA_ENH_A 0x8000 /* word 0: peer-to-peer model */
#define MPA_ENH_B 0x4000 /* word 0: zero-length Send RTR */
#define MPA_ENH_C 0x8000 /* word 1: zero-length RDMA Write RTR */
#define MPA_ENH_D 0x4000 /* word 1: zero-length RDMA Read RTR */
#define MPA_ENH_IRD_MASK 0x3FFF
#define MPA_ENH_ORD_MASK 0x3FFF
#define MPA_IRD_ORD_NONE 0x3FFF /* RFC 6581 §9.1: no automatic negotiation */

/* RTR type bits (a set; the negotiated one has exactly one bit). */
#define MPA_RTR_SEND 0x1  /* B */
#define MPA_RTR_WRITE 0x2 /* C */
#define MPA_RTR_READ 0x4  /* D */
#define MPA_RTR_ALL (MPA_RTR_SEND | MPA_RTR_WRITE | MPA_RTR_READ)

struct mpa_enh {
	bool p2p;     /* A */
	uint8_t rtr;  /* MPA_RTR_* set from B, C, D */
	uint16_t ird; /* 14 bits */
	uint16_t ord; /* 14 bits */
};

struct mpa_frame {
	enum mpa_frame_type type;
	uint8_t flags; /* MPA_FLAG_* as on the wire (incl. Res) */
	uint8_t rev;
	uint16_t pd_len;       /* total Private Data incl. enhanced word */
	const uint8_t *pd;     /* points into the parsed buffer, or the
				 * caller's PD for build; pd_len bytes */
	bool enhanced;	       /* S=1 and rev >= 2 and pd_len >= 4 */
	struct mpa_enh enh;    /* valid when enhanced */
	const uint8_t *ulp_pd; /* Private Data after the enhanced word */
	uint16_t ulp_pd_len;
};

/*
 * Parse one startup frame from buf.  Accepts any of the three keys (the
 * caller checks it got the one it expects; RFC 5044 §7.1.2 rules 5 and 8).
 * Never reads past buf+len; *used is the frame length on WIRE_OK.  Bytes
 * beyond *used are not looked at.  Errors: WIRE_ESHORT (incomplete: the
 * bytes so far are a prefix of a valid frame), WIRE_EKEY (as soon as the
 * bytes given cannot begin any key), WIRE_ELEN (PD_Length > 512, as soon
 * as the header is in), WIRE_EFLAGS (S=1 with Rev >= 2 but PD_Length < 4).
 * Any Rev value is returned (the caller decides).  The enhanced word is
 * decoded only for S=1 and Rev >= 2; with Rev < 2, S stays in flags (the
 * seed-003 legacy meaning) and ulp_pd == pd.  pd and ulp_pd are never NULL
 * on WIRE_OK, even when their length is 0.
 */
enum wire_err mpa_frame_parse(const uint8_t *buf, size_t len,
			      struct mpa_frame *out, size_t *used);

/*
 * Build a frame.  If f->enhanced, the enhanced word is encoded from f->enh,
 * S is set, and f->ulp_pd/ulp_pd_len follow it (f->pd and f->pd_len are
 * ignored); otherwise f->pd/f->pd_len are copied as is.  Reserved bits of
 * f->flags are cleared; f->rev is sent as given.  WIRE_ELEN if the Private
 * Data exceeds 512, WIRE_EINVAL for IRD/ORD > 0x3FFF, rtr bits outside
 * MPA_RTR_ALL, an unknown type, enhanced with rev < 2, S=1 with rev >= 2
 * but fewer than 4 octets of raw pd, or a NULL pointer with a non-zero
 * length; WIRE_ENOSPC if cap is too small (nothing is written then).
 */
enum wire_err mpa_frame_build(const struct mpa_frame *f, uint8_t *buf,
			      size_t cap, size_t *written);

/*
 * Decode / encode the 4-byte enhanced word (RFC 6581 §9).  parse: ESHORT
 * below 4 bytes.  build: EINVAL for IRD/ORD > 0x3FFF or unknown rtr bits,
 * ENOSPC below 4 bytes.  mpa_enh_word() masks instead of checking.
 */
enum wire_err mpa_enh_parse(const uint8_t *buf, size_t len,
			    struct mpa_enh *out);
enum wire_err mpa_enh_build(const struct mpa_enh *e, uint8_t *buf, size_t cap);
uint32_t mpa_enh_word(const struct mpa_enh *e);

/* Name of a frame type ("Request", "Reply", "RtR"). */
const char *mpa_frame_type_name(enum mpa_frame_type t);

/* ---- FPDU framing (RFC 5044 §4) ---- */

#define MPA_MARKER_INTERVAL 512 /* RFC 5044 §4.3 */
#define MPA_MARKER_LEN 4
#define MPA_HDR_LEN 2 /* ULPDU_Length */
#define MPA_CRC_LEN 4
#define MPA_ULPDU_MAX 0xFFFF
/* markers one FPDU can contain: ceil((2+65535+3+4) / 508) + 1 */
#define MPA_FPDU_MAX_MARKERS 131

/* Pad so that ULPDU_Length + ULPDU + pad is a multiple of 4 (§4.1). */
static inline unsigned int mpa_pad_len(uint16_t ulpdu_len)
{
	return (4u - ((MPA_HDR_LEN + (unsigned int)ulpdu_len) & 3u)) & 3u;
}

/*
 * Stream position of one direction in FPDU mode.  off counts octets sent
 * or received since the first octet of full operation (RFC 5044 §4.3: the
 * first marker sits at offset 0), markers included; only off mod 512
 * matters for markers, the daemon's handoff carries it.
 */
struct mpa_dir {
	bool markers; /* markers present in this direction */
	bool crc;     /* CRC generated/checked */
	uint32_t off; /* stream offset (wraps; mod 512 used) */
};

/*
 * Wire length of an FPDU carrying ulpdu_len bytes when it starts at stream
 * offset d->off (markers that fall inside it counted, a leading one too).
 * 0 when markers are on and d->off lies inside a marker (off % 512 in
 * 1..3), which no correct stream produces.
 */
size_t mpa_fpdu_wire_len(const struct mpa_dir *d, uint16_t ulpdu_len);

/*
 * MULPDU (§4.5): the largest ULPDU whose FPDU fits in emss octets starting
 * at any stream offset (markers counted at the worst case), by the RFC's
 * formula; never below 128 (§4.5) nor above 65535.
 */
uint16_t mpa_mulpdu(uint32_t emss, bool markers);

/*
 * Transmit side.  Build the FPDU around a caller's ULPDU given as an iovec
 * list, without copying the payload: out[] receives the caller's iovecs
 * (split where markers fall, empty ones dropped, adjacent pieces merged)
 * interleaved with pointers into *scratch (header, markers, pad, CRC).
 * The CRC covers markers as §4.4 requires; with d->crc off the CRC field
 * is sent as zeros.  A marker due before ULPDU_Length (d->off % 512 == 0)
 * is emitted first with FPDUPTR 0.  On WIRE_OK advances d->off by
 * *wire_len; out and *scratch must stay untouched until the bytes are
 * sent.  out must hold mpa_fpdu_iov_max(n_in) entries (WIRE_ENOSPC
 * otherwise, d unchanged).  WIRE_ELEN if the ULPDU exceeds 65535,
 * WIRE_EINVAL for a NULL iov_base with a length or d->off inside a marker.
 */
struct mpa_tx_scratch {
	uint8_t hdr[MPA_MARKER_LEN + MPA_HDR_LEN];
	uint8_t markers[MPA_FPDU_MAX_MARKERS][MPA_MARKER_LEN];
	uint8_t trailer[3 + MPA_CRC_LEN]; /* pad + CRC */
};

static inline size_t mpa_fpdu_iov_max(size_t n_in)
{
	return n_in + 2 * MPA_FPDU_MAX_MARKERS + 3;
}

enum wire_err mpa_fpdu_build_iov(struct mpa_dir *d, const struct iovec *in,
				 size_t n_in, struct mpa_tx_scratch *scratch,
				 struct iovec *out, size_t out_cap,
				 size_t *n_out, size_t *wire_len);

/*
 * Contiguous variant (the iovec builder plus a gather): copies the FPDU
 * into buf, which must not overlap ulpdu.  Needs cap >=
 * mpa_fpdu_wire_len(d, ulpdu_len), else WIRE_ENOSPC.  Advances d->off.
 */
enum wire_err mpa_fpdu_build(struct mpa_dir *d, const uint8_t *ulpdu,
			     uint16_t ulpdu_len, uint8_t *buf, size_t cap,
			     size_t *written);

/*
 * Receive side: a streaming FPDU decoder that accepts the byte stream split
 * at any point.  Each mpa_rx_step() consumes some input and reports one
 * event; ULPDU bytes are handed out as slices of the input with markers
 * removed, so a caller can place them without a copy.  Bounded state, no
 * allocation.
 */
enum mpa_rx_ev_type {
	MPA_RX_EV_NONE = 0, /* consumed everything, need more input */
	MPA_RX_EV_START,    /* new FPDU: ulpdu_len, fpdu_off set */
	MPA_RX_EV_DATA,	    /* data/len: next ULPDU bytes of this FPDU */
	MPA_RX_EV_END,	    /* FPDU complete: CRC and marker results */
	MPA_RX_EV_ERROR,    /* err set; the direction is dead (§8) */
};

struct mpa_rx_ev {
	enum mpa_rx_ev_type type;
	const uint8_t *data;	 /* DATA */
	size_t len;		 /* DATA */
	uint16_t ulpdu_len;	 /* START, END */
	uint32_t fpdu_off;	 /* START, END: stream offset of ULPDU_Length */
	uint32_t wire_len;	 /* END: octets of this FPDU incl. markers
				 * (and a leading marker it owns) */
	uint32_t crc_wire;	 /* END */
	uint32_t crc_calc;	 /* END */
	bool crc_checked;	 /* END: direction has CRC on */
	bool crc_ok;		 /* END: crc_checked && match (true if off) */
	unsigned int n_markers;	 /* END: markers owned by this FPDU */
	bool markers_ok;	 /* END: every marker pointed at this FPDU */
	uint32_t bad_marker_off; /* END: offset of the first bad one */
	enum wire_err err;	 /* ERROR */
};

struct mpa_rx {
	struct mpa_dir dir; /* dir.off: stream offset of the next octet */
	/* private */
	unsigned int state;
	uint8_t tmp[4]; /* ULPDU_Length, then the CRC field */
	unsigned int tmp_len;
	uint8_t mk[4];	 /* marker being read */
	uint32_t mk_off; /* its stream offset */
	bool mk_lead;	 /* it precedes ULPDU_Length (FPDUPTR 0) */
	bool mk_crc;	 /* it is covered by the CRC */
	uint16_t ulpdu_len;
	uint32_t ulpdu_left;
	uint32_t pad_left;
	uint32_t fpdu_off;
	uint32_t wire_len;
	uint32_t crc;
	unsigned int n_markers;
	bool markers_ok;
	uint32_t bad_marker_off;
	bool dead;
	enum wire_err err; /* why dead */
};

/*
 * Start a decoder at stream offset off (0 right after the startup frames,
 * or what the daemon handed over).  With markers on, an off inside a
 * marker (off % 512 in 1..3) makes the first mpa_rx_step() fail with
 * WIRE_EINVAL.
 */
void mpa_rx_init(struct mpa_rx *rx, bool markers, bool crc, uint32_t off);

/*
 * Consume bytes from buf and report one event in *ev; *used says how many
 * bytes were consumed (possibly 0 for END).  Returns WIRE_OK, or the error
 * also reported as MPA_RX_EV_ERROR.  A CRC mismatch is not an error of the
 * decoder: END carries crc_ok=false and framing continues (the caller
 * applies RFC 5044 §8).  A marker that disagrees with the framing gives
 * markers_ok=false.  A ULPDU_Length the framing cannot follow is not
 * detectable without markers; ULPDU_Length values below minimum are the
 * caller's business (DDP).
 *
 * Events come in the order START, DATA*, END per FPDU.  START is reported
 * once ULPDU_Length is complete (and consumes it, with a leading marker);
 * DATA slices point into buf and never span a marker; END is reported when
 * the last CRC octet is consumed.  NONE means all of buf was consumed
 * without an event.  With CRC off, END has crc_checked=false, crc_ok=true
 * and crc_calc=0 (no CRC is computed).  The only errors are WIRE_EINVAL
 * (buf NULL with len > 0, or a start offset inside a marker); after an
 * ERROR every call reports the same ERROR and consumes nothing.
 */
enum wire_err mpa_rx_step(struct mpa_rx *rx, const uint8_t *buf, size_t len,
			  size_t *used, struct mpa_rx_ev *ev);

/*
 * Contiguous ULPDU bytes the decoder wants next without a marker or the
 * FPDU end in between (0 when it is not inside a ULPDU).  Lets a datapath
 * readv() payload straight into its target, then report it with
 * mpa_rx_step() on that memory.
 */
size_t mpa_rx_data_room(const struct mpa_rx *rx);

/* One stretch of the wire inside an FPDU's ULPDU: data or Marker octets. */
struct mpa_rx_run {
	uint32_t len;
	bool marker;
};

/*
 * Plan one gathered read of the current FPDU's ULPDU octets: the wire
 * from the decoder's position on, cut into runs of ULPDU data and of
 * Marker octets (RFC 5044 §4.3), covering at most data_max data octets
 * and never reaching past the last ULPDU octet (pad and CRC stay framing
 * for mpa_rx_ctrl_need()).  Fills at most cap runs, never ending with a
 * Marker run; returns how many.  0 when the decoder is not inside ULPDU
 * data (or data_max or cap is 0).  Reading those runs into the places the
 * caller chose and handing them to mpa_rx_step() in order yields DATA
 * events for the data runs only.
 */
size_t mpa_rx_data_runs(const struct mpa_rx *rx, size_t data_max,
			struct mpa_rx_run *runs, size_t cap);

/*
 * Account for octets read by such a plan, as mpa_rx_step() would but
 * without its events: n octets at buf, the whole of one run or its
 * beginning (data), or one whole Marker (marker).  The fast path of a
 * gathered read, where the events of placed data have nothing to say.
 * Returns false, having done nothing, when the octets are not what the
 * decoder expects next (a part of a Marker, data across a Marker or past
 * the ULPDU, a decoder outside ULPDU data); the caller then hands them to
 * mpa_rx_step().
 */
bool mpa_rx_take_run(struct mpa_rx *rx, const uint8_t *buf, size_t n,
		     bool marker);

/*
 * Framing octets (markers, ULPDU_Length, pad, CRC) the decoder needs next
 * before it reaches ULPDU data (then mpa_rx_data_room() > 0) or the end of
 * the current FPDU; a datapath reads exactly this many into a small buffer
 * so that it never pulls ULPDU bytes into it.  0 when data_room > 0 or the
 * decoder is dead.
 */
size_t mpa_rx_ctrl_need(const struct mpa_rx *rx);

/* Complete-FPDU check on a contiguous buffer (decoder, tests). */
struct mpa_fpdu_info {
	uint16_t ulpdu_len;
	size_t wire_len;    /* incl. markers and a leading marker */
	size_t ulpdu_start; /* index of the ULPDU's first byte in buf */
	unsigned int n_markers;
	bool markers_ok;
	bool crc_ok;
	uint32_t crc_wire, crc_calc;
};

/*
 * Parse the FPDU at the start of buf (buf[0] is at stream offset d->off).
 * WIRE_ESHORT if incomplete, WIRE_ENOSPC if ulpdu is too small for the
 * ULPDU_Length read, WIRE_EINVAL if d->off lies inside a marker.  ulpdu
 * (cap >= 65535 is always enough) receives the ULPDU without markers when
 * non-NULL.  A bad CRC or marker is reported in *info (crc_ok, markers_ok)
 * with WIRE_OK; with d->crc off, crc_ok=true and crc_calc=0.  d is not
 * advanced (the next FPDU starts at d->off + info->wire_len).
 */
enum wire_err mpa_fpdu_parse(const struct mpa_dir *d, const uint8_t *buf,
			     size_t len, struct mpa_fpdu_info *info,
			     uint8_t *ulpdu, size_t ulpdu_cap);

#endif
