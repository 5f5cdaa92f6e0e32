/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/ctl_limits.c: the control socket's bounds (see ctl_limits.h).
 *
 * Modelled on OpenBSD bgpd's control.c, which stops reading a client whose
 * imsg queue is long and refuses connections past a limit (keeping accept
 * paused while descriptors are short), and on lldpd, whose control socket
 * serves one request at a time. The reserve is this file's own addition:
 * a full socket must never lock out the operator who comes to look. */
#include "autoconf.h"
#include "daemon/core/ctl_limits.h"
#include "daemon/core/usock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/util/clock.h"
#include "lib/util/log.h"
#include "lib/util/proto.h"

void ctl_limits_default(struct ctl_limits *l)
{
	l->max_output = CTL_MAX_OUTPUT_DEFAULT;
	l->stall_timeout_s = CTL_STALL_TIMEOUT_S_DEFAULT;
	l->idle_timeout_s = CTL_IDLE_TIMEOUT_S_DEFAULT;
	l->max_clients = CTL_MAX_CLIENTS_DEFAULT;
	l->max_per_uid = CTL_MAX_PER_UID_DEFAULT;
	l->reserve = CTL_RESERVE_DEFAULT;
	l->read_rate_s = CTL_READ_RATE_S_DEFAULT;
}

int ctl_limits_check(const struct ctl_limits *l, char *err, size_t errlen)
{
	if (l->max_output < PROTO_HEADER_LEN + 1)
		snprintf(err, errlen, "max_output_bytes must be at least %d", PROTO_HEADER_LEN + 1);
	else if (l->stall_timeout_s == 0)
		snprintf(err, errlen, "stall_timeout_s must be at least 1");
	else if (l->max_clients < 2)
		snprintf(err, errlen, "max_clients must be at least 2");
	else if (l->max_per_uid == 0)
		snprintf(err, errlen, "max_clients_per_uid must be at least 1");
	else if (l->reserve == 0 || l->reserve >= l->max_clients)
		snprintf(err, errlen, "the reserve (%u) must be from 1 to max_clients - 1 (%u)",
			 l->reserve, l->max_clients - 1);
	else
		return 0;
	return -EINVAL;
}

enum ctl_admit ctl_limits_admit(const struct ctl_limits *l, uid_t uid, unsigned total,
				unsigned of_uid)
{
	if (total >= l->max_clients)
		return CTL_REFUSE_FULL;
	if (uid == 0)
		return CTL_ADMIT;
	if (of_uid >= l->max_per_uid)
		return CTL_REFUSE_UID;
	if (total < l->max_clients - l->reserve)
		return CTL_ADMIT;
	/* The reserve; its last place is root's alone, so that admins whose
	 * membership is still being looked up cannot take it from root. */
	return total + 1 < l->max_clients ? CTL_ADMIT_IF_ADMIN : CTL_REFUSE_FULL;
}

int ctl_limits_spends(const char *cmd, const json_t *args)
{
	static const char *const always[] = {
		"qos-status", "qos-ib-status", "qos-ib-cc-status", "tenant-verify",
	};

	if (!strcmp(cmd, "ar-status") || !strcmp(cmd, "route-trace"))
		return !json_is_true(json_object_get(args, "cached"));
	if (!strcmp(cmd, "counters") || !strcmp(cmd, "switch_counters"))
		return json_is_true(json_object_get(args, "now"));
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++)
		if (!strcmp(cmd, always[i]))
			return 1;
	return 0;
}

unsigned ctl_limits_rate_take(struct ctl_rate *r, uid_t uid, double now, unsigned interval)
{
	struct ctl_rate_slot *s = NULL, *oldest = &r->slots[0];

	if (!interval)
		return 0;
	for (size_t i = 0; i < CTL_RATE_SLOTS && !s; i++) {
		struct ctl_rate_slot *t = &r->slots[i];

		if (t->used && t->uid == uid)
			s = t;
		else if (!t->used || (oldest->used && t->last < oldest->last))
			oldest = t;
	}
	/* A clock that went back (another base in a test) counts as spent. */
	if (s && now >= s->last && now - s->last < interval) {
		double left = interval - (now - s->last);
		unsigned whole = (unsigned)left;

		return whole + (left > whole);
	}
	if (!s) {
		s = oldest;
		s->uid = uid;
		s->used = 1;
	}
	s->last = now;
	return 0;
}

void ctl_limits_refusal(const struct ctl_limits *l, struct ctl_refusals *r, enum ctl_admit why,
			uid_t uid, pid_t pid, char *msg, size_t len)
{
	if (why == CTL_REFUSE_UID)
		snprintf(msg, len, "uid %d already has %u connections to loomd, the most one user "
			 "may have (control.max_clients_per_uid); close some and try again",
			 (int)uid, l->max_per_uid);
	else if (why == CTL_ADMIT_IF_ADMIN)
		snprintf(msg, len, "loomd's control connections are all in use; the last %u are kept "
			 "for root and control.admin_group; try again later", l->reserve);
	else
		snprintf(msg, len, "loomd's control connections are all in use (%u, "
			 "control.max_clients); try again later", l->max_clients);
	ctl_refusals_note(r, uid, pid, msg);
}

void ctl_limits_refuse_fd(int fd, const char *msg)
{
	json_t *resp = proto_response_err_new(0, PROTO_ERR_BUSY, "%s", msg);
	char *buf = NULL;
	size_t len = 0;
	int rc;

	/* A fresh socket's buffer is empty: one send either fits or the
	 * client simply sees the connection closed. */
	if (resp && proto_frame_new(resp, PROTO_MAX_RESPONSE, &buf, &len) == 0 &&
	    (rc = usock_send_nowait(fd, buf, len)) < 0)
		log_debug("control: cannot tell a refused client why: %s", strerror(-rc));
	json_decref(resp);
	free(buf);
	shutdown(fd, SHUT_RDWR);
	close(fd);
}

void ctl_refusals_note(struct ctl_refusals *r, uid_t uid, pid_t pid, const char *msg)
{
	double now = clock_mono();

	if (r->logged_at && now - r->logged_at < CTL_REFUSE_LOG_S) {
		r->unlogged++;
		return;
	}
	ctl_refusals_flush(r);
	log_warn("control: refused a connection of uid %d (pid %d): %s", (int)uid, (int)pid, msg);
	r->logged_at = now;
}

void ctl_refusals_flush(struct ctl_refusals *r)
{
	if (r->unlogged)
		log_warn("control: %u more connections refused in the last %d s or less",
			 r->unlogged, CTL_REFUSE_LOG_S);
	r->unlogged = 0;
}
