/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * In-tree stand-in for the installed <iwcm/verbs.h>: iwcm.h includes it
 * by its installed name, and the tree builds with -I libclient.  Never
 * installed.
 */
#include "../verbs.h"
