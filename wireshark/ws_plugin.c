/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Entry points of iwcm.so, the Wireshark 4.0 plugin (doc/plugins.example
 * of Wireshark): the version it was built for and plugin_register(), which
 * hands Wireshark the registration and handoff routines of the MPA, DDP,
 * RDMAP and DDP over SCTP protocols.  Only these four symbols are
 * exported (iwcm.map): the codecs linked in stay private to the plugin.
 */
#include "config.h"

#define WS_BUILD_DLL
#include <wireshark.h>

#include <epan/packet.h>
#include <epan/proto.h>

#include "iwcm_ws.h"

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = PACKAGE_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

static void iwcm_register(void)
{
	ws_rdmap_register();
	ws_mpa_register();
	ws_sctp_register();
}

static void iwcm_handoff(void)
{
	ws_mpa_handoff();
	ws_sctp_handoff();
}

/* Called by Wireshark when it loads the plugin. */
void plugin_register(void)
{
	static proto_plugin plug;

	plug.register_protoinfo = iwcm_register;
	plug.register_handoff = iwcm_handoff;
	proto_register_plugin(&plug);
}
