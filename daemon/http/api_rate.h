/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/api_rate.h: what a `read` principal may spend on the fabric
 * through the REST API (issue 20: "no endpoint that spends SMPs on the
 * fabric is open to read without a rate limit"). A command that sends
 * MADs or switch requests when it runs (ar-status and route-trace unless
 * cached, counters and switch_counters with now, qos-status,
 * qos-ib-status, qos-ib-cc-status, tenant-verify) is let through for one
 * principal at most once per API_RATE_INTERVAL_S; roles tenant and admin
 * are trusted not to loop (the scheduler, the operators). Pure: the caller
 * gives the time. */
#ifndef LOOMD_API_RATE_H
#define LOOMD_API_RATE_H

#include <jansson.h>
#include <time.h>

#define API_RATE_INTERVAL_S 10
#define API_RATE_SLOTS 64      /* principals remembered; the oldest is forgotten */

struct api_rate_slot {
	char who[64];
	time_t last;
};

struct api_rate {
	struct api_rate_slot slots[API_RATE_SLOTS];
};

/* Does cmd with args send MADs or switch requests? 1 or 0: the control
 * socket's rule, ctl_limits_spends (daemon/core/ctl_limits.h). */
int api_rate_spends(const char *cmd, const json_t *args);

/* May `who` spend now? 0 (and the time is taken), or the seconds to wait
 * (> 0). */
int api_rate_take(struct api_rate *r, const char *who, time_t now);

/* Wrong credentials, per client address (issue 37): an address that
 * sent API_FAILS_MAX wrong tokens within API_FAILS_WINDOW_S is refused
 * (429, before its token is even looked at: right or wrong, it learns
 * nothing) until that window is over. API_FAILS_SLOTS addresses are
 * remembered, the one whose window is oldest forgotten first. Pure too:
 * the caller gives the time, and logs when api_fails_note says so. */
#define API_FAILS_MAX 10
#define API_FAILS_WINDOW_S 60
#define API_FAILS_SLOTS 256
#define API_FAILS_LOG_S 60     /* at most one log line this often */

struct api_fails_slot {
	char peer[64];
	time_t start;              /* its window's first failure */
	unsigned n;                /* failures in that window */
};

struct api_fails {
	struct api_fails_slot slots[API_FAILS_SLOTS];
	unsigned long long total;  /* every failure since the start */
	unsigned long unlogged;    /* failures since the last log line */
	time_t logged;             /* when the last line was logged */
};

/* The budget's key of a client address into out: an IPv4 address
 * itself, an IPv6 one's /64 ("2001:db8:1:2::/64": one host has them all). */
void api_fails_key(const char *addr, char *out, size_t len);
/* May `peer` try a credential now? 0, or the seconds to wait (> 0). */
int api_fails_wait(const struct api_fails *f, const char *peer, time_t now);
/* A wrong credential from `peer`: counted. 1 when the caller should log
 * it now (*since: the failures the line covers, from every address), 0
 * when a line was logged less than API_FAILS_LOG_S ago. */
int api_fails_note(struct api_fails *f, const char *peer, time_t now, unsigned long *since);
/* The one table of the listener (the API and /metrics share it: one
 * budget per address, one counter: loom_http_auth_failures_total). */
struct api_fails *api_fails_shared(void);

#endif
