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

/* The MR modes the hints accept, the pre-1.5 FI_MR_BASIC spelled out. */
static int hint_mr_mode(const struct fi_info *hints)
{
	int mode;

	if (!hints->domain_attr)
		return -1;
	mode = hints->domain_attr->mr_mode;
	if (mode == FI_MR_BASIC)
		mode = FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ALLOCATED;
	if (hints->mode & FI_LOCAL_MR)
		mode |= FI_MR_LOCAL;
	return mode;
}

/* Whether the attributes of hints can be met; FI_ENODATA when not. */
static int check_hints(const struct fi_info *hints, int *mr_mode)
{
	const struct fi_domain_attr *d = hints->domain_attr;
	const struct fi_fabric_attr *f = hints->fabric_attr;
	int want = FI_MR_LOCAL, accept;

	if (hints->ep_attr && hints->ep_attr->type != FI_EP_UNSPEC &&
	    hints->ep_attr->type != FI_EP_MSG)
		return -FI_ENODATA;
	if (hints->ep_attr && hints->ep_attr->protocol != FI_PROTO_UNSPEC &&
	    hints->ep_attr->protocol != FI_PROTO_IWARP)
		return -FI_ENODATA;
	if (hints->caps & ~IWFI_CAPS)
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
	if (d && d->name && strcmp(d->name, IWFI_NAME))
		return -FI_ENODATA;
	if (d && d->av_type != FI_AV_UNSPEC)
		return -FI_ENODATA;
	/* Tagged Offsets are virtual addresses and STags the provider's
	 * keys (RFC 5040 §4.4), so a peer's RMA needs both. */
	if (!hints->caps ||
	    hints->caps & (FI_RMA | FI_ATOMIC | FI_READ | FI_WRITE |
			   FI_REMOTE_READ | FI_REMOTE_WRITE))
		want = IWFI_MR_MODE;
	accept = hint_mr_mode(hints);
	if (accept >= 0 && accept != FI_MR_UNSPEC && (want & ~accept))
		return -FI_ENODATA;
	*mr_mode = want;
	if (hints->tx_attr && hints->tx_attr->size > IWFI_MAX_QUEUE)
		return -FI_ENODATA;
	if (hints->rx_attr && hints->rx_attr->size > IWFI_MAX_QUEUE)
		return -FI_ENODATA;
	if (hints->tx_attr && hints->tx_attr->iov_limit > IWFI_IOV_LIMIT)
		return -FI_ENODATA;
	if (hints->rx_attr && hints->rx_attr->iov_limit > IWFI_IOV_LIMIT)
		return -FI_ENODATA;
	if (hints->tx_attr && hints->tx_attr->inject_size > IWFI_INJECT_SIZE)
		return -FI_ENODATA;
	if (hints->ep_attr && hints->ep_attr->max_msg_size > IWFI_MAX_MSG_SIZE)
		return -FI_ENODATA;
	if (d && (d->mr_key_size > sizeof(uint32_t) ||
		  d->cq_data_size > sizeof(uint64_t)))
		return -FI_ENODATA;
	return 0;
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

/* The data progress FI_IWCM_PROGRESS asks for (iwfi_progress.c). */
enum fi_progress iwfi_progress_default(void)
{
	char *want = NULL;

	fi_param_get_str(&iwfi_prov, "progress", &want);
	if (want && !strcasecmp(want, "manual"))
		return FI_PROGRESS_MANUAL;
	if (want && strcasecmp(want, "auto"))
		IWFI_WARN(FI_LOG_CORE,
			  "FI_IWCM_PROGRESS=%s: neither auto nor manual; "
			  "auto\n",
			  want);
	return FI_PROGRESS_AUTO;
}

/* Fill info with the defaults, narrowed by hints (which may be NULL). */
static int fill_info(struct fi_info *info, const struct fi_info *hints,
		     int mr_mode)
{
	uint64_t caps = IWFI_CAPS;

	*info->tx_attr = iwfi_tx_attr;
	*info->rx_attr = iwfi_rx_attr;
	*info->ep_attr = iwfi_ep_attr;
	*info->domain_attr = iwfi_domain_attr;
	info->domain_attr->mr_mode = mr_mode;
	info->domain_attr->data_progress = iwfi_progress_default();
	info->domain_attr->name = strdup(IWFI_NAME);
	info->fabric_attr->name = strdup(IWFI_NAME);
	if (!info->domain_attr->name || !info->fabric_attr->name)
		return -FI_ENOMEM;
	info->fabric_attr->prov_version = IWFI_PROV_VERSION;
	info->fabric_attr->api_version = IWFI_API_VERSION;
	info->mode = 0;
	info->addr_format = FI_SOCKADDR_IN;
	if (!hints) {
		info->caps = caps;
		info->rx_attr->mode = FI_RX_CQ_DATA;
		return 0;
	}
	if (hints->caps)
		caps = hints->caps | FI_LOCAL_COMM | FI_REMOTE_COMM;
	info->caps = caps;
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
		if (d->resource_mgmt == FI_RM_ENABLED)
			return -FI_ENODATA;
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

/* fi_getinfo() of the provider: one FI_EP_MSG entry when the hints fit. */
int iwfi_getinfo(uint32_t version, const char *node, const char *service,
		 uint64_t flags, const struct fi_info *hints,
		 struct fi_info **info)
{
	struct fi_info *fi;
	int mr_mode = IWFI_MR_MODE, family = AF_UNSPEC, ret;

	*info = NULL;
	if (hints) {
		ret = check_hints(hints, &mr_mode);
		if (ret) {
			IWFI_INFO(FI_LOG_CORE, "hints do not match iwcm\n");
			return ret;
		}
		if (hints->addr_format == FI_SOCKADDR_IN)
			family = AF_INET;
		else if (hints->addr_format == FI_SOCKADDR_IN6)
			family = AF_INET6;
	}
	fi = fi_allocinfo();
	if (!fi)
		return -FI_ENOMEM;
	ret = fill_info(fi, hints, mr_mode);
	if (!ret && (node || service))
		ret = resolve(fi, node, service, flags, family);
	if (!ret && !fi->src_addr)
		ret = default_src(fi, family);
	if (ret) {
		fi_freeinfo(fi);
		return ret;
	}
	*info = fi;
	return 0;
}

/* The provider; iwfi_init.c fills in its functions when loaded. */
struct fi_provider iwfi_prov = {
	.name = IWFI_NAME,
	.version = IWFI_PROV_VERSION,
	.fi_version = IWFI_API_VERSION,
};
