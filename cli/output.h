/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_CLI_OUTPUT_H
#define IWCM_CLI_OUTPUT_H

/*
 * Output of iwcmctl decode: the dissector describes each connection, MPA
 * frame, negotiation result, FPDU and event in the structs below and hands
 * them to an output vtable (the bgpctl model).  Text (output_text.c) and
 * JSON lines (output_json.c, through the writer of json.h that every
 * command uses) are the two real implementations; the null output
 * (output.c) discards everything.
 * Every pointer in these structs is only valid during the call.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ddp.h"
#include "mpa.h"
#include "rdmap.h"
#include "sctp_ss.h"
#include "wire_err.h"

/* Direction of a PDU: MPA roles when known, else capture sides A and B. */
enum out_dir {
	OUT_DIR_I2R = 0, /* initiator -> responder */
	OUT_DIR_R2I,	 /* responder -> initiator */
	OUT_DIR_A2B,	 /* roles unknown: first sender -> peer */
	OUT_DIR_B2A,
	OUT_DIR_NONE, /* capture-level event */
};

/* A new TCP connection (or the single hex-input stream). */
struct out_conn {
	unsigned int conn;
	const char *a; /* SYN sender, else first sender */
	const char *b;
};

/* One MPA startup frame: Request, Reply or seed-003 RtR frame. */
struct out_frame {
	unsigned int conn;
	enum out_dir dir;
	const char *src, *dst;
	uint64_t off; /* octets of this direction before it */
	const struct mpa_frame *f;
	const uint8_t *raw; /* the whole frame as on the wire */
	size_t raw_len;
	bool key_rtr_lower; /* RtR key spelled "MPA ID Rtr Frame" */
};

/* CRC state of one FPDU. */
enum out_crc {
	OUT_CRC_OFF = 0, /* CRC not negotiated: field not checked */
	OUT_CRC_GOOD,
	OUT_CRC_BAD,
	OUT_CRC_UNKNOWN, /* no handshake seen: checked, not judged */
};

/* Connection parameters derived from the Request and the Reply. */
struct out_params {
	unsigned int conn;
	const char *initiator, *responder;
	uint8_t rev_req, rev_rep;
	bool rdmac;	     /* RDMA Consortium (Rev 0) rules apply */
	bool enhanced;	     /* both frames carry RFC 6581 data */
	bool p2p;	     /* both set A */
	uint8_t rtr_offered; /* MPA_RTR_* from the Request */
	uint8_t rtr_allowed; /* MPA_RTR_* from the Reply */
	uint16_t ird_req, ord_req, ird_rep, ord_rep;
	bool markers_i2r, markers_r2i;
	bool crc;
	uint8_t version;     /* DDP/RDMAP version the peers must use */
	bool rejected;	     /* Reply has R=1 */
	const char *problem; /* NULL, or why the pair is inconsistent */
};

/* One marker found inside an FPDU (RFC 5044 §4.3). */
struct out_marker {
	uint64_t off;	  /* stream offset of the marker */
	uint16_t rsvd;	  /* the 16 reserved bits */
	uint16_t fpduptr; /* the pointer as received */
	uint16_t expect;  /* what it must be */
	bool ok;
};

/* One FPDU with its DDP/RDMAP decode. */
struct out_fpdu {
	unsigned int conn;
	enum out_dir dir;
	const char *src, *dst;
	unsigned long index; /* FPDU number in this direction, from 1 */
	uint64_t off;	     /* stream offset of its first octet */
	uint64_t hdr_off;    /* stream offset of ULPDU_Length */
	size_t wire_len;     /* octets incl. markers, pad and CRC */
	uint16_t ulpdu_len;
	unsigned int pad;
	enum out_crc crc;
	bool crc_match; /* computed CRC equals the wire CRC */
	uint32_t crc_wire, crc_calc;
	unsigned int n_markers;
	const struct out_marker *markers;
	bool markers_ok;
	/* DDP and RDMAP: ddp valid when ddp_err is WIRE_OK, msg when
	 * rdmap_err is WIRE_OK. */
	enum wire_err ddp_err;
	const struct ddp_hdr *ddp;
	enum wire_err rdmap_err;
	const struct rdmap_msg *msg;
	bool has_ctrl;	    /* ULPDU holds the RDMAP control */
	uint8_t rv, opcode; /* from the control octet when has_ctrl */
	const char *rtr;    /* "write", "read", "send", "read-response" */
	const char *rtr_problem;
	const char *version_problem;
	const uint8_t *ulpdu;
	const uint8_t *raw; /* the FPDU as on the wire */
	size_t raw_len;
	bool bad; /* counted as a bad PDU */
};

/* Events that are not PDUs: gaps, errors, notes. */
enum out_ev {
	OUT_EV_NOTE = 0,  /* informational */
	OUT_EV_GAP,	  /* bytes missing from a TCP direction */
	OUT_EV_TRUNCATED, /* a PDU cut off by the end of the input */
	OUT_EV_MALFORMED, /* a PDU that cannot be decoded */
	OUT_EV_PROTOCOL,  /* well formed, but breaks an MPA rule */
	OUT_EV_CAPTURE,	  /* problem with the capture itself */
	OUT_EV_MAX
};

struct out_event {
	unsigned int conn;  /* 0: not tied to a connection */
	unsigned int assoc; /* 0: not tied to an SCTP association */
	enum out_dir dir;
	bool has_off;
	uint64_t off; /* stream offset, when has_off */
	enum out_ev kind;
	bool bad; /* makes the exit status 1 */
	const char *msg;
};

/* Per-connection counts, reported when a connection ends. */
struct out_conn_end {
	unsigned int conn;
	enum out_dir dir0, dir1; /* directions of the two counters */
	unsigned long fpdus[2];
	uint64_t bytes[2]; /* stream octets seen per direction */
};

/* ---- SCTP (RFC 4960), DDP over SCTP (RFC 5043, RFC 6581 §7) ---- */

/* A new SCTP association, raw (IP protocol 132) or over UDP (RFC 6951). */
struct out_assoc {
	unsigned int assoc;
	const char *a; /* INIT sender, else first sender */
	const char *b;
	bool udp;
	uint16_t udp_a, udp_b; /* UDP ports of a and b when udp */
};

/* One SCTP packet: the common header (RFC 4960 §3.1) and its CRC32c. */
struct out_sctp_pkt {
	unsigned int assoc;
	enum out_dir dir;
	const char *src, *dst;
	unsigned long index; /* packet number in this direction, from 1 */
	size_t len;	     /* SCTP octets: common header and chunks */
	uint16_t sport, dport;
	uint32_t vtag;
	uint32_t crc_wire, crc_calc;
	bool crc_ok;
	const uint8_t *raw;
};

/* One chunk of a packet (RFC 4960 §3.2). */
struct out_sctp_chunk {
	unsigned int assoc;
	enum out_dir dir;
	uint8_t type, flags;
	uint16_t len; /* the Chunk Length field */
	const char *name;
	/* DATA (RFC 4960 §3.3.1) and I-DATA (RFC 8260 §2.1) */
	bool data, idata;
	uint32_t tsn;
	uint16_t stream;
	uint32_t ssn; /* SSN of DATA, MID of I-DATA */
	uint32_t ppid;
	bool has_ppid; /* I-DATA: PPID only in the first fragment */
	uint32_t fsn;  /* I-DATA, fragments after the first */
	bool u, b, e;
	size_t user_len;
	bool dup; /* a TSN seen before: retransmission, not decoded */
	/* INIT and INIT ACK (RFC 4960 §3.3.2, §3.3.3) */
	bool init;
	uint32_t init_tag, a_rwnd, init_tsn;
	uint16_t os, mis;
	bool has_adapt; /* RFC 5061 §4.2.7 Adaptation Layer Indication */
	uint32_t adapt;
	/* SACK (§3.3.4), SHUTDOWN (§3.3.8): cumulative TSN ack */
	bool has_cum_ack;
	uint32_t cum_ack;
	const char *problem; /* NULL, or what is wrong with the chunk */
};

/* One user message (reassembled DATA) and its DDP decode. */
struct out_sctp_msg {
	unsigned int assoc;
	enum out_dir dir;
	const char *src, *dst;
	unsigned long index; /* message number in this direction, from 1 */
	uint16_t stream;
	uint32_t ppid;
	const char *ppid_name;
	uint32_t tsn; /* of its first fragment */
	unsigned int frags;
	bool unordered;
	size_t len;
	bool has_ssn; /* PPID 16 and 17: the DDP-SSN (RFC 5043 §5.2.1) */
	uint16_t ddp_ssn;
	/* PPID 17: ss valid when ss_err is WIRE_OK */
	enum wire_err ss_err;
	const struct sctp_ss_msg *ss;
	/* PPID 16: as in struct out_fpdu */
	enum wire_err ddp_err;
	const struct ddp_hdr *ddp;
	enum wire_err rdmap_err;
	const struct rdmap_msg *msg;
	bool has_ctrl;
	uint8_t rv, opcode;
	const char *version_problem;
	const char *seq_problem; /* RFC 5043 §6 sequence, NULL when legal */
	const uint8_t *data;	 /* the whole message */
	bool bad;
};

/* Per-association counts, reported when it ends. */
struct out_assoc_end {
	unsigned int assoc;
	enum out_dir dir0, dir1;
	unsigned long packets[2];
	unsigned long messages[2];
};

/* Totals for the whole input. */
struct out_summary {
	const char *input;
	unsigned long packets;
	unsigned long tcp_segments;
	unsigned long ip_fragments;
	unsigned long skipped; /* packets that were not TCP/IP */
	unsigned long conns;
	unsigned long frames;
	unsigned long fpdus;
	unsigned long crc_bad;
	unsigned long marker_bad;
	unsigned long malformed;
	unsigned long errors; /* other bad events */
	/* SCTP: shown when sctp_packets is not 0 */
	unsigned long sctp_packets;
	unsigned long assocs;
	unsigned long sctp_crc_bad;
	unsigned long ss_msgs;	    /* PPID 17 messages */
	unsigned long ddp_segments; /* PPID 16 messages */
	int exit_status;
};

struct out_sink;

/* The output vtable: one implementation per format. */
struct output {
	const char *name;
	void (*conn)(struct out_sink *, const struct out_conn *);
	void (*frame)(struct out_sink *, const struct out_frame *);
	void (*params)(struct out_sink *, const struct out_params *);
	void (*fpdu)(struct out_sink *, const struct out_fpdu *);
	void (*event)(struct out_sink *, const struct out_event *);
	void (*conn_end)(struct out_sink *, const struct out_conn_end *);
	void (*summary)(struct out_sink *, const struct out_summary *);
	void (*assoc)(struct out_sink *, const struct out_assoc *);
	void (*sctp_pkt)(struct out_sink *, const struct out_sctp_pkt *);
	void (*sctp_chunk)(struct out_sink *, const struct out_sctp_chunk *);
	void (*sctp_msg)(struct out_sink *, const struct out_sctp_msg *);
	void (*assoc_end)(struct out_sink *, const struct out_assoc_end *);
};

#define OUT_VERBOSE 0x1	     /* all payload bytes, raw wire bytes */
#define OUT_PAYLOAD_BRIEF 32 /* payload octets shown without -v */

struct out_sink {
	const struct output *ops;
	FILE *fp;
	unsigned int flags;
};

extern const struct output output_text;
extern const struct output output_json;
extern const struct output output_null;

/* Name of a direction as used in both formats ("i2r", ...). */
const char *out_dir_name(enum out_dir dir);

/* Name of an event kind ("gap", ...). */
const char *out_ev_name(enum out_ev kind);

/* Name of a CRC state ("off", "good", "bad", "unknown"). */
const char *out_crc_name(enum out_crc crc);

/* Helpers of the implementations (output.c). */

/* "request", "reply" or "rtr". */
const char *out_frame_type_name(enum mpa_frame_type t);

/* "MPA Request", "MPA Reply" or "MPA RtR frame". */
const char *out_frame_title(enum mpa_frame_type t);

/* RFC 5040 §4.1: opcodes that carry an Invalidate STag. */
int out_opcode_has_inv(uint8_t op);

/* Name of an SCTP Payload Protocol Identifier (IANA registry). */
const char *out_ppid_name(uint32_t ppid);

/* n octets at p as hex, sep between them (NULL: none). */
void out_put_hex(FILE *fp, const uint8_t *p, size_t n, const char *sep);

/* How many of n payload octets to show: all with OUT_VERBOSE. */
size_t out_brief_len(const struct out_sink *o, size_t n);

#endif
