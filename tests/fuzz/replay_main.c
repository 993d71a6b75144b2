/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Stand-in for libFuzzer's main in ordinary builds: feeds every file named
 * on the command line (directories are walked one level) to the harness.
 * libFuzzer-style "-flag=value" arguments are ignored so the same command
 * line replays a corpus with either main.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz/fuzz.h"

#define REPLAY_MAX (1u << 20)

/* The input being replayed, named when a check aborts the run or a
 * fault kills it. */
static char replay_current[4096];

static void replay_on_abort(int sig)
{
	static const char what[] = "replay: killed while replaying ";
	size_t n = strlen(replay_current);

	(void)!write(STDERR_FILENO, what, sizeof(what) - 1);
	(void)!write(STDERR_FILENO, replay_current, n);
	(void)!write(STDERR_FILENO, "\n", 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int replay_file(const char *path, unsigned long *count)
{
	static uint8_t buf[REPLAY_MAX];
	FILE *f = fopen(path, "rb");
	size_t n;
	uint8_t *copy;

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	/* An exact-size heap copy lets ASan catch any read past the input. */
	copy = malloc(n ? n : 1);
	if (!copy)
		return -1;
	memcpy(copy, buf, n);
	snprintf(replay_current, sizeof(replay_current), "%s", path);
	LLVMFuzzerTestOneInput(copy, n);
	free(copy);
	(*count)++;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long count = 0;
	int i, rc = 0;

	signal(SIGABRT, replay_on_abort);
	signal(SIGSEGV, replay_on_abort);
	signal(SIGBUS, replay_on_abort);
	signal(SIGFPE, replay_on_abort);
	signal(SIGILL, replay_on_abort);
	for (i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *de;

		if (argv[i][0] == '-')
			continue;
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			rc = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (replay_file(argv[i], &count) < 0)
				rc = 1;
			continue;
		}
		d = opendir(argv[i]);
		if (!d) {
			rc = 1;
			continue;
		}
		while ((de = readdir(d))) {
			char path[4096];

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i],
				 de->d_name);
			if (replay_file(path, &count) < 0)
				rc = 1;
		}
		closedir(d);
	}
	printf("replayed %lu inputs\n", count);
	return rc;
}
