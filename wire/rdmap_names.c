/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Printable names for RDMAP opcodes, atomic subcodes and the Terminate
 * Layer / Error Type / Error Code triplets of RFC 5040 §4.8 Figure 9,
 * RFC 5041 §7.2, RFC 5044 §8 and RFC 6581 §8 (registered in RFC 6580
 * §3.1-3.3).  Every lookup returns a constant string, "Unknown" when the
 * value has no name.
 */
#include "config.h"

#include "rdmap.h"

#define UNKNOWN "Unknown"

/* RFC 5040 §4.1 Figure 4, RFC 7306 §10, RFC 6580 §3.4. */
static const char *const opcode_names[RDMAP_OPCODE_MAX + 1] = {
	[RDMAP_WRITE] = "RDMA Write",
	[RDMAP_READ_REQ] = "RDMA Read Request",
	[RDMAP_READ_RESP] = "RDMA Read Response",
	[RDMAP_SEND] = "Send",
	[RDMAP_SEND_INV] = "Send with Invalidate",
	[RDMAP_SEND_SE] = "Send with Solicited Event",
	[RDMAP_SEND_SE_INV] = "Send with Solicited Event and Invalidate",
	[RDMAP_TERMINATE] = "Terminate",
	[RDMAP_IMM_DATA] = "Immediate Data",
	[RDMAP_IMM_DATA_SE] = "Immediate Data with Solicited Event",
	[RDMAP_ATOMIC_REQ] = "Atomic Request",
	[RDMAP_ATOMIC_RESP] = "Atomic Response",
	[RDMAP_OPCODE_MAX] = "Reserved (Experimental)",
};

/* RFC 7306 §10.1; Swap is the seed draft's (004 §5.1.2). */
static const char *const aopcode_names[] = {
	[RDMAP_AOP_FETCHADD] = "FetchAdd",
	[RDMAP_AOP_SWAP] = "Swap (draft)",
	[RDMAP_AOP_CMPSWAP] = "CmpSwap",
};

/* RFC 5040 §4.8 Figure 9. */
static const char *const layer_names[] = {
	[RDMAP_TERM_LAYER_RDMAP] = "RDMA",
	[RDMAP_TERM_LAYER_DDP] = "DDP",
	[RDMAP_TERM_LAYER_LLP] = "LLP",
};

struct etype_name {
	uint8_t layer;
	uint8_t etype;
	const char *name;
};

static const struct etype_name etype_names[] = {
	/* RFC 5040 §4.8 Figure 9 */
	{ RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_CATASTROPHIC,
	  "Local Catastrophic Error" },
	{ RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROT,
	  "Remote Protection Error" },
	{ RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OP,
	  "Remote Operation Error" },
	/* RFC 5041 §7.2 */
	{ RDMAP_TERM_LAYER_DDP, DDP_ETYPE_CATASTROPHIC, "Local Catastrophic" },
	{ RDMAP_TERM_LAYER_DDP, DDP_ETYPE_TAGGED, "Tagged Buffer Error" },
	{ RDMAP_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED, "Untagged Buffer Error" },
	{ RDMAP_TERM_LAYER_DDP, DDP_ETYPE_RSVD_LLP,
	  "Reserved for use by the LLP" },
	/* RFC 5044 §8, RFC 6581 §8 */
	{ RDMAP_TERM_LAYER_LLP, MPA_ETYPE_MPA, "MPA Error" },
};

#define L_RDMA RDMAP_TERM_LAYER_RDMAP
#define L_DDP RDMAP_TERM_LAYER_DDP
#define L_LLP RDMAP_TERM_LAYER_LLP
#define ANY_CODE 0x100 /* the entry names every code of its type */

struct ecode_name {
	uint8_t layer;
	uint8_t etype;
	uint16_t ecode; /* or ANY_CODE */
	const char *name;
};

static const struct ecode_name ecode_names[] = {
	/* RFC 5040 §4.8 Figure 9: Local Catastrophic has no code, "any
	 * value in this field is acceptable". */
	{ L_RDMA, RDMAP_ETYPE_CATASTROPHIC, ANY_CODE, "None" },
	{ L_RDMA, RDMAP_ETYPE_REMOTE_PROT, RDMAP_ECODE_INVALID_STAG,
	  "Invalid STag" },
	{ L_RDMA, RDMAP_ETYPE_REMOTE_PROT, RDMAP_ECODE_BASE_BOUNDS,
	  "Base or bounds violation" },
	{ L_RDMA, RDMAP_ETYPE_REMOTE_PROT, RDMAP_ECODE_ACCESS,
	  "Access rights violation" },
	{ L_RDMA, RDMAP_ETYPE_REMOTE_PROT, RDMAP_ECODE_STAG_NOT_ASSOC,
	  "STag not associated with RDMAP Stream" },
	{ L_RDMA, RDMAP_ETYPE_REMOTE_PROT, RDMAP_ECODE_TO_WRAP, "TO wrap" },
	{ L_RDMA, RDMAP_ETYPE_REMOTE_PROT, RDMAP_ECODE_CANT_INVALIDATE,
	  "STag cannot be Invalidated" },
	{ L_RDMA, RDMAP_ETYPE_REMOTE_PROT, RDMAP_ECODE_UNSPECIFIED,
	  "Unspecified Error" },
	{ L_RDMA, RDMAP_ETYPE_REMOTE_OP, RDMAP_ECODE_INVALID_VERSION,
	  "Invalid RDMAP version" },
	{ L_RDMA, RDMAP_ETYPE_REMOTE_OP, RDMAP_ECODE_UNEXPECTED_OP,
	  "Unexpected OpCode" },
	{ L_RDMA, RDMAP_ETYPE_REMOTE_OP, RDMAP_ECODE_CATASTROPHIC_STREAM,
	  "Catastrophic error, localized to RDMAP Stream" },
	{ L_RDMA, RDMAP_ETYPE_REMOTE_OP, RDMAP_ECODE_CATASTROPHIC_GLOBAL,
	  "Catastrophic error, global" },
	{ L_RDMA, RDMAP_ETYPE_REMOTE_OP, RDMAP_ECODE_CANT_INVALIDATE,
	  "STag cannot be Invalidated" },
	{ L_RDMA, RDMAP_ETYPE_REMOTE_OP, RDMAP_ECODE_UNSPECIFIED,
	  "Unspecified Error" },
	/* RFC 5041 §7.2 */
	{ L_DDP, DDP_ETYPE_CATASTROPHIC, DDP_ECODE_CATASTROPHIC,
	  "Local Catastrophic" },
	{ L_DDP, DDP_ETYPE_TAGGED, DDP_ECODE_T_INVALID_STAG, "Invalid STag" },
	{ L_DDP, DDP_ETYPE_TAGGED, DDP_ECODE_T_BASE_BOUNDS,
	  "Base or bounds violation" },
	{ L_DDP, DDP_ETYPE_TAGGED, DDP_ECODE_T_STAG_NOT_ASSOC,
	  "STag not associated with DDP Stream" },
	{ L_DDP, DDP_ETYPE_TAGGED, DDP_ECODE_T_TO_WRAP, "TO wrap" },
	{ L_DDP, DDP_ETYPE_TAGGED, DDP_ECODE_T_INVALID_VERSION,
	  "Invalid DDP version" },
	{ L_DDP, DDP_ETYPE_UNTAGGED, DDP_ECODE_U_INVALID_QN, "Invalid QN" },
	{ L_DDP, DDP_ETYPE_UNTAGGED, DDP_ECODE_U_INVALID_MSN_NOBUF,
	  "Invalid MSN - no buffer available" },
	{ L_DDP, DDP_ETYPE_UNTAGGED, DDP_ECODE_U_INVALID_MSN_RANGE,
	  "Invalid MSN - MSN range is not valid" },
	{ L_DDP, DDP_ETYPE_UNTAGGED, DDP_ECODE_U_INVALID_MO, "Invalid MO" },
	{ L_DDP, DDP_ETYPE_UNTAGGED, DDP_ECODE_U_TOO_LONG,
	  "DDP Message too long for available buffer" },
	{ L_DDP, DDP_ETYPE_UNTAGGED, DDP_ECODE_U_INVALID_VERSION,
	  "Invalid DDP version" },
	/* RFC 5041 §7.2 (RFC 6580 §3.2 "ALL") */
	{ L_DDP, DDP_ETYPE_RSVD_LLP, ANY_CODE, "Reserved for use by the LLP" },
	/* RFC 5044 §8 */
	{ L_LLP, MPA_ETYPE_MPA, MPA_ECODE_CLOSED,
	  "TCP connection closed, terminated, or lost" },
	{ L_LLP, MPA_ETYPE_MPA, MPA_ECODE_CRC, "MPA CRC error" },
	{ L_LLP, MPA_ETYPE_MPA, MPA_ECODE_MARKER,
	  "MPA Marker and ULPDU Length field mismatch" },
	{ L_LLP, MPA_ETYPE_MPA, MPA_ECODE_BAD_FRAME,
	  "Invalid MPA Request Frame or MPA Response Frame" },
	/* RFC 6581 §8 */
	{ L_LLP, MPA_ETYPE_MPA, MPA_ECODE_LOCAL_CATASTROPHIC,
	  "Local catastrophic" },
	{ L_LLP, MPA_ETYPE_MPA, MPA_ECODE_INSUFFICIENT_IRD,
	  "Insufficient IRD resources" },
	{ L_LLP, MPA_ETYPE_MPA, MPA_ECODE_NO_MATCHING_RTR,
	  "No matching RTR option" },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const char *name_or_unknown(const char *const *tab, size_t n,
				   unsigned int v)
{
	if (v >= n || !tab[v])
		return UNKNOWN;
	return tab[v];
}

/* Name of an RDMAP opcode. */
const char *rdmap_opcode_name(uint8_t opcode)
{
	return name_or_unknown(opcode_names, NELEM(opcode_names), opcode);
}

/* Name of an atomic operation subcode. */
const char *rdmap_aopcode_name(uint8_t aopcode)
{
	return name_or_unknown(aopcode_names, NELEM(aopcode_names), aopcode);
}

/* Name of a Terminate Layer. */
const char *rdmap_term_layer_name(uint8_t layer)
{
	return name_or_unknown(layer_names, NELEM(layer_names), layer);
}

/* Name of a Terminate Error Type within its Layer. */
const char *rdmap_term_etype_name(uint8_t layer, uint8_t etype)
{
	size_t i;

	for (i = 0; i < NELEM(etype_names); i++)
		if (etype_names[i].layer == layer &&
		    etype_names[i].etype == etype)
			return etype_names[i].name;
	return UNKNOWN;
}

/* Name of a Terminate Error Code within its Layer and Error Type. */
const char *rdmap_term_ecode_name(uint8_t layer, uint8_t etype, uint8_t ecode)
{
	const struct ecode_name *e;
	size_t i;

	for (i = 0; i < NELEM(ecode_names); i++) {
		e = &ecode_names[i];
		if (e->layer == layer && e->etype == etype &&
		    (e->ecode == ecode || e->ecode == ANY_CODE))
			return e->name;
	}
	return UNKNOWN;
}
