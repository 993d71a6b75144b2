# SPDX-License-Identifier: BSD-2-Clause
check_PROGRAMS += check_crc32c check_wbuf
TESTS += check_crc32c check_wbuf
check_crc32c_SOURCES = check_crc32c.c
check_crc32c_LDADD = $(CHECK_LDADD)
check_wbuf_SOURCES = check_wbuf.c
check_wbuf_LDADD = $(CHECK_LDADD)
