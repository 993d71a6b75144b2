/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_NEGOTIATE_H
#define IWCM_NEGOTIATE_H
#endif
