/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_CLI_JSON_H
#define IWCM_CLI_JSON_H

/*
 * The one JSON writer of iwcmctl: every command's -j output goes through
 * it.  Compact (no spaces), keys in the order written.  Strings are
 * escaped to ASCII (decode: octets off the wire), or with utf8 set pass
 * octets >= 0x80 through (the admin and client commands: text from iwcmd
 * and libiwcm, such as "RFC 6581 §9.2").  The writer tracks the
 * separators; nesting deeper than JSON_DEPTH is written but no longer
 * separated.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH 8

struct json {
	FILE *fp;
	bool utf8; /* octets >= 0x80 unescaped; json_init: off */
	int depth;
	bool first[JSON_DEPTH];
};

/* Write n octets of s as a JSON string, control and non-ASCII escaped. */
void json_string(FILE *fp, const char *s, size_t n);

/* Start writing on fp at the top level. */
void json_init(struct json *w, FILE *fp);

/* A separator if needed, then "k": (or only the separator when k NULL). */
void json_key(struct json *w, const char *k);

/* Open an object ('{') or array ('[') under key k (NULL in an array). */
void json_open(struct json *w, const char *k, char c);

/* Close the innermost object ('}') or array (']'). */
void json_close(struct json *w, char c);

/* "k":"v" (v NULL: null). */
void json_str(struct json *w, const char *k, const char *v);

/* "k":v for an unsigned number. */
void json_uint(struct json *w, const char *k, uint64_t v);

/* "k":v for a signed number. */
void json_int(struct json *w, const char *k, long long v);

/* "k":true or "k":false. */
void json_bool(struct json *w, const char *k, bool v);

/* "k":null. */
void json_null(struct json *w, const char *k);

/* "k":"0x%02x", "k":"0x%08x" and "k":"0x%016x" of v. */
void json_hex8(struct json *w, const char *k, uint8_t v);
void json_hex32(struct json *w, const char *k, uint32_t v);
void json_hex64(struct json *w, const char *k, uint64_t v);

/* "k":"0a0b..." for n octets at p. */
void json_bytes(struct json *w, const char *k, const uint8_t *p, size_t n);

/* "k":["send","write","read"] for a set of RTR type bits (RFC 6581 §9.2). */
void json_rtr_array(struct json *w, const char *k, unsigned int rtr);

#endif
