/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/cmd_route_live.c: `loomctl route check` and `loomctl route trace`:
 * the forwarding tables the switches hold now, read back by loomd with SMPs
 * (or the last read, --cached / --db), judged with the metrics of route
 * compute, or followed hop by hop between two endpoints. */
#include "autoconf.h"
#include "loomctl.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static long long jint(const json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

/* The "tables:" line: which read, how old, how complete. */
static void print_read(const json_t *res)
{
	const json_t *rd = json_object_get(res, "read");

	printf("tables:    read %s%s, %lld switches, %lld SMPs in %lld ms%s\n",
	       jstr(rd, "time"), json_is_true(json_object_get(rd, "cached")) ? " (cached)" : "",
	       jint(rd, "switches"), jint(rd, "smps"), jint(rd, "duration_ms"),
	       json_is_true(json_object_get(rd, "stale")) ?
	       "; the subnet was swept again since: read them again" : "");
}

/* Where the VLs came from, and the credit loop found. */
static void print_vls(const json_t *v)
{
	const json_t *loop = json_object_get(v, "credit_loop");

	if (!v)
		return;
	if (!strcmp(jstr(v, "sl2vl"), "read"))
		printf("VLs:       SL2VL read on %lld switch port pairs", jint(v, "sl2vl_pairs"));
	else
		printf("VLs:       SL2VL not read (cached): SL s judged on VL s");
	if (!strcmp(jstr(v, "sls"), "file"))
		printf("; SLs from %s (%lld switches)\n", jstr(v, "sls_file"),
		       jint(v, "sls_switches"));
	else if (json_object_get(v, "sls_error"))
		printf("; SLs unknown (%s): every path judged on SL0 -> its VL\n",
		       jstr(v, "sls_error"));
	else
		printf("; SLs unknown: every path judged on SL0 -> its VL\n");
	if (jint(v, "vl_changes"))
		printf("           %lld changes of VL along paths%s\n", jint(v, "vl_changes"),
		       json_is_true(json_object_get(v, "vl_loop")) ?
		       ", and they lead back to a VL: a credit loop across VLs may form" : "");
	if (json_is_object(loop))
		printf("CREDIT LOOP on VL %lld (%lld channels): %s\n", jint(loop, "vl"),
		       jint(loop, "channels"), jstr(loop, "cycle"));
}

static int print_check(const json_t *res)
{
	const json_t *broken = json_object_get(res, "broken");
	long long n_broken = jint(res, "broken_pairs");
	size_t i;
	json_t *b;

	printf("subnet:    %s: %lld switches, %lld CA ports\n", jstr(res, "subnet"),
	       jint(res, "switches"), jint(res, "ca_ports"));
	print_read(res);
	printf("entries:   %lld routed, %lld unroutable", jint(res, "routed_entries"),
	       jint(res, "unroutable_entries"));
	if (jint(res, "missing_tables"))
		printf(", %lld switches without a table", jint(res, "missing_tables"));
	printf("\n");
	route_print_metrics(stdout, json_object_get(res, "metrics"));
	print_vls(json_object_get(res, "vls"));
	if (!n_broken)
		return 0;
	printf("broken:    %lld pairs%s\n", n_broken,
	       (long long)json_array_size(broken) < n_broken ? "; the first ones:" : ":");
	json_array_foreach(broken, i, b)
		printf("  %s -> %s (LID %lld): %s\n", output_name(b, "src_name", "src"),
		       output_name(b, "dst_name", "dst"),
		       jint(b, "dlid"), jstr(b, "reason"));
	return 0;
}

static void print_end(const char *what, const json_t *e)
{
	printf("%s %s \"%s\" %s port %lld lid %lld\n", what, jstr(e, "type"),
	       output_name(e, "name", "desc"),
	       jstr(e, "guid"), jint(e, "port"), jint(e, "lid"));
}

static int print_trace(const json_t *res)
{
	static const char *const head[] = { "HOP", "GUID", "LID", "IN", "OUT", "SWITCH" };
	const json_t *hops = json_object_get(res, "hops");
	struct output_table *t = output_table_new(6, head);
	size_t i;
	json_t *h;

	print_read(res);
	print_end("from:     ", json_object_get(res, "src"));
	print_end("to:       ", json_object_get(res, "dst"));
	json_array_foreach(hops, i, h) {
		char hop[24], lid[24], in[24], out[24];
		const json_t *o = json_object_get(h, "out_port");
		const char *row[6] = { hop, jstr(h, "guid"), lid, in, out,
				       output_name(h, "name", "desc") };

		snprintf(hop, sizeof(hop), "%zu", i + 1);
		snprintf(lid, sizeof(lid), "%lld", jint(h, "lid"));
		/* port 0: the walk started at this switch */
		snprintf(in, sizeof(in), "%lld", jint(h, "in_port"));
		if (json_is_integer(o))
			snprintf(out, sizeof(out), "%lld", (long long)json_integer_value(o));
		else
			out[0] = '\0';
		output_table_add(t, row);
	}
	if (output_table_flush(t, stdout) < 0)
		return -ENOMEM;
	if (json_is_true(json_object_get(res, "delivered")))
		printf("delivered: LID %lld reached in %zu switch hop%s\n", jint(res, "dlid"),
		       json_array_size(hops), json_array_size(hops) == 1 ? "" : "s");
	else
		printf("BROKEN:    %s\n", jstr(res, "reason"));
	return 0;
}

/* Send the request, print, and turn the verdict into the exit status. */
static int call_live(struct loomctl *lc, const char *cmd, json_t *args, int (*print)(const json_t *),
		     int (*ok)(const json_t *))
{
	json_t *result = NULL;
	int rc, status;

	if (!args) {
		loomctl_error(lc, "%s: the arguments are not valid UTF-8", cmd);
		return LOOMCTL_EXIT_FAILED;
	}
	if (loomctl_call(lc, cmd, args, &result) < 0)
		return LOOMCTL_EXIT_FAILED;
	rc = lc->json ? output_json(result, stdout) : print(result);
	status = ok(result) ? LOOMCTL_EXIT_OK : LOOMCTL_EXIT_FAILED;
	json_decref(result);
	if (rc < 0) {
		loomctl_error(lc, "cannot print the result: %s", strerror(-rc));
		return LOOMCTL_EXIT_FAILED;
	}
	return status;
}

/* Tables that lose pairs or loop are a failed routing, for scripts too. */
static int check_ok(const json_t *res)
{
	const json_t *m = json_object_get(res, "metrics");

	return jint(m, "delivered") == jint(m, "pairs") && jint(res, "broken_pairs") == 0;
}

static int trace_ok(const json_t *res)
{
	return json_is_true(json_object_get(res, "delivered"));
}

/* Options both take; returns 0, or the exit status of a usage error. */
static int common_opt(struct loomctl *lc, const char *cmd, int c, json_t *args)
{
	unsigned long v;

	switch (c) {
	case 'n':
		json_object_set_new(args, "subnet", json_string(optarg));
		return 0;
	case 'c':
		json_object_set_new(args, "cached", json_true());
		return 0;
	case 'k': case 'r': case 'S': case 'b': {
		const char *key = c == 'k' ? "shifts" : c == 'r' ? "random" :
				  c == 'S' ? "seed" : "bisections";

		if (loomctl_parse_count(optarg, c == 'S' ? (unsigned long)LLONG_MAX :
				c == 'k' ? 1000000 : 100000, &v) < 0)
			return loomctl_usage_error(lc, cmd, "--%s wants a count, not \"%s\"", key,
						   optarg);
		json_object_set_new(args, key, json_integer((json_int_t)v));
		return 0;
	}
	default:
		return loomctl_usage_hint();
	}
}

int cmd_route_check(struct loomctl *lc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "subnet", required_argument, NULL, 'n' },
		{ "cached", no_argument, NULL, 'c' },
		{ "shifts", required_argument, NULL, 'k' },
		{ "random", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 'S' },
		{ "bisections", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	json_t *args = json_object();
	int c, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1)
		if ((rc = common_opt(lc, "route check", c, args)) != 0) {
			json_decref(args);
			return rc;
		}
	if (optind < argc) {
		json_decref(args);
		return loomctl_usage_error(lc, "route check", "unexpected argument \"%s\"",
					   argv[optind]);
	}
	return call_live(lc, "route-check", args, print_check, check_ok);
}

int cmd_route_trace(struct loomctl *lc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "subnet", required_argument, NULL, 'n' },
		{ "cached", no_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	json_t *args = json_object();
	int c, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1)
		if ((rc = common_opt(lc, "route trace", c, args)) != 0) {
			json_decref(args);
			return rc;
		}
	if (argc - optind != 2) {
		json_decref(args);
		return loomctl_usage_error(lc, "route trace", "wants SRC and DST (a host name, node "
					   "name or description, GUID 0x... or LID)");
	}
	json_object_set_new(args, "src", json_string(argv[optind]));
	json_object_set_new(args, "dst", json_string(argv[optind + 1]));
	/* json_string refuses what is not UTF-8: say so rather than send less. */
	if (!json_object_get(args, "src") || !json_object_get(args, "dst")) {
		json_decref(args);
		args = NULL;
	}
	return call_live(lc, "route-trace", args, print_trace, trace_ok);
}
