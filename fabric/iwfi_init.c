/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The provider's entry point: libfabric dlopens libiwcm-fi.so (from
 * FI_PROVIDER_PATH or $libdir/libfabric) and calls fi_prov_ini().
 */
#include "config.h"

#include "iwfi.h"

/* fi_getinfo(): nothing when no iwcmd answers, as no device would. */
static int init_getinfo(uint32_t version, const char *node, const char *service,
			uint64_t flags, const struct fi_info *hints,
			struct fi_info **info)
{
	struct iwcm_ctx *ctx;
	int ret = iwfi_getinfo(version, node, service, flags, hints, info);

	if (ret)
		return ret;
	ctx = iwcm_ctx_open(IWCM_CTX_NONBLOCK);
	if (!ctx) {
		IWFI_INFO(FI_LOG_CORE, "no iwcmd answers (IWCM_SOCKET)\n");
		fi_freeinfo(*info);
		*info = NULL;
		return -FI_ENODATA;
	}
	iwcm_ctx_close(ctx);
	return 0;
}

static void init_cleanup(void)
{
}

FI_EXT_INI
{
	fi_param_define(&iwfi_prov, "iface", FI_PARAM_STRING,
			"Interface whose address endpoints use when the "
			"application names none (default: the first one up "
			"that is not loopback)");
	fi_param_define(&iwfi_prov, "progress", FI_PARAM_STRING,
			"Who moves the data: auto (the application's calls, "
			"with a progress thread per fabric as the fallback, "
			"FI_PROGRESS_AUTO) or manual (the application's calls "
			"only, FI_PROGRESS_MANUAL) (default: auto)");
	fi_param_define(&iwfi_prov, "crc", FI_PARAM_STRING,
			"MPA CRC (RFC 5044): on asks for it, off leaves it to "
			"the peer (default: off)");
	iwfi_prov.getinfo = init_getinfo;
	iwfi_prov.fabric = iwfi_fabric_open;
	iwfi_prov.cleanup = init_cleanup;
	return &iwfi_prov;
}
