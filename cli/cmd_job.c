/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/cmd_job.c: `loomctl job JOBID | --hosts LIST`: which links a job's
 * traffic can cross under the forwarding tables loomd last read, and which
 * of them are bad, congested, down or slow, with the other jobs sharing
 * them (issue 24; lib/db/job_db.h). A job is the tenant its Slurm prolog
 * made (named by the job id); --hosts takes a hostlist instead. Exit 1
 * when a link of its paths has anything wrong, or a pair is lost; --db
 * answers the same without loomd, with the host rule of --host-pattern and
 * --host-map (loomd takes neither from a client: its tenants' rule).
 * With --from T1 [--to T2] (issue 42, the post-mortem): the command
 * job-history's timeline: each tables version in force in the window, the
 * links that moved, the events on the job's links, their counters. */
#include "autoconf.h"
#include "loomctl.h"
#include "job_slurm.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/db/job_history_db.h"
#include "lib/util/clock.h"

static int print_hosts(const json_t *res)
{
	static const char *const hdr[] = { "HOST", "HCA PORT", "PORT GUID", "SWITCH", "PORT" };
	struct output_table *t = output_table_new(5, hdr);
	const json_t *h;
	size_t i;

	json_array_foreach(json_object_get(res, "hosts"), i, h) {
		char sw_port[16], hca[128];
		const char *row[5];

		snprintf(hca, sizeof(hca), "%s:%lld", output_str(h, "node"), output_int(h, "port"));
		snprintf(sw_port, sizeof(sw_port), "%lld", output_int(h, "switch_port"));
		row[0] = output_str(h, "host");
		row[1] = hca;
		row[2] = output_str(h, "port_guid");
		row[3] = output_str(h, "switch");
		row[4] = sw_port;
		output_table_add(t, row);
	}
	return output_table_flush(t, stdout);
}

static int print_worst(const json_t *res)
{
	static const char *const hdr[] = { "FROM", "TO", "PAIRS", "WHY", "OTHER JOBS" };
	struct output_table *t;
	const json_t *w;
	size_t i;

	printf("\nWORST LINKS ON ITS PATHS (%lld of %lld links with something wrong)\n",
	       output_int(res, "bad_links"), output_int(json_object_get(res, "paths"), "links"));
	if (!json_array_size(json_object_get(res, "worst"))) {
		printf("  none\n");
		return 0;
	}
	t = output_table_new(5, hdr);
	json_array_foreach(json_object_get(res, "worst"), i, w) {
		char pairs[32], why[1024], jobs[512];
		const json_t *v;
		size_t k, at = 0;
		const char *row[5];

		snprintf(pairs, sizeof(pairs), "%lld", output_int(w, "pairs"));
		why[0] = '\0';
		json_array_foreach(json_object_get(w, "why"), k, v) {
			int n = snprintf(why + at, sizeof(why) - at, "%s%s", at ? "; " : "",
					 json_string_value(v));

			if (n < 0 || (size_t)n >= sizeof(why) - at)
				break;
			at += (size_t)n;
		}
		output_words(json_object_get(w, "jobs"), 0, jobs, sizeof(jobs));
		row[0] = output_str(w, "from");
		row[1] = output_str(w, "to");
		row[2] = pairs;
		row[3] = why;
		row[4] = jobs;
		output_table_add(t, row);
	}
	return output_table_flush(t, stdout);
}

static int print_job(const json_t *res)
{
	const json_t *p = json_object_get(res, "paths"), *tables = json_object_get(res, "tables");
	const json_t *v;
	char buf[2048];
	size_t i, at = 0;
	int rc = 0;

	if (json_is_string(json_object_get(res, "job")))
		printf("job %s", output_str(res, "job"));
	else
		printf("hosts");
	printf(" on subnet %s: %zu HCA port%s on %zu switch%s; forwarding tables read %s%s\n",
	       output_str(res, "subnet"), json_array_size(json_object_get(res, "hosts")),
	       json_array_size(json_object_get(res, "hosts")) == 1 ? "" : "s",
	       json_array_size(json_object_get(res, "switches")),
	       json_array_size(json_object_get(res, "switches")) == 1 ? "" : "es",
	       output_str(tables, "time"),
	       json_is_true(json_object_get(tables, "stale")) ?
	       " (swept since: route check reads them again; opensm.read_tables does after each reroute)" : "");
	if (json_array_size(json_object_get(res, "unknown_hosts"))) {
		output_words(json_object_get(res, "unknown_hosts"), 0, buf, sizeof(buf));
		printf("not in the fabric: %s\n", buf);
	}
	printf("paths: %lld of %lld pairs walked%s", output_int(p, "pairs"),
	       output_int(p, "pairs_total"),
	       json_is_true(json_object_get(p, "sampled")) ? "" : " (every pair)");
	if (json_is_true(json_object_get(p, "sampled")))
		printf(" (sampled: %lld of %lld pairs, %lld sources drawn with seed %lld, each to "
		       "every other host; above %lld pairs)", output_int(p, "pairs"),
		       output_int(p, "pairs_total"), output_int(p, "sources"),
		       output_int(p, "seed"), output_int(p, "max_pairs"));
	printf("; %lld delivered, %lld dropped, %lld in loops; %lld links\n",
	       output_int(p, "delivered"), output_int(p, "dropped"), output_int(p, "loops"),
	       output_int(p, "links"));
	json_array_foreach(json_object_get(p, "broken"), i, v)
		printf("  lost: %s -> %s (%s)\n", output_str(v, "src"), output_str(v, "dst"),
		       output_str(v, "why"));
	printf("\nSWITCHES OF ITS HOSTS\n  ");
	json_array_foreach(json_object_get(res, "switches"), i, v) {
		int n = snprintf(buf + at, sizeof(buf) - at, "%s%s (%lld)", at ? ", " : "",
				 output_str(v, "switch"), output_int(v, "hosts"));

		if (n < 0 || (size_t)n >= sizeof(buf) - at)
			break;
		at += (size_t)n;
	}
	printf("%s\n\nHOSTS\n", at ? buf : "none");
	rc |= print_hosts(res);
	rc |= print_worst(res);
	printf("\nOTHER JOBS SHARING ITS LINKS\n");
	if (!json_array_size(json_object_get(res, "other_jobs")))
		printf("  none\n");
	json_array_foreach(json_object_get(res, "other_jobs"), i, v)
		printf("  %s: %lld links\n", output_str(v, "job"), output_int(v, "shared_links"));
	return rc;
}

/* "14:05:03" when the day is the window's first, else the whole time. */
static const char *clock_of(const char *iso, const char *from, char *buf, size_t len)
{
	if (iso && from && strlen(iso) >= 19 && !strncmp(iso, from, 10))
		snprintf(buf, len, "%.8s", iso + 11);
	else
		snprintf(buf, len, "%s", iso ? iso : "?");
	return buf;
}

static void print_links(const char *sign, const json_t *links, size_t max)
{
	const json_t *v;
	size_t i;

	json_array_foreach(links, i, v) {
		if (i == max) {
			printf("           %s ... and %zu more\n", sign, json_array_size(links) - max);
			break;
		}
		if (json_is_string(v))
			printf("           %s %s\n", sign, json_string_value(v));
		else
			printf("           %s %s (%lld pairs)\n", sign, output_str(v, "link"),
			       output_int(v, "pairs"));
	}
}

/* first: the version in force at the window's start (read before it). */
static void print_version(const json_t *v, const char *from, int first)
{
	const json_t *moved = json_object_get(v, "moved");
	char at[32], after[32];
	size_t added = json_array_size(json_object_get(moved, "added"));
	size_t removed = json_array_size(json_object_get(moved, "removed"));

	printf("%s tables v%lld %s", clock_of(first ? from : output_str(v, "time"), from, at,
					       sizeof(at)),
	       output_int(v, "id"), first ? "in force" : "new");
	printf(" (read %s", clock_of(output_str(v, "time"), from, after, sizeof(after)));
	if (json_is_string(json_object_get(v, "after")) && !first)
		printf(", changed after %s", clock_of(output_str(v, "after"), from, after,
						      sizeof(after)));
	if (json_is_string(json_object_get(v, "after")))
		printf("; %lld of %lld switches' tables changed", output_int(v, "changed_switches"),
		       output_int(v, "switches"));
	else
		printf("; the first kept, %lld switches", output_int(v, "switches"));
	printf("): the job's %lld pairs cross %lld links", output_int(v, "pairs"),
	       output_int(v, "n_links"));
	if (output_int(v, "dropped") || output_int(v, "loops"))
		printf(", %lld pairs dropped, %lld in loops", output_int(v, "dropped"),
		       output_int(v, "loops"));
	if (first || !moved || json_is_null(moved)) {
		printf("\n");
		print_links(" ", json_object_get(v, "links"), 8);
		return;
	}
	printf("; %zu link%s moved in, %zu out\n", added, added == 1 ? "" : "s", removed);
	print_links("+", json_object_get(moved, "added"), 16);
	print_links("-", json_object_get(moved, "removed"), 16);
}

static void print_event(const json_t *e, const char *from)
{
	char at[32];

	printf("%s %s %s", clock_of(output_str(e, "time"), from, at, sizeof(at)),
	       output_str(e, "kind"), output_str(e, "subject"));
	if (json_is_string(json_object_get(e, "port")))
		printf(" (on the job's links at %s, %lld pairs)", output_str(e, "port"),
		       output_int(e, "pairs"));
	if (*output_str(e, "new_value"))
		printf(": %s", output_str(e, "new_value"));
	printf("\n");
}

static void print_counters(const json_t *c)
{
	const json_t *p;
	size_t i;

	printf("\nCOUNTERS ON ITS LINKS' PORTS IN THE WINDOW (%s; %lld of %lld ports asked)\n",
	       output_str(c, "source"), output_int(c, "asked"), output_int(c, "of"));
	if (json_is_string(json_object_get(c, "note")))
		printf("  %s\n", output_str(c, "note"));
	if (json_is_string(json_object_get(c, "error")))
		printf("  not answered: %s\n", output_str(c, "error"));
	json_array_foreach(json_object_get(c, "ports"), i, p) {
		const char *k;
		const json_t *v;

		if (!output_int(p, "errors_total"))
			continue;
		printf("  %s[%lld]: %lld errors in %lld reads:", output_str(p, "name"),
		       output_int(p, "port"), output_int(p, "errors_total"), output_int(p, "samples"));
		json_object_foreach((json_t *)json_object_get(p, "errors"), k, v)
			printf(" %s +%lld", k, (long long)json_integer_value(v));
		printf("\n");
	}
}

/* The post-mortem's timeline: the tables versions and the events, by time. */
static int print_history(const json_t *res)
{
	const json_t *vs = json_object_get(res, "versions"), *ev = json_object_get(res, "events");
	const char *from = output_str(res, "from");
	size_t iv = 0, ie = 0;
	char hosts[1024];
	const json_t *h;
	size_t i, at = 0;

	hosts[0] = '\0';
	json_array_foreach(json_object_get(res, "hosts"), i, h) {
		int n = snprintf(hosts + at, sizeof(hosts) - at, "%s%s", at ? ", " : "",
				 output_str(h, "host"));

		if (n < 0 || (size_t)n >= sizeof(hosts) - at)
			break;
		at += (size_t)n;
	}
	printf("job %s on subnet %s from %s to %s: %zu tables version%s\n", output_str(res, "job"),
	       output_str(res, "subnet"), from, output_str(res, "to"), json_array_size(vs),
	       json_array_size(vs) == 1 ? "" : "s");
	printf("hosts: %s%s%s\n", hosts, json_is_string(json_object_get(res, "ended")) ?
	       "; the job ended " : "", json_is_string(json_object_get(res, "ended")) ?
	       output_str(res, "ended") : "");
	printf("paths: on %s\n\nTIMELINE\n", output_str(res, "fabric"));
	if (!json_array_size(vs))
		printf("no forwarding tables stored for the window: loom keeps a version for each "
		       "read (route check, opensm.read_tables)\n");
	while (iv < json_array_size(vs) || ie < json_array_size(ev)) {
		const json_t *v = json_array_get(vs, iv), *e = json_array_get(ev, ie);
		double tv = v ? json_number_value(json_object_get(v, "ts")) : 0;

		if (v && (!e || tv <= json_number_value(json_object_get(e, "ts")) || iv == 0)) {
			print_version(v, from, iv == 0 &&
				      tv <= json_number_value(json_object_get(res, "from_ts")));
			iv++;
		} else {
			print_event(e, from);
			ie++;
		}
	}
	if (json_is_string(json_object_get(res, "cut_at")))
		printf("... %lld more tables versions from %s on: the answer stops there (a "
		       "narrower window shows them)\n", output_int(res, "versions_more"),
		       output_str(res, "cut_at"));
	if (output_int(res, "events_more"))
		printf("... and %lld more events (--json, or loomctl events)\n",
		       output_int(res, "events_more"));
	if (json_object_get(res, "counters"))
		print_counters(json_object_get(res, "counters"));
	return 0;
}

/* --from T1 [--to T2]: the post-mortem (command job-history). */
static int job_history(struct loomctl *lc, json_t *args, const char *from, const char *to)
{
	double now = clock_wall(), t1, t2 = now;   /* "now" to the fraction */
	json_t *result = NULL;
	int rc;

	if (job_history_time_parse(from, now, &t1) < 0 ||
	    (to && job_history_time_parse(to, now, &t2) < 0)) {
		json_decref(args);
		return loomctl_usage_error(lc, "job", "--%s %s is not a time: now, -2h, unix seconds, "
					   "2026-11-29T14:05:00Z or \"2026-11-29 14:05[:SS]\" (local)",
					   job_history_time_parse(from, now, &t1) < 0 ? "from" : "to",
					   job_history_time_parse(from, now, &t1) < 0 ? from : to);
	}
	if (!json_is_string(json_object_get(args, "job")) || json_object_get(args, "hosts") ||
	    json_object_get(args, "top") || json_object_get(args, "seed")) {
		json_decref(args);
		return loomctl_usage_error(lc, "job", "--from takes a JOBID (a tenant, running or "
					   "ended) and --subnet, nothing else");
	}
	json_object_set_new(args, "from", json_real(t1));
	json_object_set_new(args, "to", json_real(t2));
	if (loomctl_call(lc, "job-history", args, &result) < 0)
		return LOOMCTL_EXIT_FAILED;
	rc = lc->json ? output_json(result, stdout) : print_history(result);
	json_decref(result);
	if (rc < 0) {
		loomctl_error(lc, "cannot print the result: %s", strerror(-rc));
		return LOOMCTL_EXIT_FAILED;
	}
	return LOOMCTL_EXIT_OK;
}

int cmd_job(struct loomctl *lc, int argc, char **argv)
{
	const struct option opts[] = {
		{ "hosts", required_argument, NULL, 'H' },
		{ "subnet", required_argument, NULL, 'n' },
		{ "top", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 's' },
		{ "host-pattern", required_argument, NULL, 'p' },
		{ "host-map", required_argument, NULL, 'm' },
		{ "slurm", no_argument, NULL, 'S' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	const char *from = NULL, *to = NULL;
	json_t *args = json_object(), *result = NULL, *p;
	unsigned long n;
	int c, rc, slurm = 0;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'H') {
			json_object_set_new(args, "hosts", json_string(optarg));
		} else if (c == 'F' || c == 'T') {
			*(c == 'F' ? &from : &to) = optarg;
		} else if (c == 'S') {
			slurm = 1;
		} else if (c == 'n') {
			json_object_set_new(args, "subnet", json_string(optarg));
		} else if (c == 'p' && lc->db_path) {
			json_object_set_new(args, "host_pattern", json_string(optarg));
		} else if (c == 'm' && lc->db_path) {
			/* loomd reads only its own tenants.host_map and pattern */
			json_object_set_new(args, "host_map", json_string(optarg));
		} else if (c == 'p' || c == 'm') {
			json_decref(args);
			return loomctl_usage_error(lc, "job", "--%s is for --db: loomd uses "
						   "tenants.%s", c == 'p' ? "host-pattern" : "host-map",
						   c == 'p' ? "host_pattern" : "host_map");
		} else if (c == 't' && loomctl_parse_count(optarg, 10000, &n) == 0 && n > 0) {
			json_object_set_new(args, "top", json_integer((json_int_t)n));
		} else if (c == 's' && loomctl_parse_count(optarg, 0x7fffffff, &n) == 0) {
			json_object_set_new(args, "seed", json_integer((json_int_t)n));
		} else {
			json_decref(args);
			return c == 't' || c == 's'
				? loomctl_usage_error(lc, "job", "--%s %s is not a count",
						      c == 't' ? "top" : "seed", optarg)
				: loomctl_usage_hint();
		}
	}
	if (optind < argc)
		json_object_set_new(args, "job", json_string(argv[optind++]));
	if (to && !from) {
		json_decref(args);
		return loomctl_usage_error(lc, "job", "--to needs --from");
	}
	if (from && !slurm && optind == argc)
		return job_history(lc, args, from, to);
	if (from) {
		json_decref(args);
		return loomctl_usage_error(lc, "job", "--from takes one JOBID (not --slurm)");
	}
	if (optind < argc || !json_object_get(args, "job") == !json_object_get(args, "hosts")) {
		json_decref(args);
		return optind < argc ? loomctl_usage_error(lc, "job", "unexpected argument \"%s\"",
							   argv[optind])
				     : loomctl_usage_error(lc, "job", "give a JOBID or --hosts LIST");
	}
	if (slurm) {
		/* The hosts Slurm gives the job, asked by their names. */
		static char nodes[65536];
		char err[512];
		const char *id = json_string_value(json_object_get(args, "job"));

		if (!id) {
			json_decref(args);
			return loomctl_usage_error(lc, "job", "--slurm needs a JOBID, not --hosts");
		}
		if (job_slurm_nodes(id, nodes, sizeof(nodes), err, sizeof(err)) < 0) {
			loomctl_error(lc, "%s", err);
			json_decref(args);
			return LOOMCTL_EXIT_FAILED;
		}
		json_object_del(args, "job");
		json_object_set_new(args, "hosts", json_string(nodes));
	}
	if (loomctl_call(lc, "job", args, &result) < 0)
		return LOOMCTL_EXIT_FAILED;
	rc = lc->json ? output_json(result, stdout) : print_job(result);
	if (rc < 0) {
		loomctl_error(lc, "cannot print the result: %s", strerror(-rc));
		json_decref(result);
		return LOOMCTL_EXIT_FAILED;
	}
	p = json_object_get(result, "paths");
	rc = output_int(result, "bad_links") > 0 || output_int(p, "dropped") > 0 ||
	     output_int(p, "loops") > 0 ? LOOMCTL_EXIT_FAILED : LOOMCTL_EXIT_OK;
	json_decref(result);
	return rc;
}
