/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The attributes of the iwcm provider and fi_getinfo(): what libiwcm's
 * connections can do, narrowed by the caller's hints.
 */
#include "config.h"

#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "iwfi.h"

/* Map an errno of libiwcm to a libfabric error number (positive). */
int iwfi_errno(int e)
{
	switch (e) {
	case 0:
		return 0;
	case EAGAIN:
		return FI_EAGAIN;
	case ENOMEM:
		return FI_ENOMEM;
	case EINVAL:
		return FI_EINVAL;
	case ENOTCONN:
		return FI_ENOTCONN;
	case ECONNREFUSED:
		return FI_ECONNREFUSED;
	case ECONNRESET:
		return FI_ECONNRESET;
	case ECONNABORTED:
		return FI_ECONNABORTED;
	case ETIMEDOUT:
		return FI_ETIMEDOUT;
	case EACCES:
	case EPERM:
		return FI_EACCES;
	case EADDRINUSE:
		return FI_EADDRINUSE;
	case EOPNOTSUPP:
		return FI_EOPNOTSUPP;
	case EBUSY:
		return FI_EBUSY;
	case ENOENT:
		return FI_ENOENT;
	case EHOSTUNREACH:
	case ENETUNREACH:
		return FI_EHOSTUNREACH;
	case EPROTO:
		return FI_EOTHER;
	case ENOSPC:
		return FI_ENOSPC;
	default:
		return FI_EOTHER;
	}
}

/* The length of an IPv4 or IPv6 socket address, 0 for anything else. */
size_t iwfi_sockaddr_len(const struct sockaddr *sa)
{
	if (!sa)
		return 0;
	if (sa->sa_family == AF_INET)
		return sizeof(struct sockaddr_in);
	if (sa->sa_family == AF_INET6)
		return sizeof(struct sockaddr_in6);
	return 0;
}

static const struct fi_tx_attr iwfi_tx_attr = {
	.caps = FI_MSG | FI_RMA | FI_ATOMIC | FI_SEND | FI_READ | FI_WRITE,
	.op_flags = 0,
	.msg_order = FI_ORDER_SAS | FI_ORDER_RAW | FI_ORDER_WAW | FI_ORDER_SAW |
		     FI_ORDER_WAS,
	.comp_order = FI_ORDER_STRICT,
	.inject_size = IWFI_INJECT_SIZE,
	.size = IWFI_DEF_QUEUE,
	.iov_limit = IWFI_IOV_LIMIT,
	.rma_iov_limit = 1,
};

static const struct fi_rx_attr iwfi_rx_attr = {
	.caps = FI_MSG | FI_RMA | FI_ATOMIC | FI_RECV | FI_REMOTE_READ |
		FI_REMOTE_WRITE,
	.op_flags = 0,
	.msg_order = FI_ORDER_SAS | FI_ORDER_RAW | FI_ORDER_WAW | FI_ORDER_SAW |
		     FI_ORDER_WAS,
	.comp_order = FI_ORDER_STRICT,
	.total_buffered_recv = 0,
	.size = IWFI_DEF_QUEUE,
	.iov_limit = IWFI_IOV_LIMIT,
};

static const struct fi_ep_attr iwfi_ep_attr = {
	.type = FI_EP_MSG,
	.protocol = FI_PROTO_IWARP,
	.protocol_version = 1,
	.max_msg_size = IWFI_MAX_MSG_SIZE,
	.msg_prefix_size = 0,
	.max_order_raw_size = IWFI_MAX_MSG_SIZE,
	.max_order_war_size = 0,
	.max_order_waw_size = IWFI_MAX_MSG_SIZE,
	.mem_tag_format = 0,
	.tx_ctx_cnt = 1,
	.rx_ctx_cnt = 1,
};

static const struct fi_domain_attr iwfi_domain_attr = {
	.threading = FI_THREAD_SAFE,
	.control_progress = FI_PROGRESS_AUTO,
	.data_progress = FI_PROGRESS_AUTO,
	.resource_mgmt = FI_RM_DISABLED,
	.av_type = FI_AV_UNSPEC,
	.mr_mode = IWFI_MR_MODE,
	.mr_key_size = sizeof(uint32_t),
	.cq_data_size = sizeof(uint64_t),
	.cq_cnt = 256,
	.ep_cnt = 65536,
	.tx_ctx_cnt = 65536,
	.rx_ctx_cnt = 65536,
	.max_ep_tx_ctx = 1,
	.max_ep_rx_ctx = 1,
	.mr_iov_limit = 1,
	.caps = FI_LOCAL_COMM | FI_REMOTE_COMM,
	.mr_cnt = 1 << 20,
};

/*
 * The MR modes of the answer (fi_domain(3), "MR Modes"), or FI_ENODATA.
 * Local registration is the application's choice: offered (FI_MR_LOCAL,
 * or the older FI_LOCAL_MR mode bit), it is answered and descriptors
 * name the local buffers; not offered, buffers without one go through
 * the domain's local region (iwfi_mr.c).  Tagged Offsets are virtual
 * addresses and STags the provider's keys (RFC 5040 §4.4), so a peer's
 * RMA needs FI_MR_VIRT_ADDR, FI_MR_PROV_KEY and FI_MR_ALLOCATED:
 * together FI_MR_BASIC, which before API 1.5 is the only spelling and
 * after it must stand alone.  Only bits the application offers are
 * answered, FI_LOCAL_MR in *mode in place of FI_MR_LOCAL when it offered
 * that.  From 1.5 on, FI_MR_UNSPEC offers no bit, as libfabric's own
 * providers read it (prov/util).
 */
static int hints_mr_mode(uint32_t version, const struct fi_info *hints,
			 int *mr_mode, uint64_t *mode)
{
	int need = 0, user;
	bool local;

	/* No remote access, no remote MR mode bits. */
	if (!hints->caps ||
	    hints->caps & (FI_RMA | FI_ATOMIC | FI_READ | FI_WRITE |
			   FI_REMOTE_READ | FI_REMOTE_WRITE))
		need = IWFI_MR_MODE & ~FI_MR_LOCAL;
	*mr_mode = need | FI_MR_LOCAL;
	if (!hints->domain_attr)
		return 0;
	user = hints->domain_attr->mr_mode;
	local = (user & FI_MR_LOCAL) || (hints->mode & FI_LOCAL_MR);
	if (FI_VERSION_LT(version, FI_VERSION(1, 5))) {
		/* Before 1.5 the answer is FI_MR_BASIC or FI_MR_SCALABLE,
		 * local registration the FI_LOCAL_MR mode. */
		if (user != FI_MR_UNSPEC && user != FI_MR_BASIC)
			return -FI_ENODATA;
		*mr_mode = FI_MR_BASIC;
		if (local)
			*mode |= FI_LOCAL_MR;
		return 0;
	}
	if (user & (FI_MR_BASIC | FI_MR_SCALABLE)) {
		if (user != FI_MR_BASIC)
			return -FI_ENODATA;
		*mr_mode = FI_MR_BASIC;
		if (local)
			*mode |= FI_LOCAL_MR;
		return 0;
	}
	if (need & ~user)
		return -FI_ENODATA;
	*mr_mode = need | (user & FI_MR_LOCAL);
	if (local && !(user & FI_MR_LOCAL))
		*mode |= FI_LOCAL_MR;
	return 0;
}

/* A hint's bits not among the provider's: what fi_getinfo(3) refuses. */
static bool extra_bits(uint64_t hint, uint64_t prov)
{
	return (hint & ~prov) != 0;
}

/*
 * The transmit and receive attributes: message and completion orders no
 * stronger than those iwfi_tx_attr and iwfi_rx_attr state, no
 * FI_DELIVERY_COMPLETE on MSG endpoints (a send completes once its data
 * is written to the socket, fi_iwcm(7)) but on RDM ones, whose writes
 * are then followed by a zero-length Read (iwfi_rma.c), one context each
 * and none shared.
 */
static int hints_queues(const struct fi_info *hints, bool rdm)
{
	const struct fi_tx_attr *tx = hints->tx_attr;
	const struct fi_rx_attr *rx = hints->rx_attr;
	const struct fi_ep_attr *ep = hints->ep_attr;

	if (tx && (extra_bits(tx->msg_order, iwfi_tx_attr.msg_order) ||
		   extra_bits(tx->comp_order, iwfi_tx_attr.comp_order) ||
		   ((tx->op_flags & FI_DELIVERY_COMPLETE) && !rdm) ||
		   tx->size > IWFI_MAX_QUEUE ||
		   tx->iov_limit > (rdm ? 1 : IWFI_IOV_LIMIT) ||
		   tx->rma_iov_limit > iwfi_tx_attr.rma_iov_limit ||
		   tx->inject_size > IWFI_INJECT_SIZE))
		return -FI_ENODATA;
	if (rx && (extra_bits(rx->msg_order, iwfi_rx_attr.msg_order) ||
		   extra_bits(rx->comp_order, iwfi_rx_attr.comp_order) ||
		   rx->total_buffered_recv > iwfi_rx_attr.total_buffered_recv ||
		   rx->size > IWFI_MAX_QUEUE ||
		   rx->iov_limit > (rdm ? 1 : IWFI_IOV_LIMIT)))
		return -FI_ENODATA;
	if (!ep)
		return 0;
	/* FI_SHARED_CONTEXT is larger than any count: no shared transmit
	 * or receive contexts, and one context of each per endpoint. */
	if (ep->tx_ctx_cnt > iwfi_ep_attr.tx_ctx_cnt ||
	    ep->rx_ctx_cnt > iwfi_ep_attr.rx_ctx_cnt)
		return -FI_ENODATA;
	if (ep->max_msg_size > IWFI_MAX_MSG_SIZE)
		return -FI_ENODATA;
	if (hints->caps & (FI_RMA | FI_ATOMIC) &&
	    (ep->max_order_raw_size > iwfi_ep_attr.max_order_raw_size ||
	     ep->max_order_war_size > iwfi_ep_attr.max_order_war_size ||
	     ep->max_order_waw_size > iwfi_ep_attr.max_order_waw_size))
		return -FI_ENODATA;
	return 0;
}

/*
 * The remote CQ data the operations of caps can carry.  It travels only
 * in RFC 7306 §6 Immediate Data messages: after an RDMA Write
 * (fi_writedata), or alone (fi_senddata without payload).  A Send with
 * payload has no room for it, so without RDMA Writes there is none.
 */
static size_t cq_data_size(uint64_t caps)
{
	uint64_t dir = FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;

	if (!caps)
		return iwfi_domain_attr.cq_data_size;
	if (!(caps & FI_RMA))
		return 0;
	if ((caps & dir) && !(caps & (FI_WRITE | FI_REMOTE_WRITE)))
		return 0;
	return iwfi_domain_attr.cq_data_size;
}

/* The domain attributes, fi_domain(3): capabilities, limits. */
static int hints_domain(const struct fi_domain_attr *d, uint64_t caps, bool rdm)
{
	if (!d)
		return 0;
	if (d->name && strcmp(d->name, IWFI_NAME))
		return -FI_ENODATA;
	/* Address vectors are for RDM endpoints (iwfi_av.c). */
	if (d->av_type != FI_AV_UNSPEC &&
	    (!rdm || (d->av_type != FI_AV_MAP && d->av_type != FI_AV_TABLE)))
		return -FI_ENODATA;
	/* FI_SHARED_AV: address vectors are not shared. */
	if (extra_bits(d->caps, iwfi_domain_attr.caps))
		return -FI_ENODATA;
	if (d->mr_key_size > iwfi_domain_attr.mr_key_size ||
	    d->cq_data_size > (rdm ? 0 : cq_data_size(caps)) ||
	    d->mr_iov_limit > iwfi_domain_attr.mr_iov_limit ||
	    d->cntr_cnt > iwfi_domain_attr.cntr_cnt ||
	    d->max_ep_stx_ctx > iwfi_domain_attr.max_ep_stx_ctx ||
	    d->max_ep_srx_ctx > iwfi_domain_attr.max_ep_srx_ctx ||
	    d->mr_cnt > iwfi_domain_attr.mr_cnt)
		return -FI_ENODATA;
	return 0;
}

/* Whether the attributes of hints can be met; FI_ENODATA when not. */
static int check_hints(uint32_t version, const struct fi_info *hints, bool rdm,
		       int *mr_mode, uint64_t *mode)
{
	const struct fi_fabric_attr *f = hints->fabric_attr;
	enum fi_ep_type type = rdm ? FI_EP_RDM : FI_EP_MSG;
	int ret;

	if (hints->ep_attr && hints->ep_attr->type != FI_EP_UNSPEC &&
	    hints->ep_attr->type != type)
		return -FI_ENODATA;
	if (hints->ep_attr && hints->ep_attr->protocol != FI_PROTO_UNSPEC &&
	    hints->ep_attr->protocol != FI_PROTO_IWARP)
		return -FI_ENODATA;
	if (hints->caps & ~(rdm ? IWFI_RDM_CAPS : IWFI_CAPS))
		return -FI_ENODATA;
	switch (hints->addr_format) {
	case FI_FORMAT_UNSPEC:
	case FI_SOCKADDR:
	case FI_SOCKADDR_IN:
	case FI_SOCKADDR_IN6:
		break;
	default:
		return -FI_ENODATA;
	}
	if (f && f->name && strcmp(f->name, IWFI_NAME))
		return -FI_ENODATA;
	ret = hints_domain(hints->domain_attr, hints->caps, rdm);
	if (!ret)
		ret = hints_queues(hints, rdm);
	if (!ret)
		ret = hints_mr_mode(version, hints, mr_mode, mode);
	return ret;
}

static int set_addr(void **dst, size_t *dstlen, const void *src, size_t len)
{
	free(*dst);
	*dst = NULL;
	*dstlen = 0;
	if (!src || !len)
		return 0;
	*dst = malloc(len);
	if (!*dst)
		return -FI_ENOMEM;
	memcpy(*dst, src, len);
	*dstlen = len;
	return 0;
}

/* Resolve node and service into the source or the destination address. */
static int resolve(struct fi_info *info, const char *node, const char *service,
		   uint64_t flags, int family)
{
	struct addrinfo ai = { 0 }, *res;
	int ret;

	ai.ai_family = family;
	ai.ai_socktype = SOCK_STREAM;
	if (flags & FI_SOURCE)
		ai.ai_flags = AI_PASSIVE;
	if (flags & FI_NUMERICHOST)
		ai.ai_flags |= AI_NUMERICHOST;
	if (getaddrinfo(node, service ? service : "0", &ai, &res))
		return -FI_ENODATA;
	if (flags & FI_SOURCE)
		ret = set_addr(&info->src_addr, &info->src_addrlen,
			       res->ai_addr, res->ai_addrlen);
	else
		ret = set_addr(&info->dest_addr, &info->dest_addrlen,
			       res->ai_addr, res->ai_addrlen);
	info->addr_format = res->ai_family == AF_INET6 ? FI_SOCKADDR_IN6 :
							 FI_SOCKADDR_IN;
	freeaddrinfo(res);
	return ret;
}

/* The data progress FI_IWCM_PROGRESS asks for (iwfi_progress.c), or
 * -FI_EINVAL, named, for a value that is neither. */
int iwfi_progress_default(void)
{
	char *want = NULL;

	fi_param_get_str(&iwfi_prov, "progress", &want);
	if (!want || !strcasecmp(want, "auto"))
		return FI_PROGRESS_AUTO;
	if (!strcasecmp(want, "manual"))
		return FI_PROGRESS_MANUAL;
	IWFI_WARN(FI_LOG_CORE, "bad FI_IWCM_PROGRESS '%s' (auto or manual)\n",
		  want);
	return -FI_EINVAL;
}

/* fi_setname(): make a copy of addr the source address of info. */
int iwfi_info_set_src(struct fi_info *info, const void *addr, size_t addrlen)
{
	void *copy;

	if (!iwfi_sockaddr_len(addr) || addrlen < iwfi_sockaddr_len(addr))
		return -FI_EINVAL;
	copy = malloc(addrlen);
	if (!copy)
		return -FI_ENOMEM;
	memcpy(copy, addr, addrlen);
	free(info->src_addr);
	info->src_addr = copy;
	info->src_addrlen = addrlen;
	return 0;
}

/* Whether connections ask for MPA CRC (FI_IWCM_CRC, iwfi_cm.c): 1 on,
 * 0 off (the default), or -FI_EINVAL, named, for another value. */
int iwfi_crc_default(void)
{
	char *want = NULL;

	fi_param_get_str(&iwfi_prov, "crc", &want);
	if (!want || !strcasecmp(want, "off"))
		return 0;
	if (!strcasecmp(want, "on"))
		return 1;
	IWFI_WARN(FI_LOG_CORE, "bad FI_IWCM_CRC '%s' (on or off)\n", want);
	return -FI_EINVAL;
}

/* Fill info with the defaults, narrowed by hints (which may be NULL). */
static int fill_info(struct fi_info *info, const struct fi_info *hints,
		     int mr_mode, uint64_t mode)
{
	uint64_t caps = IWFI_CAPS;
	int progress = iwfi_progress_default(), crc = iwfi_crc_default();

	if (progress < 0)
		return progress;
	if (crc < 0)
		return crc;
	*info->tx_attr = iwfi_tx_attr;
	*info->rx_attr = iwfi_rx_attr;
	*info->ep_attr = iwfi_ep_attr;
	*info->domain_attr = iwfi_domain_attr;
	info->domain_attr->mr_mode = mr_mode;
	info->domain_attr->data_progress = (enum fi_progress)progress;
	info->domain_attr->name = strdup(IWFI_NAME);
	info->fabric_attr->name = strdup(IWFI_NAME);
	if (!info->domain_attr->name || !info->fabric_attr->name)
		return -FI_ENOMEM;
	info->fabric_attr->prov_version = IWFI_PROV_VERSION;
	info->fabric_attr->api_version = IWFI_API_VERSION;
	info->mode = mode;
	info->addr_format = FI_SOCKADDR_IN;
	if (!hints) {
		info->caps = caps;
		info->rx_attr->mode = FI_RX_CQ_DATA;
		return 0;
	}
	if (hints->caps)
		caps = hints->caps | FI_LOCAL_COMM | FI_REMOTE_COMM;
	info->caps = caps;
	info->domain_attr->cq_data_size = cq_data_size(hints->caps);
	info->tx_attr->caps &= caps;
	info->rx_attr->caps &= caps;
	/* RFC 7306 §6: Immediate Data consumes a receive; without
	 * FI_RX_CQ_DATA in the hints there is no remote CQ data. */
	if ((hints->mode & FI_RX_CQ_DATA) ||
	    (hints->rx_attr && (hints->rx_attr->mode & FI_RX_CQ_DATA)))
		info->rx_attr->mode = FI_RX_CQ_DATA;
	else
		info->domain_attr->cq_data_size = 0;
	if (hints->tx_attr) {
		if (hints->tx_attr->size)
			info->tx_attr->size = hints->tx_attr->size;
		info->tx_attr->op_flags = hints->tx_attr->op_flags;
	}
	if (hints->rx_attr) {
		if (hints->rx_attr->size)
			info->rx_attr->size = hints->rx_attr->size;
		info->rx_attr->op_flags = hints->rx_attr->op_flags;
	}
	if (hints->domain_attr) {
		const struct fi_domain_attr *d = hints->domain_attr;

		/* Data progress either way (iwfi_progress.c); the CM thread
		 * serves callers of either control model, and a
		 * thread-safe domain every threading level. */
		if (d->threading != FI_THREAD_UNSPEC)
			info->domain_attr->threading = d->threading;
		if (d->control_progress != FI_PROGRESS_UNSPEC)
			info->domain_attr->control_progress =
				d->control_progress;
		/* Manual progress cannot be auto; auto serves either. */
		if (d->data_progress == FI_PROGRESS_AUTO &&
		    info->domain_attr->data_progress == FI_PROGRESS_MANUAL)
			return -FI_ENODATA;
		if (d->data_progress != FI_PROGRESS_UNSPEC)
			info->domain_attr->data_progress = d->data_progress;
		/* fi_domain(3), "Resource Management": full queues say
		 * -FI_EAGAIN, and so does a send the peer has posted no
		 * receive for (iwfi_credit.c); a full CQ loses completions
		 * (iwcm_create_cq(3)), see fi_iwcm(7). */
		if (d->resource_mgmt != FI_RM_UNSPEC)
			info->domain_attr->resource_mgmt = d->resource_mgmt;
	}
	if (hints->addr_format == FI_SOCKADDR_IN6)
		info->addr_format = FI_SOCKADDR_IN6;
	if (hints->src_addr && set_addr(&info->src_addr, &info->src_addrlen,
					hints->src_addr, hints->src_addrlen))
		return -FI_ENOMEM;
	if (hints->dest_addr && set_addr(&info->dest_addr, &info->dest_addrlen,
					 hints->dest_addr, hints->dest_addrlen))
		return -FI_ENOMEM;
	if (info->src_addr || info->dest_addr) {
		const struct sockaddr *sa = info->src_addr ? info->src_addr :
							     info->dest_addr;

		if (!iwfi_sockaddr_len(sa))
			return -FI_ENODATA;
		info->addr_format = sa->sa_family == AF_INET6 ?
					    FI_SOCKADDR_IN6 :
					    FI_SOCKADDR_IN;
	}
	return 0;
}

/*
 * Without a source, the source is the address the route to the
 * destination leaves from or, without a destination either, an address
 * of this host that peers can reach: the interface named by
 * FI_IWCM_IFACE, else the first one up that is not loopback, else
 * loopback.  ofi_rxm publishes its listener's name, so it must not be
 * the wildcard.
 */
static int default_src(struct fi_info *info, int family)
{
	struct ifaddrs *ifa, *i, *pick = NULL;
	char *want = NULL;

	if (info->dest_addr) {
		/* The address the route to the destination leaves from. */
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		const struct sockaddr *d = info->dest_addr;
		int fd = socket(d->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		int ret = fd < 0 ||
			  connect(fd, d, (socklen_t)info->dest_addrlen) ||
			  getsockname(fd, (struct sockaddr *)&ss, &len);

		if (fd >= 0)
			close(fd);
		if (ret)
			return 0;
		if (ss.ss_family == AF_INET)
			((struct sockaddr_in *)&ss)->sin_port = 0;
		else
			((struct sockaddr_in6 *)&ss)->sin6_port = 0;
		return set_addr(&info->src_addr, &info->src_addrlen, &ss,
				iwfi_sockaddr_len((struct sockaddr *)&ss));
	}

	if (family == AF_UNSPEC)
		family = AF_INET;
	fi_param_get_str(&iwfi_prov, "iface", &want);
	if (getifaddrs(&ifa))
		return 0;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != family ||
		    !(i->ifa_flags & IFF_UP))
			continue;
		if (want) {
			if (!strcmp(i->ifa_name, want)) {
				pick = i;
				break;
			}
			continue;
		}
		if (!(i->ifa_flags & IFF_LOOPBACK)) {
			pick = i;
			break;
		}
		if (!pick)
			pick = i;
	}
	if (pick) {
		struct sockaddr_storage ss = { 0 };
		size_t len = iwfi_sockaddr_len(pick->ifa_addr);

		memcpy(&ss, pick->ifa_addr, len);
		if (family == AF_INET)
			((struct sockaddr_in *)&ss)->sin_port = 0;
		else
			((struct sockaddr_in6 *)&ss)->sin6_port = 0;
		if (set_addr(&info->src_addr, &info->src_addrlen, &ss, len)) {
			freeifaddrs(ifa);
			return -FI_ENOMEM;
		}
		info->addr_format = family == AF_INET6 ? FI_SOCKADDR_IN6 :
							 FI_SOCKADDR_IN;
	}
	freeifaddrs(ifa);
	return 0;
}

/*
 * What an RDM endpoint (iwfi_rdm.h) changes in an info fill_info() made:
 * one-sided operations only, one buffer per operation, writes that may
 * ask FI_DELIVERY_COMPLETE, an address vector of either type, no remote
 * CQ data.
 */
static void fill_rdm(struct fi_info *info, const struct fi_info *hints)
{
	uint64_t caps = IWFI_RDM_CAPS;

	if (hints && hints->caps)
		caps = hints->caps | FI_LOCAL_COMM | FI_REMOTE_COMM;
	info->caps = caps;
	info->ep_attr->type = FI_EP_RDM;
	info->tx_attr->caps &= caps;
	info->rx_attr->caps &= caps;
	info->tx_attr->iov_limit = 1;
	info->rx_attr->iov_limit = 1;
	info->rx_attr->mode = 0;
	info->domain_attr->cq_data_size = 0;
	info->domain_attr->av_type = FI_AV_MAP;
	if (hints && hints->domain_attr &&
	    hints->domain_attr->av_type != FI_AV_UNSPEC)
		info->domain_attr->av_type = hints->domain_attr->av_type;
}

/* One entry of fi_getinfo(): FI_EP_MSG, or FI_EP_RDM when rdm. */
static int getinfo_one(uint32_t version, const char *node, const char *service,
		       uint64_t flags, const struct fi_info *hints, bool rdm,
		       struct fi_info **info)
{
	struct fi_info *fi;
	int mr_mode = IWFI_MR_MODE, family = AF_UNSPEC, ret;
	uint64_t mode = 0;

	*info = NULL;
	if (rdm)
		mr_mode &= ~FI_MR_LOCAL;
	if (hints) {
		ret = check_hints(version, hints, rdm, &mr_mode, &mode);
		if (ret)
			return ret;
		/* RDM endpoints take descriptors or none: never required. */
		if (rdm && mr_mode != FI_MR_BASIC)
			mr_mode &= ~FI_MR_LOCAL;
		if (rdm)
			mode &= ~FI_LOCAL_MR;
		if (hints->addr_format == FI_SOCKADDR_IN)
			family = AF_INET;
		else if (hints->addr_format == FI_SOCKADDR_IN6)
			family = AF_INET6;
	}
	fi = fi_allocinfo();
	if (!fi)
		return -FI_ENOMEM;
	ret = fill_info(fi, hints, mr_mode, mode);
	if (!ret && rdm)
		fill_rdm(fi, hints);
	if (!ret && (node || service))
		ret = resolve(fi, node, service, flags, family);
	if (!ret && !fi->src_addr)
		ret = default_src(fi, family);
	if (ret) {
		fi_freeinfo(fi);
		return ret;
	}
	/* fi_getinfo(3): a passive endpoint given as the handle of the
	 * hints comes back in the info, so that the endpoint made from it
	 * takes over its address (iwfi_ep.c). */
	if (hints && hints->handle && hints->handle->fclass == FI_CLASS_PEP)
		fi->handle = hints->handle;
	*info = fi;
	return 0;
}

/* fi_getinfo() of the provider: an FI_EP_MSG entry, then an FI_EP_RDM
 * one, those the hints fit. */
int iwfi_getinfo(uint32_t version, const char *node, const char *service,
		 uint64_t flags, const struct fi_info *hints,
		 struct fi_info **info)
{
	struct fi_info *msg = NULL, *rdm = NULL;
	int ret_msg, ret_rdm;

	ret_msg =
		getinfo_one(version, node, service, flags, hints, false, &msg);
	ret_rdm = getinfo_one(version, node, service, flags, hints, true, &rdm);
	if (msg) {
		msg->next = rdm;
		*info = msg;
		return 0;
	}
	*info = rdm;
	if (rdm)
		return 0;
	IWFI_INFO(FI_LOG_CORE, "hints do not match iwcm\n");
	return ret_msg != -FI_ENODATA ? ret_msg : ret_rdm;
}

/* The provider; iwfi_init.c fills in its functions when loaded. */
struct fi_provider iwfi_prov = {
	.name = IWFI_NAME,
	.version = IWFI_PROV_VERSION,
	.fi_version = IWFI_API_VERSION,
};
