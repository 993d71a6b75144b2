/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The operations of libfabric's tables that the provider does not
 * support (fi_iwcm(7)): each object's table names these, and the call
 * says -FI_ENOSYS.
 */
#include "config.h"

#include "iwfi.h"

int iwfi_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	return -FI_ENOSYS;
}

int iwfi_no_control(struct fid *fid, int command, void *arg)
{
	return -FI_ENOSYS;
}

int iwfi_no_ops_open(struct fid *fid, const char *name, uint64_t flags,
		     void **ops, void *context)
{
	return -FI_ENOSYS;
}

int iwfi_no_tx_ctx(struct fid_ep *sep, int index, struct fi_tx_attr *attr,
		   struct fid_ep **tx_ep, void *context)
{
	return -FI_ENOSYS;
}

int iwfi_no_rx_ctx(struct fid_ep *sep, int index, struct fi_rx_attr *attr,
		   struct fid_ep **rx_ep, void *context)
{
	return -FI_ENOSYS;
}

ssize_t iwfi_no_size_left(struct fid_ep *ep)
{
	return -FI_ENOSYS;
}
