/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/link_state_db.c: see link_state_db.h. */
#include "autoconf.h"
#include "lib/db/link_state_db.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/db/db_row.h"
#include "lib/db/names_db.h"
#include "lib/fabric/ibtypes.h"

static unsigned usable(unsigned enabled, unsigned supported)
{
	return enabled ? enabled & supported : supported;
}

void link_state_best(const struct link_caps *a, const struct link_caps *b, unsigned *width,
		     unsigned *speed)
{
	*width = ibt_width_best(usable(a->width_enabled, a->width_supported) &
				usable(b->width_enabled, b->width_supported));
	*speed = ibt_speed_best(usable(a->speed_enabled, a->speed_supported) &
				usable(b->speed_enabled, b->speed_supported));
}

void link_state_capable(const struct link_caps *a, const struct link_caps *b,
			unsigned *width, unsigned *speed)
{
	*width = ibt_width_best(a->width_supported & b->width_supported);
	*speed = ibt_speed_best(a->speed_supported & b->speed_supported);
}

int link_state_degraded(unsigned width_active, unsigned speed_active, unsigned best_width,
			unsigned best_speed)
{
	if (!width_active || !speed_active)
		return 0;   /* not up: down, not degraded */
	if (best_width && ibt_width_lanes(width_active) < ibt_width_lanes(best_width))
		return 1;
	return best_speed && speed_active < best_speed;
}

/* The first alarm of one of kinds in alarms ("kind: why; ..."), as
 * "NODE:PORT kind: why" into buf: 1 when found. */
static int alarm_at(const char *name, int port, const char *alarms, const char *const *kinds,
		    char *buf, size_t len)
{
	if (!alarms)
		return 0;
	for (const char *const *k = kinds; *k; k++) {
		const char *p = strstr(alarms, *k);
		size_t n;

		if (!p)
			continue;
		n = strcspn(p, ";");
		snprintf(buf, len, "%s:%d %.*s", name, port, (int)n, p);
		return 1;
	}
	return 0;
}

const char *link_state_of(const char *a_name, int a_port, const char *a_alarms,
			  const char *b_name, int b_port, const char *b_alarms, int degraded,
			  const char *rate, const char *best, char *reason, size_t len)
{
	static const char *const errors[] = { "link_errors", "link_flapped", NULL };
	static const char *const congested[] = { "link_congested", NULL };

	reason[0] = '\0';
	if (alarm_at(a_name, a_port, a_alarms, errors, reason, len) ||
	    alarm_at(b_name, b_port, b_alarms, errors, reason, len))
		return "errors";
	if (alarm_at(a_name, a_port, a_alarms, congested, reason, len) ||
	    alarm_at(b_name, b_port, b_alarms, congested, reason, len))
		return "congested";
	if (degraded) {
		snprintf(reason, len, "%s, both ends can run %s", rate, best);
		return "degraded";
	}
	return "up";
}

static json_t *down_json(sqlite3_stmt *s)
{
	char reason[512];

	snprintf(reason, sizeof(reason), "was cabled to %s:%d; the port is %s, no peer",
		 dbq_col_str(s, 8), sqlite3_column_int(s, 6),
		 ibt_phys_state_name(sqlite3_column_int(s, 10)));
	return json_pack("{s:s, s:s, s:{s:s, s:i, s:o, s:o}, s:{s:s, s:i, s:o, s:o}, s:s, s:s, "
			 "s:b, s:s, s:s, s:o}",
			 "fabric", "ib", "subnet", dbq_col_str(s, 0),
			 "a", "guid", dbq_col_str(s, 1), "port", sqlite3_column_int(s, 2),
			 "desc", dbq_col_text(s, 3), "name", dbq_col_text(s, 4),
			 "b", "guid", dbq_col_str(s, 5), "port", sqlite3_column_int(s, 6),
			 "desc", dbq_col_text(s, 7), "name", dbq_col_text(s, 8),
			 "width", "", "speed", "", "degraded", 0, "state", "down", "reason", reason,
			 "down_since", sqlite3_column_type(s, 9) == SQLITE_NULL ? json_null() :
				       dbq_col_time(s, 9));
}

int link_state_down_links(sqlite3 *db, json_t *links, char *err, size_t errlen)
{
	/* Once per cable: when both ends are still in the table and down, the
	 * one with the smaller (GUID, port) speaks for it. */
	sqlite3_stmt *s;
	json_t *rows;
	int rc = dbq_prepare(db,
		"SELECT s.name, p.node_guid, p.num, n.description, "
		NAMES_DB_NAME("p.node_guid", "n.description") ", p.last_peer_guid, "
		"p.last_peer_port, coalesce(p.last_peer_desc, ''), "
		NAMES_DB_NAME("p.last_peer_guid", "coalesce(p.last_peer_desc, p.last_peer_guid)")
		", " LINK_STATE_DOWN_SINCE("p.node_guid", "p.num", "p.last_peer_guid") ", "
		"p.phys_state "
		"FROM ports p JOIN nodes n ON n.subnet_id = p.subnet_id AND n.guid = p.node_guid "
		"JOIN subnets s ON s.id = p.subnet_id "
		"WHERE p.peer_guid IS NULL AND p.last_peer_guid IS NOT NULL AND NOT EXISTS "
		"(SELECT 1 FROM ports q WHERE q.subnet_id = p.subnet_id AND "
		"q.node_guid = p.last_peer_guid AND q.num = p.last_peer_port AND "
		"q.peer_guid IS NULL AND q.last_peer_guid = p.node_guid AND "
		"q.last_peer_port = p.num AND (q.node_guid < p.node_guid OR "
		"(q.node_guid = p.node_guid AND q.num < p.num))) "
		"ORDER BY s.name, p.node_guid, p.num", &s, err, errlen);

	if (rc < 0 || (rc = dbq_collect(db, s, down_json, &rows, err, errlen)) < 0)
		return rc;
	rc = json_array_extend(links, rows) < 0 ? dbq_fail(err, errlen, -ENOMEM, "out of memory") : 0;
	json_decref(rows);
	return rc;
}
