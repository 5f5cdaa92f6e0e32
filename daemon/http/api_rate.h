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

/* Does cmd with args send MADs or switch requests? 1 or 0. */
int api_rate_spends(const char *cmd, const json_t *args);

/* May `who` spend now? 0 (and the time is taken), or the seconds to wait
 * (> 0). */
int api_rate_take(struct api_rate *r, const char *who, time_t now);

#endif
