/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Event queues: a list of entries written by the fabric's CM thread (and
 * by fi_eq_write()), with an eventfd that is readable exactly while the
 * list is not empty (FI_WAIT_FD).
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <iwcm/iwcm.h>

#include "iwfi.h"

static void eq_signal(struct iwfi_eq *eq)
{
	uint64_t one = 1;

	if (write(eq->efd, &one, sizeof(one)) < 0) {
		/* The counter cannot overflow: it is drained when empty. */
	}
}

static void eq_drain_signal(struct iwfi_eq *eq)
{
	uint64_t v;

	if (read(eq->efd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing was signalled. */
	}
}

static void eq_append(struct iwfi_eq *eq, struct iwfi_eq_ent *ent)
{
	pthread_mutex_lock(&eq->lock);
	if (eq->tail)
		eq->tail->next = ent;
	else
		eq->head = ent;
	eq->tail = ent;
	eq_signal(eq);
	pthread_mutex_unlock(&eq->lock);
}

/* Queue an event whose entry is the len octets of buf. */
int iwfi_eq_push(struct iwfi_eq *eq, uint32_t event, const void *buf,
		 size_t len)
{
	struct iwfi_eq_ent *ent = calloc(1, sizeof(*ent) + len);

	if (!ent)
		return -FI_ENOMEM;
	ent->event = event;
	ent->len = len;
	memcpy(ent->buf, buf, len);
	eq_append(eq, ent);
	return 0;
}

/* Queue an error entry (err positive) with a copy of the peer's data. */
int iwfi_eq_push_err(struct iwfi_eq *eq, fid_t fid, void *context, int err,
		     int prov_errno, const void *data, size_t data_len)
{
	struct iwfi_eq_ent *ent = calloc(1, sizeof(*ent));

	if (!ent)
		return -FI_ENOMEM;
	ent->err = true;
	ent->err_entry.fid = fid;
	ent->err_entry.context = context;
	ent->err_entry.err = err;
	ent->err_entry.prov_errno = prov_errno;
	if (data_len) {
		ent->err_data = malloc(data_len);
		if (!ent->err_data) {
			free(ent);
			return -FI_ENOMEM;
		}
		memcpy(ent->err_data, data, data_len);
		ent->err_entry.err_data_size = data_len;
	}
	eq_append(eq, ent);
	return 0;
}

/* Take the head entry if it is of the kind asked for (under the lock). */
static struct iwfi_eq_ent *eq_take(struct iwfi_eq *eq, bool err, bool peek,
				   ssize_t *ret)
{
	struct iwfi_eq_ent *ent = eq->head;

	if (!ent) {
		*ret = -FI_EAGAIN;
		return NULL;
	}
	if (ent->err != err) {
		*ret = err ? -FI_EAGAIN : -FI_EAVAIL;
		return NULL;
	}
	if (!peek) {
		eq->head = ent->next;
		if (!eq->head) {
			eq->tail = NULL;
			eq_drain_signal(eq);
		}
	}
	*ret = 0;
	return ent;
}

static ssize_t eq_read(struct fid_eq *eq_fid, uint32_t *event, void *buf,
		       size_t len, uint64_t flags)
{
	struct iwfi_eq *eq = iwfi_container_of(eq_fid, struct iwfi_eq, eq_fid);
	struct iwfi_eq_ent *ent;
	ssize_t ret;

	/* FI_PROGRESS_MANUAL: a closed connection or a Terminate is seen
	 * (then FI_SHUTDOWN queued) only when something reads the socket. */
	if (eq->fabric->manual)
		iwfi_progress(eq->fabric, 0);
	pthread_mutex_lock(&eq->lock);
	ent = eq_take(eq, false, true, &ret);
	if (ent && len < ent->len) {
		pthread_mutex_unlock(&eq->lock);
		return -FI_ETOOSMALL;
	}
	if (ent && !(flags & FI_PEEK))
		eq_take(eq, false, false, &ret);
	pthread_mutex_unlock(&eq->lock);
	if (!ent)
		return ret;
	if (event)
		*event = ent->event;
	memcpy(buf, ent->buf, ent->len);
	ret = (ssize_t)ent->len;
	if (!(flags & FI_PEEK))
		free(ent);
	return ret;
}

static ssize_t eq_readerr(struct fid_eq *eq_fid, struct fi_eq_err_entry *buf,
			  uint64_t flags)
{
	struct iwfi_eq *eq = iwfi_container_of(eq_fid, struct iwfi_eq, eq_fid);
	struct iwfi_eq_ent *ent;
	size_t user_size = buf->err_data_size;
	void *user_data = buf->err_data;
	ssize_t ret;

	pthread_mutex_lock(&eq->lock);
	ent = eq_take(eq, true, flags & FI_PEEK, &ret);
	pthread_mutex_unlock(&eq->lock);
	if (!ent)
		return ret;
	*buf = ent->err_entry;
	/* fi_eq_readerr(3): copied into the caller's buffer when it gives
	 * one, else valid until the next read of the queue. */
	if (user_size && user_data) {
		buf->err_data = user_data;
		buf->err_data_size = ent->err_entry.err_data_size < user_size ?
					     ent->err_entry.err_data_size :
					     user_size;
		if (ent->err_data)
			memcpy(user_data, ent->err_data, buf->err_data_size);
		free(ent->err_data);
	} else {
		free(eq->last_err_data);
		eq->last_err_data = ent->err_data;
		buf->err_data = ent->err_data;
	}
	if (!(flags & FI_PEEK))
		free(ent);
	return sizeof(*buf);
}

static ssize_t eq_write(struct fid_eq *eq_fid, uint32_t event, const void *buf,
			size_t len, uint64_t flags)
{
	struct iwfi_eq *eq = iwfi_container_of(eq_fid, struct iwfi_eq, eq_fid);
	int ret = iwfi_eq_push(eq, event, buf, len);

	return ret ? ret : (ssize_t)len;
}

/* How often a manual-progress fi_eq_sread() drives progress. */
#define IWFI_EQ_SLICE_MS 5

static int64_t eq_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static ssize_t eq_sread(struct fid_eq *eq_fid, uint32_t *event, void *buf,
			size_t len, int timeout, uint64_t flags)
{
	struct iwfi_eq *eq = iwfi_container_of(eq_fid, struct iwfi_eq, eq_fid);
	struct pollfd p = { .fd = eq->efd, .events = POLLIN };
	ssize_t ret;

	int64_t end = timeout >= 0 ? eq_now_ms() + timeout : 0;

	for (;;) {
		int wait = timeout;

		ret = eq_read(eq_fid, event, buf, len, flags);
		if (ret != -FI_EAGAIN)
			return ret;
		if (timeout >= 0) {
			int64_t left = end - eq_now_ms();

			if (left <= 0)
				return -FI_EAGAIN;
			wait = (int)left;
		}
		/* FI_PROGRESS_MANUAL: eq_read() makes progress, so look
		 * again every IWFI_EQ_SLICE_MS (without waiting inside
		 * iwcm_progress(), which would hold up fi_cq_read() of
		 * another thread). */
		if (eq->fabric->manual && (wait < 0 || wait > IWFI_EQ_SLICE_MS))
			wait = IWFI_EQ_SLICE_MS;
		ret = poll(&p, 1, wait);
		if (ret < 0 && errno != EINTR)
			return -FI_EOTHER;
	}
}

/*
 * The text of a prov_errno (iwfi.h) for fi_cq_strerror() and
 * fi_eq_strerror(): into buf when the caller gives one, else into a
 * buffer of the calling thread's, valid until its next call.
 */
const char *iwfi_prov_str(int prov_errno, char *buf, size_t len)
{
	static __thread char text[96];
	char *out = buf && len ? buf : text;
	size_t cap = buf && len ? len : sizeof(text);
	unsigned int v = (unsigned int)prov_errno & 0xffffff;

	if (prov_errno & IWFI_PROV_TERM)
		/* RFC 5040 §4.8: Layer 0 RDMAP, 1 DDP, 2 LLP (MPA). */
		snprintf(out, cap,
			 "Terminate: layer %u (%s), error type %u, code 0x%02x",
			 v >> 16,
			 (v >> 16) == 0 ? "RDMAP" :
			 (v >> 16) == 1 ? "DDP" :
					  "LLP",
			 (v >> 8) & 0xff, v & 0xff);
	else if (prov_errno & IWFI_PROV_STATUS)
		snprintf(out, cap, "%s",
			 iwcm_wc_status_str((enum iwcm_wc_status)v));
	else
		snprintf(out, cap, "%s",
			 iwcm_status_str((enum iwcm_status)prov_errno));
	return out;
}

static const char *eq_strerror(struct fid_eq *eq_fid, int prov_errno,
			       const void *err_data, char *buf, size_t len)
{
	return iwfi_prov_str(prov_errno, buf, len);
}

/*
 * The end of the endpoint fid's connection, once its last completion is
 * read: FI_SHUTDOWN, or when the peer's Terminate ended it (term, its
 * iwfi_prov_term()) an error entry in its place, as libfabric's tcp
 * provider reports an abnormal end: FI_ECONNABORTED, prov_errno term
 * (fi_eq_strerror() spells it out) and err_data the Terminate's Layer,
 * Error Type and Error Code octets (RFC 5040 §4.8).  ofi_rxm and the
 * RDM endpoints (iwfi_rdm.c) take either as the connection's end.
 */
void iwfi_eq_shutdown(struct iwfi_eq *eq, fid_t fid, int term)
{
	struct fi_eq_cm_entry e = { .fid = fid };
	uint8_t code[3];

	if (!term) {
		iwfi_eq_push(eq, FI_SHUTDOWN, &e, sizeof(e));
		return;
	}
	code[0] = (uint8_t)(term >> 16);
	code[1] = (uint8_t)(term >> 8);
	code[2] = (uint8_t)term;
	iwfi_eq_push_err(eq, fid, fid->context, FI_ECONNABORTED, term, code,
			 sizeof(code));
}

/* fi_trywait() on an event queue: -FI_EAGAIN while an entry waits. */
int iwfi_eq_trywait(struct iwfi_eq *eq)
{
	int busy;

	pthread_mutex_lock(&eq->lock);
	busy = eq->head != NULL;
	pthread_mutex_unlock(&eq->lock);
	return busy ? -FI_EAGAIN : 0;
}

static int eq_control(struct fid *fid, int command, void *arg)
{
	struct iwfi_eq *eq = iwfi_container_of(fid, struct iwfi_eq, eq_fid.fid);

	switch (command) {
	case FI_GETWAIT:
		if (eq->wait_obj != FI_WAIT_FD)
			return -FI_ENODATA;
		*(int *)arg = eq->efd;
		return 0;
	case FI_GETWAITOBJ:
		*(enum fi_wait_obj *)arg = eq->wait_obj;
		return 0;
	default:
		return -FI_ENOSYS;
	}
}

static int eq_close(struct fid *fid)
{
	struct iwfi_eq *eq = iwfi_container_of(fid, struct iwfi_eq, eq_fid.fid);
	struct iwfi_eq_ent *ent;

	if (__atomic_load_n(&eq->refs, __ATOMIC_ACQUIRE))
		return -FI_EBUSY;
	while ((ent = eq->head)) {
		eq->head = ent->next;
		if (ent->event == FI_CONNREQ && !ent->err) {
			struct fi_eq_cm_entry *cm = (void *)ent->buf;

			fi_freeinfo(cm->info);
		}
		free(ent->err_data);
		free(ent);
	}
	free(eq->last_err_data);
	close(eq->efd);
	pthread_mutex_destroy(&eq->lock);
	__atomic_fetch_sub(&eq->fabric->refs, 1, __ATOMIC_RELEASE);
	free(eq);
	return 0;
}

static struct fi_ops eq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = eq_close,
	.bind = iwfi_no_bind,
	.control = eq_control,
	.ops_open = iwfi_no_ops_open,
};

static struct fi_ops_eq eq_ops = {
	.size = sizeof(struct fi_ops_eq),
	.read = eq_read,
	.readerr = eq_readerr,
	.write = eq_write,
	.sread = eq_sread,
	.strerror = eq_strerror,
};

/* fi_eq_open(): FI_WAIT_NONE, FI_WAIT_UNSPEC or FI_WAIT_FD. */
int iwfi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		 struct fid_eq **eq_fid, void *context)
{
	struct iwfi_fabric *fab =
		iwfi_container_of(fabric, struct iwfi_fabric, fabric_fid);
	struct iwfi_eq *eq;

	switch (attr->wait_obj) {
	case FI_WAIT_NONE:
	case FI_WAIT_UNSPEC:
	case FI_WAIT_FD:
		break;
	default:
		IWFI_WARN(FI_LOG_EQ, "wait object %d not supported\n",
			  attr->wait_obj);
		return -FI_ENOSYS;
	}
	if (attr->flags & FI_AFFINITY)
		return -FI_ENOSYS;
	eq = calloc(1, sizeof(*eq));
	if (!eq)
		return -FI_ENOMEM;
	eq->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (eq->efd < 0) {
		free(eq);
		return -FI_EOTHER;
	}
	pthread_mutex_init(&eq->lock, NULL);
	eq->fabric = fab;
	eq->wait_obj = attr->wait_obj == FI_WAIT_NONE ? FI_WAIT_NONE :
							FI_WAIT_FD;
	eq->eq_fid.fid.fclass = FI_CLASS_EQ;
	eq->eq_fid.fid.context = context;
	eq->eq_fid.fid.ops = &eq_fi_ops;
	eq->eq_fid.ops = &eq_ops;
	__atomic_fetch_add(&fab->refs, 1, __ATOMIC_RELEASE);
	*eq_fid = &eq->eq_fid;
	return 0;
}
