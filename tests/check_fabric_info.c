/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * fi_getinfo() of the provider against libfabric's rules for hints
 * (fi_getinfo(3), fi_domain(3)): what it cannot do matches nothing
 * (-FI_ENODATA), and what it answers stays within what was offered.  A
 * table of hints and answers (the cases fabtests' fi_getinfo_test found
 * wrong among them), and every combination of MR mode bits.  Local
 * registration (FI_MR_LOCAL) is answered when offered, never required.
 */
#include "config.h"

#include "fabric_harness.h"

#define V1_0 FI_VERSION(1, 0)
#define V1_17 FI_VERSION(1, 17)
#define CAPS (FI_MSG | FI_RMA | FI_ATOMIC)
#define BASIC_BITS (FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY)
/* The rest of a row that matches nothing. */
#define NOMATCH -FI_ENODATA, 0, 0, 0, FI_RM_UNSPEC

/*
 * One call: the hints that differ from hints_new() (every field is
 * written, 0 meaning libfabric's "unspecified"), the expected return and,
 * on success, the MR mode, the mode bits that must be set and the other
 * attributes that must be answered.
 */
struct info_case {
	const char *what;
	uint32_t version;
	uint64_t caps;
	uint64_t mode;
	int mr_mode;
	uint64_t tx_order, rx_order, comp_order;
	uint64_t dom_caps;
	size_t tx_ctx, rx_ctx;
	enum fi_resource_mgmt rm;
	uint64_t tx_op_flags;
	size_t cq_data;
	int ret;
	int want_mr_mode;
	uint64_t want_mode;
	size_t want_cq_data;
	enum fi_resource_mgmt want_rm;
};

static const struct info_case cases[] = {
	{ "the default", V1_17, CAPS, 0, MR_MODE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	  MR_MODE, 0, 8, FI_RM_DISABLED },
	/* fi_domain(3): FI_MR_BASIC is VIRT_ADDR|ALLOCATED|PROV_KEY and
	 * stands alone; FI_MR_LOCAL is then the FI_LOCAL_MR mode, answered
	 * only when offered. */
	{ "FI_MR_BASIC", V1_17, CAPS, FI_LOCAL_MR, FI_MR_BASIC, 0, 0, 0, 0, 0,
	  0, 0, 0, 0, 0, FI_MR_BASIC, FI_LOCAL_MR, 8, FI_RM_DISABLED },
	{ "FI_MR_BASIC, no local MR", V1_17, CAPS, 0, FI_MR_BASIC, 0, 0, 0, 0,
	  0, 0, 0, 0, 0, 0, FI_MR_BASIC, 0, 8, FI_RM_DISABLED },
	{ "FI_MR_BASIC with other bits", V1_17, CAPS, FI_LOCAL_MR,
	  FI_MR_BASIC | FI_MR_LOCAL, 0, 0, 0, 0, 0, 0, 0, 0, 0, NOMATCH },
	{ "FI_MR_SCALABLE", V1_17, CAPS, FI_LOCAL_MR, FI_MR_SCALABLE, 0, 0, 0,
	  0, 0, 0, 0, 0, 0, NOMATCH },
	{ "FI_MR_UNSPEC (1.17) offers nothing", V1_17, CAPS, FI_LOCAL_MR,
	  FI_MR_UNSPEC, 0, 0, 0, 0, 0, 0, 0, 0, 0, NOMATCH },
	{ "FI_MR_UNSPEC (1.0)", V1_0, CAPS, FI_LOCAL_MR, FI_MR_UNSPEC, 0, 0, 0,
	  0, 0, 0, 0, 0, 0, 0, FI_MR_BASIC, FI_LOCAL_MR, 8, FI_RM_DISABLED },
	{ "FI_MR_BASIC (1.0)", V1_0, CAPS, FI_LOCAL_MR, FI_MR_BASIC, 0, 0, 0, 0,
	  0, 0, 0, 0, 0, 0, FI_MR_BASIC, FI_LOCAL_MR, 8, FI_RM_DISABLED },
	{ "FI_MR_BASIC (1.0), no FI_LOCAL_MR", V1_0, CAPS, 0, FI_MR_BASIC, 0, 0,
	  0, 0, 0, 0, 0, 0, 0, 0, FI_MR_BASIC, 0, 8, FI_RM_DISABLED },
	{ "FI_MR_SCALABLE (1.0)", V1_0, CAPS, FI_LOCAL_MR, FI_MR_SCALABLE, 0, 0,
	  0, 0, 0, 0, 0, 0, 0, NOMATCH },
	/* FI_LOCAL_MR for FI_MR_LOCAL: the answer adds no FI_MR_LOCAL. */
	{ "FI_LOCAL_MR for FI_MR_LOCAL", V1_17, CAPS, FI_LOCAL_MR, BASIC_BITS,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, BASIC_BITS, FI_LOCAL_MR, 8,
	  FI_RM_DISABLED },
	/* Without local registration offered, none is answered: buffers
	 * without a descriptor go through the domain's local region. */
	{ "no local MR offered", V1_17, CAPS, 0, BASIC_BITS, 0, 0, 0, 0, 0, 0,
	  0, 0, 0, 0, BASIC_BITS, 0, 8, FI_RM_DISABLED },
	{ "no local MR offered, FI_MR_ENDPOINT", V1_17, CAPS, 0,
	  BASIC_BITS | FI_MR_ENDPOINT, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, BASIC_BITS,
	  0, 8, FI_RM_DISABLED },
	{ "remote bits missing", V1_17, CAPS, 0, FI_MR_VIRT_ADDR | FI_MR_LOCAL,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, NOMATCH },
	{ "messages only: FI_MR_LOCAL", V1_17, FI_MSG, 0, MR_MODE, 0, 0, 0, 0,
	  0, 0, 0, 0, 0, 0, FI_MR_LOCAL, 0, 0, FI_RM_DISABLED },
	{ "messages only, nothing offered", V1_17, FI_MSG, 0, FI_MR_UNSPEC, 0,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, FI_MR_UNSPEC, 0, 0, FI_RM_DISABLED },
	/* Orders: no bit the provider does not state. */
	{ "tx FI_ORDER_SAS", V1_17, CAPS, 0, MR_MODE, FI_ORDER_SAS, 0, 0, 0, 0,
	  0, 0, 0, 0, 0, MR_MODE, 0, 8, FI_RM_DISABLED },
	{ "tx FI_ORDER_RAR", V1_17, CAPS, 0, MR_MODE, FI_ORDER_RAR, 0, 0, 0, 0,
	  0, 0, 0, 0, NOMATCH },
	{ "tx FI_ORDER_STRICT", V1_17, CAPS, 0, MR_MODE, FI_ORDER_STRICT, 0, 0,
	  0, 0, 0, 0, 0, 0, NOMATCH },
	{ "rx FI_ORDER_DATA", V1_17, CAPS, 0, MR_MODE, 0, FI_ORDER_DATA, 0, 0,
	  0, 0, 0, 0, 0, NOMATCH },
	{ "rx FI_ORDER_WAW", V1_17, CAPS, 0, MR_MODE, 0, FI_ORDER_WAW, 0, 0, 0,
	  0, 0, 0, 0, 0, MR_MODE, 0, 8, FI_RM_DISABLED },
	{ "comp FI_ORDER_STRICT", V1_17, CAPS, 0, MR_MODE, 0, 0,
	  FI_ORDER_STRICT, 0, 0, 0, 0, 0, 0, 0, MR_MODE, 0, 8, FI_RM_DISABLED },
	{ "comp FI_ORDER_DATA", V1_17, CAPS, 0, MR_MODE, 0, 0, FI_ORDER_DATA, 0,
	  0, 0, 0, 0, 0, NOMATCH },
	/* Domain capabilities: no address vectors to share. */
	{ "domain FI_LOCAL_COMM", V1_17, CAPS, 0, MR_MODE, 0, 0, 0,
	  FI_LOCAL_COMM, 0, 0, 0, 0, 0, 0, MR_MODE, 0, 8, FI_RM_DISABLED },
	{ "domain FI_SHARED_AV", V1_17, CAPS, 0, MR_MODE, 0, 0, 0,
	  FI_SHARED_AV | FI_LOCAL_COMM, 0, 0, 0, 0, 0, NOMATCH },
	/* Contexts: one of each, none shared. */
	{ "one context each", V1_17, CAPS, 0, MR_MODE, 0, 0, 0, 0, 1, 1, 0, 0,
	  0, 0, MR_MODE, 0, 8, FI_RM_DISABLED },
	{ "shared tx context", V1_17, CAPS, 0, MR_MODE, 0, 0, 0, 0,
	  FI_SHARED_CONTEXT, 0, 0, 0, 0, NOMATCH },
	{ "shared rx context", V1_17, CAPS, 0, MR_MODE, 0, 0, 0, 0, 0,
	  FI_SHARED_CONTEXT, 0, 0, 0, NOMATCH },
	{ "two tx contexts", V1_17, CAPS, 0, MR_MODE, 0, 0, 0, 0, 2, 0, 0, 0, 0,
	  NOMATCH },
	/* Resource management as asked: -FI_EAGAIN either way. */
	{ "FI_RM_ENABLED", V1_17, CAPS, 0, MR_MODE, 0, 0, 0, 0, 0, 0,
	  FI_RM_ENABLED, 0, 0, 0, MR_MODE, 0, 8, FI_RM_ENABLED },
	/* Completions once the data is in the socket, not delivered. */
	{ "FI_DELIVERY_COMPLETE", V1_17, CAPS, 0, MR_MODE, 0, 0, 0, 0, 0, 0, 0,
	  FI_DELIVERY_COMPLETE, 0, NOMATCH },
	{ "FI_TRANSMIT_COMPLETE", V1_17, CAPS, 0, MR_MODE, 0, 0, 0, 0, 0, 0, 0,
	  FI_TRANSMIT_COMPLETE, 0, 0, MR_MODE, 0, 8, FI_RM_DISABLED },
	/* CQ data rides RFC 7306 Immediate Data, which a Send with
	 * payload cannot carry: none without RDMA Writes. */
	{ "CQ data with messages only", V1_17, FI_MSG, 0, MR_MODE, 0, 0, 0, 0,
	  0, 0, 0, 0, 4, NOMATCH },
	{ "CQ data with RDMA Writes", V1_17, FI_MSG | FI_RMA | FI_WRITE, 0,
	  MR_MODE, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, MR_MODE, 0, 8,
	  FI_RM_DISABLED },
	{ "CQ data with RDMA Reads only", V1_17, FI_RMA | FI_READ, 0, MR_MODE,
	  0, 0, 0, 0, 0, 0, 0, 0, 4, NOMATCH },
};

static struct fi_info *case_hints(const struct info_case *c)
{
	struct fi_info *h = hints_new();

	h->caps = c->caps;
	h->mode = c->mode | FI_RX_CQ_DATA;
	h->domain_attr->mr_mode = c->mr_mode;
	h->domain_attr->caps = c->dom_caps;
	h->domain_attr->resource_mgmt = c->rm;
	h->domain_attr->cq_data_size = c->cq_data;
	h->tx_attr->msg_order = c->tx_order;
	h->tx_attr->comp_order = c->comp_order;
	h->tx_attr->op_flags = c->tx_op_flags;
	h->rx_attr->msg_order = c->rx_order;
	h->ep_attr->tx_ctx_cnt = c->tx_ctx;
	h->ep_attr->rx_ctx_cnt = c->rx_ctx;
	return h;
}

START_TEST(info_table)
{
	const struct info_case *c = &cases[_i];
	struct fi_info *h = case_hints(c), *info = NULL;
	int ret;

	ret = fi_getinfo(c->version, "127.0.0.1", "0", FI_SOURCE, h, &info);
	ck_assert_msg(ret == c->ret, "%s: fi_getinfo %d, expected %d", c->what,
		      ret, c->ret);
	if (ret) {
		ck_assert_ptr_null(info);
		fi_freeinfo(h);
		return;
	}
	ck_assert_ptr_nonnull(info);
	ck_assert_ptr_null(info->next);
	ck_assert_msg(info->domain_attr->mr_mode == c->want_mr_mode,
		      "%s: mr_mode 0x%x, expected 0x%x", c->what,
		      info->domain_attr->mr_mode, c->want_mr_mode);
	ck_assert_msg((info->mode & c->want_mode) == c->want_mode,
		      "%s: mode 0x%llx", c->what,
		      (unsigned long long)info->mode);
	ck_assert_msg(info->domain_attr->cq_data_size == c->want_cq_data,
		      "%s: cq_data_size %zu", c->what,
		      info->domain_attr->cq_data_size);
	ck_assert_int_eq(info->domain_attr->resource_mgmt, c->want_rm);
	/* What was asked is answered. */
	ck_assert((info->tx_attr->msg_order & c->tx_order) == c->tx_order);
	ck_assert((info->rx_attr->msg_order & c->rx_order) == c->rx_order);
	ck_assert((info->tx_attr->comp_order & c->comp_order) == c->comp_order);
	ck_assert((info->domain_attr->caps & c->dom_caps) == c->dom_caps);
	ck_assert(!(info->tx_attr->op_flags & FI_DELIVERY_COMPLETE));
	fi_freeinfo(info);
	fi_freeinfo(h);
}
END_TEST

/*
 * Every combination of the MR mode bits fi_getinfo_test tries, with and
 * without FI_LOCAL_MR and RMA: an answer never holds a bit that was not
 * offered, each combination that holds what the provider needs is
 * answered, and local registration is answered exactly when offered.
 * Loop index: bit 0 FI_LOCAL_MR, bit 1 RMA.
 */
START_TEST(mr_mode_bits)
{
	static const int bits[] = { FI_MR_LOCAL,     FI_MR_RAW,
				    FI_MR_VIRT_ADDR, FI_MR_ALLOCATED,
				    FI_MR_PROV_KEY,  FI_MR_MMU_NOTIFY,
				    FI_MR_RMA_EVENT, FI_MR_ENDPOINT };
	bool local_mr = _i & 1, rma = _i & 2;
	int need = rma ? MR_MODE & ~FI_MR_LOCAL : 0, answered = 0;

	for (unsigned int combo = 0; combo < 1u << ARRAY_SIZE(bits); combo++) {
		struct fi_info *h = hints_new(), *info = NULL;
		bool local;
		int user = 0, ret;

		for (size_t b = 0; b < ARRAY_SIZE(bits); b++)
			if (combo & (1u << b))
				user |= bits[b];
		h->caps = rma ? CAPS : FI_MSG;
		h->mode = local_mr ? FI_LOCAL_MR : 0;
		h->domain_attr->mr_mode = user;
		local = local_mr || (user & FI_MR_LOCAL);
		ret = fi_getinfo(V1_17, NULL, NULL, 0, h, &info);
		if (need & ~user) {
			ck_assert_msg(ret == -FI_ENODATA,
				      "mr_mode 0x%x: %d, expected -FI_ENODATA",
				      user, ret);
		} else {
			ck_assert_msg(ret == 0, "mr_mode 0x%x: %d", user, ret);
			ck_assert_msg(!(info->domain_attr->mr_mode & ~user),
				      "mr_mode 0x%x answered 0x%x", user,
				      info->domain_attr->mr_mode);
			/* Local registration only when offered. */
			ck_assert_msg(
				local == ((info->domain_attr->mr_mode &
					   FI_MR_LOCAL) ||
					  (info->mode & FI_LOCAL_MR)),
				"mr_mode 0x%x local %d: answered 0x%x mode 0x%llx",
				user, local, info->domain_attr->mr_mode,
				(unsigned long long)info->mode);
			answered++;
		}
		fi_freeinfo(info);
		fi_freeinfo(h);
	}
	ck_assert_int_gt(answered, 0);
}
END_TEST

static Suite *fabric_info_suite(void)
{
	Suite *s = suite_create("fabric_info");

	add_loop_tcase(s, "info_table", info_table, ARRAY_SIZE(cases));
	add_loop_tcase(s, "mr_mode_bits", mr_mode_bits, 4);
	return s;
}

int main(void)
{
	return fabric_run(fabric_info_suite(), "");
}
