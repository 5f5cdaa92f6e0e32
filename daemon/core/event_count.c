/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/event_count.c: see event_count.h. */
#include "autoconf.h"
#include "daemon/core/event_count.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static struct {
	char kind[48], severity[12];
	uint64_t n;
} event_counts[EVENT_COUNT_MAX];
static size_t n_event_counts;
static pthread_mutex_t event_counts_lock = PTHREAD_MUTEX_INITIALIZER;

void event_count_add(const char *kind, const char *severity)
{
	size_t i;

	kind = kind ? kind : "";
	severity = severity ? severity : "";
	pthread_mutex_lock(&event_counts_lock);
	for (i = 0; i < n_event_counts; i++)
		if (!strcmp(event_counts[i].kind, kind) && !strcmp(event_counts[i].severity, severity))
			break;
	if (i == n_event_counts && n_event_counts < EVENT_COUNT_MAX - 1) {
		snprintf(event_counts[i].kind, sizeof(event_counts[i].kind), "%s", kind);
		snprintf(event_counts[i].severity, sizeof(event_counts[i].severity), "%s", severity);
		n_event_counts++;
	} else if (i == n_event_counts) {
		/* The last slot: every pair past the bound. */
		i = EVENT_COUNT_MAX - 1;
		snprintf(event_counts[i].kind, sizeof(event_counts[i].kind), "other");
		event_counts[i].severity[0] = '\0';
	}
	event_counts[i].n++;
	pthread_mutex_unlock(&event_counts_lock);
}

void event_count_render(struct mt_buf *out)
{
	char num[32];

	mt_puts(out, "# HELP loom_events_total Events loomd wrote to its database since it "
		"started, by kind and severity (loomctl events).\n"
		"# TYPE loom_events_total counter\n");
	pthread_mutex_lock(&event_counts_lock);
	for (size_t i = 0; i < EVENT_COUNT_MAX; i++) {
		if (!event_counts[i].n)
			continue;
		mt_puts(out, "loom_events_total{kind=\"");
		mt_put_label_value(out, event_counts[i].kind);
		mt_puts(out, "\",severity=\"");
		mt_put_label_value(out, event_counts[i].severity);
		snprintf(num, sizeof(num), "\"} %" PRIu64 "\n", event_counts[i].n);
		mt_puts(out, num);
	}
	pthread_mutex_unlock(&event_counts_lock);
}
