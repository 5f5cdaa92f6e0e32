/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/port_alarms.h: when a port's counters raise an alarm, and
 * when it clears (issue 19: health and alarms). Pure functions.
 *
 * Each counters read of a port is judged against thresholds (loom.yaml's
 * telemetry.thresholds) into conditions:
 *   link_errors          the error counters moved by `errors` or more in
 *                        one read, or the symbol error ratio of the bits
 *                        received passed 10^-ber_exp
 *   link_congested       PortXmitWait went up by `xmit_wait_per_s` ticks a
 *                        second or more (the port had data and no credit)
 *   link_flapped         LinkDownedCounter moved: the link went down and
 *                        up again, even when both reads found it up
 *   counters_unreadable  the port's PMA did not answer
 * A condition that cannot be judged on this read (no earlier sample, a
 * counter not read, no rate because the counter was cleared) is "unknown":
 * it neither raises nor calms an alarm. Lower bounds (a counter reset or
 * saturated in between) still count: at least that many errors happened.
 *
 * Hysteresis: an alarm is raised the first read its condition holds, once;
 * it clears once, after `clear_after` reads in a row where it does not. */
#ifndef LOOM_PORT_ALARMS_H
#define LOOM_PORT_ALARMS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/telemetry/counter_delta.h"
#include "lib/telemetry/pma.h"

enum port_alarm {
	PORT_ALARM_LINK_ERRORS,
	PORT_ALARM_LINK_CONGESTED,
	PORT_ALARM_LINK_FLAPPED,
	PORT_ALARM_UNREADABLE,
	/* Ethernet (RoCE) switch ports only (eth_alarms.h): */
	PORT_ALARM_PFC_STORM,
	PORT_ALARM_ECN_MARKING,
	PORT_ALARM_N
};

/* The alarms an InfiniBand port's counters can raise. */
#define PORT_ALARMS_IB ((1u << PORT_ALARM_LINK_ERRORS) | (1u << PORT_ALARM_LINK_CONGESTED) | \
			(1u << PORT_ALARM_LINK_FLAPPED) | (1u << PORT_ALARM_UNREADABLE))

/* ints, as loom.yaml's tables hold them; 0 turns a test off. */
struct port_thresholds {
	int errors;            /* error-counter increments in one read (LinkDowned apart) */
	int ber_exp;           /* symbol errors per bit received above 10^-ber_exp */
	int xmit_wait_per_s;   /* PortXmitWait ticks a second */
	int link_downed;       /* LinkDownedCounter increments in one read */
	int clear_after;       /* reads in a row without the condition that clear it (>= 1) */
	/* Ethernet switch ports (eth_alarms.h): */
	int pfc_pause_per_s;   /* PFC pause frames received a second, on one priority */
	int pfc_watchdog;      /* PFC watchdog storm detections in one read */
	int ecn_marked_per_s;  /* packets marked CE a second, on one queue */
};

/* What one read found of one port. */
struct port_reading {
	int answered;
	const char *reason;                 /* why not, when not answered */
	struct cdelta d[PMA_N_COUNTERS];    /* from the sample before */
	double interval_s;                  /* between the two samples; 0: none */
};

struct port_judgement {
	unsigned known;                     /* bit per alarm: judged on this read */
	unsigned active;                    /* bit per alarm: its condition holds */
	char why[PORT_ALARM_N][200];        /* for active ones: what was seen */
};

/* Judge r against t into *j. */
void port_alarms_judge(const struct port_thresholds *t, const struct port_reading *r,
		       struct port_judgement *j);

enum port_alarm_step {
	PORT_ALARM_STAY,   /* nothing to record */
	PORT_ALARM_RAISE,  /* raised now */
	PORT_ALARM_CLEAR,  /* cleared now */
};

/* One read's step of one alarm: *raised and *calm (reads in a row without
 * the condition while raised) are its state, updated here. known/active as
 * in port_judgement for this alarm. */
enum port_alarm_step port_alarm_step(int *raised, int *calm, int known, int active,
				     int clear_after);

/* "link_errors", ... (the event kinds); NULL out of range. */
const char *port_alarm_name(enum port_alarm a);
/* The alarm named s, or -1. */
int port_alarm_by_name(const char *s);

#endif
