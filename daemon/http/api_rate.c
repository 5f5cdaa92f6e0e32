/* daemon/http/api_rate.c: see api_rate.h. */
#include "autoconf.h"
#include "daemon/http/api_rate.h"

#include <stdio.h>
#include <string.h>

int api_rate_spends(const char *cmd, const json_t *args)
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

int api_rate_take(struct api_rate *r, const char *who, time_t now)
{
	struct api_rate_slot *s = NULL, *oldest = &r->slots[0];

	for (size_t i = 0; i < API_RATE_SLOTS; i++) {
		if (r->slots[i].who[0] && !strcmp(r->slots[i].who, who)) {
			s = &r->slots[i];
			break;
		}
		if (r->slots[i].last < oldest->last || !r->slots[i].who[0])
			oldest = &r->slots[i];
	}
	if (s && now >= s->last && now - s->last < API_RATE_INTERVAL_S)
		return (int)(API_RATE_INTERVAL_S - (now - s->last));
	if (!s) {
		s = oldest;
		snprintf(s->who, sizeof(s->who), "%s", who);
	}
	s->last = now;
	return 0;
}
