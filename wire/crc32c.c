/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#include "config.h"

#include <limits.h>

#include "crc32c.h"

#ifdef HAVE_ISAL
#include <isa-l/crc.h>
#endif

/*
 * Slicing-by-8 tables for the reflected Castagnoli polynomial 0x82F63B78
 * (RFC 7143 §13.1: generator 0x11EDC6F41), computed at compile time would
 * need a generator; computing them once is cheap and keeps the file short.
 * The tables are filled by a constructor so the function stays pure and
 * thread-safe afterwards.
 */
static uint32_t crc32c_tab[8][256];

__attribute__((constructor)) static void crc32c_tab_init(void)
{
	uint32_t c;
	unsigned int i, k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
		crc32c_tab[0][i] = c;
	}
	for (i = 0; i < 256; i++) {
		c = crc32c_tab[0][i];
		for (k = 1; k < 8; k++) {
			c = crc32c_tab[0][c & 0xFF] ^ (c >> 8);
			crc32c_tab[k][i] = c;
		}
	}
}

/* Portable slicing-by-8 CRC32c update. */
uint32_t crc32c_update_portable(uint32_t state, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t c = state;

	while (len && ((uintptr_t)p & 7)) {
		c = crc32c_tab[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
		len--;
	}
	while (len >= 8) {
		uint32_t lo = c ^
			      ((uint32_t)p[0] | ((uint32_t)p[1] << 8) |
			       ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24));
		uint32_t hi = (uint32_t)p[4] | ((uint32_t)p[5] << 8) |
			      ((uint32_t)p[6] << 16) | ((uint32_t)p[7] << 24);

		c = crc32c_tab[7][lo & 0xFF] ^ crc32c_tab[6][(lo >> 8) & 0xFF] ^
		    crc32c_tab[5][(lo >> 16) & 0xFF] ^ crc32c_tab[4][lo >> 24] ^
		    crc32c_tab[3][hi & 0xFF] ^ crc32c_tab[2][(hi >> 8) & 0xFF] ^
		    crc32c_tab[1][(hi >> 16) & 0xFF] ^ crc32c_tab[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		c = crc32c_tab[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
	return c;
}

/* Feed len bytes into a running CRC state. */
uint32_t crc32c_update(uint32_t state, const void *buf, size_t len)
{
#ifdef HAVE_ISAL
	/*
	 * ISA-L's crc32_iscsi() takes and returns the raw (uncomplemented)
	 * register and an int length, so feed it in chunks.
	 */
	unsigned char *p = (unsigned char *)(uintptr_t)buf;

	while (len > 0) {
		int n = len > (size_t)INT_MAX ? INT_MAX : (int)len;

		state = crc32_iscsi(p, n, state);
		p += n;
		len -= (size_t)n;
	}
	return state;
#else
	return crc32c_update_portable(state, buf, len);
#endif
}

/* One-shot CRC32c of a buffer. */
uint32_t crc32c(const void *buf, size_t len)
{
	return crc32c_final(crc32c_update(crc32c_init(), buf, len));
}

/* Name of the implementation crc32c_update() uses. */
const char *crc32c_impl(void)
{
#ifdef HAVE_ISAL
	return "isa-l";
#else
	return "portable";
#endif
}
