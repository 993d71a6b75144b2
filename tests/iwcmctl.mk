# SPDX-License-Identifier: BSD-2-Clause
# iwcmctl listen and connect (libiwcm clients) against the real iwcmd.
TESTS += integ/iwcmctl_client.sh
EXTRA_DIST += integ/iwcmctl_client.sh
