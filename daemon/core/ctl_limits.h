/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/ctl_limits.h: the bounds that keep one local user from taking
 * loomd's control socket (daemon/core/ctl.c) away from everyone else: its
 * memory, its descriptors, or root's way in.
 *
 * - Output: what is queued for one client is bounded by max_output (plus the
 *   one reply that crossed it): above it, that client's next request is not
 *   read until its queue drains to half the mark; a client that stays
 *   above it for stall_timeout_s seconds is dropped.
 * - Connections: at most max_clients at once, of which `reserve` only for
 *   root and members of control.admin_group, and at most max_per_uid of
 *   any one uid other than root. A connection refused gets one framed
 *   "busy" error (it costs one send on an empty socket) and is closed;
 *   refusals are logged at most once per CTL_REFUSE_LOG_S.
 * - Idle: a connection with no request in flight and nothing sent for
 *   idle_timeout_s seconds is closed (0: never). A client waiting for a
 *   long answer (a handler answers "exactly once, possibly later") is never
 *   idle.
 * - Fabric reads: a command that sends MADs or switch requests when it runs
 *   (ctl_limits_spends, the rule the REST API's role read has too,
 *   daemon/http/api_rate.h) runs for a uid of role read (neither root nor
 *   control.admin_group nor a tenant writer) at most once per read_rate_s
 *   seconds (control.read_rate_s; 0: no limit); sooner is "busy" with the
 *   seconds to wait, so that local users looping `counters --now` cannot
 *   keep the fabric, or root, waiting.
 *
 * The decisions are here, pure, so that they are tested alone; ctl.c applies
 * them to its clients. */
#ifndef LOOMD_CTL_LIMITS_H
#define LOOMD_CTL_LIMITS_H

#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#define CTL_MAX_OUTPUT_DEFAULT      (4u * 1024u * 1024u)
#define CTL_STALL_TIMEOUT_S_DEFAULT 30u
#define CTL_IDLE_TIMEOUT_S_DEFAULT  300u
#define CTL_MAX_CLIENTS_DEFAULT     64u
#define CTL_MAX_PER_UID_DEFAULT     16u
#define CTL_RESERVE_DEFAULT         8u
#define CTL_READ_RATE_S_DEFAULT     10u
/* Refusals are logged once in this many seconds, with a count of the rest. */
#define CTL_REFUSE_LOG_S            60

struct ctl_limits {
	size_t max_output;          /* bytes queued for one client */
	unsigned stall_timeout_s;   /* above max_output this long: dropped */
	unsigned idle_timeout_s;    /* nothing in flight this long: closed; 0 never */
	unsigned max_clients;       /* connections at once, the reserve included */
	unsigned max_per_uid;       /* of one uid other than root */
	unsigned reserve;           /* of max_clients, for root and the admin group */
	unsigned read_rate_s;       /* role read: one fabric read per uid this often; 0 any */
};

void ctl_limits_default(struct ctl_limits *l);
/* 0, or -EINVAL with the reason in err (a zero bound, a reserve that leaves
 * no room for anyone else or none for root). */
int ctl_limits_check(const struct ctl_limits *l, char *err, size_t errlen);

enum ctl_admit {
	CTL_ADMIT,            /* within the bounds */
	CTL_ADMIT_IF_ADMIN,   /* only the reserve is left: root's or the admin group's */
	CTL_REFUSE_FULL,      /* every connection is taken */
	CTL_REFUSE_UID,       /* this uid has max_per_uid already */
};

/* The decision for a new connection of `uid` while `total` connections are
 * open, `of_uid` of them that uid's. Root is refused only when all of
 * max_clients are taken; the last of them is only ever root's. */
enum ctl_admit ctl_limits_admit(const struct ctl_limits *l, uid_t uid, unsigned total,
				unsigned of_uid);

/* Does command cmd with args send MADs or switch requests when it runs?
 * 1 or 0: ar-status and route-trace unless "cached", counters and
 * switch_counters with "now", qos-status, qos-ib-status, qos-ib-cc-status,
 * tenant-verify. The socket's rule and the REST API's (api_rate.h). */
int ctl_limits_spends(const char *cmd, const json_t *args);

/* The fabric reads of role read per uid: the last one each uid ran (the
 * longest unused is forgotten when all are taken). */
#define CTL_RATE_SLOTS 64
struct ctl_rate {
	struct ctl_rate_slot {
		uid_t uid;
		int used;
		double last;      /* clock_mono() when it ran */
	} slots[CTL_RATE_SLOTS];
};
/* May uid run a fabric read at `now` (seconds, monotonic) with one allowed
 * per `interval` s? 0, and it is counted; else the whole seconds to wait
 * (>= 1), nothing counted. interval 0: always 0. */
unsigned ctl_limits_rate_take(struct ctl_rate *r, uid_t uid, double now, unsigned interval);

struct ctl_refusals;
/* A refusal of uid's (pid's) connection: logged through r, and in msg the
 * message of the "busy" error it gets, saying why and what to change. */
void ctl_limits_refusal(const struct ctl_limits *l, struct ctl_refusals *r, enum ctl_admit why,
			uid_t uid, pid_t pid, char *msg, size_t len);
/* Answer a connection that is not taken with `msg` (one non-blocking send),
 * then close fd. */
void ctl_limits_refuse_fd(int fd, const char *msg);

/* Refusals, logged at most once per CTL_REFUSE_LOG_S with a count of the
 * ones not logged, so that a loop of connections does not flood the log. */
struct ctl_refusals {
	double logged_at;     /* clock_mono() of the last line; 0 none yet */
	unsigned unlogged;    /* refused since without a line */
};
void ctl_refusals_note(struct ctl_refusals *r, uid_t uid, pid_t pid, const char *msg);
/* Say how many went unlogged (at shutdown). */
void ctl_refusals_flush(struct ctl_refusals *r);

#endif
