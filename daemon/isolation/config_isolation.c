/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/isolation/config_isolation.c: loom.yaml's `isolation:` section
 * (issue 42, docs/isolation.md).
 *
 *   isolation:
 *     mode: off              # off | dry-run (events only) | on
 *     file: /var/lib/loom/isolated-links  # the set libloomosm routes around
 *     window_s: 3600         # the rules count in this window
 *     errors: 100            # error-counter increments in the window (0: off)
 *     ber_exp: 12            # symbol errors per bit above 10^-12 in the window (0: off)
 *     flaps: 3               # the link went down this often in the window (0: off)
 *     degraded: false        # narrower or slower than both ends enable
 *     findings: []           # validation findings of a cable that isolate it:
 *                            # codes of docs/validate.md (miswired, mtu-mismatch...)
 *     exclude: []            # never isolated: "0xGUID" (a node), "0xGUID:PORT",
 *                            # or {port: "0xGUID:PORT", until: "2026-12-31T00:00:00Z"}
 *     max_isolated: 8        # switch cables out of the routes at once
 *     max_per_switch: 2      # ... touching one switch
 *     min_paths: 1           # paths kept between every pair of leaves
 *     ebb_floor_pct: 0       # the routes' effective bisection never below (0: off)
 *     clean_for_s: 7200      # clean this long, an isolated cable comes back
 *     backoff: 2             # each return makes the next probation this much longer
 *     max_returns: 3         # after that many, it stays out until an operator acts
 *     drain_hosts: false     # a host's bad cable drains the host in Slurm
 *
 * The file's directory must exist (it is loom's state directory by
 * default). Exclusions name nodes by GUID: names are the fabric's, which
 * the configuration is read without. */
#include "autoconf.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "daemon/core/config_parse.h"
#include "daemon/isolation/config_isolation.h"
#include "lib/validate/report.h"

#define CFG_SECTION_TYPE struct isolation_conf

static int parse_mode(struct parse *p, const yaml_node_t *v, const char *key, void *sec)
{
	struct isolation_conf *c = sec;
	const char *s = cfg_scalar(v);

	if (!s || iso_mode_parse(s, &c->iso_mode) < 0)
		return cfg_fail(p, cfg_line(v), key, "\"%s\": off, dry-run or on", s ? s : "");
	return 0;
}

static void print_mode(FILE *out, const void *sec)
{
	fprintf(out, " %s\n", iso_mode_name(((const struct isolation_conf *)sec)->iso_mode));
}

/* "0xGUID" or "0xGUID:PORT". */
static int parse_end(const char *s, struct iso_exclude *x)
{
	char *end;
	unsigned long long g;
	unsigned long port = 0;

	if (strncmp(s, "0x", 2) && strncmp(s, "0X", 2))
		return -1;
	errno = 0;
	g = strtoull(s + 2, &end, 16);
	if (errno || end == s + 2 || !g)
		return -1;
	if (*end == ':') {
		const char *ps = end + 1;

		port = strtoul(ps, &end, 10);
		if (end == ps || port < 1 || port > 254)
			return -1;
	}
	if (*end)
		return -1;
	x->guid = g;
	x->port = (int)port;
	return 0;
}

/* ISO 8601 UTC: 2026-12-31T00:00:00Z (or with a space, or a date alone). */
static int parse_until(const char *s, double *t)
{
	struct tm tm;
	const char *e;

	memset(&tm, 0, sizeof(tm));
	if (!(e = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) &&
	    !(e = strptime(s, "%Y-%m-%d %H:%M:%S", &tm)) && !(e = strptime(s, "%Y-%m-%d", &tm)))
		return -1;
	if (*e == 'Z')
		e++;
	if (*e)
		return -1;
	*t = (double)timegm(&tm);
	return 0;
}

static int parse_exclude(struct parse *p, const yaml_node_t *v, const char *key, void *sec)
{
	struct isolation_conf *c = sec;
	int rc;

	c->iso_n_exclude = 0;
	if (cfg_is_null(v))
		return 0;
	if ((rc = cfg_expect(p, v, key, YAML_SEQUENCE_NODE)) < 0)
		return rc;
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		const yaml_node_t *e = yaml_document_get_node(p->doc, *it);
		struct iso_exclude x = { 0 };
		const char *port = NULL, *until = NULL;

		if (c->iso_n_exclude == ISO_EXCLUDE_MAX)
			return cfg_fail(p, cfg_line(e), key, "more than %d entries", ISO_EXCLUDE_MAX);
		if (e->type == YAML_SCALAR_NODE) {
			port = cfg_scalar(e);
		} else if (e->type == YAML_MAPPING_NODE) {
			for (yaml_node_pair_t *pr = e->data.mapping.pairs.start;
			     pr < e->data.mapping.pairs.top; pr++) {
				const yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
				const yaml_node_t *val = yaml_document_get_node(p->doc, pr->value);
				const char *ks = k ? cfg_scalar(k) : NULL;

				if (ks && !strcmp(ks, "port"))
					port = cfg_scalar(val);
				else if (ks && !strcmp(ks, "until"))
					until = cfg_scalar(val);
				else
					return cfg_fail(p, cfg_line(k), key, "\"%s\": an entry has "
							"port and until", ks ? ks : "");
			}
		} else {
			return cfg_fail(p, cfg_line(e), key, "an entry is \"0xGUID[:PORT]\" or "
					"{port: ..., until: ...}, not %s", cfg_node_kind(e));
		}
		if (!port || parse_end(port, &x) < 0)
			return cfg_fail(p, cfg_line(e), key, "\"%s\": a node GUID (0x...) with an "
					"optional :PORT (1-254)", port ? port : "");
		if (until && parse_until(until, &x.until) < 0)
			return cfg_fail(p, cfg_line(e), key, "until \"%s\": a UTC time like "
					"2026-12-31T00:00:00Z", until);
		c->iso_exclude[c->iso_n_exclude++] = x;
	}
	return 0;
}

static void print_exclude(FILE *out, const void *sec)
{
	const struct isolation_conf *c = sec;

	if (!c->iso_n_exclude) {
		fputs(" []\n", out);
		return;
	}
	fputc('\n', out);
	for (int i = 0; i < c->iso_n_exclude; i++) {
		const struct iso_exclude *x = &c->iso_exclude[i];
		char port[8] = "";

		if (x->port)
			snprintf(port, sizeof(port), ":%d", x->port);
		if (x->until > 0) {
			time_t t = (time_t)x->until;
			struct tm tm;
			char when[32];

			gmtime_r(&t, &tm);
			strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
			fprintf(out, "    - {port: \"0x%016" PRIx64 "%s\", until: \"%s\"}\n", x->guid,
				port, when);
		} else {
			fprintf(out, "    - \"0x%016" PRIx64 "%s\"\n", x->guid, port);
		}
	}
}

/* Codes of lib/validate/report.h whose subject is one cable ("A[p] - B[q]"). */
static int finding_of_a_cable(enum val_code c)
{
	return c == VAL_MISWIRED || c == VAL_WRONG_PEER || c == VAL_SLOW || c == VAL_DEGRADED ||
	       c == VAL_MTU_MISMATCH || c == VAL_VL_MISMATCH || c == VAL_BER ||
	       c == VAL_PORT_STUCK || c == VAL_LEAF_LINK;
}

static int parse_findings(struct parse *p, const yaml_node_t *v, const char *key, void *sec)
{
	struct isolation_conf *c = sec;
	int rc;

	c->iso_findings = 0;
	if (cfg_is_null(v))
		return 0;
	if ((rc = cfg_expect(p, v, key, YAML_SEQUENCE_NODE)) < 0)
		return rc;
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		const yaml_node_t *e = yaml_document_get_node(p->doc, *it);
		const char *s = cfg_scalar(e);
		enum val_code code = s ? val_code_of(s) : VAL_CODE_COUNT;

		if (code == VAL_CODE_COUNT || !finding_of_a_cable(code))
			return cfg_fail(p, cfg_line(e), key, "\"%s\": not a validation code of one "
					"cable (miswired, wrong-peer, slow, degraded, mtu-mismatch, "
					"vl-mismatch, ber, port-stuck, leaf-link)", s ? s : "");
		c->iso_findings |= 1ULL << code;
	}
	return 0;
}

static void print_findings(FILE *out, const void *sec)
{
	const struct isolation_conf *c = sec;
	const char *sep = " [";

	if (!c->iso_findings) {
		fputs(" []\n", out);
		return;
	}
	for (int k = 0; k < VAL_CODE_COUNT; k++)
		if (c->iso_findings & (1ULL << k)) {
			fprintf(out, "%s%s", sep, val_code_name((enum val_code)k));
			sep = ", ";
		}
	fputs("]\n", out);
}

static int check_isolation(struct parse *p, void *sec)
{
	const struct isolation_conf *c = sec;
	char dir[PATH_MAX];
	struct stat st;

	if (c->iso_mode == ISO_MODE_OFF)
		return 0;
	snprintf(dir, sizeof(dir), "%s", c->iso_file);
	if (stat(dirname(dir), &st) < 0 || !S_ISDIR(st.st_mode))
		return cfg_fail(p, cfg_key_line(p, "isolation", "file"), "isolation.file",
				"%s: its directory %s does not exist", c->iso_file, dir);
	if (!c->iso_errors && !c->iso_ber_exp && !c->iso_flaps && !c->iso_degraded &&
	    !c->iso_findings)
		return cfg_fail(p, cfg_key_line(p, "isolation", "mode"), "isolation.mode",
				"%s with every rule off (errors, ber_exp, flaps, degraded, findings) "
				"decides nothing", iso_mode_name(c->iso_mode));
	return 0;
}

static const struct cfg_key isolation_keys[] = {
	CFG_KEY_CUSTOM("mode", parse_mode, print_mode),
	CFG_KEY_STR("file", CFG_PATH, iso_file, "/var/lib/loom/isolated-links"),
	CFG_KEY_INT("window_s", iso_window_s, 10, 7 * 86400, 0, 3600),
	CFG_KEY_INT("errors", iso_errors, 1, 1000000000, 1, 100),
	CFG_KEY_INT("ber_exp", iso_ber_exp, 6, 18, 1, 12),
	CFG_KEY_INT("flaps", iso_flaps, 1, 1000, 1, 3),
	CFG_KEY_BOOL("degraded", iso_degraded, 0),
	CFG_KEY_CUSTOM("findings", parse_findings, print_findings),
	CFG_KEY_CUSTOM("exclude", parse_exclude, print_exclude),
	CFG_KEY_INT("max_isolated", iso_max_isolated, 1, 4096, 1, 8),
	CFG_KEY_INT("max_per_switch", iso_max_per_switch, 1, 256, 1, 2),
	CFG_KEY_INT("min_paths", iso_min_paths, 1, 1024, 1, 1),
	CFG_KEY_INT("ebb_floor_pct", iso_ebb_floor_pct, 1, 100, 1, 0),
	CFG_KEY_INT("clean_for_s", iso_clean_for_s, 1, 30 * 86400, 0, 7200),
	CFG_KEY_INT("backoff", iso_backoff, 1, 16, 0, 2),
	CFG_KEY_INT("max_returns", iso_max_returns, 1, 1000, 1, 3),
	CFG_KEY_BOOL("drain_hosts", iso_drain_hosts, 0),
};

const struct isolation_conf *isolation_conf_get(const struct loom_config *c)
{
	return config_section_get(c, &isolation_config);
}

void isolation_conf_bounds(const struct isolation_conf *c, struct iso_bounds *b)
{
	*b = (struct iso_bounds){
		.mode = c->iso_mode, .max_isolated = c->iso_max_isolated,
		.max_per_switch = c->iso_max_per_switch, .clean_for_s = c->iso_clean_for_s,
		.backoff = c->iso_backoff, .max_returns = c->iso_max_returns,
		.drain_hosts = c->iso_drain_hosts, .exclude = c->iso_exclude,
		.n_exclude = (size_t)c->iso_n_exclude,
	};
}

static void isolation_written(const void *sec, cfg_written_fn *add, void *ctx)
{
	const struct isolation_conf *c = sec;

	if (c->iso_mode != ISO_MODE_OFF)
		add(ctx, "isolation.file", c->iso_file, CFG_WRITE_REPLACE);
}

const struct config_section isolation_config = {
	.name = "isolation", .size = sizeof(struct isolation_conf), .keys = isolation_keys,
	.n_keys = sizeof(isolation_keys) / sizeof(isolation_keys[0]),
	.check = check_isolation, .written = isolation_written,
};
