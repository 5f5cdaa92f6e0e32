/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/events/config_events.h: loom.yaml's `events:` section, the events
 * module's own settings (config_events.c parses them): how long the events
 * table is kept and where events are forwarded. */
#ifndef LOOMD_CONFIG_EVENTS_H
#define LOOMD_CONFIG_EVENTS_H

#include "daemon/core/config.h"

#define EVENTS_MAX_SINKS 4

enum events_sink_type { EVENTS_SINK_SYSLOG, EVENTS_SINK_WEBHOOK };

/* One events.forward entry. */
struct events_sink_conf {
	char name[LOOM_NAME_LEN];   /* name: in logs and counters; default TYPE-INDEX */
	char type[16];              /* type: syslog | webhook */
	char min_severity[16];      /* min_severity: info|notice|warning|error */
	char kinds[1024];           /* kinds: comma-separated, "" every kind */
	char address[256];          /* syslog: /dev/log, udp://HOST:PORT, tcp://HOST:PORT */
	char url[512];              /* webhook: http:// or https:// URL */
	char ca_file[256];          /* webhook: CA bundle for TLS, "" the system's */
	char token_file[256];       /* webhook: bearer token's file, "" none */
	int timeout_ms;             /* one send's bound */
	int retries;                /* webhook: tries after the first */
	int queue;                  /* events waiting at most; the oldest dropped */
	/* Filled by the check, from the strings above. */
	int sink_type;              /* enum events_sink_type */
	int min_sev;                /* 0 info .. 3 error */
};

struct events_conf {
	int keep_days;              /* keep_days: older events pruned, 0 never */
	int max_rows;               /* max_rows: the newest kept, 0 no bound */
	int n_sinks;
	struct events_sink_conf sinks[EVENTS_MAX_SINKS];
};

extern const struct config_section events_config;
const struct events_conf *events_conf_get(const struct loom_config *c);

/* "info" 0, "notice" 1, "warning" 2, "error" 3; -1 otherwise. */
int events_severity_rank(const char *severity);

#endif
