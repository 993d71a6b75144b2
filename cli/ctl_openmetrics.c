/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * iwcmctl stats -o openmetrics: iwcmd's metric families (ctl.proto
 * MetricFamily) in the OpenMetrics 1.0 text format, which Prometheus
 * scrapes (Content-Type application/openmetrics-text; version=1.0.0):
 * per family '# TYPE', '# UNIT' when it has one, and '# HELP', then its
 * samples (with a unit, in it: millionths from iwcmd), a counter's named
 * NAME_total, label values escaped, and '# EOF' last.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "ctl_output.h"

/* A label value or help text with \, " (in a label) and newline escaped. */
static void om_escaped(FILE *fp, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", fp);
		else if (*s == '\n')
			fputs("\\n", fp);
		else if (*s == '"' && quote)
			fputs("\\\"", fp);
		else
			fputc(*s, fp);
	}
}

/* Write the families of s to fp. */
void ctl_openmetrics(FILE *fp, const Iwcm__Ctl__Stats *s)
{
	for (size_t i = 0; i < s->n_families; i++) {
		const Iwcm__Ctl__MetricFamily *f = s->families[i];

		fprintf(fp, "# TYPE %s %s\n", f->name,
			f->gauge ? "gauge" : "counter");
		if (f->unit)
			fprintf(fp, "# UNIT %s %s\n", f->name, f->unit);
		fprintf(fp, "# HELP %s ", f->name);
		om_escaped(fp, f->help, false);
		fputc('\n', fp);
		for (size_t j = 0; j < f->n_samples; j++) {
			const Iwcm__Ctl__MetricSample *m = f->samples[j];

			fprintf(fp, "%s%s", f->name, f->gauge ? "" : "_total");
			for (size_t k = 0; k < m->n_labels; k++) {
				fprintf(fp, "%s%s=\"", k ? "," : "{",
					m->labels[k]->name);
				om_escaped(fp, m->labels[k]->value, true);
				fputc('"', fp);
			}
			fputs(m->n_labels ? "} " : " ", fp);
			/* with a unit, millionths of it, exactly */
			if (f->unit)
				fprintf(fp, "%" PRIu64 ".%06" PRIu64 "\n",
					m->value / 1000000u,
					m->value % 1000000u);
			else
				fprintf(fp, "%" PRIu64 "\n", m->value);
		}
	}
	fputs("# EOF\n", fp);
}
