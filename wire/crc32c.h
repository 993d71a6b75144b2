/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_CRC32C_H
#define IWCM_CRC32C_H

/*
 * CRC32c as MPA uses it (RFC 5044 §4.4, by reference to the iSCSI digest of
 * RFC 7143 §13.1): reflected polynomial 0x82F63B78, initial value all ones,
 * final complement.  The 32-bit result goes on the wire least significant
 * byte first (RFC 7143 Appendix A.4 vectors, RFC 5044 Figures 5-6, Linux
 * siw and Wireshark all agree); use crc32c_put_wire()/crc32c_get_wire().
 *
 * Incremental use:
 *	uint32_t s = crc32c_init();
 *	s = crc32c_update(s, a, alen);
 *	s = crc32c_update(s, b, blen);
 *	crc = crc32c_final(s);
 */
#include <stddef.h>
#include <stdint.h>

#define CRC32C_INIT 0xFFFFFFFFu

static inline uint32_t crc32c_init(void)
{
	return CRC32C_INIT;
}

static inline uint32_t crc32c_final(uint32_t state)
{
	return state ^ 0xFFFFFFFFu;
}

/* Feed len bytes into a running CRC state; uses ISA-L when built with it. */
uint32_t crc32c_update(uint32_t state, const void *buf, size_t len);

/* The portable table-driven implementation, always built (tests compare). */
uint32_t crc32c_update_portable(uint32_t state, const void *buf, size_t len);

/* One-shot CRC32c of a buffer. */
uint32_t crc32c(const void *buf, size_t len);

/* Name of the implementation crc32c_update() uses: "isa-l" or "portable". */
const char *crc32c_impl(void);

/* Store crc in MPA wire order (least significant byte first). */
static inline void crc32c_put_wire(uint32_t crc, uint8_t out[4])
{
	out[0] = (uint8_t)crc;
	out[1] = (uint8_t)(crc >> 8);
	out[2] = (uint8_t)(crc >> 16);
	out[3] = (uint8_t)(crc >> 24);
}

/* Read an MPA CRC trailer (least significant byte first). */
static inline uint32_t crc32c_get_wire(const uint8_t in[4])
{
	return (uint32_t)in[0] | ((uint32_t)in[1] << 8) |
	       ((uint32_t)in[2] << 16) | ((uint32_t)in[3] << 24);
}

#endif
