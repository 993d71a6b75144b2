/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_WIRE_ERR_H
#define IWCM_WIRE_ERR_H

/*
 * Result of every wire/ parser and builder.  WIRE_ESHORT alone means "the
 * bytes so far are a valid prefix, give me more"; every other error means
 * the input is malformed (or, for builders, the output does not fit).
 */
enum wire_err {
	WIRE_OK = 0,
	WIRE_ESHORT,  /* need more bytes */
	WIRE_EKEY,    /* bad MPA key / magic */
	WIRE_EREV,    /* unsupported revision or version */
	WIRE_ELEN,    /* a length field is out of range or inconsistent */
	WIRE_EFLAGS,  /* illegal flag combination */
	WIRE_ECRC,    /* CRC mismatch */
	WIRE_EMARKER, /* MPA marker disagrees with the framing */
	WIRE_EOPCODE, /* unknown or misplaced opcode / function code */
	WIRE_EUNSUP,  /* well formed but not supported */
	WIRE_ENOSPC,  /* builder: output buffer too small */
	WIRE_EINVAL,  /* builder: field value cannot be encoded */
	WIRE_ERR_MAX
};

/* Return a constant, human-readable name for err ("need more bytes", ...). */
const char *wire_strerror(enum wire_err err);

/* Return the stable identifier of err ("ESHORT", ...) used in JSON output. */
const char *wire_errname(enum wire_err err);

/* True when err says the input is malformed (not WIRE_OK, not WIRE_ESHORT). */
static inline int wire_err_malformed(enum wire_err err)
{
	return err != WIRE_OK && err != WIRE_ESHORT;
}

#endif
