/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/cmd_daemon.c: the commands about loomd itself: status and discover. */
#include "autoconf.h"
#include "loomctl.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

/* "3d 4h 5m 6s", leading zero units left out. */
static void fmt_duration(char *buf, size_t len, long long s)
{
	long long d = s / 86400, h = s / 3600 % 24, m = s / 60 % 60;

	if (s < 0)
		snprintf(buf, len, "-");
	else if (d)
		snprintf(buf, len, "%lldd %lldh %lldm %llds", d, h, m, s % 60);
	else if (h)
		snprintf(buf, len, "%lldh %lldm %llds", h, m, s % 60);
	else if (m)
		snprintf(buf, len, "%lldm %llds", m, s % 60);
	else
		snprintf(buf, len, "%llds", s);
}

/* ---- status ------------------------------------------------------------------ */

static const json_t *find_by_name(const json_t *arr, const char *name)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
		if (strcmp(output_str(v, "name"), name) == 0)
			return v;
	return NULL;
}

/* One row of the subnet table from what the sweeper knows of a subnet
 * (`job`: configured, its last run and schedule) and what the database
 * holds (`db`: counts, last recorded sweep); either may be NULL. */
static void add_subnet_row(struct output_table *t, const json_t *job, const json_t *db)
{
	const json_t *any = job ? job : db;
	const json_t *last = job ? json_object_get(job, "last") : NULL;
	const json_t *db_last = db ? json_object_get(db, "last_sweep") : NULL;
	const json_t *next = job ? json_object_get(job, "next_in_s") : NULL;
	char where[160], nodes[24] = "", sws[24] = "", cas[24] = "", links[24] = "",
	     next_s[24] = "";
	const char *status = "", *at = "";

	if (!strcmp(output_str(any, "kind"), "eth"))
		snprintf(where, sizeof(where), "(switches' LLDP)");
	else
		snprintf(where, sizeof(where), "%s/%lld", output_str(any, "ca"),
			 output_int(any, "port"));
	if (db) {
		snprintf(nodes, sizeof(nodes), "%lld", output_int(db, "nodes"));
		snprintf(sws, sizeof(sws), "%lld", output_int(db, "switches"));
		snprintf(cas, sizeof(cas), "%lld", output_int(db, "cas"));
		snprintf(links, sizeof(links), "%lld", output_int(db, "links"));
	}
	/* The sweeper's own record is the fresher; the database's covers a
	 * daemon that has not swept since it started (and --db). */
	if (json_is_object(last)) {
		status = output_str(last, "status");
		at = output_str(last, "finished");
	} else if (json_is_object(db_last)) {
		status = output_str(db_last, "status");
		at = output_str(db_last, "started");
	}
	/* AT then still tells when the previous one ended. */
	if (job && json_is_true(json_object_get(job, "running")))
		status = "running";
	if (json_is_integer(next))
		snprintf(next_s, sizeof(next_s), "%llds", (long long)json_integer_value(next));
	const char *row[] = {
		output_str(any, "name"), where, nodes, sws, cas, links, status, at, next_s,
	};
	output_table_add(t, row);
}

/* The HA line of `status`: off, or the role, the leader, and etcd's health. */
static void ha_line(const json_t *ha, char *out, size_t len)
{
	const json_t *leader = json_object_get(ha, "leader"), *etcd = json_object_get(ha, "etcd");
	const char *role = output_str(ha, "role");
	char who[600] = "", health[700];

	if (!json_is_true(json_object_get(ha, "enabled"))) {
		snprintf(out, len, "off (one node; no ha.endpoints)");
		return;
	}
	if (json_is_object(leader))
		snprintf(who, sizeof(who), ", leader %s%s%s", output_str(leader, "name"),
			 *output_str(leader, "url") ? " at " : "", output_str(leader, "url"));
	if (json_is_true(json_object_get(etcd, "ok")))
		snprintf(health, sizeof(health), "etcd ok (%s)", output_str(etcd, "endpoint"));
	else
		snprintf(health, sizeof(health), "etcd unreachable: %s", output_str(etcd, "error"));
	snprintf(out, len, "%s (this node: %s)%s; %s", role, output_str(ha, "name"), who, health);
}

static int print_status(const json_t *st)
{
	static const char *const hdr[] = {
		"SUBNET", "CA/PORT", "NODES", "SWITCHES", "CAS", "LINKS", "LAST-SWEEP", "AT", "NEXT-IN",
	};
	const json_t *sweep = json_object_get(st, "sweep");
	const json_t *jobs = json_object_get(sweep, "subnets");
	const json_t *dbs = json_object_get(st, "subnets");
	struct output_table *t;
	size_t i;
	json_t *v;

	if (json_object_get(st, "version")) {
		char daemon[128], up[64], db[4200], interval[64], ha[2048];
		const char *config = output_str(st, "config");
		long long iv = output_int(sweep, "interval");

		fmt_duration(up, sizeof(up), output_int(st, "uptime_s"));
		snprintf(daemon, sizeof(daemon), "%s (pid %lld), up %s", output_str(st, "version"),
			 output_int(st, "pid"), up);
		snprintf(db, sizeof(db), "%s (schema %lld)", output_str(st, "db"),
			 output_int(st, "schema_version"));
		ha_line(json_object_get(st, "ha"), ha, sizeof(ha));
		if (iv > 0)
			snprintf(interval, sizeof(interval), "%llds", iv);
		else
			snprintf(interval, sizeof(interval), "0 (on demand only)");
		const char *kv[] = {
			"loomd", daemon,
			"config", *config ? config : "(built-in defaults)",
			"database", db,
			"socket", output_str(st, "socket"),
			"interval", interval,
			"subnets", json_is_true(json_object_get(sweep, "autodetect")) ?
				   "every local InfiniBand port (none configured)" : "configured",
			"ha", ha,
		};
		output_keyvals(stdout, kv, (int)(sizeof(kv) / sizeof(kv[0]) / 2));
	} else {
		/* --db: only the database was read. */
		const char *kv[] = {
			"database", output_str(st, "db"),
			"loomd", "not asked (--db)",
		};
		output_keyvals(stdout, kv, 2);
	}
	putchar('\n');

	t = output_table_new(9, hdr);
	/* Configured subnets in configuration order, then those only the
	 * database remembers (no longer configured). */
	json_array_foreach(jobs, i, v)
		add_subnet_row(t, v, find_by_name(dbs, output_str(v, "name")));
	json_array_foreach(dbs, i, v)
		if (!find_by_name(jobs, output_str(v, "name")))
			add_subnet_row(t, NULL, v);
	return output_table_flush(t, stdout);
}

int cmd_status(struct loomctl *lc, int argc, char **argv)
{
	static const struct option none[] = { { NULL, 0, NULL, 0 } };
	json_t *result = NULL;
	int rc;

	if (getopt_long(argc, argv, "", none, NULL) != -1)
		return loomctl_usage_hint();
	if (optind < argc)
		return loomctl_usage_error(lc, "status", "unexpected argument \"%s\"", argv[optind]);
	if (loomctl_call(lc, "status", json_object(), &result) < 0)
		return LOOMCTL_EXIT_FAILED;
	rc = lc->json ? output_json(result, stdout) : print_status(result);
	json_decref(result);
	if (rc < 0) {
		loomctl_error(lc, "cannot print the status: %s", strerror(-rc));
		return LOOMCTL_EXIT_FAILED;
	}
	return LOOMCTL_EXIT_OK;
}

/* ---- discover ------------------------------------------------------------------ */

/* One line per subnet swept; returns how many failed. */
static int print_sweeps(const json_t *sweeps)
{
	size_t i;
	json_t *s;
	int failed = 0;

	json_array_foreach(sweeps, i, s) {
		if (strcmp(output_str(s, "status"), "ok") == 0) {
			char a[24], b[24], c[24];

			printf("%s: ok, sweep %lld: %lld nodes, %lld links, %lld events in %lld ms "
			       "(+%lld ms to record), %s SMPs (%s retries, %s lost)\n",
			       output_str(s, "subnet"),
			       output_int(s, "sweep_id"), output_int(s, "nodes"),
			       output_int(s, "links"), output_int(s, "events"),
			       output_int(s, "duration_ms"), output_int(s, "record_ms"),
			       output_count(s, "smps", "?", a, sizeof(a)),
			       output_count(s, "smp_retries", "?", b, sizeof(b)),
			       output_count(s, "smps_lost", "?", c, sizeof(c)));
		} else {
			printf("%s: %s: %s\n", output_str(s, "subnet"), output_str(s, "status"),
			       *output_str(s, "error") ? output_str(s, "error") : "no reason given");
			failed++;
		}
	}
	return failed;
}

int cmd_discover(struct loomctl *lc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "wait", no_argument, NULL, 'w' }, { NULL, 0, NULL, 0 },
	};
	json_t *result = NULL;
	int wait = 0, c, status = LOOMCTL_EXIT_OK;

	while ((c = getopt_long(argc, argv, "w", opts, NULL)) != -1) {
		if (c != 'w')
			return loomctl_usage_hint();
		wait = 1;
	}
	if (optind < argc)
		return loomctl_usage_error(lc, "discover", "unexpected argument \"%s\"",
					   argv[optind]);
	if (loomctl_call(lc, "discover", json_pack("{s:b}", "wait", wait), &result) < 0)
		return LOOMCTL_EXIT_FAILED;
	if (lc->json) {
		/* The JSON carries each sweep's status for the caller to judge:
		 * the exit status only says whether loomd did what was asked. */
		if (output_json(result, stdout) < 0)
			status = LOOMCTL_EXIT_FAILED;
	} else if (!wait) {
		printf("sweep started\n");
	} else if (print_sweeps(json_object_get(result, "sweeps")) > 0) {
		status = LOOMCTL_EXIT_FAILED;
	}
	json_decref(result);
	return status;
}
