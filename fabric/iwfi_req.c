/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Requests: each work request of the provider carries a struct iwfi_req
 * as its wr_id, which says what to report when it completes (iwfi_cq.c).
 * An endpoint keeps a pool of them and a list of those posted.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "iwfi.h"

/* Requests an endpoint keeps for reuse: the small-message path does not
 * allocate once the exchange runs. */
#define IWFI_REQ_POOL 1024

/* A request for one operation of ep, from its pool when it has one. */
struct iwfi_req *iwfi_req_new(struct iwfi_ep *ep, void *context, uint64_t flags,
			      bool report)
{
	struct iwfi_req *req;

	pthread_mutex_lock(&ep->req_lock);
	req = ep->req_pool;
	if (req) {
		ep->req_pool = req->next;
		ep->req_pooled--;
	}
	pthread_mutex_unlock(&ep->req_lock);
	if (!req)
		req = malloc(sizeof(*req));
	if (!req)
		return NULL;
	/* The scatter/gather entries are the caller's to fill. */
	memset(req, 0, offsetof(struct iwfi_req, sge));
	req->ep = ep;
	req->context = context;
	req->flags = flags;
	req->report = report;
	return req;
}

/* Give a request back to its endpoint's pool (or free it); NULL is
 * nothing. */
void iwfi_req_free(struct iwfi_req *req)
{
	struct iwfi_ep *ep;

	if (!req)
		return;
	ep = req->ep;
	pthread_mutex_lock(&ep->req_lock);
	if (ep->req_pooled < IWFI_REQ_POOL) {
		req->next = ep->req_pool;
		ep->req_pool = req;
		ep->req_pooled++;
		req = NULL;
	}
	pthread_mutex_unlock(&ep->req_lock);
	free(req);
}

/* Free the requests an endpoint kept (fi_close). */
void iwfi_req_pool_free(struct iwfi_ep *ep)
{
	struct iwfi_req *req;

	while ((req = ep->req_pool)) {
		ep->req_pool = req->next;
		free(req);
	}
	ep->req_pooled = 0;
}

/* Put a request on its endpoint's posted list (ep->lock held). */
void iwfi_req_link(struct iwfi_req *req)
{
	struct iwfi_ep *ep = req->ep;

	req->pprev = NULL;
	req->pnext = ep->posted;
	if (ep->posted)
		ep->posted->pprev = req;
	ep->posted = req;
}

/* Take a request off its endpoint's posted list (ep->lock held). */
void iwfi_req_unlink(struct iwfi_req *req)
{
	if (req->pprev)
		req->pprev->pnext = req->pnext;
	else
		req->ep->posted = req->pnext;
	if (req->pnext)
		req->pnext->pprev = req->pprev;
	req->pnext = req->pprev = NULL;
}
