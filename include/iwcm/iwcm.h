/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_IWCM_H
#define IWCM_IWCM_H

/**
 * DOC: libiwcm connection management
 *
 * <iwcm/iwcm.h> is the public interface of libiwcm, shaped like librdmacm.
 * A context (struct iwcm_ctx) is one connection to the iwcmd daemon.  The
 * daemon owns the listening sockets and performs the MPA (RFC 5044,
 * RFC 6581) handshakes; once a connection is negotiated it hands the TCP
 * socket and the negotiated state to the owning process, which receives
 * them as an IWCM_CM_EVENT_ESTABLISHED event.
 *
 * Every handle is opaque.  Functions return 0 (or a handle) on success and
 * -1 (or NULL) with errno set on failure; the library never prints, never
 * aborts and keeps no global state besides errno.  What is known of a
 * connection, including why it failed, is read with iwcm_conn_query().
 *
 * Structures whose fields are public (struct iwcm_conn_attr) carry a
 * comp_mask that the caller sets: they grow only at their end, each new
 * field behind a new comp_mask bit, and the library never writes a field
 * whose bit the caller did not set, so binaries built against an older
 * header keep working (the rdma-core rule).  Everything else is an opaque
 * handle with functions.  CM events (enum iwcm_cm_event_type,
 * IWCM_CM_EVENT_*) and the asynchronous events of <iwcm/verbs.h> (enum
 * iwcm_event_type) are distinct types, as in librdmacm and
 * libibverbs.
 *
 * Threads: unless a function says otherwise, a context and every handle
 * made from it (listeners, connections, events) must be used by one thread
 * at a time; different contexts are independent.  Connection parameters
 * (struct iwcm_conn_param) belong to no context.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <iwcm/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

struct iwcm_ctx;
struct iwcm_conn_param;
struct iwcm_listener;
struct iwcm_conn;
struct iwcm_event;

/**
 * enum iwcm_ctx_flags - Flags of iwcm_ctx_open().
 * @IWCM_CTX_NONBLOCK: iwcm_get_event() and iwcm_get_async_event() fail
 *	with EAGAIN instead of waiting when no event is ready.
 * @IWCM_CTX_MANUAL_PROGRESS: no progress thread: the caller moves the
 *	data of the context's queue pairs with iwcm_progress().
 * @IWCM_CTX_ASYNC_CM: iwcm_connect(), iwcm_accept() and iwcm_reject()
 *	return once the request is sent, without waiting for the daemon
 *	to take it, so that many handshakes can be started in one go (as
 *	rdma_connect() does).  A request the daemon refuses then fails
 *	its connection with IWCM_CM_EVENT_CONNECT_ERROR, the reason (for
 *	example IWCM_STATUS_LIMIT or IWCM_STATUS_NOENT) read with
 *	iwcm_conn_query(); a refused iwcm_reject() has nothing to report.
 */
enum iwcm_ctx_flags {
	IWCM_CTX_NONBLOCK = 1,
	IWCM_CTX_MANUAL_PROGRESS = 2,
	IWCM_CTX_ASYNC_CM = 4,
};

/**
 * enum iwcm_cm_event_type - What a connection manager event reports.
 * @IWCM_CM_EVENT_CONNECT_REQUEST: a peer asks to connect to one of our
 *	listeners; the event carries a new connection to accept or reject.
 * @IWCM_CM_EVENT_ESTABLISHED: negotiation finished; the connection now owns
 *	the socket and every negotiated field can be read.
 * @IWCM_CM_EVENT_REJECTED: the peer rejected our connection request.
 * @IWCM_CM_EVENT_UNREACHABLE: the peer could not be reached (refused, timed
 *	out, no route).
 * @IWCM_CM_EVENT_CONNECT_ERROR: negotiation failed (protocol error,
 *	Terminate, timeout, daemon gone).
 */
enum iwcm_cm_event_type {
	IWCM_CM_EVENT_CONNECT_REQUEST = 1,
	IWCM_CM_EVENT_ESTABLISHED = 2,
	IWCM_CM_EVENT_REJECTED = 3,
	IWCM_CM_EVENT_UNREACHABLE = 4,
	IWCM_CM_EVENT_CONNECT_ERROR = 5,
};

/**
 * enum iwcm_status - Why a connection failed (reason of iwcm_conn_query()).
 * @IWCM_STATUS_OK: no failure.
 * @IWCM_STATUS_INVALID: malformed or inconsistent request.
 * @IWCM_STATUS_PERM: credentials do not allow it.
 * @IWCM_STATUS_NOENT: no such listener, connection or service.
 * @IWCM_STATUS_EXISTS: already listening there.
 * @IWCM_STATUS_LIMIT: a per-user limit of the daemon was hit.
 * @IWCM_STATUS_ADDRINUSE: address already in use.
 * @IWCM_STATUS_TIMEDOUT: the peer did not answer in time.
 * @IWCM_STATUS_REFUSED: the peer refused the TCP connection.
 * @IWCM_STATUS_RESET: the connection was reset or the daemon went away.
 * @IWCM_STATUS_REJECTED: the peer rejected the connection (MPA R bit).
 * @IWCM_STATUS_PROTOCOL: the peer (or the daemon) violated the protocol.
 * @IWCM_STATUS_VERSION: IPC version mismatch with the daemon.
 * @IWCM_STATUS_INTERNAL: internal error in the daemon.
 * @IWCM_STATUS_SHUTDOWN: the daemon is stopping.
 */
enum iwcm_status {
	IWCM_STATUS_OK = 0,
	IWCM_STATUS_INVALID = 1,
	IWCM_STATUS_PERM = 2,
	IWCM_STATUS_NOENT = 3,
	IWCM_STATUS_EXISTS = 4,
	IWCM_STATUS_LIMIT = 5,
	IWCM_STATUS_ADDRINUSE = 6,
	IWCM_STATUS_TIMEDOUT = 7,
	IWCM_STATUS_REFUSED = 8,
	IWCM_STATUS_RESET = 9,
	IWCM_STATUS_REJECTED = 10,
	IWCM_STATUS_PROTOCOL = 11,
	IWCM_STATUS_VERSION = 12,
	IWCM_STATUS_INTERNAL = 13,
	IWCM_STATUS_SHUTDOWN = 14,
};

/**
 * enum iwcm_transport - Transport under DDP.
 * @IWCM_TRANSPORT_TCP: MPA over TCP (RFC 5044).
 * @IWCM_TRANSPORT_SCTP: DDP over SCTP (RFC 5043).
 */
enum iwcm_transport {
	IWCM_TRANSPORT_TCP = 0,
	IWCM_TRANSPORT_SCTP = 1,
};

/**
 * enum iwcm_mpa_rev - MPA revisions.
 * @IWCM_MPA_REV_0: RDMA Consortium MPA (RFC 5044 Appendix C), with DDP
 *	and RDMAP version 0.
 * @IWCM_MPA_REV_1: MPA as in RFC 5044.
 * @IWCM_MPA_REV_2: enhanced connection establishment (RFC 6581 §8).
 */
enum iwcm_mpa_rev {
	IWCM_MPA_REV_0 = 0,
	IWCM_MPA_REV_1 = 1,
	IWCM_MPA_REV_2 = 2,
};

/**
 * enum iwcm_crc_policy - CRC request of iwcm_conn_param_set_crc().
 * @IWCM_CRC_REQUEST: set C=1, ask for CRC (RFC 5044 §4.4 default).
 * @IWCM_CRC_PREFER_OFF: set C=0; CRC is still used if the peer sets C.
 */
enum iwcm_crc_policy {
	IWCM_CRC_REQUEST = 0,
	IWCM_CRC_PREFER_OFF = 1,
};

/**
 * enum iwcm_rev0_policy - Answer to an RDMA Consortium (Rev 0) peer.
 * @IWCM_REV0_STRICT: refuse Rev 0 peers.
 * @IWCM_REV0_PERMISSIVE: answer Rev 0 with Rev 0, markers and CRC on.
 */
enum iwcm_rev0_policy {
	IWCM_REV0_STRICT = 0,
	IWCM_REV0_PERMISSIVE = 1,
};

/**
 * enum iwcm_rtr - Ready-to-receive indication types (RFC 6581 §9.2).
 * @IWCM_RTR_NONE: none.
 * @IWCM_RTR_SEND: zero-length Send (flag B).
 * @IWCM_RTR_WRITE: zero-length RDMA Write (flag C).
 * @IWCM_RTR_READ: zero-length RDMA Read (flag D).
 */
enum iwcm_rtr {
	IWCM_RTR_NONE = 0,
	IWCM_RTR_SEND = 1,
	IWCM_RTR_WRITE = 2,
	IWCM_RTR_READ = 4,
};

/**
 * enum iwcm_mpa_flags - Bits of the MPA frame's flags octet, as in
 * peer_flags of struct iwcm_conn_attr (RFC 5044 §7.1, RFC 6581 §8).
 * @IWCM_MPA_FLAG_M: markers required toward the sender.
 * @IWCM_MPA_FLAG_C: CRC requested.
 * @IWCM_MPA_FLAG_R: the frame rejects the connection.
 * @IWCM_MPA_FLAG_S: enhanced connection data precede the private data.
 */
enum iwcm_mpa_flags {
	IWCM_MPA_FLAG_M = 0x80,
	IWCM_MPA_FLAG_C = 0x40,
	IWCM_MPA_FLAG_R = 0x20,
	IWCM_MPA_FLAG_S = 0x10,
};

/* RFC 6581 §9.1: IRD/ORD are 14 bits; all ones means "no automatic
 * negotiation, the ULP handles it". */
#define IWCM_IRD_ORD_MAX 0x3FFF
#define IWCM_IRD_ORD_NONE 0x3FFF
/* RFC 5044 §7.1: at most 512 octets of private data; an enhanced (MPA
 * revision 2) frame spends 4 of them on IRD/ORD. */
#define IWCM_PRIVATE_DATA_MAX 512
#define IWCM_PRIVATE_DATA_MAX_ENHANCED 508

/**
 * enum iwcm_conn_attr_mask - Field groups of struct iwcm_conn_attr.
 * @IWCM_CONN_ATTR_LOCAL_ADDR: local_addr; known from
 *	IWCM_CM_EVENT_CONNECT_REQUEST on the responder and from
 *	IWCM_CM_EVENT_ESTABLISHED on both sides.
 * @IWCM_CONN_ATTR_TERM: term_layer, term_etype and term_ecode; a
 *	Terminate was sent or received while negotiating.
 * @IWCM_CONN_ATTR_NEGOTIATED: the negotiated state, from transport to
 *	num_next_msn; known from IWCM_CM_EVENT_ESTABLISHED.
 * @IWCM_CONN_ATTR_PEER: what the peer's MPA frame said, the peer_*
 *	fields; known from IWCM_CM_EVENT_CONNECT_REQUEST on the responder
 *	and from IWCM_CM_EVENT_ESTABLISHED or IWCM_CM_EVENT_REJECTED on the
 *	initiator.
 * @IWCM_CONN_ATTR_SCTP: sctp_stream and sctp_max_segment; known from
 *	IWCM_CM_EVENT_ESTABLISHED on a connection of IWCM_TRANSPORT_SCTP.
 * @IWCM_CONN_ATTR_RTR_READ: rtr_read_due, rtr_read_stag and
 *	rtr_read_to; known from IWCM_CM_EVENT_ESTABLISHED on a connection
 *	of IWCM_TRANSPORT_TCP.
 * @IWCM_CONN_ATTR_ALL: every group of this version of the header.
 */
enum iwcm_conn_attr_mask {
	IWCM_CONN_ATTR_LOCAL_ADDR = 1 << 0,
	IWCM_CONN_ATTR_TERM = 1 << 1,
	IWCM_CONN_ATTR_NEGOTIATED = 1 << 2,
	IWCM_CONN_ATTR_PEER = 1 << 3,
	IWCM_CONN_ATTR_SCTP = 1 << 4,
	IWCM_CONN_ATTR_RTR_READ = 1 << 5,
	IWCM_CONN_ATTR_ALL = (1 << 6) - 1,
};

/**
 * struct iwcm_conn_attr - What iwcm_conn_query() tells of a connection.
 * @comp_mask: in: an OR of enum iwcm_conn_attr_mask, the groups the
 *	caller asks for (IWCM_CONN_ATTR_ALL for all it knows of); out: those
 *	of them that are known.  Fields after comp_mask up to @peer_addr are
 *	always written.
 * @id: the daemon's identifier of the connection, as iwcmctl(8) shows it.
 * @initiator: this side sent the MPA Request (iwcm_connect()).
 * @listener: the listener a connection request came to; NULL on the
 *	initiator and once that listener is closed.
 * @reason: IWCM_STATUS_OK while nothing failed, else the reason given
 *	with IWCM_CM_EVENT_REJECTED, IWCM_CM_EVENT_UNREACHABLE or
 *	IWCM_CM_EVENT_CONNECT_ERROR (iwcm_status_str()).
 * @reason_text: the daemon's description of the failure, or NULL.
 * @peer_addr: the peer's address (sockaddr_in or sockaddr_in6).
 * @local_addr: the local address (IWCM_CONN_ATTR_LOCAL_ADDR).
 * @term_layer: layer of the Terminate (2 for MPA) (IWCM_CONN_ATTR_TERM).
 * @term_etype: its error type.
 * @term_ecode: its error code (RFC 6581 §9: 5, 6 or 7).
 * @transport: the transport (IWCM_CONN_ATTR_NEGOTIATED, as the fields
 *	down to @num_next_msn).
 * @mpa_rev: the negotiated MPA revision.
 * @ddp_version: the DDP version to use: 0 (RDMA Consortium) or 1
 *	(RFC 5041).
 * @rdmap_version: the RDMAP version to use: 0 or 1 (RFC 5040).
 * @markers_tx: we must send markers (RFC 5044 §5).
 * @markers_rx: the peer sends markers.
 * @crc: FPDUs carry a CRC (RFC 5044 §4.4).
 * @enhanced: RFC 6581 enhanced connection establishment ran.
 * @p2p: the peer-to-peer connection model was negotiated (flag A).
 * @rtr_frame: the legacy "MPA ID RtR Frame" was used.
 * @wait_first_fpdu: an MPA v1 responder must receive the first FPDU
 *	before it sends (RFC 5044 §7.1.4).
 * @rtr_type: the RTR indication exchanged (RFC 6581 §9.2).
 * @ird: the final local IRD.
 * @ord: the final local ORD.
 * @tx_offset: FPDU-mode octets the daemon already sent (marker positions).
 * @rx_offset: FPDU-mode octets the daemon already read.
 * @unread: octets the daemon read past the handshake, which precede
 *	whatever the socket delivers next; valid as long as the connection.
 * @unread_len: their number, 0 when none.
 * @next_msn: the next MSN of each untagged queue (RFC 5041 §5), by queue
 *	number; valid as long as the connection.
 * @num_next_msn: the number of queues in @next_msn.
 * @peer_mpa_rev: the revision of the peer's frame (IWCM_CONN_ATTR_PEER,
 *	as the fields down to @peer_private_data_len).
 * @peer_flags: its flags octet: an OR of enum iwcm_mpa_flags and the
 *	reserved bits as received.
 * @peer_enhanced: the peer sent enhanced connection data (flag S).
 * @peer_p2p: the peer set flag A (peer-to-peer).
 * @peer_rtr_types: the RTR types the peer offered, an OR of
 *	IWCM_RTR_SEND, IWCM_RTR_WRITE and IWCM_RTR_READ (flags B, C, D).
 * @peer_ird: the IRD the peer sent, as received (RFC 6581 §9.1: passed
 *	to the ULP, also with a reject).
 * @peer_ord: the ORD the peer sent, as received.
 * @peer_private_data: the peer's ULP private data, valid as long as the
 *	connection.
 * @peer_private_data_len: its length, 0 when none.
 * @sctp_stream: DDP over SCTP (RFC 5043): the SCTP stream of the
 *	session (IWCM_CONN_ATTR_SCTP).  The connection's fd is then
 *	iwcmd's SOCK_SEQPACKET relay of the session: each datagram is an
 *	8-octet header (the stream and 0 as 16-bit, then the PPID 16 as
 *	32-bit big-endian fields) and one DDP Segment; or, from an iwcmd
 *	on the kernel's SCTP, the association's own one-to-one SCTP socket
 *	(SO_PROTOCOL IPPROTO_SCTP), DDP-SSN and segment per message.
 * @sctp_max_segment: the largest DDP Segment either side sends, in
 *	octets (RFC 5043 §9).
 * @rtr_read_due: the initiator of a peer-to-peer connection whose RTR
 *	is a zero-length RDMA Read (RFC 6581 §9.2): iwcmd sent the Read
 *	Request and handed the connection off without waiting for its
 *	Read Response, which the socket delivers before anything else of
 *	the peer and which holds one of the ORD (if any) until then
 *	(IWCM_CONN_ATTR_RTR_READ, as the fields down to @rtr_read_to).  A
 *	QP of iwcm_create_qp() takes it; a program that takes the socket
 *	must.
 * @rtr_read_stag: the Read Request's Data Sink STag, which the Response
 *	names.
 * @rtr_read_to: its Data Sink Tagged Offset.
 *
 * The structure grows only at its end, each new field behind a new
 * enum iwcm_conn_attr_mask bit; the library writes no field whose bit
 * the caller did not set, so a program built against an older header
 * keeps working.
 */
struct iwcm_conn_attr {
	uint32_t comp_mask;
	uint64_t id;
	bool initiator;
	struct iwcm_listener *listener;
	enum iwcm_status reason;
	const char *reason_text;
	struct sockaddr_storage peer_addr;
	struct sockaddr_storage local_addr;
	uint8_t term_layer;
	uint8_t term_etype;
	uint8_t term_ecode;
	enum iwcm_transport transport;
	enum iwcm_mpa_rev mpa_rev;
	uint8_t ddp_version;
	uint8_t rdmap_version;
	bool markers_tx;
	bool markers_rx;
	bool crc;
	bool enhanced;
	bool p2p;
	bool rtr_frame;
	bool wait_first_fpdu;
	enum iwcm_rtr rtr_type;
	uint32_t ird;
	uint32_t ord;
	uint64_t tx_offset;
	uint64_t rx_offset;
	const void *unread;
	size_t unread_len;
	const uint32_t *next_msn;
	uint32_t num_next_msn;
	enum iwcm_mpa_rev peer_mpa_rev;
	uint8_t peer_flags;
	bool peer_enhanced;
	bool peer_p2p;
	uint32_t peer_rtr_types;
	uint32_t peer_ird;
	uint32_t peer_ord;
	const void *peer_private_data;
	size_t peer_private_data_len;
	uint16_t sctp_stream;
	uint32_t sctp_max_segment;
	bool rtr_read_due;
	uint32_t rtr_read_stag;
	uint64_t rtr_read_to;
};

/* ---- contexts ---- */

/**
 * iwcm_ctx_open() - Connect to the iwcmd daemon.
 * @flags: an OR of enum iwcm_ctx_flags: IWCM_CTX_NONBLOCK (event calls
 *	fail with EAGAIN instead of waiting), IWCM_CTX_MANUAL_PROGRESS (no
 *	progress thread) and IWCM_CTX_ASYNC_CM (iwcm_connect(),
 *	iwcm_accept() and iwcm_reject() do not wait for the daemon; its
 *	refusal fails the connection with IWCM_CM_EVENT_CONNECT_ERROR).
 *
 * Opens the daemon's client socket, found through the IWCM_SOCKET
 * environment variable or else at /run/iwcm/iwcmd.sock, and performs the
 * version handshake.  The context is the event channel of every listener
 * and connection made from it.  IWCM_POLL_US sets the limit of its
 * adaptive polling window (iwcm_ctx_poll_us()): microseconds, 0 to
 * 100000, 0 turns polling off; 200 without it.  IWCM_PROGRESS_IDLE_US
 * sets the tick of its progress thread (<iwcm/verbs.h>, Progress):
 * microseconds, 0 to 1000000; 10000 without it.
 *
 * Context: Thread-safe.
 * Return: A new context, or NULL with errno set: ECONNREFUSED when no
 * daemon listens there, EPROTO when the daemon speaks another protocol
 * version, EINVAL for unknown flags, an unusable path or a bad
 * IWCM_POLL_US or IWCM_PROGRESS_IDLE_US (iwcm_env_error() names it),
 * ENOMEM, or the errno of socket(2) and connect(2).
 */
struct iwcm_ctx *iwcm_ctx_open(unsigned int flags);

/**
 * iwcm_env_error() - Name the environment variable a context refuses.
 *
 * For a program whose iwcm_ctx_open() failed with EINVAL: which of
 * IWCM_POLL_US and IWCM_PROGRESS_IDLE_US holds a value the library does
 * not take, with that value and the valid range, as in "IWCM_POLL_US
 * '1e3' (0 to 100000)".
 *
 * Context: Thread-safe; the text is the calling thread's own, valid until
 * its next call.
 * Return: The text, or NULL when both variables are unset or good.
 */
const char *iwcm_env_error(void);

/**
 * iwcm_ctx_open_path() - Connect to the iwcmd daemon at a given socket.
 * @path: path of the daemon's client socket.
 * @flags: an OR of enum iwcm_ctx_flags.
 *
 * As iwcm_ctx_open(), with an explicit socket path instead of IWCM_SOCKET
 * or the default.
 *
 * Context: Thread-safe.
 * Return: A new context, or NULL with errno set as for iwcm_ctx_open().
 */
struct iwcm_ctx *iwcm_ctx_open_path(const char *path, unsigned int flags);

/**
 * iwcm_ctx_close() - Disconnect from the daemon and free a context.
 * @ctx: the context, or NULL.
 *
 * Frees every listener, connection and event made from @ctx, closing the
 * socket of each connection that was not released with
 * iwcm_conn_release_fd(), and every verbs object of <iwcm/verbs.h> made
 * from it (its progress thread stops, its queue pairs close their
 * sockets: abortively those still connected, as iwcm_destroy_qp()
 * does).  None of these handles may be used afterwards.  The daemon
 * drops the context's listeners and pending requests.
 *
 * Context: Not to be called concurrently with any other use of @ctx.
 */
void iwcm_ctx_close(struct iwcm_ctx *ctx);

/**
 * iwcm_ctx_get_fd() - The event channel file descriptor of a context.
 * @ctx: the context.
 *
 * The descriptor becomes readable when an event may be ready; the caller
 * then calls iwcm_get_event() (in non-blocking mode, until it fails with
 * EAGAIN).  The descriptor belongs to @ctx: poll it, never read, write or
 * close it.
 *
 * Context: Safe to call from any thread while @ctx is open.
 * Return: The descriptor, or -1 with errno EINVAL if @ctx is NULL.
 */
int iwcm_ctx_get_fd(const struct iwcm_ctx *ctx);

/**
 * iwcm_ctx_poll_us() - How long to poll the event channel before sleeping.
 * @ctx: the context.
 *
 * A handshake through iwcmd is a chain of short exchanges between the
 * daemon and its clients; a client that sleeps after each of its messages
 * pays for waking an idle CPU before it takes the next, on a virtual
 * machine more than the exchange costs.  So each context keeps an
 * adaptive window after its last exchange with the daemon, as iwcmd does
 * (adaptive_poll_us in iwcmd.conf(5)): when a message came that the
 * window missed, it doubles (from 25 us) if a window within the limit
 * would have caught it, and halves (to 0) if none would.  The limit is
 * the IWCM_POLL_US environment variable at iwcm_ctx_open() (default 200,
 * 0 turns polling off), and 0 when the opening thread may run on one CPU
 * only.  iwcm_get_event() and the calls that wait for the daemon poll
 * for what is left of the window before they sleep; a caller's own loop
 * that has drained the context with iwcm_get_event() may poll its
 * descriptor (iwcm_ctx_get_fd()) with a zero timeout while this returns
 * more than 0, and sleep after.  libiwcm polls every 3 us or so and
 * waits in between without a system call: polling back to back takes
 * the locks of the socket the daemon is writing to and slows a busy
 * daemon down.  A context that exchanges nothing never polls.
 *
 * Context: As iwcm_get_event(): not concurrently with other calls on @ctx.
 * Return: The microseconds left of the window now; 0 to sleep at once,
 * also with errno EINVAL if @ctx is NULL.
 */
unsigned int iwcm_ctx_poll_us(const struct iwcm_ctx *ctx);

/* ---- connection parameters ---- */

/**
 * iwcm_conn_param_new() - Allocate connection parameters.
 *
 * Every parameter starts unset, which means "the daemon's default"
 * (iwcmd.conf(5)).  Parameters are used by iwcm_listen() (defaults for the
 * listener's connections), iwcm_connect() and iwcm_accept(), which copy
 * them: the same parameters may be reused and freed at any time.
 *
 * Context: Thread-safe.
 * Return: The parameters, or NULL with errno ENOMEM.
 */
struct iwcm_conn_param *iwcm_conn_param_new(void);

/**
 * iwcm_conn_param_free() - Free connection parameters.
 * @param: the parameters, or NULL.
 *
 * Context: Thread-safe for distinct parameters.
 */
void iwcm_conn_param_free(struct iwcm_conn_param *param);

/**
 * iwcm_conn_param_set_ird() - Set the inbound RDMA Read queue depth.
 * @param: the parameters.
 * @ird: IRD, 0 to IWCM_IRD_ORD_MAX; IWCM_IRD_ORD_NONE leaves the
 *	negotiation to the ULP (RFC 6581 §9.1).
 *
 * Context: Thread-safe for distinct parameters.
 * Return: 0, or -1 with errno EINVAL if @param is NULL or @ird is too big.
 */
int iwcm_conn_param_set_ird(struct iwcm_conn_param *param, unsigned int ird);

/**
 * iwcm_conn_param_set_ord() - Set the outbound RDMA Read limit.
 * @param: the parameters.
 * @ord: ORD, 0 to IWCM_IRD_ORD_MAX; IWCM_IRD_ORD_NONE leaves the
 *	negotiation to the ULP (RFC 6581 §9.1).
 *
 * Context: Thread-safe for distinct parameters.
 * Return: 0, or -1 with errno EINVAL if @param is NULL or @ord is too big.
 */
int iwcm_conn_param_set_ord(struct iwcm_conn_param *param, unsigned int ord);

/**
 * iwcm_conn_param_set_p2p() - Ask for the peer-to-peer connection model.
 * @param: the parameters.
 * @p2p: true for peer-to-peer (flag A, an RTR exchange before the
 *	connection is handed over), false for client-server.
 *
 * Context: Thread-safe for distinct parameters.
 * Return: 0, or -1 with errno EINVAL if @param is NULL.
 */
int iwcm_conn_param_set_p2p(struct iwcm_conn_param *param, bool p2p);

/**
 * iwcm_conn_param_set_rtr_types() - Set the RTR types offered or accepted.
 * @param: the parameters.
 * @types: a non-empty OR of IWCM_RTR_SEND, IWCM_RTR_WRITE and
 *	IWCM_RTR_READ (flags B, C, D of RFC 6581 §9.2).
 *
 * Context: Thread-safe for distinct parameters.
 * Return: 0, or -1 with errno EINVAL if @param is NULL or @types is empty
 * or has other bits.
 */
int iwcm_conn_param_set_rtr_types(struct iwcm_conn_param *param,
				  unsigned int types);

/**
 * iwcm_conn_param_set_private_data() - Set the ULP private data to send.
 * @param: the parameters.
 * @data: the octets (copied), or NULL when @len is 0.
 * @len: at most IWCM_PRIVATE_DATA_MAX; with an enhanced (revision 2)
 *	frame at most IWCM_PRIVATE_DATA_MAX_ENHANCED, which iwcm_connect()
 *	and iwcm_accept() check.
 *
 * The daemon may send less than IWCM_PRIVATE_DATA_MAX to peers that
 * accept no more (iwcmd.conf(5) private_data_send_max).
 *
 * Context: Thread-safe for distinct parameters.
 * Return: 0, or -1 with errno EINVAL (NULL @param, NULL @data with a
 * non-zero @len, @len too big) or ENOMEM.
 */
int iwcm_conn_param_set_private_data(struct iwcm_conn_param *param,
				     const void *data, size_t len);

/**
 * iwcm_conn_param_set_mpa_rev() - Set the MPA revision to request.
 * @param: the parameters.
 * @rev: IWCM_MPA_REV_1 (RFC 5044) or IWCM_MPA_REV_2 (RFC 6581
 *	enhanced).
 *
 * Context: Thread-safe for distinct parameters.
 * Return: 0, or -1 with errno EINVAL if @param is NULL or @rev is not 1
 * or 2.
 */
int iwcm_conn_param_set_mpa_rev(struct iwcm_conn_param *param,
				enum iwcm_mpa_rev rev);

/**
 * iwcm_conn_param_set_markers() - Ask the peer for markers.
 * @param: the parameters.
 * @markers: true to set M=1 (RFC 5044 §7.1).
 *
 * Context: Thread-safe for distinct parameters.
 * Return: 0, or -1 with errno EINVAL if @param is NULL.
 */
int iwcm_conn_param_set_markers(struct iwcm_conn_param *param, bool markers);

/**
 * iwcm_conn_param_set_crc() - Set the CRC policy.
 * @param: the parameters.
 * @crc: IWCM_CRC_REQUEST or IWCM_CRC_PREFER_OFF.
 *
 * Context: Thread-safe for distinct parameters.
 * Return: 0, or -1 with errno EINVAL if @param is NULL or @crc unknown.
 */
int iwcm_conn_param_set_crc(struct iwcm_conn_param *param,
			    enum iwcm_crc_policy crc);

/**
 * iwcm_conn_param_set_rev0() - Set the policy toward Rev 0 peers.
 * @param: the parameters.
 * @rev0: IWCM_REV0_STRICT or IWCM_REV0_PERMISSIVE.
 *
 * Context: Thread-safe for distinct parameters.
 * Return: 0, or -1 with errno EINVAL if @param is NULL or @rev0 unknown.
 */
int iwcm_conn_param_set_rev0(struct iwcm_conn_param *param,
			     enum iwcm_rev0_policy rev0);

/**
 * iwcm_conn_param_set_fallback() - Allow the enhanced-to-v1 retry.
 * @param: the parameters.
 * @fallback: true to retry without enhanced connection establishment
 *	when an unenhanced responder closes (RFC 6581 §10).
 *
 * Context: Thread-safe for distinct parameters.
 * Return: 0, or -1 with errno EINVAL if @param is NULL.
 */
int iwcm_conn_param_set_fallback(struct iwcm_conn_param *param, bool fallback);

/**
 * iwcm_conn_param_set_reply_timeout() - Set the MPA Reply timeout.
 * @param: the parameters.
 * @ms: milliseconds to wait for the peer's Reply, 100 to 600000.
 *
 * Context: Thread-safe for distinct parameters.
 * Return: 0, or -1 with errno EINVAL if @param is NULL or @ms is out of
 * range.
 */
int iwcm_conn_param_set_reply_timeout(struct iwcm_conn_param *param,
				      unsigned int ms);

/* The longest iwcm_conn_param_set_first_fpdu_delay() takes, in ms. */
#define IWCM_FIRST_FPDU_DELAY_MAX 10000

/**
 * iwcm_conn_param_set_first_fpdu_delay() - Hold the first FPDU.
 * @param: the parameters.
 * @ms: milliseconds the initiator waits after the peer's accepting Reply
 *	before its first FPDU: the RTR of a peer-to-peer connection, else
 *	the handoff (so the ULP's first message), 0 (the default of
 *	iwcmd.conf's first_fpdu_delay_ms, itself 0) to
 *	IWCM_FIRST_FPDU_DELAY_MAX.
 *
 * For responders that lose an FPDU arriving right after their Reply, as
 * Linux siw does (docs/interop.md); RFC 5044 §7.1.2 lets the initiator
 * send at once.
 *
 * Context: Thread-safe for distinct parameters.
 * Return: 0, or -1 with errno EINVAL if @param is NULL or @ms is out of
 * range.
 */
int iwcm_conn_param_set_first_fpdu_delay(struct iwcm_conn_param *param,
					 unsigned int ms);

/**
 * iwcm_conn_param_set_ulp_timeout() - Set the accept/reject timeout.
 * @param: the parameters.
 * @ms: milliseconds the daemon waits for iwcm_accept() or iwcm_reject()
 *	after a connect request, 100 to 3600000.
 *
 * Context: Thread-safe for distinct parameters.
 * Return: 0, or -1 with errno EINVAL if @param is NULL or @ms is out of
 * range.
 */
int iwcm_conn_param_set_ulp_timeout(struct iwcm_conn_param *param,
				    unsigned int ms);

/* The longest iwcm_conn_param_set_tcp_user_timeout() takes, in ms. */
#define IWCM_TCP_USER_TIMEOUT_MAX 3600000u

/**
 * iwcm_conn_param_set_tcp_user_timeout() - End an unreachable connection.
 * @param: the parameters of iwcm_connect(), iwcm_listen() or
 *	iwcm_accept().
 * @ms: 1 to IWCM_TCP_USER_TIMEOUT_MAX: iwcmd sets TCP_USER_TIMEOUT to
 *	@ms and keepalive on the connection's socket before it hands it
 *	over, so that the connection ends, and its queue pair moves to
 *	the error state (flushed work requests, an asynchronous event),
 *	once data or a keepalive probe stays unacknowledged for @ms; 0:
 *	the kernel's defaults (minutes).
 *	Without it, iwcmd.conf's tcp_user_timeout_ms (default 0) holds.
 *	MPA over TCP only.
 *
 * Context: Thread-safe for distinct parameters.
 * Return: 0, or -1 with errno EINVAL if @param is NULL or @ms is out of
 * range.
 */
int iwcm_conn_param_set_tcp_user_timeout(struct iwcm_conn_param *param,
					 unsigned int ms);

/**
 * iwcm_conn_param_set_rtr_frame() - Use the legacy "MPA ID RtR Frame".
 * @param: the parameters.
 * @rtr_frame: true to use the 2007 RtR frame; both ends must be
 *	configured for it, it is never detected.
 *
 * Context: Thread-safe for distinct parameters.
 * Return: 0, or -1 with errno EINVAL if @param is NULL.
 */
int iwcm_conn_param_set_rtr_frame(struct iwcm_conn_param *param,
				  bool rtr_frame);

/**
 * iwcm_conn_param_set_transport() - Set the transport.
 * @param: the parameters.
 * @transport: IWCM_TRANSPORT_TCP or IWCM_TRANSPORT_SCTP.
 *
 * Context: Thread-safe for distinct parameters.
 * Return: 0, or -1 with errno EINVAL if @param is NULL or @transport
 * unknown.
 */
int iwcm_conn_param_set_transport(struct iwcm_conn_param *param,
				  enum iwcm_transport transport);

/* ---- listeners ---- */

/**
 * iwcm_listen() - Listen for connection requests.
 * @ctx: the context that receives the requests.
 * @addr: local IPv4 or IPv6 address and port to bind (port 0: any), or
 *	NULL with @service.
 * @service: name of a listener declared in iwcmd.conf(5), or NULL with
 *	@addr.
 * @param: defaults for the listener's connections, or NULL.
 * @backlog: TCP backlog, 0 for the daemon's default.
 *
 * Exactly one of @addr and @service is given.  Each request arrives as an
 * IWCM_CM_EVENT_CONNECT_REQUEST on @ctx.  Waits for the daemon's answer,
 * queueing any event that arrives meanwhile.
 *
 * Context: One thread per context.
 * Return: The listener, or NULL with errno set: EINVAL (bad arguments),
 * EACCES (port or service not allowed), EADDRINUSE, EEXIST, ENOENT (no
 * such service), EMFILE (per-user limit), EPROTO or ECONNRESET (the
 * daemon misbehaved or went away), ETIMEDOUT (no answer in 30 s), ENOMEM.
 */
struct iwcm_listener *iwcm_listen(struct iwcm_ctx *ctx,
				  const struct sockaddr *addr,
				  const char *service,
				  const struct iwcm_conn_param *param,
				  int backlog);

/**
 * iwcm_listener_close() - Stop listening and free a listener.
 * @listener: the listener, or NULL.
 *
 * Connections already requested through @listener stay valid.
 *
 * Context: One thread per context.
 * Return: 0, or -1 with errno set if the daemon did not confirm (the
 * listener is freed anyway).
 */
int iwcm_listener_close(struct iwcm_listener *listener);

/**
 * iwcm_listener_get_addr() - The address a listener is bound to.
 * @listener: the listener.
 *
 * The port is the one bound, also when 0 was asked for.
 *
 * Context: One thread per context.
 * Return: A sockaddr_in or sockaddr_in6 that lives as long as @listener,
 * or NULL with errno EINVAL if @listener is NULL.
 */
const struct sockaddr *
iwcm_listener_get_addr(const struct iwcm_listener *listener);

/**
 * iwcm_listener_get_port() - The TCP port a listener is bound to.
 * @listener: the listener.
 *
 * Context: One thread per context.
 * Return: The port in host byte order, or -1 with errno EINVAL if
 * @listener is NULL.
 */
int iwcm_listener_get_port(const struct iwcm_listener *listener);

/* ---- connections ---- */

/**
 * iwcm_connect() - Start an outgoing connection.
 * @ctx: the context that receives the connection's events.
 * @dst: the peer's IPv4 or IPv6 address and port.
 * @src: local address to bind (port 0: any), or NULL.
 * @param: connection parameters, or NULL for the daemon's defaults.
 *
 * The daemon connects and negotiates; the outcome arrives on @ctx as
 * exactly one of IWCM_CM_EVENT_ESTABLISHED, IWCM_CM_EVENT_REJECTED,
 * IWCM_CM_EVENT_UNREACHABLE or IWCM_CM_EVENT_CONNECT_ERROR naming the returned
 * connection.  Waits for the daemon to accept the request, queueing any
 * event that arrives meanwhile, unless @ctx was opened with
 * IWCM_CTX_ASYNC_CM: then a refusal is a CONNECT_ERROR too.
 *
 * Context: One thread per context.
 * Return: The connection (free it with iwcm_conn_free()), or NULL with
 * errno set: EINVAL (bad address or parameters, private data too long
 * for the MPA revision), EAFNOSUPPORT, EACCES, EMFILE, EPROTO,
 * ECONNRESET, ETIMEDOUT, ENOMEM; with IWCM_CTX_ASYNC_CM only EINVAL,
 * EAFNOSUPPORT, ECONNRESET, EAGAIN (the daemon's socket is full) and
 * ENOMEM.
 */
struct iwcm_conn *iwcm_connect(struct iwcm_ctx *ctx, const struct sockaddr *dst,
			       const struct sockaddr *src,
			       const struct iwcm_conn_param *param);

/**
 * iwcm_accept() - Accept a connection request.
 * @conn: the connection of an IWCM_CM_EVENT_CONNECT_REQUEST.
 * @param: parameters for the reply (IRD/ORD, private data, RTR types), or
 *	NULL for the listener's defaults.
 *
 * The daemon sends the MPA Reply and, for peer-to-peer connections,
 * completes the RTR exchange; then IWCM_CM_EVENT_ESTABLISHED (or
 * IWCM_CM_EVENT_CONNECT_ERROR) arrives for @conn.  With
 * IWCM_CTX_ASYNC_CM an expired request is a CONNECT_ERROR
 * (IWCM_STATUS_NOENT) instead of ENOENT.
 *
 * Context: One thread per context.
 * Return: 0, or -1 with errno set: EINVAL (@conn is not a pending
 * request, bad parameters), ENOENT (the request expired: @conn then
 * reports IWCM_STATUS_NOENT), EPROTO, ECONNRESET, ETIMEDOUT.
 */
int iwcm_accept(struct iwcm_conn *conn, const struct iwcm_conn_param *param);

/**
 * iwcm_reject() - Reject a connection request.
 * @conn: the connection of an IWCM_CM_EVENT_CONNECT_REQUEST.
 * @private_data: private data for the peer (copied), or NULL.
 * @len: length of @private_data: at most IWCM_PRIVATE_DATA_MAX_ENHANCED
 *	when the request was enhanced, else IWCM_PRIVATE_DATA_MAX.
 *
 * The daemon sends an MPA Reply with the R bit and closes the socket.
 * @conn must still be freed with iwcm_conn_free().
 *
 * Context: One thread per context.
 * Return: 0, or -1 with errno set: EINVAL (@conn is not a pending
 * request, @len too big), ENOENT (the request expired: @conn then
 * reports IWCM_STATUS_NOENT), EPROTO, ECONNRESET, ETIMEDOUT.
 */
int iwcm_reject(struct iwcm_conn *conn, const void *private_data, size_t len);

/**
 * iwcm_conn_free() - Free a connection.
 * @conn: the connection, or NULL.
 *
 * Closes the connection's socket unless iwcm_conn_release_fd() took it.
 * A connection still being negotiated is abandoned (the daemon closes
 * it).  Queued events of @conn are dropped; an event already returned by
 * iwcm_get_event() stays readable until it is acknowledged, but its
 * connection must not be used.
 *
 * Context: One thread per context.
 */
void iwcm_conn_free(struct iwcm_conn *conn);

/**
 * iwcm_conn_query() - What is known of a connection.
 * @conn: the connection.
 * @attr: where to store the attributes; the caller sets its comp_mask
 *	first, to an OR of enum iwcm_conn_attr_mask (IWCM_CONN_ATTR_ALL for
 *	every group).
 *
 * One call replaces a getter per field, as ibv_query_qp(3) does.  The
 * identity, reason and peer address are always written.  For each group
 * asked for, comp_mask keeps its bit when the group is known (see enum
 * iwcm_conn_attr_mask for when) and loses it otherwise, its fields then
 * zero: before IWCM_CM_EVENT_ESTABLISHED, IWCM_CONN_ATTR_NEGOTIATED is
 * cleared and @attr->crc reads false.  Groups not asked for are left
 * untouched.  The pointers in @attr (reason text, unread octets, next
 * MSNs, private data) belong to @conn and live as long as it; the socket
 * is iwcm_conn_get_fd()'s.
 *
 * Context: One thread per context.
 * Return: 0, or -1 with errno EINVAL if @conn or @attr is NULL or
 * comp_mask has a bit this version of the library does not know.
 */
int iwcm_conn_query(const struct iwcm_conn *conn, struct iwcm_conn_attr *attr);

/**
 * iwcm_conn_get_fd() - The socket of an established connection.
 * @conn: the connection.
 *
 * The socket stays owned by @conn and is closed by iwcm_conn_free().
 * Data the daemon read past the handshake is in the unread field of
 * iwcm_conn_query(), not in the socket; the Read Response to a Read RTR
 * may still be due in it (IWCM_CONN_ATTR_RTR_READ).
 *
 * Context: Safe to call from any thread while @conn is not freed; the
 * descriptor is then only useful if no other thread takes it.
 * Return: The descriptor, or -1 with errno ENOTCONN before
 * IWCM_CM_EVENT_ESTABLISHED, EBADF after iwcm_conn_release_fd() or
 * iwcm_create_qp(), EINVAL if @conn is NULL.
 */
int iwcm_conn_get_fd(const struct iwcm_conn *conn);

/**
 * iwcm_conn_release_fd() - Take the socket of an established connection.
 * @conn: the connection.
 *
 * Ownership moves to the caller, who must close the descriptor;
 * iwcm_conn_free() no longer closes it.  The negotiated state stays
 * readable.  The socket is taken exactly once: of this function and
 * iwcm_create_qp() racing for the same connection in two threads, one
 * gets it and the other fails with EBADF.
 *
 * Context: Safe to call from any thread while @conn is not freed.
 * Return: The descriptor, once; -1 with errno ENOTCONN before
 * IWCM_CM_EVENT_ESTABLISHED, EBADF when already taken, EINVAL if @conn is
 * NULL.
 */
int iwcm_conn_release_fd(struct iwcm_conn *conn);

/* ---- events ---- */

/**
 * iwcm_get_event() - Get the next event of a context.
 * @ctx: the context.
 * @event: where to store the event.
 *
 * Waits for an event unless @ctx was opened with IWCM_CTX_NONBLOCK.
 * Every event must be given back with iwcm_ack_event().
 *
 * Context: One thread per context.
 * Return: 0, or -1 with errno set: EAGAIN (non-blocking and no event
 * ready), ECONNRESET (the daemon went away; every connection still being
 * negotiated got an IWCM_CM_EVENT_CONNECT_ERROR first), EINTR, EINVAL,
 * ENOMEM.
 */
int iwcm_get_event(struct iwcm_ctx *ctx, struct iwcm_event **event);

/**
 * iwcm_ack_event() - Free an event.
 * @event: the event, or NULL.
 *
 * The event's connection stays valid; after an
 * IWCM_CM_EVENT_CONNECT_REQUEST it belongs to the caller, who accepts or
 * rejects it and frees it with iwcm_conn_free().
 *
 * Context: One thread per context.
 */
void iwcm_ack_event(struct iwcm_event *event);

/**
 * iwcm_event_get_type() - What an event reports.
 * @event: the event.
 *
 * Context: One thread per context.
 * Return: The event's type, or 0 (no event type) with errno EINVAL if
 * @event is NULL.
 */
enum iwcm_cm_event_type iwcm_event_get_type(const struct iwcm_event *event);

/**
 * iwcm_event_get_conn() - The connection an event is about.
 * @event: the event.
 *
 * Context: One thread per context.
 * Return: The connection, or NULL with errno EINVAL if @event is NULL.
 */
struct iwcm_conn *iwcm_event_get_conn(const struct iwcm_event *event);

/**
 * iwcm_event_get_listener() - The listener of a connection request.
 * @event: an IWCM_CM_EVENT_CONNECT_REQUEST.
 *
 * Context: One thread per context.
 * Return: The listener, or NULL with errno EINVAL if @event is NULL,
 * ENOENT for other events or when the listener is closed.
 */
struct iwcm_listener *iwcm_event_get_listener(const struct iwcm_event *event);

/**
 * iwcm_cm_event_str() - The name of a connection manager event type.
 * @type: the event type.
 *
 * Context: Thread-safe.
 * Return: A static string such as "ESTABLISHED"; "UNKNOWN" for an unknown
 * @type.
 */
const char *iwcm_cm_event_str(enum iwcm_cm_event_type type);

/**
 * iwcm_status_str() - Describe a connection failure reason.
 * @status: the reason, as in the reason field of iwcm_conn_query().
 *
 * Context: Thread-safe.
 * Return: A static string; "unknown status" for an unknown @status.
 */
const char *iwcm_status_str(enum iwcm_status status);

#ifdef __cplusplus
}
#endif

#endif
