# SPDX-License-Identifier: BSD-2-Clause
# iwcmctl listen and connect (libiwcm clients) and probe (forced
# negotiations, one per offer) against the real iwcmd.
TESTS += integ/iwcmctl_client.sh integ/probe.sh
EXTRA_DIST += integ/iwcmctl_client.sh integ/probe.sh
