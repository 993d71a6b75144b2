/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#include "wire_err.h"

static const struct {
	const char *name;
	const char *text;
} wire_err_tab[WIRE_ERR_MAX] = {
	[WIRE_OK] = { "OK", "success" },
	[WIRE_ESHORT] = { "ESHORT", "need more bytes" },
	[WIRE_EKEY] = { "EKEY", "bad key" },
	[WIRE_EREV] = { "EREV", "unsupported revision or version" },
	[WIRE_ELEN] = { "ELEN", "length out of range" },
	[WIRE_EFLAGS] = { "EFLAGS", "illegal flags" },
	[WIRE_ECRC] = { "ECRC", "CRC mismatch" },
	[WIRE_EMARKER] = { "EMARKER", "marker does not match framing" },
	[WIRE_EOPCODE] = { "EOPCODE", "unknown or misplaced opcode" },
	[WIRE_EUNSUP] = { "EUNSUP", "not supported" },
	[WIRE_ENOSPC] = { "ENOSPC", "output buffer too small" },
	[WIRE_EINVAL] = { "EINVAL", "value cannot be encoded" },
};

/* Return a constant, human-readable name for err. */
const char *wire_strerror(enum wire_err err)
{
	if ((unsigned)err >= WIRE_ERR_MAX)
		return "unknown error";
	return wire_err_tab[err].text;
}

/* Return the stable identifier of err. */
const char *wire_errname(enum wire_err err)
{
	if ((unsigned)err >= WIRE_ERR_MAX)
		return "EUNKNOWN";
	return wire_err_tab[err].name;
}
