# SPDX-License-Identifier: BSD-2-Clause
# DDP headers (wire/ddp.c) and RDMAP messages (wire/rdmap.c, rdmap_names.c).
check_PROGRAMS += check_ddp check_rdmap check_rdmap_term
TESTS += check_ddp check_rdmap check_rdmap_term
check_ddp_SOURCES = check_ddp.c
check_ddp_LDADD = $(CHECK_LDADD)
check_rdmap_SOURCES = check_rdmap.c rdmap_util.c rdmap_util.h \
	vectors/rdmap_msgs.h
check_rdmap_LDADD = $(CHECK_LDADD)
check_rdmap_term_SOURCES = check_rdmap_term.c rdmap_util.c rdmap_util.h
check_rdmap_term_LDADD = $(CHECK_LDADD)

FUZZ_HARNESSES += fuzz_ddp fuzz_rdmap
fuzz_ddp_SOURCES = fuzz/fuzz_ddp.c $(FUZZ_MAIN)
fuzz_ddp_LDADD = $(FUZZ_LIBS)
fuzz_ddp_LDFLAGS = $(FUZZ_LINKFLAGS)
fuzz_rdmap_SOURCES = fuzz/fuzz_rdmap.c $(FUZZ_MAIN)
fuzz_rdmap_LDADD = $(FUZZ_LIBS)
fuzz_rdmap_LDFLAGS = $(FUZZ_LINKFLAGS)
