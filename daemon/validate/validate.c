/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/validate/validate.c: see validate.h. */
#include "autoconf.h"
#include "daemon/validate/validate.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "daemon/validate/config_validate.h"
#include "daemon/core/ctl.h"
#include "daemon/core/store.h"
#include "daemon/core/work.h"
#include "daemon/ib/swept_fabs.h"
#include "daemon/validate/store_validate.h"
#include "daemon/validate/validate_partitions.h"
#include "daemon/validate/validate_eth.h"
#include "daemon/validate/validate_sm.h"
#include "daemon/validate/validate_mcast.h"
#include "lib/db/validate_db.h"
#include "lib/etcd/etcd_codec.h"
#include "lib/fabric/fabric.h"
#include "lib/fabric/fabric_wire.h"
#include "lib/fabric/ibtypes.h"
#include "lib/fabric/nodename.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"
#include "lib/util/proto.h"
#include "lib/validate/cabling.h"
#include "lib/validate/health.h"
#include "lib/validate/plan.h"
#include "lib/validate/rails.h"
#include "lib/validate/report_json.h"

/* Requests waiting behind the one under way: more are answered busy. */
#define VALIDATE_MAX_WAITING 8

/* A plan shared by the module and its jobs: immutable once made; refs
 * counted on the loop only. (A fabric is shared the same way with
 * fab_hold.) */
struct plan_ref {
	int refs;
	struct plan *plan;
	char error[512];            /* the last check's "plan for another fabric" */
};

/* A swept subnet's after-sweep check (beside its fabric in fabs, by the
 * same index). */
struct subnet_check {
	int checking;               /* an after-sweep check is queued or running */
	int again;                  /* a newer fabric came meanwhile */
	char plan_warned[512];      /* the plan error last logged for it */
	struct validate_pkeys *pkeys; /* the last PKey tables read after a sweep (issue 43) */
	char pkeys_error[256];      /* why the last read failed ("" it did not) */
	struct validate_mc *mc;     /* the last multicast read after a sweep (issue 43) */
	char mc_error[512];         /* why it failed ("" it did not) */
	struct vsm_history *sms;    /* its SM lists, newest and previous (issue 43) */
};

/* What the module keeps of loom.yaml: validation.enabled and fat_tree,
 * and the database a check's job opens. */
struct validate_settings {
	int enabled, fat_tree;
	char db_path[PATH_MAX];
	struct validate_part_conf part;  /* issue 43, partitions */
	int rails;                  /* issue 43: validation.rails, rail_pattern */
	char rail_pattern[256];
	struct vsm_settings sm;     /* sm_allowed, keys (issue 43) */
	int multicast;              /* issue 43: validation.multicast, */
	uint64_t mc_sm_key;         /* multicast_sm_key */
};

static void settings_of(const struct validate_conf *c, const struct store *st,
			struct validate_settings *s)
{
	s->enabled = c->validation_enabled;
	s->fat_tree = c->validation_fat_tree;
	s->multicast = c->validation_multicast;
	s->mc_sm_key = c->validation_mc_sm_key;
	snprintf(s->db_path, sizeof(s->db_path), "%s", store_path(st));
	validate_part_conf_of(c, &s->part);
	s->rails = c->validation_rails;
	snprintf(s->rail_pattern, sizeof(s->rail_pattern), "%s", c->validation_rail_pattern);
	vsm_settings_of(c, &s->sm);
}

struct validate_mod {
	struct event_base *base;
	struct store *store;
	struct validate_settings set; /* its keys of loom.yaml (no whole copy) */
	struct plan_ref *plan;      /* NULL: none configured */
	struct nodename_map *names; /* validate_set_names's (held), or NULL */
	struct work_queue *work;
	struct swept_fabs fabs;     /* each subnet's last fabric */
	struct subnet_check checks[SWEPT_FABS_MAX];
	struct swept_mad mad;       /* discovery's MAD limits (validate_set_mad) */
	struct subnet_check eth_check; /* issue 43: the Ethernet fabric's */
};

/* One check of one or more subnets: after a sweep (req NULL: recorded),
 * or fabric-validate's (answered). */
struct vjob {
	struct validate_mod *m;
	struct ctl_req *req;
	size_t n;
	struct {
		char subnet[LOOM_NAME_LEN];
		struct fab *fab;    /* held */
		json_t *result;
		char plan_error[512];
		struct validate_pkeys *pkeys; /* issue 43: the PKey tables (held), or NULL */
		char pkeys_error[256];  /* ... and why not */
		char part_warning[400];
		struct fab_sm *sm_prev;    /* the previous sweep's SMs (NULL: none) */
		size_t n_sm_prev;
		struct validate_mc *mc;     /* the groups and tables read (held), or NULL */
		char mc_error[512];         /* ... and why not */
		json_t *mcast;              /* the groups read (validate_mcast.h) */
		char mcast_warning[640];
	} s[SWEPT_FABS_MAX];
	struct plan_ref *plan;      /* NULL: no plan */
	struct nodename_map *names; /* the site's names when the job was made (held) */
	int want_fabric;
	char db_path[PATH_MAX];
	char ber_db_error[256];
	struct swept_mad mad;       /* discovery's MAD limits, for the readers */
	struct validate_settings set; /* the module's when the job was made */
	int eth;                    /* issue 43: the plan's Ethernet rows too */
	json_t *eth_result;         /* fabric-validate's Ethernet report */
};

static void plan_unref(struct plan_ref *r)
{
	if (r && --r->refs == 0) {
		plan_free(r->plan);
		free(r);
	}
}

static struct plan_ref *plan_load(const char *path)
{
	struct plan_ref *r;
	char err[512];
	struct plan *p;

	if (!path[0])
		return NULL;
	if (!(p = plan_read(path, err, sizeof(err)))) {
		log_err("validation.expected: %s", err);
		return NULL;
	}
	if (!(r = calloc(1, sizeof(*r)))) {
		plan_free(p);
		return NULL;
	}
	r->refs = 1;
	r->plan = p;
	log_info("validation: the cabling plan %s has %zu cables", path, p->n);
	return r;
}

/* ---- the worker ------------------------------------------------------------------------- */

/* The ports of the subnet with telemetry's symbol-error-ratio alarm open:
 * a `ber` finding each (by the link's smaller end, as fab_link names
 * links). The alarm is telemetry's judgement with its threshold
 * (telemetry.thresholds.ber_exp); no read yet, no finding. */
static int add_ber(struct store *st, const char *subnet, const struct fab *fab,
		   const struct nodename_map *names, struct val_report *r)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT a.guid, a.port, a.why FROM port_alarms a JOIN subnets "
			       "n ON n.id = a.subnet_id WHERE n.name = ?1 AND a.kind = "
			       "'link_errors' AND a.why LIKE '%symbol error ratio%' ORDER BY "
			       "a.guid, a.port", -1, &s, NULL) != SQLITE_OK)
		return store_db_fail(db, "read the BER alarms");
	sqlite3_bind_text(s, 1, subnet, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *g = (const char *)sqlite3_column_text(s, 0);
		unsigned port = (unsigned)sqlite3_column_int(s, 1);
		const char *why = (const char *)sqlite3_column_text(s, 2);
		uint64_t guid = g ? strtoull(g, NULL, 16) : 0;
		const struct fab_node *n = fab_find(fab, guid), *pn = NULL;
		const struct fab_port *pt = n ? fab_port(n, port) : NULL, *pp;

		if (!pt || !(pp = fab_peer(fab, pt, &pn)) || !pn)
			continue;   /* not cabled now: nothing to say of the link */
		if (n->guid > pn->guid || (n->guid == pn->guid && pt->num > pp->num)) {
			const struct fab_node *tn = n;
			const struct fab_port *tp = pt;

			n = pn;
			pt = pp;
			pn = tn;
			pp = tp;
		}
		if (val_add(r, VAL_BER, 0, "", why ? why : "", "%s[%u] - %s[%u]",
			    nodename_of(names, n->guid, n->desc), pt->num,
			    nodename_of(names, pn->guid, pn->desc), pp->num) < 0) {
			sqlite3_finalize(s);
			return -ENOMEM;
		}
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : store_db_fail(db, "read the BER alarms");
}

/* An SM brought the subnet up when a port is ACTIVE: only an SM makes one
 * so. Before that every linked port is INIT, and that is no fault. */
static int sm_active(const struct fab *fab)
{
	for (size_t i = 0; i < fab->n_nodes; i++)
		for (unsigned p = 0; p <= fab->nodes[i]->nports; p++) {
			const struct fab_port *pt = fab_port(fab->nodes[i], p);

			if (pt && pt->state == 4)   /* PortInfo:PortState ACTIVE */
				return 1;
		}
	return 0;
}

static json_t *fabric_b64(const struct fab *fab)
{
	char *buf = NULL, *b64;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	json_t *o = NULL;

	if (!mem)
		return NULL;
	if (fab_wire_write(fab, mem) < 0) {
		fclose(mem);
		free(buf);
		return NULL;
	}
	fclose(mem);
	if ((b64 = etcd_b64_encode(buf, len)))
		o = json_string(b64);
	free(b64);
	free(buf);
	return o;
}

/* The site's names of the fabric's nodes, {"0x...": "name"}, for the
 * client that checks a plan of its own on this fabric: it names nodes as
 * loomd does. */
static json_t *names_json(const struct fab *fab, const struct nodename_map *names)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < fab->n_nodes; i++) {
		const char *name = nodename_get(names, fab->nodes[i]->guid);
		char g[24];

		if (name && json_object_set_new(o, ibt_guid_str(fab->nodes[i]->guid, g, sizeof(g)),
						json_string(name)) < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

/* issue 43: the groups' trees (validate_mcast.h) */
static int check_mcast(struct vjob *j, struct store *st, size_t i, struct val_report *r)
{
	struct validate_mcast_in in = { .subnet = j->s[i].subnet, .fab = j->s[i].fab,
					.names = j->names, .fat_tree = j->set.fat_tree,
					.mad = j->mad, .sm_key = j->set.mc_sm_key };

	return validate_mcast(st, &in, j->s[i].mc, j->s[i].mc_error, r, &j->s[i].mcast,
			      j->s[i].mcast_warning, sizeof(j->s[i].mcast_warning));
}

/* One subnet's checks into r; the plan's refusal (another fabric) in
 * plan_error, the rest of the checks still made. */
static int check_one(struct vjob *j, struct store *st, size_t i, struct val_report *r,
		     char *err, size_t errlen)
{
	const struct fab *fab = j->s[i].fab;
	struct health_opts o = { .fat_tree = j->set.fat_tree, .sm_active = sm_active(fab),
				 .names = j->names };
	int rc;

	r->nodes = fab->n_nodes;
	r->links = fab_count_links(fab);
	if (j->plan) {
		rc = cabling_check(j->plan->plan, fab, j->names, r, j->s[i].plan_error,
				   sizeof(j->s[i].plan_error));
		if (rc == -ENOMEM)
			return rc;
	}
	if ((rc = health_check(fab, &o, r, err, errlen)) < 0)
		return rc;
	if ((rc = rails_check(fab, j->set.rails, j->set.rail_pattern, j->names, r, err, errlen)) < 0)
		return rc;
	if (vsm_check(&j->set.sm, fab, j->s[i].sm_prev, j->s[i].n_sm_prev, j->names, r) < 0)
		return -ENOMEM;
	if (st && add_ber(st, j->s[i].subnet, fab, j->names, r) < 0)
		snprintf(j->ber_db_error, sizeof(j->ber_db_error), "the BER alarms could not be "
			 "read: see loomd's log");
	if (j->set.part.on && validate_part_check(st, j->s[i].subnet, fab, j->s[i].pkeys,
					      j->s[i].pkeys_error, !j->req, &j->set.part, j->names,
					      r, j->s[i].part_warning,
					      sizeof(j->s[i].part_warning)) < 0)
		return -ENOMEM;
	if (j->set.multicast && (rc = check_mcast(j, st, i, r)) < 0)
		return rc;
	val_report_settle(r);
	return 0;
}

/* Issue 43: the PKey tables of subnet i over the fabric just swept (a
 * child): kept in the job for the check and, by job_done, for
 * fabric-validate; a failure is the check's warning (no judgement). */
static void read_pkeys(struct vjob *j, struct store *st, size_t i)
{
	char err[256] = "";
	double t0 = clock_mono();

	if (!st || !(j->s[i].pkeys = validate_part_read(st, &j->mad, j->s[i].subnet, j->s[i].fab,
							 err, sizeof(err)))) {
		snprintf(j->s[i].pkeys_error, sizeof(j->s[i].pkeys_error),
			 "the PKey tables could not be read: %s", st ? err : "no database");
		log_warn("subnet %s: %s", j->s[i].subnet, j->s[i].pkeys_error);
		return;
	}
	log_info("subnet %s: read the PKey tables of %zu ports in %.1f ms", j->s[i].subnet,
		 validate_pkeys_ports(j->s[i].pkeys), (clock_mono() - t0) * 1000.0);
}

/* Issue 43: the multicast groups and tables of subnet i (a child), kept
 * like the PKey tables. */
static void read_mc(struct vjob *j, struct store *st, size_t i)
{
	struct validate_mcast_in in = { .subnet = j->s[i].subnet, .fab = j->s[i].fab,
					.mad = j->mad, .sm_key = j->set.mc_sm_key };

	j->s[i].mc = validate_mc_read(st, &in, j->s[i].mc_error, sizeof(j->s[i].mc_error));
}

static int job_run(void *arg, char *err, size_t errlen)
{
	struct vjob *j = arg;
	struct store *st = store_open(j->db_path, err, errlen);
	int rc = 0;

	if (!st && !j->req)
		return -EIO;   /* nothing recorded without the database */
	for (size_t i = 0; i < j->n && rc == 0; i++) {
		struct val_report r = { 0 };
		double t0 = clock_mono(), t1;
		struct store_validate_result res = { 0 };

		if (!j->req && j->set.part.on)
			read_pkeys(j, st, i);
		if (!j->req && j->set.multicast)
			read_mc(j, st, i);
		t0 = clock_mono();
		if ((rc = check_one(j, st, i, &r, err, errlen)) < 0) {
			val_report_clear(&r);
			break;
		}
		t1 = clock_mono();
		if (!j->req) {
			if ((rc = store_validate_record(st, j->s[i].subnet, clock_wall(), &r,
							&res)) < 0) {
				snprintf(err, errlen, "subnet %s: the findings could not be recorded",
					 j->s[i].subnet);
			} else {
				log_info("subnet %s: validated %zu nodes, %zu links in %.1f ms (checks "
					 "%.1f ms): %zu errors, %zu warnings (%zu opened, %zu cleared)",
					 j->s[i].subnet, r.nodes, r.links, (clock_mono() - t0) * 1000.0,
					 (t1 - t0) * 1000.0, val_count(&r, VAL_ERROR),
					 val_count(&r, VAL_WARNING), res.opened, res.cleared);
			}
			val_report_clear(&r);
			continue;
		}
		if (!(j->s[i].result = val_report_json(&r))) {
			val_report_clear(&r);
			rc = -ENOMEM;
			break;
		}
		val_report_clear(&r);
		json_object_set_new(j->s[i].result, "subnet", json_string(j->s[i].subnet));
		json_object_set_new(j->s[i].result, "plan",
				    j->plan ? json_string(j->plan->plan->source) : json_null());
		if (j->s[i].plan_error[0])
			json_object_set_new(j->s[i].result, "plan_error",
					    json_string(j->s[i].plan_error));
		if (j->ber_db_error[0] || j->s[i].part_warning[0])
			json_object_set_new(j->s[i].result, "warning",
					    json_sprintf("%s%s%s", j->ber_db_error,
							 j->ber_db_error[0] && j->s[i].part_warning[0]
							 ? "; " : "", j->s[i].part_warning));
		json_object_set_new(j->s[i].result, "subnet_managers",
				    vsm_json(j->s[i].fab, j->names));
		if (j->s[i].mcast)
			json_object_set(j->s[i].result, "multicast", j->s[i].mcast);
		if (j->s[i].mcast_warning[0])
			json_object_set_new(j->s[i].result, "multicast_warning",
					    json_string(j->s[i].mcast_warning));
		json_object_set_new(j->s[i].result, "elapsed_ms",
				    json_integer((json_int_t)((t1 - t0) * 1000.0 + 0.5)));
		if (j->want_fabric) {
			json_t *b = fabric_b64(j->s[i].fab), *nm = names_json(j->s[i].fab, j->names);

			if (!b || !nm) {
				json_decref(b);
				json_decref(nm);
				rc = -ENOMEM;
				break;
			}
			json_object_set_new(j->s[i].result, "fabric", b);
			json_object_set_new(j->s[i].result, "names", nm);
		}
	}
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (rc == 0 && j->eth && st)
		rc = validate_eth(st, j->plan->plan, j->req ? &j->eth_result : NULL, err, errlen);
	store_close(st);
	return rc;
}

/* ---- the loop ----------------------------------------------------------------------------- */

static void after_sweep(struct validate_mod *m, int i);

static void job_done(void *arg, int rc, const char *err)
{
	struct vjob *j = arg;
	struct validate_mod *m = j->m;

	if (j->req) {
		json_t *list = json_array();

		for (size_t i = 0; rc == 0 && i < j->n; i++) {
			json_array_append_new(list, j->s[i].result);
			j->s[i].result = NULL;
		}
		if (rc == 0 && j->eth_result) {
			json_array_append_new(list, j->eth_result);
			j->eth_result = NULL;
		}
		if (rc == 0)
			ctl_reply_ok(j->req, json_pack("{s:o}", "subnets", list));
		else
			json_decref(list), ctl_reply_errno(j->req, rc, NULL, PROTO_ERR_INTERNAL, err);
		return;
	}
	if (rc < 0 && rc != -ECANCELED)
		log_warn("validation: %s", err);
	if (!j->n && j->eth) {   /* an Ethernet-only check, after the switches' reads */
		m->eth_check.checking = 0;
		if (m->eth_check.again && rc != -ECANCELED) {
			m->eth_check.again = 0;
			validate_on_switches_read(m);
		}
	}
	for (size_t i = 0; i < j->n; i++) {
		int k = swept_fabs_find(&m->fabs, j->s[i].subnet);
		struct subnet_check *s = k < 0 ? NULL : &m->checks[k];

		if (!s)
			continue;
		if (j->s[i].plan_error[0] && strcmp(s->plan_warned, j->s[i].plan_error)) {
			log_warn("subnet %s: the cabling plan is not checked: %s", j->s[i].subnet,
				 j->s[i].plan_error);
			snprintf(s->plan_warned, sizeof(s->plan_warned), "%s", j->s[i].plan_error);
		} else if (!j->s[i].plan_error[0]) {
			s->plan_warned[0] = '\0';
		}
		if (rc == 0) {  /* issue 43: what fabric-validate judges partitions by */
			validate_pkeys_drop(s->pkeys);
			s->pkeys = j->s[i].pkeys;
			j->s[i].pkeys = NULL;
			snprintf(s->pkeys_error, sizeof(s->pkeys_error), "%s",
				 s->pkeys ? "" : j->s[i].pkeys_error);
			validate_mc_drop(s->mc);
			s->mc = j->s[i].mc;
			j->s[i].mc = NULL;
			snprintf(s->mc_error, sizeof(s->mc_error), "%s", s->mc ? "" : j->s[i].mc_error);
		}
		s->checking = 0;
		if (s->again && rc != -ECANCELED) {
			s->again = 0;
			after_sweep(m, k);
		}
	}
}

static void job_free(void *arg)
{
	struct vjob *j = arg;

	for (size_t i = 0; i < j->n; i++) {
		fab_free(j->s[i].fab);
		free(j->s[i].sm_prev);
		json_decref(j->s[i].result);
		validate_pkeys_drop(j->s[i].pkeys);
		json_decref(j->s[i].mcast);
		validate_mc_drop(j->s[i].mc);
	}
	plan_unref(j->plan);
	json_decref(j->eth_result);
	nodename_map_free(j->names);
	free(j);
}

static const struct work_ops job_ops = { .run = job_run, .done = job_done, .free = job_free };

static struct vjob *vjob_new(struct validate_mod *m, struct ctl_req *req, int use_plan)
{
	struct vjob *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->m = m;
	j->req = req;
	j->mad = m->mad;
	j->set = m->set;
	snprintf(j->db_path, sizeof(j->db_path), "%s", m->set.db_path);
	if (use_plan && m->plan) {
		j->plan = m->plan;
		m->plan->refs++;
		j->eth = m->plan->plan->n_eth > 0;
	}
	j->names = nodename_map_hold(m->names);
	return j;
}

static void job_add(struct vjob *j, const struct swept_fab *f)
{
	j->s[j->n].sm_prev = vsm_prev_copy(j->m->checks[f - j->m->fabs.s].sms,
					   &j->s[j->n].n_sm_prev);
	snprintf(j->s[j->n].subnet, sizeof(j->s[0].subnet), "%s", f->name);
	j->s[j->n].fab = fab_hold(f->last);
	j->n++;
}

/* Subnet i of fabs was swept: check it now, or once the check under way
 * ends. */
static void after_sweep(struct validate_mod *m, int i)
{
	const struct swept_fab *f = &m->fabs.s[i];
	struct subnet_check *s = &m->checks[i];
	struct vjob *j;
	int rc;

	if (!m->set.enabled || !f->last)
		return;
	if (s->checking) {
		s->again = 1;   /* the newest fabric, once the check under way ends */
		return;
	}
	if (!(j = vjob_new(m, NULL, 1)))
		return;
	j->eth = 0;   /* the Ethernet fabric follows the switches' reads */
	job_add(j, f);
	if ((rc = work_submit(m->work, &job_ops, j)) < 0) {
		log_warn("subnet %s: cannot start its validation: %s", f->name, strerror(-rc));
		job_free(j);
		return;
	}
	s->checking = 1;
}

void validate_on_switches_read(void *arg)
{
	struct validate_mod *m = arg;
	struct vjob *j;
	int rc;

	if (!m->set.enabled || !m->plan || !m->plan->plan->n_eth)
		return;
	if (m->eth_check.checking) {
		m->eth_check.again = 1;
		return;
	}
	if (!(j = vjob_new(m, NULL, 1)))
		return;
	if ((rc = work_submit(m->work, &job_ops, j)) < 0) {
		log_warn("the Ethernet fabric: cannot start its validation: %s", strerror(-rc));
		job_free(j);
		return;
	}
	m->eth_check.checking = 1;
}

void validate_on_swept(void *arg, const char *subnet, struct fab *fab)
{
	struct validate_mod *m = arg;
	int i = swept_fabs_keep(&m->fabs, subnet, fab);

	if (i >= 0 && vsm_track(&m->checks[i].sms, fab) < 0)
		log_warn("subnet %s: out of memory: its subnet managers' history is not kept",
			 subnet);
	if (i >= 0)
		after_sweep(m, i);
}

static void cmd_validate(struct ctl_req *req, json_t *args, void *arg)
{
	struct validate_mod *m = arg;
	char subnet[LOOM_NAME_LEN] = "";
	int has_subnet, use_plan = 1, fabric = 0, rc;
	struct vjob *j;

	if ((has_subnet = ctl_arg_string(req, args, "subnet", subnet, sizeof(subnet), 0)) < 0 ||
	    (json_object_get(args, "plan") && ctl_arg_bool(req, args, "plan", &use_plan) < 0) ||
	    ctl_arg_bool(req, args, "fabric", &fabric) < 0)
		return;
	if (work_waiting(m->work) >= VALIDATE_MAX_WAITING) {
		ctl_reply_err(req, PROTO_ERR_BUSY, "%u validations are waiting; try again later",
			      work_waiting(m->work));
		return;
	}
	if (!(j = vjob_new(m, req, use_plan))) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "out of memory");
		return;
	}
	j->want_fabric = fabric;
	for (size_t i = 0; i < m->fabs.n; i++)
		if (m->fabs.s[i].last && (!has_subnet || !strcmp(m->fabs.s[i].name, subnet))) {
			job_add(j, &m->fabs.s[i]);
			/* issue 43: the tables the last check after a sweep read */
			j->s[j->n - 1].pkeys = validate_pkeys_hold(m->checks[i].pkeys);
			snprintf(j->s[j->n - 1].pkeys_error, sizeof(j->s[0].pkeys_error), "%s",
				 m->checks[i].pkeys ? "" : m->checks[i].pkeys_error[0] ?
				 m->checks[i].pkeys_error : "the PKey tables are read after a sweep: "
				 "none yet");
			j->s[j->n - 1].mc = validate_mc_hold(m->checks[i].mc);
			snprintf(j->s[j->n - 1].mc_error, sizeof(j->s[0].mc_error), "%s",
				 m->checks[i].mc ? "" : m->checks[i].mc_error[0] ?
				 m->checks[i].mc_error : "the multicast tables are read after a "
				 "sweep: none yet");
		}
	j->eth = j->eth && (!has_subnet || !strcmp(subnet, VALIDATE_ETH_SUBNET));
	if (!j->n && !j->eth) {
		job_free(j);
		if (has_subnet && !strcmp(subnet, VALIDATE_ETH_SUBNET))
			ctl_reply_err(req, PROTO_ERR_NOTFOUND, "the Ethernet fabric has nothing to "
				      "check: %s", use_plan && m->plan ? "the cabling plan has no "
				      "Ethernet rows" : "no cabling plan (validation.expected)");
		else if (has_subnet)
			ctl_reply_err(req, PROTO_ERR_NOTFOUND, "subnet \"%s\" was not swept since "
				      "loomd started", subnet);
		else
			ctl_reply_err(req, PROTO_ERR_NOTFOUND, "no subnet was swept since loomd "
				      "started: try again after `loomctl discover --wait`");
		return;
	}
	if ((rc = work_submit(m->work, &job_ops, j)) < 0) {
		job_free(j);
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "cannot start the validation: %s",
			      strerror(-rc));
	}
}

static void cmd_issues(struct ctl_req *req, json_t *args, void *arg)
{
	struct validate_mod *m = arg;
	char subnet[LOOM_NAME_LEN] = "", err[512] = "";
	json_t *out = NULL;
	int has_subnet, rc;

	if ((has_subnet = ctl_arg_string(req, args, "subnet", subnet, sizeof(subnet), 0)) < 0)
		return;
	rc = validate_db_issues(store_db(m->store), has_subnet ? subnet : NULL, &out, err,
				sizeof(err));
	if (rc < 0)
		ctl_reply_errno(req, rc, NULL, PROTO_ERR_INTERNAL, err);
	else
		ctl_reply_ok(req, out);
}

/* ---- the module ------------------------------------------------------------------------- */

struct validate_mod *validate_new(struct event_base *base, const struct validate_conf *conf,
				  struct store *store, char *err, size_t errlen)
{
	struct validate_mod *m = calloc(1, sizeof(*m));

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->base = base;
	m->store = store;
	settings_of(conf, store, &m->set);
	if (!(m->work = work_queue_new(base, "validation", 1, WORK_FIFO, err, errlen))) {
		free(m);
		return NULL;
	}
	m->plan = plan_load(conf->validation_expected);
	return m;
}

void validate_free(struct validate_mod *m)
{
	if (!m)
		return;
	work_queue_free(m->work);
	for (size_t i = 0; i < SWEPT_FABS_MAX; i++) {
		validate_pkeys_drop(m->checks[i].pkeys);
		validate_mc_drop(m->checks[i].mc);
		vsm_history_free(m->checks[i].sms);
	}
	swept_fabs_clear(&m->fabs);
	plan_unref(m->plan);
	nodename_map_free(m->names);
	free(m);
}

void validate_reconfigure(struct validate_mod *m, const struct validate_conf *conf)
{
	struct plan_ref *p = plan_load(conf->validation_expected);

	if (p || !conf->validation_expected[0]) {
		plan_unref(m->plan);
		m->plan = p;
	} else {
		log_warn("validation: the previous cabling plan stays");
	}
	settings_of(conf, m->store, &m->set);
}

void validate_set_mad(struct validate_mod *m, const struct swept_mad *mad)
{
	m->mad = *mad;
}

void validate_set_names(struct validate_mod *m, struct nodename_map *names)
{
	nodename_map_free(m->names);
	m->names = nodename_map_hold(names);
}

int validate_register(struct validate_mod *m, struct ctl *ctl)
{
	if (ctl_handle(ctl, "fabric-validate", cmd_validate, m) < 0 ||
	    ctl_handle(ctl, "fabric-issues", cmd_issues, m) < 0)
		return -1;
	return 0;
}
