/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/events/config_events.c: loom.yaml's `events:` section (issue 39).
 *
 *   events:
 *     keep_days: 90        # events older than this are pruned (0: never)
 *     max_rows: 1000000    # at most this many kept, the newest (0: no bound)
 *     forward:             # none by default
 *       - type: syslog     # RFC 5424 to /dev/log, udp://HOST:PORT or
 *         address: udp://logs.example.org:514   # tcp://HOST:PORT (RFC 6587
 *         min_severity: warning                 # octet counting)
 *         kinds: [link_down, validation_issue]  # none: every kind
 *       - type: webhook    # one JSON object per event, POSTed
 *         url: https://hooks.example.org/loom
 *         ca_file: /etc/loom/hooks-ca.pem       # "" the system's CAs
 *         token_file: /etc/loom/hook.token      # "Authorization: Bearer"
 *         timeout_ms: 5000 # one try's bound
 *         retries: 5       # after a failure or a 5xx/429: 1 s, 2 s, 4 s ...
 *         queue: 1000      # events waiting; beyond, the oldest is dropped
 *
 * The defaults are defended in docs/events.md. The check refuses an
 * unknown type, severity or kind, a sink without its address or url, and
 * a token file that cannot be read. */
#include "autoconf.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/core/config_parse.h"
#include "daemon/events/config_events.h"
#include "lib/db/db_query.h"

#define CFG_SECTION_TYPE struct events_conf

static const char *const sev_names[] = { "info", "notice", "warning", "error" };

int events_severity_rank(const char *severity)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(severity, sev_names[i]) == 0)
			return i;
	return -1;
}

/* kinds: a list of event kinds, kept comma-separated. */
static int parse_kinds(struct parse *p, const yaml_node_t *v, const char *key, void *sec)
{
	struct events_sink_conf *s = sec;
	size_t off = 0;
	char err[1024];
	int rc;

	s->kinds[0] = '\0';
	if (cfg_is_null(v))
		return 0;
	if ((rc = cfg_expect(p, v, key, YAML_SEQUENCE_NODE)) < 0)
		return rc;
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		const yaml_node_t *item = yaml_document_get_node(p->doc, *it);
		const char *k = cfg_scalar(item);
		int n;

		if (!k || !*k || strchr(k, ','))
			return cfg_fail(p, cfg_line(item), key, "an event kind, one per item");
		if (dbq_event_kinds_check(k, err, sizeof(err)) < 0)
			return cfg_fail(p, cfg_line(item), key, "%s", err);
		n = snprintf(s->kinds + off, sizeof(s->kinds) - off, "%s%s", off ? "," : "", k);
		if (n < 0 || (size_t)n >= sizeof(s->kinds) - off)
			return cfg_fail(p, cfg_line(item), key, "too many kinds (%zu bytes at most)",
					sizeof(s->kinds) - 1);
		off += (size_t)n;
	}
	return 0;
}

static void print_kinds(FILE *out, const void *sec)
{
	const struct events_sink_conf *s = sec;

	fprintf(out, " [%s]\n", s->kinds);
}

#define SINK_STR(key, field, dflt) \
	{ key, CFG_STRING, offsetof(struct events_sink_conf, field), \
	  sizeof(((struct events_sink_conf *)0)->field), 0, 0, 0, 0, dflt, NULL, NULL }
#define SINK_PATH(key, field) \
	{ key, CFG_OPT_PATH, offsetof(struct events_sink_conf, field), \
	  sizeof(((struct events_sink_conf *)0)->field), 0, 0, 0, 0, NULL, NULL, NULL }
#define SINK_INT(key, field, lo, hi, dflt) \
	{ key, CFG_INT, offsetof(struct events_sink_conf, field), sizeof(int), lo, hi, 0, \
	  dflt, NULL, NULL, NULL }

/* The keys of one events.forward entry, in print order. */
static const struct cfg_key sink_keys[] = {
	SINK_STR("name", name, NULL),
	SINK_STR("type", type, NULL),
	SINK_STR("min_severity", min_severity, "warning"),
	{ "kinds", CFG_CUSTOM, 0, 0, 0, 0, 0, 0, NULL, parse_kinds, print_kinds },
	SINK_STR("address", address, NULL),
	SINK_STR("url", url, NULL),
	SINK_PATH("ca_file", ca_file),
	SINK_PATH("token_file", token_file),
	SINK_INT("timeout_ms", timeout_ms, 100, 60000, 5000),
	SINK_INT("retries", retries, 0, 20, 5),
	SINK_INT("queue", queue, 1, 100000, 1000),
};
#define N_SINK_KEYS (sizeof(sink_keys) / sizeof(sink_keys[0]))
enum { K_NAME, K_TYPE, K_SEV, K_KINDS, K_ADDRESS, K_URL, K_CA, K_TOKEN };

static unsigned long at(const yaml_node_t *const *seen, int k, const yaml_node_t *item)
{
	return cfg_line(seen[k] ? seen[k] : item);
}

/* One sink after its keys are read: its type and what that type needs. */
static int finish_sink(struct parse *p, struct events_conf *c, const yaml_node_t *item, int idx,
		       const yaml_node_t *const *seen)
{
	struct events_sink_conf *s = &c->sinks[idx];
	char key[96];

	snprintf(key, sizeof(key), "events.forward[%d].type", idx);
	if (strcmp(s->type, "syslog") == 0)
		s->sink_type = EVENTS_SINK_SYSLOG;
	else if (strcmp(s->type, "webhook") == 0)
		s->sink_type = EVENTS_SINK_WEBHOOK;
	else
		return cfg_fail(p, at(seen, K_TYPE, item), key, "\"%s\": syslog or webhook",
				s->type);
	snprintf(key, sizeof(key), "events.forward[%d].min_severity", idx);
	if ((s->min_sev = events_severity_rank(s->min_severity)) < 0)
		return cfg_fail(p, at(seen, K_SEV, item), key,
				"\"%s\": info, notice, warning or error", s->min_severity);
	if (!s->name[0])
		snprintf(s->name, sizeof(s->name), "%s-%d", s->type, idx);
	for (int j = 0; j < idx; j++)
		if (strcmp(c->sinks[j].name, s->name) == 0) {
			snprintf(key, sizeof(key), "events.forward[%d].name", idx);
			return cfg_fail(p, at(seen, K_NAME, item), key,
					"\"%s\" is also events.forward[%d]", s->name, j);
		}
	if (s->sink_type == EVENTS_SINK_SYSLOG) {
		snprintf(key, sizeof(key), "events.forward[%d].address", idx);
		if (!s->address[0])
			snprintf(s->address, sizeof(s->address), "/dev/log");
		if (s->address[0] != '/' && strncmp(s->address, "udp://", 6) != 0 &&
		    strncmp(s->address, "tcp://", 6) != 0)
			return cfg_fail(p, at(seen, K_ADDRESS, item), key,
					"\"%s\": a socket path, udp://HOST:PORT or tcp://HOST:PORT",
					s->address);
		if (s->address[0] != '/' && !strrchr(s->address + 6, ':'))
			return cfg_fail(p, at(seen, K_ADDRESS, item), key,
					"\"%s\": the port is missing", s->address);
		return 0;
	}
	snprintf(key, sizeof(key), "events.forward[%d].url", idx);
	if (strncmp(s->url, "http://", 7) != 0 && strncmp(s->url, "https://", 8) != 0)
		return cfg_fail(p, at(seen, K_URL, item), key, "\"%s\": an http:// or https:// URL",
				s->url);
	snprintf(key, sizeof(key), "events.forward[%d].token_file", idx);
	if (s->token_file[0] && access(s->token_file, R_OK) < 0)
		return cfg_fail(p, at(seen, K_TOKEN, item), key, "%s cannot be read", s->token_file);
	snprintf(key, sizeof(key), "events.forward[%d].ca_file", idx);
	if (s->ca_file[0] && access(s->ca_file, R_OK) < 0)
		return cfg_fail(p, at(seen, K_CA, item), key, "%s cannot be read", s->ca_file);
	return 0;
}

static int parse_forward(struct parse *p, const yaml_node_t *v, const char *key, void *sec)
{
	struct events_conf *c = sec;
	int n = 0, rc;

	c->n_sinks = 0;
	memset(c->sinks, 0, sizeof(c->sinks));
	if (cfg_is_null(v))
		return 0;
	if ((rc = cfg_expect(p, v, key, YAML_SEQUENCE_NODE)) < 0)
		return rc;
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		const yaml_node_t *item = yaml_document_get_node(p->doc, *it);
		const yaml_node_t *seen[N_SINK_KEYS] = { NULL };
		char where[64];

		snprintf(where, sizeof(where), "%s[%d]", key, n);
		if (n == EVENTS_MAX_SINKS)
			return cfg_fail(p, cfg_line(item), where, "too many sinks (at most %d)",
					EVENTS_MAX_SINKS);
		if ((rc = cfg_expect(p, item, where, YAML_MAPPING_NODE)) < 0)
			return rc;
		for (size_t k = 0; k < N_SINK_KEYS; k++)
			if (sink_keys[k].kind != CFG_CUSTOM)
				cfg_default_value(&sink_keys[k], &c->sinks[n]);
		if ((rc = cfg_parse_table(p, item, where, sink_keys, N_SINK_KEYS, &c->sinks[n],
					  seen)) < 0 ||
		    (rc = finish_sink(p, c, item, n, seen)) < 0)
			return rc;
		n++;
	}
	c->n_sinks = n;
	return 0;
}

static void print_forward(FILE *out, const void *sec)
{
	const struct events_conf *c = sec;

	if (c->n_sinks <= 0) {
		fputs(" []\n", out);
		return;
	}
	fputc('\n', out);
	for (int i = 0; i < c->n_sinks && i < EVENTS_MAX_SINKS; i++)
		for (size_t k = 0; k < N_SINK_KEYS; k++) {
			fprintf(out, "    %s %s:", k == 0 ? "-" : " ", sink_keys[k].name);
			if (sink_keys[k].kind == CFG_CUSTOM) {
				sink_keys[k].print(out, &c->sinks[i]);
				continue;
			}
			fputc(' ', out);
			cfg_print_value(out, &sink_keys[k], &c->sinks[i]);
			fputc('\n', out);
		}
}

static const struct cfg_key events_keys[] = {
	CFG_KEY_INT("keep_days", keep_days, 1, 36500, 1, 90),
	CFG_KEY_INT("max_rows", max_rows, 1000, 1000000000, 1, 1000000),
	CFG_KEY_CUSTOM("forward", parse_forward, print_forward),
};

const struct events_conf *events_conf_get(const struct loom_config *c)
{
	return config_section_get(c, &events_config);
}

const struct config_section events_config = {
	.name = "events", .size = sizeof(struct events_conf), .keys = events_keys,
	.n_keys = sizeof(events_keys) / sizeof(events_keys[0]),
};
