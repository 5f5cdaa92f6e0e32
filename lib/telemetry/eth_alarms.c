/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/eth_alarms.c: see eth_alarms.h. */
#include "autoconf.h"
#include "lib/telemetry/eth_alarms.h"

#include <stdio.h>
#include <string.h>

/* name is base or base.<p|q>N. */
static int is(const char *name, const char *base)
{
	size_t n = strlen(base);

	return !strncmp(name, base, n) && (name[n] == '\0' || name[n] == '.');
}

/* A delta that says something happened (exact or a lower bound), and its
 * size; 0 for first, not read or anything else. */
static json_int_t moved(const json_t *d, int *counted)
{
	const char *st = json_string_value(json_object_get(d, "state"));

	*counted = st && (!strcmp(st, "ok") || !strcmp(st, "reset") || !strcmp(st, "saturated"));
	return *counted ? json_integer_value(json_object_get(d, "delta")) : 0;
}

/* Append "NAME" and what (", " between) to why. */
static void add(char *why, size_t len, const char *name, const char *what)
{
	size_t at = strlen(why);

	if (at < len)
		snprintf(why + at, len - at, "%s%s%s", at ? ", " : "", name, what);
}

static const char *num(char *buf, size_t len, const char *before, double v, const char *after)
{
	snprintf(buf, len, "%s%.0f%s", before, v, after);
	return buf;
}

void eth_alarms_judge(const struct port_thresholds *t, const json_t *port,
		      struct port_judgement *j)
{
	const json_t *deltas = json_object_get(port, "deltas"), *rates = json_object_get(port, "rates");
	const json_t *gauges = json_object_get(port, "gauges"), *v;
	const size_t len = sizeof(j->why[0]);
	json_int_t errors = 0, storms = 0;
	const char *name;
	char b[48];
	int any_err = 0, any_storm = 0, counted;

	memset(j, 0, sizeof(*j));
	j->known |= 1u << PORT_ALARM_UNREADABLE;
	if (!json_is_true(json_object_get(port, "answered"))) {
		const char *r = json_string_value(json_object_get(port, "reason"));

		j->active |= 1u << PORT_ALARM_UNREADABLE;
		snprintf(j->why[PORT_ALARM_UNREADABLE], len, "%s", r && r[0] ? r : "not read");
		return;
	}
	/* A test turned off holds for no port (see port_alarms_judge). */
	if (t->errors <= 0)
		j->known |= 1u << PORT_ALARM_LINK_ERRORS;
	if (t->pfc_watchdog <= 0 && t->pfc_pause_per_s <= 0)
		j->known |= 1u << PORT_ALARM_PFC_STORM;
	if (t->ecn_marked_per_s <= 0)
		j->known |= 1u << PORT_ALARM_ECN_MARKING;
	json_object_foreach((json_t *)deltas, name, v) {
		json_int_t n = moved(v, &counted);

		if (is(name, "in_errors") || is(name, "out_errors")) {
			any_err |= counted;
			errors += n;
			if (n > 0 && t->errors > 0)
				add(j->why[PORT_ALARM_LINK_ERRORS], len, name,
				    num(b, sizeof(b), "+", (double)n, ""));
		} else if (is(name, "pfcwd_storm_detected") || is(name, "pause_storm_warning") ||
			   is(name, "pause_storm_error")) {
			any_storm |= counted;
			storms += n;
			if (n > 0 && t->pfc_watchdog > 0)
				add(j->why[PORT_ALARM_PFC_STORM], len, name,
				    num(b, sizeof(b), "+", (double)n, ""));
		}
	}
	if (t->errors > 0 && any_err) {
		j->known |= 1u << PORT_ALARM_LINK_ERRORS;
		if (errors >= t->errors)
			j->active |= 1u << PORT_ALARM_LINK_ERRORS;
	}
	if (t->pfc_watchdog > 0) {
		json_object_foreach((json_t *)gauges, name, v) {
			if (!is(name, "pfcwd_stormed"))
				continue;
			any_storm = 1;
			if (json_integer_value(v) > 0) {
				storms += t->pfc_watchdog;  /* held in a storm now */
				add(j->why[PORT_ALARM_PFC_STORM], len, name, " held by the watchdog");
			}
		}
		if (any_storm) {
			j->known |= 1u << PORT_ALARM_PFC_STORM;
			if (storms >= t->pfc_watchdog)
				j->active |= 1u << PORT_ALARM_PFC_STORM;
		}
	}
	json_object_foreach((json_t *)rates, name, v) {
		double r = json_number_value(v);

		if (is(name, "pfc_rx_pause") && t->pfc_pause_per_s > 0) {
			j->known |= 1u << PORT_ALARM_PFC_STORM;
			if (r >= t->pfc_pause_per_s) {
				j->active |= 1u << PORT_ALARM_PFC_STORM;
				add(j->why[PORT_ALARM_PFC_STORM], len, name,
				    num(b, sizeof(b), " ", r, "/s"));
			}
		} else if (is(name, "ecn_marked") && t->ecn_marked_per_s > 0) {
			j->known |= 1u << PORT_ALARM_ECN_MARKING;
			if (r >= t->ecn_marked_per_s) {
				j->active |= 1u << PORT_ALARM_ECN_MARKING;
				add(j->why[PORT_ALARM_ECN_MARKING], len, name,
				    num(b, sizeof(b), " ", r, "/s"));
			}
		}
	}
	/* Only what holds is explained. */
	for (int a = 0; a < PORT_ALARM_N; a++)
		if (!(j->active & (1u << a)))
			j->why[a][0] = '\0';
}
