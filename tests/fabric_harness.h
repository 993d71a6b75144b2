/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_TESTS_FABRIC_HARNESS_H
#define IWCM_TESTS_FABRIC_HARNESS_H

/*
 * The provider as check_fabric and check_fabric_cm meet it: a real
 * iwcmd -d on a temporary socket for the whole run, libfabric loading
 * fabric/libiwcm-fi.so from FI_PROVIDER_PATH, and the endpoints, queues
 * and connections the tests share, all through the public API.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include "common.h"

#define WAIT_MS 10000
#define MR_MODE \
	(FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ALLOCATED)

static char dir[64];
static pid_t daemon_pid;

/* ---- the daemon, once for the whole run ---- */

/* Start iwcmd -d with the configuration lines extra, once for the run;
 * libfabric finds the provider and the socket through the environment. */
static inline void daemon_start(const char *extra)
{
	char path[128], conf[128];
	FILE *fp;
	int i;

	strcpy(dir, "/tmp/iwcm-fabric-XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/iwcmd.sock", dir);
	snprintf(conf, sizeof(conf), "%s/iwcmd.conf", dir);
	fp = fopen(conf, "w");
	if (!fp)
		abort();
	fprintf(fp, "# check_fabric\n%s", extra);
	fclose(fp);
	setenv("IWCM_SOCKET", path, 1);
	setenv("FI_PROVIDER_PATH", FABRIC_LIBDIR, 1);
	setenv("FI_PROVIDER", "iwcm", 1);
	daemon_pid = fork();
	if (daemon_pid == 0) {
		char log[128];
		int fd;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		snprintf(log, sizeof(log), "%s/iwcmd.log", dir);
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		execl(IWCMD_PATH, "iwcmd", "-d", "-f", conf, "-s", path,
		      (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 500 && access(path, F_OK); i++)
		usleep(10000);
}

static inline void daemon_stop(void)
{
	char cmd[128];
	int st;

	kill(daemon_pid, SIGTERM);
	waitpid(daemon_pid, &st, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd)) {
		/* Leave it. */
	}
}

/* Run suite s against an iwcmd started with the configuration lines
 * extra: main() of each provider test. */
static inline int fabric_run(Suite *s, const char *extra)
{
	SRunner *sr = srunner_create(s);
	int failed;

	daemon_start(extra);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	daemon_stop();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* ---- helpers ---- */

/*
 * A message that consumes a receive waits for the peer's credit (the
 * count of receives it posted reaches us by an RDMA Write): -FI_EAGAIN
 * until then, which a libfabric caller retries.
 */
#define RETRY(call)                                                        \
	({                                                                 \
		ssize_t r_;                                                \
		int n_ = 0;                                                \
		while ((r_ = (call)) == -FI_EAGAIN && n_++ < WAIT_MS * 10) \
			usleep(100);                                       \
		r_;                                                        \
	})

static inline struct fi_info *hints_new(void)
{
	struct fi_info *h = fi_allocinfo();

	ck_assert_ptr_nonnull(h);
	h->ep_attr->type = FI_EP_MSG;
	h->caps = FI_MSG | FI_RMA | FI_ATOMIC;
	h->domain_attr->mr_mode = MR_MODE;
	h->rx_attr->mode = FI_RX_CQ_DATA;
	h->addr_format = FI_SOCKADDR_IN;
	h->fabric_attr->prov_name = strdup("iwcm");
	return h;
}

static inline struct fi_info *getinfo_at(struct fi_info *h, const char *node)
{
	struct fi_info *info = NULL;
	int ret = fi_getinfo(FI_VERSION(1, 17), node, "0", FI_SOURCE, h, &info);

	ck_assert_msg(ret == 0, "fi_getinfo: %s", fi_strerror(-ret));
	ck_assert_ptr_nonnull(info);
	return info;
}

struct side {
	struct fid_eq *eq;
	struct fid_cq *cq;
	struct fid_ep *ep;
	struct fid_mr *mr;
	uint8_t *buf;
};

struct net {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_pep *pep;
	struct sockaddr_storage addr;
	struct side s, c;
};

#define BUF_SIZE (1 << 20)
#define ANY_CTX ((void *)-1)

static inline struct fi_info *getinfo(struct fi_info *h)
{
	return getinfo_at(h, "127.0.0.1");
}

static inline in_port_t port_of(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ((const struct sockaddr_in6 *)ss)->sin6_port;
	return ((const struct sockaddr_in *)ss)->sin_port;
}

static inline void side_open(struct net *n, struct side *sd, bool eq)
{
	struct fi_eq_attr ea = { .wait_obj = FI_WAIT_FD };
	struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_DATA,
				 .wait_obj = FI_WAIT_FD,
				 .size = 1024 };

	if (eq)
		ck_assert_int_eq(fi_eq_open(n->fabric, &ea, &sd->eq, NULL), 0);
	ck_assert_int_eq(fi_cq_open(n->domain, &ca, &sd->cq, NULL), 0);
	sd->buf = calloc(1, BUF_SIZE);
	ck_assert_ptr_nonnull(sd->buf);
	ck_assert_int_eq(fi_mr_reg(n->domain, sd->buf, BUF_SIZE,
				   FI_SEND | FI_RECV | FI_READ | FI_WRITE |
					   FI_REMOTE_READ | FI_REMOTE_WRITE,
				   0, 0, 0, &sd->mr, NULL),
			 0);
}

static inline void ep_setup(struct net *n, struct side *sd,
			    struct fi_info *info)
{
	ck_assert_int_eq(fi_endpoint(n->domain, info, &sd->ep, sd), 0);
	ck_assert_int_eq(fi_ep_bind(sd->ep, &sd->eq->fid, 0), 0);
	ck_assert_int_eq(
		fi_ep_bind(sd->ep, &sd->cq->fid, FI_TRANSMIT | FI_RECV), 0);
	ck_assert_int_eq(fi_enable(sd->ep), 0);
}

/* Open a domain of the answer to hints h at node, two sides and a
 * listener; consumes h. */
static inline void net_open_hints(struct net *n, struct fi_info *h,
				  const char *node)
{
	size_t len = sizeof(n->addr);

	memset(n, 0, sizeof(*n));
	n->info = getinfo_at(h, node);
	fi_freeinfo(h);
	ck_assert_int_eq(fi_fabric(n->info->fabric_attr, &n->fabric, NULL), 0);
	ck_assert_int_eq(fi_domain(n->fabric, n->info, &n->domain, NULL), 0);
	side_open(n, &n->s, true);
	side_open(n, &n->c, true);
	ck_assert_int_eq(fi_passive_ep(n->fabric, n->info, &n->pep, NULL), 0);
	ck_assert_int_eq(fi_pep_bind(n->pep, &n->s.eq->fid, 0), 0);
	ck_assert_int_eq(fi_listen(n->pep), 0);
	ck_assert_int_eq(fi_getname(&n->pep->fid, &n->addr, &len), 0);
	ck_assert_int_ne(port_of(&n->addr), 0);
}

static inline void net_open_at(struct net *n, bool v6)
{
	struct fi_info *h = hints_new();

	if (v6)
		h->addr_format = FI_SOCKADDR_IN6;
	net_open_hints(n, h, v6 ? "::1" : "127.0.0.1");
}

static inline void net_open(struct net *n)
{
	net_open_at(n, false);
}

static inline void side_close(struct side *sd)
{
	ck_assert_int_eq(fi_close(&sd->mr->fid), 0);
	ck_assert_int_eq(fi_close(&sd->cq->fid), 0);
	if (sd->eq)
		ck_assert_int_eq(fi_close(&sd->eq->fid), 0);
	free(sd->buf);
}

static inline void net_close(struct net *n)
{
	if (n->s.ep)
		ck_assert_int_eq(fi_close(&n->s.ep->fid), 0);
	if (n->c.ep)
		ck_assert_int_eq(fi_close(&n->c.ep->fid), 0);
	ck_assert_int_eq(fi_close(&n->pep->fid), 0);
	side_close(&n->s);
	side_close(&n->c);
	ck_assert_int_eq(fi_close(&n->domain->fid), 0);
	ck_assert_int_eq(fi_close(&n->fabric->fid), 0);
	fi_freeinfo(n->info);
}

/* The next event of eq: its type, the entry in *e (data after it). */
static inline ssize_t eq_wait(struct fid_eq *eq, uint32_t *ev, void *e,
			      size_t len)
{
	ssize_t ret = fi_eq_sread(eq, ev, e, len, WAIT_MS, 0);

	ck_assert_msg(ret != -FI_EAGAIN, "no event in %d ms", WAIT_MS);
	return ret;
}

/*
 * The end of ep's connection by the peer's Terminate, on eq: an error
 * entry in place of FI_SHUTDOWN, FI_ECONNABORTED, whose prov_errno
 * fi_eq_strerror() spells as text and whose err_data is the Terminate's
 * Layer, Error Type and Error Code octets (RFC 5040 §4.8), copied into
 * the caller's buffer.
 */
static inline void eq_term_wait(struct fid_eq *eq, struct fid_ep *ep,
				const char *text)
{
	struct fi_eq_err_entry err = { 0 };
	struct fi_eq_cm_entry cm;
	uint8_t code[8] = { 0 };
	unsigned int layer, etype, ecode;
	char buf[128];
	uint32_t ev;

	ck_assert_int_eq(fi_eq_sread(eq, &ev, &cm, sizeof(cm), WAIT_MS, 0),
			 -FI_EAVAIL);
	err.err_data = code;
	err.err_data_size = sizeof(code);
	ck_assert_int_eq(fi_eq_readerr(eq, &err, 0), sizeof(err));
	ck_assert_ptr_eq(err.fid, &ep->fid);
	ck_assert_int_eq(err.err, FI_ECONNABORTED);
	ck_assert_str_eq(fi_eq_strerror(eq, err.prov_errno, err.err_data, buf,
					sizeof(buf)),
			 text);
	ck_assert_str_eq(buf, text);
	ck_assert_uint_eq(err.err_data_size, 3);
	ck_assert_int_eq(sscanf(text,
				"Terminate: layer %u (%*[A-Z]), error type %u, "
				"code 0x%x",
				&layer, &etype, &ecode),
			 3);
	ck_assert_uint_eq(code[0], layer);
	ck_assert_uint_eq(code[1], etype);
	ck_assert_uint_eq(code[2], ecode);
	/* Nothing after it: no FI_SHUTDOWN as well. */
	ck_assert_int_eq(fi_eq_read(eq, &ev, &cm, sizeof(cm), 0), -FI_EAGAIN);
}

struct cm_buf {
	struct fi_eq_cm_entry e;
	uint8_t data[512];
};

/* Connect c to the listener; accept on s.  Private data both ways. */
static inline void net_connect(struct net *n, bool early_recv)
{
	struct cm_buf cb;
	uint32_t ev;
	ssize_t ret;

	ep_setup(n, &n->c, n->info);
	if (early_recv)
		ck_assert_int_eq(fi_recv(n->c.ep, n->c.buf, 4096,
					 fi_mr_desc(n->c.mr), 0, (void *)1),
				 0);
	ck_assert_int_eq(fi_connect(n->c.ep, &n->addr, "hello", 6), 0);
	ret = eq_wait(n->s.eq, &ev, &cb, sizeof(cb));
	ck_assert_int_eq(ev, FI_CONNREQ);
	ck_assert_int_eq(ret, sizeof(cb.e) + 6);
	ck_assert_str_eq((char *)cb.e.data, "hello");
	ck_assert_ptr_eq(cb.e.fid, &n->pep->fid);
	ck_assert_ptr_nonnull(cb.e.info->handle);
	ep_setup(n, &n->s, cb.e.info);
	if (early_recv)
		ck_assert_int_eq(fi_recv(n->s.ep, n->s.buf, 4096,
					 fi_mr_desc(n->s.mr), 0, (void *)2),
				 0);
	ck_assert_int_eq(fi_accept(n->s.ep, "welcome", 8), 0);
	fi_freeinfo(cb.e.info);
	ret = eq_wait(n->s.eq, &ev, &cb, sizeof(cb));
	ck_assert_int_eq(ev, FI_CONNECTED);
	ck_assert_ptr_eq(cb.e.fid, &n->s.ep->fid);
	ret = eq_wait(n->c.eq, &ev, &cb, sizeof(cb));
	ck_assert_int_eq(ev, FI_CONNECTED);
	ck_assert_ptr_eq(cb.e.fid, &n->c.ep->fid);
	ck_assert_int_eq(ret, sizeof(cb.e) + 8);
	ck_assert_str_eq((char *)cb.e.data, "welcome");
}

/* Connect c, its completions selective (FI_SELECTIVE_COMPLETION), to
 * the listener, with no private data; accept on s. */
static inline void net_connect_selective(struct net *n)
{
	struct cm_buf cb;
	uint32_t ev;

	ck_assert_int_eq(fi_endpoint(n->domain, n->info, &n->c.ep, NULL), 0);
	ck_assert_int_eq(fi_ep_bind(n->c.ep, &n->c.eq->fid, 0), 0);
	ck_assert_int_eq(fi_ep_bind(n->c.ep, &n->c.cq->fid,
				    FI_TRANSMIT | FI_RECV |
					    FI_SELECTIVE_COMPLETION),
			 0);
	ck_assert_int_eq(fi_enable(n->c.ep), 0);
	ck_assert_int_eq(fi_connect(n->c.ep, &n->addr, NULL, 0), 0);
	eq_wait(n->s.eq, &ev, &cb, sizeof(cb));
	ck_assert_int_eq(ev, FI_CONNREQ);
	ck_assert_int_eq(cb.e.info->addr_format, n->addr.ss_family == AF_INET6 ?
							 FI_SOCKADDR_IN6 :
							 FI_SOCKADDR_IN);
	ep_setup(n, &n->s, cb.e.info);
	ck_assert_int_eq(fi_accept(n->s.ep, NULL, 0), 0);
	fi_freeinfo(cb.e.info);
	eq_wait(n->s.eq, &ev, &cb, sizeof(cb));
	ck_assert_int_eq(ev, FI_CONNECTED);
	eq_wait(n->c.eq, &ev, &cb, sizeof(cb));
	ck_assert_int_eq(ev, FI_CONNECTED);
}

/* The next completion of cq (success), or -FI_EAVAIL with *err. */
static inline ssize_t cq_wait(struct fid_cq *cq, struct fi_cq_data_entry *e,
			      struct fi_cq_err_entry *err)
{
	ssize_t ret = fi_cq_sread(cq, e, 1, NULL, WAIT_MS);

	ck_assert_msg(ret != -FI_EAGAIN, "no completion in %d ms", WAIT_MS);
	if (ret == -FI_EAVAIL) {
		ck_assert_ptr_nonnull(err);
		memset(err, 0, sizeof(*err));
		ck_assert_int_eq(fi_cq_readerr(cq, err, 0), 1);
	}
	return ret;
}

/* The key of a remotely readable and writable region of len octets at
 * buf registered in dom and closed again: a key the target no longer
 * honours (RFC 5042 §5.1). */
static inline uint64_t closed_key(struct fid_domain *dom, void *buf, size_t len)
{
	struct fid_mr *mr;
	uint64_t key;

	ck_assert_int_eq(fi_mr_reg(dom, buf, len,
				   FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0, 0,
				   &mr, NULL),
			 0);
	key = fi_mr_key(mr);
	ck_assert_int_eq(fi_close(&mr->fid), 0);
	return key;
}

static inline void cq_ok(struct fid_cq *cq, void *ctx, uint64_t flags,
			 struct fi_cq_data_entry *out)
{
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err;
	ssize_t ret = cq_wait(cq, &e, &err);

	ck_assert_msg(ret == 1, "completion error %d: %s", err.err,
		      fi_cq_strerror(cq, err.prov_errno, NULL, NULL, 0));
	if (ctx != ANY_CTX)
		ck_assert_ptr_eq(e.op_context, ctx);
	ck_assert_msg((e.flags & flags) == flags, "flags %#llx, want %#llx",
		      (unsigned long long)e.flags, (unsigned long long)flags);
	if (out)
		*out = e;
}

#endif
