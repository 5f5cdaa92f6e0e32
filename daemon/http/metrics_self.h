/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/metrics_self.h: loomd's own families on /metrics (issue 39):
 * loom_build_info and the process' memory and file descriptors, read from
 * /proc/self when the text is made, under the names Prometheus' client
 * libraries give them (process_resident_memory_bytes, process_open_fds,
 * process_max_fds, process_start_time_seconds), so the dashboards that
 * know those read loomd too. */
#ifndef LOOMD_METRICS_SELF_H
#define LOOMD_METRICS_SELF_H

#include "lib/telemetry/metrics_text.h"

/* Append the families to out (a family /proc does not give is left out). */
void metrics_self_render(struct mt_buf *out);

#endif
