/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_METRICS_H
#define IWCM_METRICS_H

/*
 * The daemon's metrics as labelled samples (metrics.c); admin.c carries
 * them to iwcmctl, which writes them in the OpenMetrics text format.
 */
#include <stdint.h>

enum metric_type {
	METRIC_COUNTER,
	METRIC_GAUGE,
};

/* The families, in the order metrics_collect() gives their samples. */
enum metric_id {
	METRIC_HANDSHAKES,
	METRIC_TERMINATES,
	METRIC_TIMEOUTS,
	METRIC_ACCEPTED,
	METRIC_CONNECTS,
	METRIC_SHED,
	METRIC_REFUSED,
	METRIC_HANDOFFS,
	METRIC_BAD_FRAMES,
	METRIC_PROTOCOL_ERRORS,
	METRIC_FALLBACKS,
	METRIC_CONNECTIONS,
	METRIC_HALFOPEN,
	METRIC_CLIENTS,
	METRIC_LISTENERS,
	METRIC_LOOP_POLL,
	METRIC_SCTP_UDP_DROPPED,
	METRIC_MAX
};

struct metrics_family {
	const char *name; /* without the _total of a counter's samples */
	enum metric_type type;
	const char *help;
	const char *unit; /* values in millionths of it, or NULL */
};

#define METRIC_LABELS_MAX 4

struct metric_sample {
	enum metric_id id;
	struct {
		const char *name;
		char value[32];
	} labels[METRIC_LABELS_MAX];
	unsigned int n_labels;
	uint64_t value;
};

/* A family's name, type and help text. */
const struct metrics_family *metrics_family(enum metric_id id);

/* Call emit for every sample, grouped by family in enum metric_id order. */
void metrics_collect(void (*emit)(const struct metric_sample *s, void *arg),
		     void *arg);

#endif
