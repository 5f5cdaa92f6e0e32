/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/port_alarms.c: see port_alarms.h. */
#include "autoconf.h"
#include "lib/telemetry/port_alarms.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const names[PORT_ALARM_N] = {
	[PORT_ALARM_LINK_ERRORS] = "link_errors",
	[PORT_ALARM_LINK_CONGESTED] = "link_congested",
	[PORT_ALARM_LINK_FLAPPED] = "link_flapped",
	[PORT_ALARM_UNREADABLE] = "counters_unreadable",
	[PORT_ALARM_PFC_STORM] = "pfc_storm",
	[PORT_ALARM_ECN_MARKING] = "ecn_marking",
};

const char *port_alarm_name(enum port_alarm a)
{
	return (unsigned)a < PORT_ALARM_N ? names[a] : NULL;
}

int port_alarm_by_name(const char *s)
{
	for (int a = 0; s && a < PORT_ALARM_N; a++)
		if (!strcmp(names[a], s))
			return a;
	return -1;
}

/* A delta that says something happened: exact, or a lower bound. */
static int counted(const struct cdelta *d)
{
	return d->state == CDELTA_OK || d->state == CDELTA_RESET || d->state == CDELTA_SATURATED;
}

/* Append "NAME+N" (">=N" for a lower bound) to why. */
static void say(char *why, size_t len, enum pma_counter c, const struct cdelta *d)
{
	size_t at = strlen(why);

	if (at < len)
		snprintf(why + at, len - at, "%s%s%s%llu", at ? " " : "", pma_counter_name(c),
			 d->state == CDELTA_OK ? "+" : ">=", (unsigned long long)d->delta);
}

static void judge_errors(const struct port_thresholds *t, const struct port_reading *r,
			 struct port_judgement *j)
{
	const unsigned bit = 1u << PORT_ALARM_LINK_ERRORS;
	char *why = j->why[PORT_ALARM_LINK_ERRORS];
	const size_t len = sizeof(j->why[0]);
	uint64_t sum = 0;
	int any = 0;

	for (int c = 0; c < PMA_N_COUNTERS; c++) {
		if (!pma_counter_is_error(c) || c == PMA_LINK_DOWNED || !counted(&r->d[c]))
			continue;
		any = 1;
		sum += r->d[c].delta;
	}
	if (t->errors > 0 && any) {
		j->known |= bit;
		if (sum >= (uint64_t)t->errors) {
			j->active |= bit;
			for (int c = 0; c < PMA_N_COUNTERS; c++)
				if (pma_counter_is_error(c) && c != PMA_LINK_DOWNED &&
				    counted(&r->d[c]) && r->d[c].delta)
					say(why, len, c, &r->d[c]);
		}
	}
	/* The ratio needs exact counts of both: a lower bound of errors over
	 * an unknown number of bits says nothing. */
	if (t->ber_exp > 0 && r->d[PMA_SYMBOL_ERR].state == CDELTA_OK &&
	    r->d[PMA_RCV_DATA].state == CDELTA_OK && r->d[PMA_RCV_DATA].delta > 0) {
		double bits = (double)r->d[PMA_RCV_DATA].delta * 32.0;
		double ber = (double)r->d[PMA_SYMBOL_ERR].delta / bits;
		double limit = pow(10.0, -(double)t->ber_exp);

		j->known |= bit;
		if (ber > limit) {
			size_t at = strlen(why);

			j->active |= bit;
			if (at < len)
				snprintf(why + at, len - at, "%ssymbol error ratio %.1e > 1e-%d",
					 at ? ", " : "", ber, t->ber_exp);
		}
	}
}

void port_alarms_judge(const struct port_thresholds *t, const struct port_reading *r,
		       struct port_judgement *j)
{
	memset(j, 0, sizeof(*j));
	j->known |= 1u << PORT_ALARM_UNREADABLE;
	if (!r->answered) {
		j->active |= 1u << PORT_ALARM_UNREADABLE;
		snprintf(j->why[PORT_ALARM_UNREADABLE], sizeof(j->why[0]), "%s",
			 r->reason && r->reason[0] ? r->reason : "no answer");
		return;  /* nothing else can be judged */
	}
	/* A test turned off holds for no port: an alarm it raised before
	 * the change calms down and clears like any other. */
	if (t->errors <= 0 && t->ber_exp <= 0)
		j->known |= 1u << PORT_ALARM_LINK_ERRORS;
	if (t->link_downed <= 0)
		j->known |= 1u << PORT_ALARM_LINK_FLAPPED;
	if (t->xmit_wait_per_s <= 0)
		j->known |= 1u << PORT_ALARM_LINK_CONGESTED;
	judge_errors(t, r, j);
	if (t->link_downed > 0 && counted(&r->d[PMA_LINK_DOWNED])) {
		j->known |= 1u << PORT_ALARM_LINK_FLAPPED;
		if (r->d[PMA_LINK_DOWNED].delta >= (uint64_t)t->link_downed) {
			j->active |= 1u << PORT_ALARM_LINK_FLAPPED;
			say(j->why[PORT_ALARM_LINK_FLAPPED], sizeof(j->why[0]), PMA_LINK_DOWNED,
			    &r->d[PMA_LINK_DOWNED]);
		}
	}
	if (t->xmit_wait_per_s > 0) {
		double rate;

		if (cdelta_rate(&r->d[PMA_XMIT_WAIT], r->interval_s, &rate) == 0) {
			j->known |= 1u << PORT_ALARM_LINK_CONGESTED;
			if (rate >= (double)t->xmit_wait_per_s) {
				j->active |= 1u << PORT_ALARM_LINK_CONGESTED;
				snprintf(j->why[PORT_ALARM_LINK_CONGESTED], sizeof(j->why[0]),
					 "PortXmitWait %.0f ticks/s (threshold %d)", rate,
					 t->xmit_wait_per_s);
			}
		}
	}
}

enum port_alarm_step port_alarm_step(int *raised, int *calm, int known, int active,
				     int clear_after)
{
	if (!known)
		return PORT_ALARM_STAY;
	if (active) {
		*calm = 0;
		if (*raised)
			return PORT_ALARM_STAY;
		*raised = 1;
		return PORT_ALARM_RAISE;
	}
	if (!*raised)
		return PORT_ALARM_STAY;
	if (++*calm < (clear_after > 0 ? clear_after : 1))
		return PORT_ALARM_STAY;
	*raised = 0;
	*calm = 0;
	return PORT_ALARM_CLEAR;
}
