# SPDX-License-Identifier: BSD-2-Clause
# MPA codec (wire/mpa.c, wire/mpa_fpdu.c): Check program and fuzz harnesses.
check_PROGRAMS += check_mpa check_mpa_frame
TESTS += check_mpa check_mpa_frame
check_mpa_SOURCES = check_mpa.c mpa_feed.c mpa_feed.h vectors/mpa_siw.h
check_mpa_LDADD = $(CHECK_LDADD)
check_mpa_frame_SOURCES = check_mpa_frame.c mpa_feed.c mpa_feed.h \
	vectors/mpa_siw.h
check_mpa_frame_LDADD = $(CHECK_LDADD)

FUZZ_HARNESSES += fuzz_mpa_frame fuzz_mpa_rx fuzz_mpa_fpdu
fuzz_mpa_frame_SOURCES = fuzz/fuzz_mpa_frame.c $(FUZZ_MAIN)
fuzz_mpa_frame_LDADD = $(FUZZ_LIBS)
fuzz_mpa_frame_LDFLAGS = $(FUZZ_LINKFLAGS)
fuzz_mpa_rx_SOURCES = fuzz/fuzz_mpa_rx.c $(FUZZ_MAIN)
fuzz_mpa_rx_LDADD = $(FUZZ_LIBS)
fuzz_mpa_rx_LDFLAGS = $(FUZZ_LINKFLAGS)
fuzz_mpa_fpdu_SOURCES = fuzz/fuzz_mpa_fpdu.c $(FUZZ_MAIN)
fuzz_mpa_fpdu_LDADD = $(FUZZ_LIBS)
fuzz_mpa_fpdu_LDFLAGS = $(FUZZ_LINKFLAGS)
