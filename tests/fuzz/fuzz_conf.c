/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/* iwcmd.conf parser on arbitrary bytes: bounded, no crash, sane result. */
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct iwcmd_conf c;
	char err[256];
	size_t i;

	if (conf_parse((const char *)data, size, "fuzz", &c, err,
		       sizeof(err)) == 0) {
		if (c.n_listeners > CONF_MAX_LISTENERS ||
		    c.n_priv_allow > CONF_MAX_PRIV_ALLOW ||
		    memchr(c.socket_path, '\0', sizeof(c.socket_path)) == NULL)
			abort();
		for (i = 0; i < c.n_listeners; i++)
			if (c.listeners[i].addrlen == 0 ||
			    !memchr(c.listeners[i].name, '\0', CONF_NAME_MAX))
				abort();
	} else if (!memchr(err, '\0', sizeof(err)) ||
		   strncmp(err, "fuzz:", 5)) {
		abort();
	}
	return 0;
}
