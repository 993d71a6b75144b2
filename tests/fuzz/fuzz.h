/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_FUZZ_H
#define IWCM_FUZZ_H
#include <stddef.h>
#include <stdint.h>

/* Every harness defines this; libFuzzer or replay_main.c calls it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
