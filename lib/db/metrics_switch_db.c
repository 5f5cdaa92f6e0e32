/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/metrics_switch_db.c: the Ethernet switches' counters (schema 012)
 * in Prometheus' text format, for /metrics (see metrics_db.h). Every port
 * the last reads reported: switch ports are few beside an InfiniBand
 * fabric's, so `http.metrics_ports` does not cut them. */
#include "autoconf.h"
#include "lib/db/metrics_db.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lib/db/db_row.h"

/* loom's counter names (the plugin ABI's) and their families. scope: 0
 * port, 'p' priority, 'q' queue. scale: the value times this. */
static const struct family {
	const char *name, *family, *type, *help;
	char scope;
	double scale;
} families[] = {
	{ "in_octets", "loom_switch_port_rx_bytes_total", "counter", "Octets received.", 0, 1 },
	{ "out_octets", "loom_switch_port_tx_bytes_total", "counter", "Octets sent.", 0, 1 },
	{ "in_errors", "loom_switch_port_rx_errors_total", "counter", "Frames received with errors.", 0, 1 },
	{ "out_errors", "loom_switch_port_tx_errors_total", "counter", "Frames not sent for errors.", 0, 1 },
	{ "in_discards", "loom_switch_port_rx_discards_total", "counter", "Frames received and discarded.", 0, 1 },
	{ "out_discards", "loom_switch_port_tx_discards_total", "counter", "Frames discarded on the way out.", 0, 1 },
	{ "pause_storm_warning", "loom_switch_port_pause_storm_warnings_total", "counter",
	  "NIC pause storm warning events (Linux mlx5).", 0, 1 },
	{ "pause_storm_error", "loom_switch_port_pause_storm_errors_total", "counter",
	  "NIC pause storm error events (Linux mlx5).", 0, 1 },
	{ "pfc_rx_pause", "loom_switch_port_pfc_rx_pause_frames_total", "counter",
	  "PFC pause frames received, per priority.", 'p', 1 },
	{ "pfc_tx_pause", "loom_switch_port_pfc_tx_pause_frames_total", "counter",
	  "PFC pause frames sent, per priority.", 'p', 1 },
	{ "pfc_rx_pause_duration_us", "loom_switch_port_pfc_rx_paused_seconds_total", "counter",
	  "Time paused by PFC frames received, per priority.", 'p', 1e-6 },
	{ "pfc_tx_pause_duration_us", "loom_switch_port_pfc_tx_paused_seconds_total", "counter",
	  "Time PFC frames sent asked the peer to pause, per priority.", 'p', 1e-6 },
	{ "queue_packets", "loom_switch_queue_packets_total", "counter", "Packets through the egress queue.", 'q', 1 },
	{ "queue_drops", "loom_switch_queue_dropped_packets_total", "counter",
	  "Packets the egress queue dropped.", 'q', 1 },
	{ "ecn_marked", "loom_switch_queue_ecn_marked_packets_total", "counter",
	  "Packets the egress queue marked CE (WRED/ECN).", 'q', 1 },
	{ "pfcwd_storm_detected", "loom_switch_queue_pfcwd_storms_detected_total", "counter",
	  "PFC storms the PFC watchdog detected on the queue.", 'q', 1 },
	{ "pfcwd_storm_restored", "loom_switch_queue_pfcwd_storms_restored_total", "counter",
	  "PFC storms the PFC watchdog restored on the queue.", 'q', 1 },
	{ "pfcwd_stormed", "loom_switch_queue_pfcwd_stormed", "gauge",
	  "1 while the PFC watchdog holds the queue in a storm.", 'q', 1 },
};
#define N_FAMILIES (sizeof(families) / sizeof(families[0]))

struct sw_row {
	char *sw, *port;
	int answered;
	json_t *counters;   /* counters and gauges in one object */
};

static void label(struct mt_buf *b, int first, const char *name, const char *value)
{
	mt_puts(b, first ? "{" : ",");
	mt_puts(b, name);
	mt_puts(b, "=\"");
	mt_put_label_value(b, value);
	mt_puts(b, "\"");
}

static void value(struct mt_buf *b, double v, int integral)
{
	char buf[64];

	if (integral)
		snprintf(buf, sizeof(buf), " %.0f\n", v);
	else
		snprintf(buf, sizeof(buf), " %.6f\n", v);
	mt_puts(b, buf);
}

static void head(struct mt_buf *b, const char *family, const char *type, const char *help)
{
	mt_puts(b, "# HELP ");
	mt_puts(b, family);
	mt_puts(b, " ");
	mt_puts(b, help);
	mt_puts(b, "\n# TYPE ");
	mt_puts(b, family);
	mt_puts(b, " ");
	mt_puts(b, type);
	mt_puts(b, "\n");
}

/* One family's series over every row: NAME (port scope) or NAME.pN/.qN. */
static void render_family(struct mt_buf *b, const struct family *f, const struct sw_row *rows,
			  size_t n)
{
	head(b, f->family, f->type, f->help);
	for (size_t i = 0; i < n; i++) {
		const char *k;
		json_t *v;

		if (!rows[i].answered)
			continue;  /* stale: no counters, as the InfiniBand ports */
		json_object_foreach(rows[i].counters, k, v) {
			size_t len = strlen(f->name);
			char idx[8];

			if (strncmp(k, f->name, len) || !json_is_integer(v))
				continue;
			if (f->scope ? (k[len] != '.' || k[len + 1] != f->scope || !k[len + 2] ||
					strlen(k + len + 2) >= sizeof(idx))
				     : k[len] != '\0')
				continue;
			mt_puts(b, f->family);
			label(b, 1, "switch", rows[i].sw);
			label(b, 0, "port", rows[i].port);
			if (f->scope) {
				snprintf(idx, sizeof(idx), "%s", k + len + 2);
				label(b, 0, f->scope == 'p' ? "priority" : "queue", idx);
			}
			mt_puts(b, "}");
			value(b, (double)json_integer_value(v) * f->scale, f->scale == 1);
		}
	}
}

int metrics_db_render_switches(sqlite3 *db, struct mt_buf *out, char *err, size_t errlen)
{
	struct sw_row *rows = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT switch, port, answered, counters, gauges FROM "
			       "switch_port_counters ORDER BY switch, port", -1, &s,
			       NULL) != SQLITE_OK) {
		if (strstr(sqlite3_errmsg(db), "no such table"))
			return 0;  /* older than schema 12 */
		return dbq_db_fail(db, err, errlen, "read the switch counters");
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(s, 3);
		const char *g = (const char *)sqlite3_column_text(s, 4);
		json_t *gauges = g ? json_loads(g, 0, NULL) : NULL;

		if (n == cap) {
			struct sw_row *r = realloc(rows, (cap = cap ? 2 * cap : 64) * sizeof(*r));

			if (!r) {
				json_decref(gauges);
				break;
			}
			rows = r;
		}
		rows[n].sw = strdup(dbq_col_str(s, 0));
		rows[n].port = strdup(dbq_col_str(s, 1));
		rows[n].answered = sqlite3_column_int(s, 2);
		rows[n].counters = c ? json_loads(c, 0, NULL) : NULL;
		if (!json_is_object(rows[n].counters)) {
			json_decref(rows[n].counters);
			rows[n].counters = json_object();
		}
		if (json_is_object(gauges))
			json_object_update(rows[n].counters, gauges);
		json_decref(gauges);
		n++;
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE) {
		head(out, "loom_switch_port_counters_up", "gauge",
		     "1 when the switch port's counters came with the last read, 0 when stale.");
		for (size_t i = 0; i < n; i++) {
			mt_puts(out, "loom_switch_port_counters_up");
			label(out, 1, "switch", rows[i].sw);
			label(out, 0, "port", rows[i].port);
			mt_puts(out, "}");
			value(out, rows[i].answered, 1);
		}
		for (size_t f = 0; f < N_FAMILIES; f++)
			render_family(out, &families[f], rows, n);
	}
	for (size_t i = 0; i < n; i++) {
		free(rows[i].sw);
		free(rows[i].port);
		json_decref(rows[i].counters);
	}
	free(rows);
	if (rc != SQLITE_DONE)
		return rc == SQLITE_ROW ? dbq_fail(err, errlen, -ENOMEM, "out of memory")
					: dbq_db_fail(db, err, errlen, "read the switch counters");
	return out->oom ? dbq_fail(err, errlen, -ENOMEM, "out of memory for the metrics text") : 0;
}
