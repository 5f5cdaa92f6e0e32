/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/swept_subnets.c: see swept_subnets.h. */
#include "autoconf.h"
#include "daemon/ib/swept_subnets.h"

#include <errno.h>
#include <stdio.h>

#include <sqlite3.h>

#include "lib/util/log.h"
#include "daemon/core/store.h"
#include "daemon/ib/config_discovery.h"

void swept_mad_of(const struct discovery_conf *c, struct swept_mad *mad)
{
	mad->timeout_ms = c->mad_timeout_ms;
	mad->retries = c->mad_retries;
	mad->max_smps = c->max_smps;
	mad->walker = c->walker_id;
	mad->m_key = c->m_key;
}

int swept_subnets_get(struct store *st, const struct swept_mad *mad, struct swept_subnets *out)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;

	out->n = 0;
	if (sqlite3_prepare_v2(db, "SELECT name, ca, port FROM subnets WHERE kind = 'ib' AND id IN "
			       "(SELECT subnet_id FROM sweeps WHERE status = 'ok') ORDER BY name",
			       -1, &s, NULL) != SQLITE_OK) {
		log_err("store: read the swept subnets: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	while (sqlite3_step(s) == SQLITE_ROW && out->n < LOOM_MAX_SUBNETS) {
		size_t i = out->n++;

		snprintf(out->names[i], sizeof(out->names[i]), "%s", sqlite3_column_text(s, 0));
		snprintf(out->cas[i], sizeof(out->cas[i]), "%s", sqlite3_column_text(s, 1));
		out->p[i] = (struct disc_ib_params){
			.subnet = out->names[i], .ca = out->cas[i], .port = sqlite3_column_int(s, 2),
			.timeout_ms = mad->timeout_ms, .retries = mad->retries,
			.max_smps = mad->max_smps, .walker = mad->walker, .m_key = mad->m_key,
		};
	}
	sqlite3_finalize(s);
	return 0;
}
