# SPDX-License-Identifier: BSD-2-Clause
# libiwcm: one page per function of <iwcm/iwcm.h> and <iwcm/verbs.h>, made
# from their kernel-doc by kdoc2man.sh (tests/check_headers.sh checks that
# they match).
dist_man3_MANS = \
	iwcm_accept.3 \
	iwcm_ack_cq_events.3 \
	iwcm_ack_event.3 \
	iwcm_alloc_pd.3 \
	iwcm_cm_event_str.3 \
	iwcm_comp_channel_get_fd.3 \
	iwcm_conn_free.3 \
	iwcm_conn_get_fd.3 \
	iwcm_conn_param_free.3 \
	iwcm_conn_param_new.3 \
	iwcm_conn_param_set_crc.3 \
	iwcm_conn_param_set_fallback.3 \
	iwcm_conn_param_set_first_fpdu_delay.3 \
	iwcm_conn_param_set_ird.3 \
	iwcm_conn_param_set_markers.3 \
	iwcm_conn_param_set_mpa_rev.3 \
	iwcm_conn_param_set_ord.3 \
	iwcm_conn_param_set_p2p.3 \
	iwcm_conn_param_set_private_data.3 \
	iwcm_conn_param_set_reply_timeout.3 \
	iwcm_conn_param_set_rev0.3 \
	iwcm_conn_param_set_rtr_frame.3 \
	iwcm_conn_param_set_rtr_types.3 \
	iwcm_conn_param_set_transport.3 \
	iwcm_conn_param_set_ulp_timeout.3 \
	iwcm_conn_query.3 \
	iwcm_conn_release_fd.3 \
	iwcm_connect.3 \
	iwcm_create_comp_channel.3 \
	iwcm_create_cq.3 \
	iwcm_create_qp.3 \
	iwcm_create_srq.3 \
	iwcm_ctx_close.3 \
	iwcm_ctx_get_async_fd.3 \
	iwcm_ctx_get_fd.3 \
	iwcm_ctx_poll_us.3 \
	iwcm_ctx_open.3 \
	iwcm_ctx_open_path.3 \
	iwcm_dealloc_pd.3 \
	iwcm_dereg_mr.3 \
	iwcm_destroy_comp_channel.3 \
	iwcm_destroy_cq.3 \
	iwcm_destroy_qp.3 \
	iwcm_destroy_srq.3 \
	iwcm_event_get_conn.3 \
	iwcm_event_get_listener.3 \
	iwcm_event_get_type.3 \
	iwcm_get_async_event.3 \
	iwcm_get_async_event_sz.3 \
	iwcm_get_cq_event.3 \
	iwcm_get_event.3 \
	iwcm_listen.3 \
	iwcm_listener_close.3 \
	iwcm_listener_get_addr.3 \
	iwcm_listener_get_port.3 \
	iwcm_mr_get_stag.3 \
	iwcm_poll_cq.3 \
	iwcm_poll_cq_sz.3 \
	iwcm_post_recv.3 \
	iwcm_post_send.3 \
	iwcm_post_srq_recv.3 \
	iwcm_progress.3 \
	iwcm_qp_progress.3 \
	iwcm_qp_disconnect.3 \
	iwcm_qp_get_context.3 \
	iwcm_qp_send_room.3 \
	iwcm_query_qp.3 \
	iwcm_reg_mr.3 \
	iwcm_reject.3 \
	iwcm_req_notify_cq.3 \
	iwcm_status_str.3 \
	iwcm_wc_status_str.3
dist_noinst_SCRIPTS = kdoc2man.sh
