/* daemon/core/config.c: loomd's configuration. The YAML file is loaded with
 * libyaml's document API and walked against a table of keys (section, name,
 * type, bounds, place in struct loom_config); the same table drives
 * config_print(), so the parser and the printer cannot disagree about which
 * keys exist or in what order they are written.
 *
 * Parsing fills a scratch copy and only copies it out when the whole file is
 * valid: a bad reload must leave the running configuration untouched. */
#include "autoconf.h"
#include "daemon/core/config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <regex.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <yaml.h>

#include "daemon/core/config_parse.h"

/* A configuration is a few kilobytes; anything this large is a mistake
 * (wrong file) and is refused before libyaml spends memory on it. */
#define CONFIG_MAX_BYTES (1024 * 1024)

/* What a key holds, which decides how its scalar is checked and printed. */
enum cfg_kind {
	CFG_LEVEL,   /* enum log_level by name */
	CFG_TARGET,  /* enum log_target by name */
	CFG_PATH,    /* absolute path */
	CFG_OPT_PATH, /* absolute path, or "" for none */
	CFG_SOCKET,  /* absolute path that also fits sockaddr_un.sun_path */
	CFG_STRING,  /* free text (no control characters) */
	CFG_INT,     /* decimal integer in min..max (or 0 if zero_ok) */
	CFG_BOOL,    /* true or false, into an int */
	CFG_SUBNETS, /* discovery.subnets: a sequence of subnet mappings */
};

struct cfg_key {
	const char *section;  /* NULL inside a subnet mapping */
	const char *name;
	enum cfg_kind kind;
	size_t off;           /* offset in struct loom_config / loom_subnet_conf */
	size_t size;          /* buffer size for the string kinds */
	int min, max;         /* CFG_INT bounds */
	int zero_ok;          /* CFG_INT: 0 is also valid ("off") */
};

#define KEY_STR(sec, key, kind, field) \
	{ sec, key, kind, offsetof(struct loom_config, field), \
	  sizeof(((struct loom_config *)0)->field), 0, 0, 0 }
#define KEY_INT(sec, key, field, lo, hi, zero) \
	{ sec, key, CFG_INT, offsetof(struct loom_config, field), sizeof(int), lo, hi, zero }

/* The documented order: config_print() writes the keys in this order. */
static const struct cfg_key cfg_keys[] = {
	{ "log", "level", CFG_LEVEL, offsetof(struct loom_config, log_level), 0, 0, 0, 0 },
	{ "log", "target", CFG_TARGET, offsetof(struct loom_config, log_target), 0, 0, 0, 0 },
	KEY_STR("database", "path", CFG_PATH, db_path),
	KEY_STR("control", "socket", CFG_SOCKET, socket_path),
	KEY_STR("control", "admin_group", CFG_STRING, admin_group),
	KEY_INT("discovery", "interval", sweep_interval, 5, 86400, 1),
	KEY_INT("discovery", "timeout_ms", mad_timeout_ms, 1, 60000, 0),
	KEY_INT("discovery", "retries", mad_retries, 0, 20, 0),
	KEY_INT("discovery", "max_smps", max_smps, 1, 1024, 0),
	{ "discovery", "subnets", CFG_SUBNETS, offsetof(struct loom_config, subnets), 0, 0, 0, 0 },
	KEY_STR("opensm", "report_socket", CFG_SOCKET, osm_socket_path),
	KEY_STR("plugins", "dir", CFG_PATH, plugin_dir),
	KEY_STR("tenants", "partitions_file", CFG_PATH, tenant_partitions_file),
	KEY_STR("tenants", "static_partitions", CFG_OPT_PATH, tenant_static_partitions),
	KEY_STR("tenants", "opensm_pid_file", CFG_OPT_PATH, tenant_opensm_pid_file),
	KEY_INT("tenants", "pkey_min", tenant_pkey_min, 1, 0x7ffe, 0),
	KEY_INT("tenants", "pkey_max", tenant_pkey_max, 1, 0x7ffe, 0),
	KEY_INT("tenants", "timeout_s", tenant_timeout_s, 1, 3600, 0),
	KEY_INT("tenants", "interval", tenant_interval, 5, 86400, 1),
	KEY_INT("tenants", "vlan_min", tenant_vlan_min, 2, 4094, 0),
	KEY_INT("tenants", "vlan_max", tenant_vlan_max, 2, 4094, 0),
	KEY_STR("tenants", "users", CFG_STRING, tenant_users),
	KEY_STR("tenants", "groups", CFG_STRING, tenant_groups),
	KEY_STR("tenants", "host_pattern", CFG_STRING, tenant_host_pattern),
	KEY_STR("tenants", "host_map", CFG_OPT_PATH, tenant_host_map),
	{ "tenants", "check_switch_ports", CFG_BOOL,
	  offsetof(struct loom_config, tenant_check_switch_ports), sizeof(int), 0, 0, 0 },
};
#define N_CFG_KEYS (sizeof(cfg_keys) / sizeof(cfg_keys[0]))

/* The keys of one discovery.subnets entry, in print order. */
static const struct cfg_key subnet_keys[] = {
	{ NULL, "name", CFG_STRING, offsetof(struct loom_subnet_conf, name),
	  sizeof(((struct loom_subnet_conf *)0)->name), 0, 0, 0 },
	{ NULL, "ca", CFG_STRING, offsetof(struct loom_subnet_conf, ca),
	  sizeof(((struct loom_subnet_conf *)0)->ca), 0, 0, 0 },
	{ NULL, "port", CFG_INT, offsetof(struct loom_subnet_conf, port), sizeof(int), 1, 254, 0 },
};
#define N_SUBNET_KEYS (sizeof(subnet_keys) / sizeof(subnet_keys[0]))
enum { SUBNET_NAME, SUBNET_CA, SUBNET_PORT };

static const char *const target_names[] = { "stderr", "syslog" };

void config_defaults(struct loom_config *c)
{
	/* Zero everything, padding and unused bytes included, so that two
	 * equal configurations are also equal for memcmp(). */
	memset(c, 0, sizeof(*c));
	c->log_level = LOG_LVL_NOTICE;
	c->log_target = LOG_TARGET_STDERR;
	snprintf(c->db_path, sizeof(c->db_path), "%s", LOOM_DEFAULT_DB);
	snprintf(c->socket_path, sizeof(c->socket_path), "%s", LOOM_DEFAULT_SOCKET);
	snprintf(c->osm_socket_path, sizeof(c->osm_socket_path), "%s", LOOM_DEFAULT_OSM_SOCKET);
	c->sweep_interval = 300;
	c->mad_timeout_ms = 200;
	c->mad_retries = 3;
	c->max_smps = 64;
	c->n_subnets = 0;
	snprintf(c->plugin_dir, sizeof(c->plugin_dir), "%s", LOOM_DEFAULT_PLUGIN_DIR);
	qos_policy_defaults(&c->roce);
	c->roce_interval = 300;
	c->roce_reapply = 0;
	c->n_switches = 0;
	config_defaults_ar(c);
	snprintf(c->tenant_partitions_file, sizeof(c->tenant_partitions_file), "%s",
		 LOOM_DEFAULT_PARTITIONS);
	c->tenant_pkey_min = 0x1000;
	c->tenant_pkey_max = 0x7ffe;
	c->tenant_timeout_s = 60;
	c->tenant_check_switch_ports = 1;
	c->tenant_vlan_min = 2000;
	c->tenant_vlan_max = 2999;
	snprintf(c->tenant_host_pattern, sizeof(c->tenant_host_pattern), "%s",
		 LOOM_DEFAULT_HOST_PATTERN);
}

/* ---- parsing ------------------------------------------------------------- */


/* Messages are one line: a key or value that contains a line break (it can,
 * quoted) must not split it. */
static void err_one_line(char *err)
{
	for (unsigned char *s = (unsigned char *)err; *s; s++)
		if (*s < 0x20 || *s == 0x7f)
			*s = '?';
}

/* Record "FILE:LINE: KEY: message" and return -EINVAL. `key` may be NULL
 * for problems that belong to no key (the top level). */
int cfg_fail(struct parse *p, unsigned long line, const char *key,
		      const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!p->err || !p->errlen)
		return -EINVAL;
	n = key ? snprintf(p->err, p->errlen, "%s:%lu: %s: ", p->name, line, key)
		: snprintf(p->err, p->errlen, "%s:%lu: ", p->name, line);
	if (n >= 0 && (size_t)n < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	err_one_line(p->err);
	return -EINVAL;
}

/* libyaml marks count lines from 0; people count from 1. */
unsigned long cfg_line(const yaml_node_t *n)
{
	return (unsigned long)n->start_mark.line + 1;
}

const char *cfg_scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* YAML's spellings of "nothing": `key:` with no value, `~`, `null`. Only a
 * plain scalar can be null; a quoted "null" is the string. */
int cfg_is_null(const yaml_node_t *n)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		if (strcmp(cfg_scalar(n), nulls[i]) == 0)
			return 1;
	return 0;
}

/* "got ..." for type errors: the scalar itself helps find the mistake. */
const char *cfg_node_kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_MAPPING_NODE: return "a mapping";
	case YAML_SEQUENCE_NODE: return "a sequence";
	default: return "a scalar";
	}
}

int cfg_expect(struct parse *p, const yaml_node_t *n, const char *key,
		       yaml_node_type_t want)
{
	const char *what = want == YAML_MAPPING_NODE ? "a mapping"
			 : want == YAML_SEQUENCE_NODE ? "a sequence" : "a scalar";

	if (n->type == want)
		return 0;
	if (n->type == YAML_SCALAR_NODE)
		return cfg_fail(p, cfg_line(n), key, "expected %s, got the scalar \"%.40s\"",
				  what, cfg_scalar(n));
	return cfg_fail(p, cfg_line(n), key, "expected %s, got %s", what, cfg_node_kind(n));
}

/* A mapping key must be a scalar: its text, or NULL with the error set. */
const char *cfg_key_text(struct parse *p, const yaml_node_t *k, const char *where)
{
	if (k->type != YAML_SCALAR_NODE) {
		cfg_fail(p, cfg_line(k), where, "keys must be scalars, got %s", cfg_node_kind(k));
		return NULL;
	}
	return cfg_scalar(k);
}

const char *cfg_member_key(struct parse *p, const yaml_node_t *map, const yaml_node_pair_t *pr,
			   const char *section, char *key, size_t keylen)
{
	const yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
	const char *name = cfg_key_text(p, k, section);

	if (!name)
		return NULL;
	snprintf(key, keylen, "%s.%.40s", section, name);
	for (const yaml_node_pair_t *o = map->data.mapping.pairs.start; o < pr; o++) {
		const yaml_node_t *k2 = yaml_document_get_node(p->doc, o->key);

		if (k2->type == YAML_SCALAR_NODE && !strcmp(cfg_scalar(k2), name)) {
			cfg_fail(p, cfg_line(k), key, "duplicate key (first on line %lu)",
				 cfg_line(k2));
			return NULL;
		}
	}
	return name;
}

static int parse_string(struct parse *p, const yaml_node_t *v, const char *key,
			const struct cfg_key *d, char *dst)
{
	const char *s;
	size_t len;
	int rc;

	if ((rc = cfg_expect(p, v, key, YAML_SCALAR_NODE)) < 0)
		return rc;
	s = cfg_is_null(v) ? "" : cfg_scalar(v);
	len = cfg_is_null(v) ? 0 : v->data.scalar.length;
	/* Control characters (a quoted "\n", "\0", ...) have no business in a
	 * path or a name, and refusing them keeps config_print() simple. */
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return cfg_fail(p, cfg_line(v), key, "contains a control character");
	if (len >= d->size)
		return cfg_fail(p, cfg_line(v), key, "longer than %zu bytes", d->size - 1);
	if ((d->kind == CFG_PATH || d->kind == CFG_SOCKET || (d->kind == CFG_OPT_PATH && s[0])) &&
	    s[0] != '/')
		return cfg_fail(p, cfg_line(v), key, "\"%.40s\" is not an absolute path", s);
	if (d->kind == CFG_SOCKET) {
		struct sockaddr_un sa;

		/* Caught here, the mistake names its line; at bind() time it
		 * would only be "name too long". */
		if (len >= sizeof(sa.sun_path))
			return cfg_fail(p, cfg_line(v), key,
					  "longer than %zu bytes (the limit of a unix socket path)",
					  sizeof(sa.sun_path) - 1);
	}
	memcpy(dst, s, len);
	dst[len] = '\0';
	return 0;
}

static void range_text(long long min, long long max, int zero_ok, char *buf, size_t len)
{
	if (zero_ok)
		snprintf(buf, len, "0 or %lld..%lld", min, max);
	else
		snprintf(buf, len, "%lld..%lld", min, max);
}

int cfg_bool(struct parse *p, const yaml_node_t *v, const char *key, int *dst)
{
	int rc;

	if ((rc = cfg_expect(p, v, key, YAML_SCALAR_NODE)) < 0)
		return rc;
	if (v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		if (!strcmp(cfg_scalar(v), "true")) {
			*dst = 1;
			return 0;
		}
		if (!strcmp(cfg_scalar(v), "false")) {
			*dst = 0;
			return 0;
		}
	}
	return cfg_fail(p, cfg_line(v), key, "\"%.40s\" is not true or false", cfg_scalar(v));
}

int cfg_int(struct parse *p, const yaml_node_t *v, const char *key, long long min,
	    long long max, int zero_ok, long long *dst)
{
	const char *s, *digits;
	char range[64];
	long long x;
	int rc;

	if ((rc = cfg_expect(p, v, key, YAML_SCALAR_NODE)) < 0)
		return rc;
	s = cfg_scalar(v);
	range_text(min, max, zero_ok, range, sizeof(range));
	if (v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return cfg_fail(p, cfg_line(v), key,
				"expected an integer (%s), got the quoted string \"%.40s\"",
				range, s);
	/* Decimal digits only: strtoll() alone would take " 30", "+30", "30s"
	 * (with endptr) or "0x1e"; a leading zero reads as octal to YAML 1.1
	 * tools, so "010" is refused rather than guessed. */
	digits = s[0] == '-' ? s + 1 : s;
	if (!digits[0] || strspn(digits, "0123456789") != strlen(digits) ||
	    (digits[0] == '0' && digits[1]) || strlen(s) != v->data.scalar.length)
		return cfg_fail(p, cfg_line(v), key, "\"%.40s\" is not a decimal integer (%s)",
				s, range);
	errno = 0;
	x = strtoll(s, NULL, 10);
	if (errno == ERANGE || !((x >= min && x <= max) || (zero_ok && x == 0)))
		return cfg_fail(p, cfg_line(v), key, "%.40s is out of range (%s)", s, range);
	*dst = x;
	return 0;
}

static int parse_int(struct parse *p, const yaml_node_t *v, const char *key,
		     const struct cfg_key *d, int *dst)
{
	long long x;
	int rc = cfg_int(p, v, key, d->min, d->max, d->zero_ok, &x);

	if (rc == 0)
		*dst = (int)x;
	return rc;
}

static int parse_enum(struct parse *p, const yaml_node_t *v, const char *key,
		      const struct cfg_key *d, void *dst)
{
	int rc, x = -1;

	if ((rc = cfg_expect(p, v, key, YAML_SCALAR_NODE)) < 0)
		return rc;
	if (d->kind == CFG_LEVEL) {
		x = log_level_from_name(cfg_scalar(v));
		if (x < 0)
			return cfg_fail(p, cfg_line(v), key,
					  "\"%.40s\" is not one of error, warning, notice, info, debug",
					  cfg_scalar(v));
		*(enum log_level *)dst = (enum log_level)x;
		return 0;
	}
	for (size_t i = 0; i < sizeof(target_names) / sizeof(target_names[0]); i++)
		if (strcmp(cfg_scalar(v), target_names[i]) == 0)
			x = (int)i;
	if (x < 0)
		return cfg_fail(p, cfg_line(v), key, "\"%.40s\" is not one of stderr, syslog",
				  cfg_scalar(v));
	*(enum log_target *)dst = (enum log_target)x;
	return 0;
}

/* One scalar-valued key into base + d->off. */
static int parse_value(struct parse *p, const yaml_node_t *v, const char *key,
		       const struct cfg_key *d, void *base)
{
	char *dst = (char *)base + d->off;

	switch (d->kind) {
	case CFG_LEVEL:
	case CFG_TARGET:
		return parse_enum(p, v, key, d, dst);
	case CFG_PATH:
	case CFG_OPT_PATH:
	case CFG_SOCKET:
	case CFG_STRING:
		return parse_string(p, v, key, d, dst);
	case CFG_INT:
		return parse_int(p, v, key, d, (int *)(void *)dst);
	case CFG_BOOL:
		return cfg_bool(p, v, key, (int *)(void *)dst);
	case CFG_SUBNETS:
		break;
	}
	return -EINVAL; /* not reached: subnets are parsed by parse_subnets() */
}

/* Index of `name` in tab[0..n) (matching `section` when it is not NULL),
 * or -1. */
static int find_key(const struct cfg_key *tab, size_t n, const char *section, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if ((!section || strcmp(tab[i].section, section) == 0) &&
		    strcmp(tab[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Check one subnet after its keys are read: required keys, the default
 * name, and clashes with the subnets before it. */
static int finish_subnet(struct parse *p, const yaml_node_t *item, int idx,
			 const yaml_node_t *const *seen)
{
	struct loom_subnet_conf *sc = &p->c->subnets[idx];
	char key[96];

	if (!seen[SUBNET_CA]) {
		snprintf(key, sizeof(key), "discovery.subnets[%d].ca", idx);
		return cfg_fail(p, cfg_line(item), key, "required key missing");
	}
	if (!sc->ca[0]) {
		snprintf(key, sizeof(key), "discovery.subnets[%d].ca", idx);
		return cfg_fail(p, cfg_line(seen[SUBNET_CA]), key, "must not be empty");
	}
	snprintf(key, sizeof(key), "discovery.subnets[%d].name", idx);
	if (!sc->name[0]) {
		/* The same default as the sweeper gives an autodetected port,
		 * so configuring a port explicitly keeps its history. */
		char name[sizeof(sc->name)];  /* not straight into sc: gcc fears overlap */
		int n = snprintf(name, sizeof(name), "%s/%d", sc->ca, sc->port);

		memcpy(sc->name, name, sizeof(name));
		if (n < 0 || (size_t)n >= sizeof(sc->name))
			return cfg_fail(p, cfg_line(item), key,
					  "the default name \"<ca>/<port>\" would be longer than "
					  "%zu bytes; set a shorter name", sizeof(sc->name) - 1);
	}
	/* The store's name for the fabric of the Ethernet switches (schema 005). */
	if (strcmp(sc->name, "ethernet") == 0)
		return cfg_fail(p, cfg_line(seen[SUBNET_NAME] ? seen[SUBNET_NAME] : item), key,
				"\"ethernet\" is the name of the Ethernet switches' fabric; "
				"choose another");
	for (int j = 0; j < idx; j++) {
		const struct loom_subnet_conf *o = &p->c->subnets[j];
		unsigned long line = cfg_line(seen[SUBNET_NAME] ? seen[SUBNET_NAME] : item);

		if (strcmp(o->name, sc->name) == 0)
			return cfg_fail(p, line, key,
					  "duplicate subnet name \"%s\" (also discovery.subnets[%d])",
					  sc->name, j);
		/* Two sweepers on one local port would race for the same MAD
		 * agent and record the same fabric twice under two names. */
		if (strcmp(o->ca, sc->ca) == 0 && o->port == sc->port) {
			snprintf(key, sizeof(key), "discovery.subnets[%d]", idx);
			return cfg_fail(p, cfg_line(item), key,
					  "%s port %d is already discovery.subnets[%d] (\"%s\")",
					  sc->ca, sc->port, j, o->name);
		}
	}
	return 0;
}

static int parse_subnet(struct parse *p, const yaml_node_t *item, int idx)
{
	const yaml_node_t *seen[N_SUBNET_KEYS] = { NULL };
	struct loom_subnet_conf *sc = &p->c->subnets[idx];
	char where[64], key[128];
	int rc;

	snprintf(where, sizeof(where), "discovery.subnets[%d]", idx);
	if ((rc = cfg_expect(p, item, where, YAML_MAPPING_NODE)) < 0)
		return rc;
	memset(sc, 0, sizeof(*sc));
	sc->port = 1;
	for (yaml_node_pair_t *pr = item->data.mapping.pairs.start;
	     pr < item->data.mapping.pairs.top; pr++) {
		const yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
		const yaml_node_t *v = yaml_document_get_node(p->doc, pr->value);
		const char *name;
		int i;

		if (!(name = cfg_key_text(p, k, where)))
			return -EINVAL;
		snprintf(key, sizeof(key), "%s.%s", where, name);
		if ((i = find_key(subnet_keys, N_SUBNET_KEYS, NULL, name)) < 0)
			return cfg_fail(p, cfg_line(k), key, "unknown key");
		if (seen[i])
			return cfg_fail(p, cfg_line(k), key, "duplicate key (first on line %lu)",
					  cfg_line(seen[i]));
		seen[i] = k;
		if ((rc = parse_value(p, v, key, &subnet_keys[i], sc)) < 0)
			return rc;
	}
	return finish_subnet(p, item, idx, seen);
}

static int parse_subnets(struct parse *p, const yaml_node_t *v)
{
	const char *key = "discovery.subnets";
	int n = 0, rc;

	p->c->n_subnets = 0;
	memset(p->c->subnets, 0, sizeof(p->c->subnets));
	if (cfg_is_null(v))
		return 0;
	if ((rc = cfg_expect(p, v, key, YAML_SEQUENCE_NODE)) < 0)
		return rc;
	for (yaml_node_item_t *it = v->data.sequence.items.start;
	     it < v->data.sequence.items.top; it++) {
		const yaml_node_t *item = yaml_document_get_node(p->doc, *it);

		if (n == LOOM_MAX_SUBNETS) {
			char where[64];

			snprintf(where, sizeof(where), "%s[%d]", key, n);
			return cfg_fail(p, cfg_line(item), where,
					  "too many subnets (at most %d)", LOOM_MAX_SUBNETS);
		}
		if ((rc = parse_subnet(p, item, n)) < 0)
			return rc;
		n++;
	}
	p->c->n_subnets = n;
	return 0;
}

/* One section (log:, database:, ...). seen[] spans all of cfg_keys, so a key
 * repeated in a second copy of its section is caught too. */
static int parse_section(struct parse *p, const char *section, const yaml_node_t *v,
			 const yaml_node_t **seen)
{
	char key[128];
	int rc;

	if (cfg_is_null(v))
		return 0; /* "log:" alone: nothing set, defaults stay */
	if ((rc = cfg_expect(p, v, section, YAML_MAPPING_NODE)) < 0)
		return rc;
	for (yaml_node_pair_t *pr = v->data.mapping.pairs.start;
	     pr < v->data.mapping.pairs.top; pr++) {
		const yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
		const yaml_node_t *val = yaml_document_get_node(p->doc, pr->value);
		const char *name;
		int i;

		if (!(name = cfg_key_text(p, k, section)))
			return -EINVAL;
		snprintf(key, sizeof(key), "%s.%s", section, name);
		if ((i = find_key(cfg_keys, N_CFG_KEYS, section, name)) < 0)
			return cfg_fail(p, cfg_line(k), key, "unknown key");
		if (seen[i])
			return cfg_fail(p, cfg_line(k), key, "duplicate key (first on line %lu)",
					  cfg_line(seen[i]));
		seen[i] = k;
		rc = cfg_keys[i].kind == CFG_SUBNETS ? parse_subnets(p, val)
						     : parse_value(p, val, key, &cfg_keys[i], p->c);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int is_section(const char *name)
{
	for (size_t i = 0; i < N_CFG_KEYS; i++)
		if (strcmp(cfg_keys[i].section, name) == 0)
			return 1;
	return 0;
}


/* The line of tenants.KEY where the file set it, else 0. */
static unsigned long tenants_line(const yaml_node_t *const *seen, const char *key)
{
	for (size_t i = 0; i < N_CFG_KEYS; i++)
		if (!strcmp(cfg_keys[i].section, "tenants") && !strcmp(cfg_keys[i].name, key) &&
		    seen[i])
			return cfg_line(seen[i]);
	return 0;
}

/* tenants.WHAT_min..WHAT_max must hold at least one value. */
static int check_pool(struct parse *p, const yaml_node_t *const *seen, const char *what,
		      int min, int max)
{
	char key[32], lo[16], hi[16];

	if (min <= max)
		return 0;
	snprintf(lo, sizeof(lo), "%s_min", what);
	snprintf(hi, sizeof(hi), "%s_max", what);
	snprintf(key, sizeof(key), "tenants.%s", lo);
	return cfg_fail(p, tenants_line(seen, hi) ? tenants_line(seen, hi) : tenants_line(seen, lo),
			key, "the %s pool %#x..%#x is empty (%s above %s)",
			strcmp(what, "pkey") ? "VLAN" : "PKey", min, max, lo, hi);
}

/* tenants.host_pattern: an extended regular expression with one group. */
static int check_host_pattern(struct parse *p, const yaml_node_t *const *seen)
{
	regex_t re;
	char why[128];
	int rc = regcomp(&re, p->c->tenant_host_pattern, REG_EXTENDED);

	if (rc) {
		regerror(rc, &re, why, sizeof(why));
		return cfg_fail(p, tenants_line(seen, "host_pattern"), "tenants.host_pattern",
				"not an extended regular expression: %s", why);
	}
	rc = re.re_nsub < 1;
	regfree(&re);
	if (rc)
		return cfg_fail(p, tenants_line(seen, "host_pattern"), "tenants.host_pattern",
				"needs a group, ( ), around the host name");
	return 0;
}

static int parse_root(struct parse *p, const yaml_node_t *root)
{
	const yaml_node_t *seen[N_CFG_KEYS] = { NULL };
	const yaml_node_t *sections[16] = { NULL };
	const char *section_names[16];
	int n_sections = 0, rc;

	if (cfg_is_null(root))
		return 0; /* a document holding only "---" or "~" */
	if (root->type != YAML_MAPPING_NODE)
		return cfg_fail(p, cfg_line(root), NULL,
				  "expected a mapping of sections (log, database, control, "
				  "discovery, opensm, plugins, roce, switches, tenants, ib_qos, ar) at the top "
				  "level, "
				  "got %s", cfg_node_kind(root));
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
	     pr < root->data.mapping.pairs.top; pr++) {
		const yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
		const yaml_node_t *v = yaml_document_get_node(p->doc, pr->value);
		const char *name;

		if (!(name = cfg_key_text(p, k, "(top level)")))
			return -EINVAL;
		if (!is_section(name) && strcmp(name, "roce") && strcmp(name, "switches") &&
		    strcmp(name, "ib_qos") && strcmp(name, "ar"))
			return cfg_fail(p, cfg_line(k), name, "unknown key");
		for (int i = 0; i < n_sections; i++)
			if (strcmp(section_names[i], name) == 0)
				return cfg_fail(p, cfg_line(k), name,
						  "duplicate key (first on line %lu)",
						  cfg_line(sections[i]));
		/* Bounded: only the known section names get here. */
		section_names[n_sections] = name;
		sections[n_sections++] = k;
		rc = strcmp(name, "roce") == 0 ? config_parse_roce(p, v)
		   : strcmp(name, "switches") == 0 ? config_parse_switches(p, v)
		   : strcmp(name, "ib_qos") == 0 ? config_parse_ibqos(p, v)
		   : strcmp(name, "ar") == 0 ? config_parse_ar(p, v)
		   : parse_section(p, name, v, seen);
		if (rc < 0)
			return rc;
	}
	if ((rc = check_pool(p, seen, "pkey", p->c->tenant_pkey_min, p->c->tenant_pkey_max)) ||
	    (rc = check_pool(p, seen, "vlan", p->c->tenant_vlan_min, p->c->tenant_vlan_max)) ||
	    (rc = check_host_pattern(p, seen)))
		return rc;
	return config_check_roce(p);
}

/* Line of a reader error (bad encoding), which libyaml gives as a byte
 * offset only. */
static unsigned long offset_line(const struct parse *p, size_t off)
{
	unsigned long line = 1;

	for (size_t i = 0; i < off && i < p->len; i++)
		line += p->text[i] == '\n';
	return line;
}

static int syntax_error(struct parse *p, const yaml_parser_t *parser)
{
	unsigned long line;

	if (parser->error == YAML_MEMORY_ERROR) {
		snprintf(p->err, p->errlen, "%s: out of memory", p->name);
		return -ENOMEM;
	}
	line = parser->error == YAML_READER_ERROR ? offset_line(p, parser->problem_offset)
						  : (unsigned long)parser->problem_mark.line + 1;
	if (parser->context)
		return cfg_fail(p, line, NULL, "syntax error: %s (%s)",
				  parser->problem ? parser->problem : "?", parser->context);
	return cfg_fail(p, line, NULL, "syntax error: %s",
			  parser->problem ? parser->problem : "?");
}

int config_load_string(const char *name, const char *text, size_t len,
		       struct loom_config *c, char *err, size_t errlen)
{
	struct parse p = { .name = name, .text = text, .len = len, .err = err, .errlen = errlen };
	yaml_parser_t parser;
	yaml_document_t doc, extra;
	const yaml_node_t *root;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (strlen(name) >= sizeof(c->path)) {
		snprintf(err, errlen, "%.64s...: file name too long", name);
		return -ENAMETOOLONG;
	}
	if (!(p.c = malloc(sizeof(*p.c)))) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	config_defaults(p.c);
	snprintf(p.c->path, sizeof(p.c->path), "%s", name);

	if (!yaml_parser_initialize(&parser)) {
		free(p.c);
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		rc = syntax_error(&p, &parser);
		goto out_parser;
	}
	p.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	rc = root ? parse_root(&p, root) : 0; /* no root: empty file, all defaults */
	if (rc == 0 && root) {
		/* A second document ("---" and more) would be silently ignored;
		 * refuse it instead, it is most likely two files pasted together. */
		if (!yaml_parser_load(&parser, &extra)) {
			rc = syntax_error(&p, &parser);
		} else {
			const yaml_node_t *r2 = yaml_document_get_root_node(&extra);

			if (r2)
				rc = cfg_fail(&p, cfg_line(r2), NULL,
						"more than one YAML document; a configuration is one");
			yaml_document_delete(&extra);
		}
	}
	yaml_document_delete(&doc);
	if (rc == 0)
		memcpy(c, p.c, sizeof(*c));
out_parser:
	yaml_parser_delete(&parser);
	free(p.c);
	return rc;
}

int config_load(const char *path, struct loom_config *c, char *err, size_t errlen)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int fd, rc;

	if (err && errlen)
		err[0] = '\0';
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		rc = -errno;
		goto fail;
	}
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = -EISDIR;
		goto fail;
	}
	/* st_size is only a hint (it is 0 for pipes); read until EOF, with a
	 * ceiling. One spare byte tells "exactly the limit" from "more". */
	if (!(buf = malloc(CONFIG_MAX_BYTES + 1))) {
		rc = -ENOMEM;
		goto fail;
	}
	for (;;) {
		ssize_t n = read(fd, buf + len, CONFIG_MAX_BYTES + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > CONFIG_MAX_BYTES) {
			snprintf(err, errlen, "%s: larger than %d bytes; not a loom configuration",
				 path, CONFIG_MAX_BYTES);
			rc = -EFBIG;
			goto out;
		}
	}
	close(fd);
	fd = -1;
	rc = config_load_string(path, buf, len, c, err, errlen);
	goto out;
fail:
	snprintf(err, errlen, "%s: %s", path, strerror(-rc));
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

/* ---- printing ---------------------------------------------------------------- */

/* Length of the UTF-8 sequence starting with byte b and its code point bits;
 * the input passed libyaml's UTF-8 check, so it is well formed. */
static size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
	size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 1;
	uint32_t x = n == 1 ? s[0] : s[0] & (0x7f >> n);

	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return *cp = s[0], 1; /* not UTF-8 after all: the byte alone */
		x = (x << 6) | (s[i] & 0x3f);
	}
	*cp = x;
	return n;
}

/* Always double-quoted: then ':', '#', leading spaces, "yes", "~", "123" and
 * the like all stay strings. Non-ASCII is written as \u escapes, because a
 * few code points (U+0085, U+2028, U+2029, BOM) count as line breaks or are
 * dropped inside quotes; escaped, every value reads back byte for byte. */
void cfg_print_string(FILE *out, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	fputc('"', out);
	while (*u) {
		uint32_t cp;
		size_t n = utf8_decode(u, &cp);

		if (cp == '"' || cp == '\\')
			fprintf(out, "\\%c", (int)cp);
		else if (cp >= 0x20 && cp < 0x7f)
			fputc((int)cp, out);
		else if (cp <= 0xffff)
			fprintf(out, "\\u%04X", (unsigned)cp);
		else
			fprintf(out, "\\U%08X", (unsigned)cp);
		u += n;
	}
	fputc('"', out);
}

static void print_value(FILE *out, const struct cfg_key *d, const void *base)
{
	const char *src = (const char *)base + d->off;

	switch (d->kind) {
	case CFG_LEVEL:
		fputs(log_level_name(*(const enum log_level *)(const void *)src), out);
		break;
	case CFG_TARGET: {
		unsigned t = (unsigned)*(const enum log_target *)(const void *)src;

		fputs(t < sizeof(target_names) / sizeof(target_names[0]) ? target_names[t] : "?",
		      out);
		break;
	}
	case CFG_PATH:
	case CFG_OPT_PATH:
	case CFG_SOCKET:
	case CFG_STRING:
		cfg_print_string(out, src);
		break;
	case CFG_INT:
		fprintf(out, "%d", *(const int *)(const void *)src);
		break;
	case CFG_BOOL:
		fputs(*(const int *)(const void *)src ? "true" : "false", out);
		break;
	case CFG_SUBNETS:
		break;
	}
}

static void print_subnets(FILE *out, const struct loom_config *c)
{
	if (c->n_subnets <= 0) {
		fputs(" []\n", out);
		return;
	}
	fputc('\n', out);
	for (int i = 0; i < c->n_subnets && i < LOOM_MAX_SUBNETS; i++)
		for (size_t k = 0; k < N_SUBNET_KEYS; k++) {
			fprintf(out, "    %s %s: ", k == 0 ? "-" : " ", subnet_keys[k].name);
			print_value(out, &subnet_keys[k], &c->subnets[i]);
			fputc('\n', out);
		}
}

int config_print(const struct loom_config *c, FILE *out)
{
	const char *section = "";

	for (size_t i = 0; i < N_CFG_KEYS; i++) {
		const struct cfg_key *d = &cfg_keys[i];

		if (strcmp(d->section, section) != 0) {
			section = d->section;
			fprintf(out, "%s:\n", section);
		}
		fprintf(out, "  %s:", d->name);
		if (d->kind == CFG_SUBNETS) {
			print_subnets(out, c);
			continue;
		}
		fputc(' ', out);
		print_value(out, d, c);
		fputc('\n', out);
	}
	config_print_roce(out, c);
	config_print_switches(out, c);
	config_print_ibqos(out, c);
	config_print_ar(out, c);
	if (fflush(out) == EOF || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}
