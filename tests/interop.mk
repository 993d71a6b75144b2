# SPDX-License-Identifier: BSD-2-Clause
# make check-interop: iwcm against Linux siw in a qemu guest
# (interop/run.sh, docs/interop.md).  Not part of make check: it takes
# minutes and, the first time, root to install packages and downloads
# Debian's kernel.  A SKIP (exit 77: no qemu, a failed download) is
# success here, a failed case is not.  INTEROP_CASES selects cases.
INTEROP_FILES = \
	interop/run.sh \
	interop/lib.sh \
	interop/sctp.sh \
	interop/vm/build-guest.sh \
	interop/vm/run-guest.sh \
	interop/vm/init \
	interop/vm/siw-params.patch
EXTRA_DIST += $(INTEROP_FILES)

# The SCTP cases run check_sctp_kernel in the guest.
INTEROP_DEPS =
if HAVE_KERNEL_SCTP
INTEROP_DEPS += check_sctp_kernel
endif
check-interop: $(INTEROP_DEPS)
	@rc=0; TSHARK='$(TSHARK)' bash $(srcdir)/interop/run.sh \
		-b '$(abs_top_builddir)' $(INTEROP_CASES) || rc=$$?; \
	test $$rc -eq 77 && rc=0; exit $$rc
.PHONY: check-interop
