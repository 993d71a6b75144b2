/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_WBUF_H
#define IWCM_WBUF_H

/*
 * Bounded reader and writer over a caller's buffer (the OpenBGPD ibuf_get_*
 * model).  Every get checks the remaining length first and fails with
 * WIRE_ESHORT without moving; every put fails with WIRE_ENOSPC.  Wire
 * fields are decoded one by one through these helpers, never by casting
 * the buffer to a struct.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wire_err.h"

struct wbuf {
	const uint8_t *buf;
	size_t len;
	size_t off;
};

struct wbuf_w {
	uint8_t *buf;
	size_t cap;
	size_t off;
};

static inline void wbuf_init(struct wbuf *b, const void *buf, size_t len)
{
	b->buf = buf;
	b->len = len;
	b->off = 0;
}

static inline size_t wbuf_left(const struct wbuf *b)
{
	return b->len - b->off;
}

static inline const uint8_t *wbuf_cur(const struct wbuf *b)
{
	return b->buf + b->off;
}

static inline enum wire_err wbuf_skip(struct wbuf *b, size_t n)
{
	if (wbuf_left(b) < n)
		return WIRE_ESHORT;
	b->off += n;
	return WIRE_OK;
}

static inline enum wire_err wbuf_get_u8(struct wbuf *b, uint8_t *v)
{
	if (wbuf_left(b) < 1)
		return WIRE_ESHORT;
	*v = b->buf[b->off++];
	return WIRE_OK;
}

static inline enum wire_err wbuf_get_u16(struct wbuf *b, uint16_t *v)
{
	const uint8_t *p;

	if (wbuf_left(b) < 2)
		return WIRE_ESHORT;
	p = b->buf + b->off;
	*v = (uint16_t)((p[0] << 8) | p[1]);
	b->off += 2;
	return WIRE_OK;
}

static inline enum wire_err wbuf_get_u32(struct wbuf *b, uint32_t *v)
{
	const uint8_t *p;

	if (wbuf_left(b) < 4)
		return WIRE_ESHORT;
	p = b->buf + b->off;
	*v = ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	     ((uint32_t)p[2] << 8) | p[3];
	b->off += 4;
	return WIRE_OK;
}

static inline enum wire_err wbuf_get_u64(struct wbuf *b, uint64_t *v)
{
	uint32_t hi = 0, lo = 0; /* set by both reads; quiets gcc */

	if (wbuf_left(b) < 8)
		return WIRE_ESHORT;
	(void)wbuf_get_u32(b, &hi);
	(void)wbuf_get_u32(b, &lo);
	*v = ((uint64_t)hi << 32) | lo;
	return WIRE_OK;
}

static inline enum wire_err wbuf_get_bytes(struct wbuf *b, void *dst, size_t n)
{
	if (wbuf_left(b) < n)
		return WIRE_ESHORT;
	if (n)
		memcpy(dst, b->buf + b->off, n);
	b->off += n;
	return WIRE_OK;
}

static inline void wbuf_w_init(struct wbuf_w *w, void *buf, size_t cap)
{
	w->buf = buf;
	w->cap = cap;
	w->off = 0;
}

static inline size_t wbuf_w_left(const struct wbuf_w *w)
{
	return w->cap - w->off;
}

static inline enum wire_err wbuf_put_u8(struct wbuf_w *w, uint8_t v)
{
	if (wbuf_w_left(w) < 1)
		return WIRE_ENOSPC;
	w->buf[w->off++] = v;
	return WIRE_OK;
}

static inline enum wire_err wbuf_put_u16(struct wbuf_w *w, uint16_t v)
{
	if (wbuf_w_left(w) < 2)
		return WIRE_ENOSPC;
	w->buf[w->off++] = (uint8_t)(v >> 8);
	w->buf[w->off++] = (uint8_t)v;
	return WIRE_OK;
}

static inline enum wire_err wbuf_put_u32(struct wbuf_w *w, uint32_t v)
{
	if (wbuf_w_left(w) < 4)
		return WIRE_ENOSPC;
	w->buf[w->off++] = (uint8_t)(v >> 24);
	w->buf[w->off++] = (uint8_t)(v >> 16);
	w->buf[w->off++] = (uint8_t)(v >> 8);
	w->buf[w->off++] = (uint8_t)v;
	return WIRE_OK;
}

static inline enum wire_err wbuf_put_u64(struct wbuf_w *w, uint64_t v)
{
	if (wbuf_w_left(w) < 8)
		return WIRE_ENOSPC;
	(void)wbuf_put_u32(w, (uint32_t)(v >> 32));
	(void)wbuf_put_u32(w, (uint32_t)v);
	return WIRE_OK;
}

static inline enum wire_err wbuf_put_bytes(struct wbuf_w *w, const void *src,
					   size_t n)
{
	if (wbuf_w_left(w) < n)
		return WIRE_ENOSPC;
	if (n)
		memcpy(w->buf + w->off, src, n);
	w->off += n;
	return WIRE_OK;
}

/* Big-endian helpers for fixed positions already bounds-checked. */
static inline uint16_t wire_be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t wire_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | p[3];
}

static inline void wire_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void wire_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline uint64_t wire_be64(const uint8_t *p)
{
	return (uint64_t)wire_be32(p) << 32 | wire_be32(p + 4);
}

static inline void wire_put_be64(uint8_t *p, uint64_t v)
{
	wire_put_be32(p, (uint32_t)(v >> 32));
	wire_put_be32(p + 4, (uint32_t)v);
}

#endif
