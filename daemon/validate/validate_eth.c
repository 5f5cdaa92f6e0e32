/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/validate/validate_eth.c: see validate_eth.h. The reads are
 * copied out of the store (strings owned here) and handed to
 * eth_cabling_check as plain data. */
#include "autoconf.h"
#include "daemon/validate/validate_eth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "daemon/core/store.h"
#include "daemon/validate/store_validate.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"
#include "lib/validate/eth_cabling.h"
#include "lib/validate/plan.h"
#include "lib/validate/report_json.h"

/* What the store holds, as eth_cabling.h takes it. */
struct lldp {
	struct eth_switch_seen *sw;
	struct eth_port_seen *ports;
	size_t n_sw, n_ports, cap_sw, cap_ports;
	char **strs;                /* every string above, to free */
	size_t n_strs, cap_strs;
};

static const char *keep(struct lldp *l, const unsigned char *s)
{
	char *c;

	if (l->n_strs == l->cap_strs) {
		size_t cap = l->cap_strs ? 2 * l->cap_strs : 256;
		char **n = realloc(l->strs, cap * sizeof(*n));

		if (!n)
			return NULL;
		l->strs = n;
		l->cap_strs = cap;
	}
	if (!(c = strdup(s ? (const char *)s : "")))
		return NULL;
	return l->strs[l->n_strs++] = c;
}

static int grow(void **v, size_t n, size_t *cap, size_t size)
{
	void *nv;

	if (n < *cap)
		return 0;
	if (!(nv = realloc(*v, (*cap ? 2 * *cap : 64) * size)))
		return -ENOMEM;
	*v = nv;
	*cap = *cap ? 2 * *cap : 64;
	return 0;
}

static void lldp_free(struct lldp *l)
{
	for (size_t i = 0; i < l->n_strs; i++)
		free(l->strs[i]);
	free(l->strs);
	free(l->sw);
	free(l->ports);
}

static int lldp_read(sqlite3 *db, struct lldp *l)
{
	sqlite3_stmt *s = NULL;
	int rc = 0, step;

	if (sqlite3_prepare_v2(db, "SELECT name, hostname FROM eth_switches WHERE last_seen > 0 "
			       "ORDER BY name", -1, &s, NULL) != SQLITE_OK)
		return store_db_fail(db, "reading the Ethernet switches");
	while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
		struct eth_switch_seen *w;

		if (grow((void **)&l->sw, l->n_sw, &l->cap_sw, sizeof(*l->sw)) < 0) {
			rc = -ENOMEM;
			break;
		}
		w = &l->sw[l->n_sw];
		if (!(w->name = keep(l, sqlite3_column_text(s, 0))) ||
		    !(w->hostname = keep(l, sqlite3_column_text(s, 1))))
			rc = -ENOMEM;
		else
			l->n_sw++;
	}
	sqlite3_finalize(s);
	if (rc < 0)
		return rc;
	if (sqlite3_prepare_v2(db, "SELECT p.switch, p.name, p.alias, p.oper_up, p.peer_name, "
			       "p.peer_port, p.peer_chassis FROM eth_ports p JOIN eth_switches s ON "
			       "s.name = p.switch WHERE s.last_seen > 0 ORDER BY p.switch, p.name",
			       -1, &s, NULL) != SQLITE_OK)
		return store_db_fail(db, "reading the Ethernet ports' LLDP neighbours");
	while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
		struct eth_port_seen *p;

		if (grow((void **)&l->ports, l->n_ports, &l->cap_ports, sizeof(*l->ports)) < 0) {
			rc = -ENOMEM;
			break;
		}
		p = &l->ports[l->n_ports];
		p->up = sqlite3_column_int(s, 3);
		if (!(p->sw = keep(l, sqlite3_column_text(s, 0))) ||
		    !(p->port = keep(l, sqlite3_column_text(s, 1))) ||
		    !(p->alias = keep(l, sqlite3_column_text(s, 2))) ||
		    !(p->peer_name = keep(l, sqlite3_column_text(s, 4))) ||
		    !(p->peer_port = keep(l, sqlite3_column_text(s, 5))) ||
		    !(p->peer_chassis = keep(l, sqlite3_column_text(s, 6))))
			rc = -ENOMEM;
		else
			l->n_ports++;
	}
	sqlite3_finalize(s);
	return rc;
}

int validate_eth(struct store *st, const struct plan *p, json_t **out, char *err, size_t errlen)
{
	struct lldp l = { 0 };
	struct val_report r = { 0 };
	struct store_validate_result res;
	char plan_error[512] = "";
	double t0 = clock_mono();
	size_t not_seen = 0;
	int rc;

	if ((rc = lldp_read(store_db(st), &l)) < 0) {
		snprintf(err, errlen, "the Ethernet switches' LLDP neighbours could not be read%s",
			 rc == -ENOMEM ? ": out of memory" : ": see loomd's log");
		goto out;
	}
	{
		struct eth_seen s = { l.sw, l.n_sw, l.ports, l.n_ports };

		rc = eth_cabling_check(p, &s, &r, &not_seen, plan_error, sizeof(plan_error));
	}
	if (rc == -E2BIG) {   /* the plan is not checked: said, no finding */
		log_warn("the Ethernet cabling plan is not checked: %s", plan_error);
		val_report_clear(&r);
		rc = 0;
	} else if (rc < 0) {
		snprintf(err, errlen, "%s", plan_error);
		goto out;
	}
	val_report_sort(&r);
	if (!out) {
		if ((rc = store_validate_record(st, VALIDATE_ETH_SUBNET, clock_wall(), &r, &res)) < 0)
			snprintf(err, errlen, "the Ethernet fabric's findings could not be recorded");
		else
			log_info("the Ethernet fabric: validated %zu planned cables against the LLDP of "
				 "%zu switches in %.1f ms (%zu not seen): %zu errors, %zu warnings (%zu "
				 "opened, %zu cleared)", r.cables, l.n_sw, (clock_mono() - t0) * 1000.0,
				 not_seen, val_count(&r, VAL_ERROR), val_count(&r, VAL_WARNING),
				 res.opened, res.cleared);
		goto out;
	}
	if (!(*out = val_report_json(&r))) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	json_object_set_new(*out, "subnet", json_string(VALIDATE_ETH_SUBNET));
	json_object_set_new(*out, "plan", json_string(p->source));
	json_object_set_new(*out, "not_seen", json_integer((json_int_t)not_seen));
	if (plan_error[0])
		json_object_set_new(*out, "plan_error", json_string(plan_error));
	json_object_set_new(*out, "elapsed_ms",
			    json_integer((json_int_t)((clock_mono() - t0) * 1000.0 + 0.5)));
out:
	val_report_clear(&r);
	lldp_free(&l);
	return rc;
}
