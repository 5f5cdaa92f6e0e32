/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/event_count.h: the events loomd has written since it started,
 * by kind and severity (issue 39: /metrics' loom_events_total). Every
 * event written is counted here by core's store_event_told (which
 * store_record_event and the sweep's recorder call), from any thread. The kinds are the table's few dozen names
 * (lib/db/db_query.c's event_kinds[] and the fabric's); past
 * EVENT_COUNT_MAX distinct pairs, further ones count as kind "other", so
 * the families stay bounded whatever is written. */
#ifndef LOOMD_EVENT_COUNT_H
#define LOOMD_EVENT_COUNT_H

#include "lib/telemetry/metrics_text.h"

#define EVENT_COUNT_MAX 256

void event_count_add(const char *kind, const char *severity);
/* Append loom_events_total{kind,severity} to out. */
void event_count_render(struct mt_buf *out);

#endif
