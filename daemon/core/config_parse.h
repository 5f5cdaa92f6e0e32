/* daemon/core/config_parse.h: the YAML walking helpers that config.c (the key
 * table) and config_roce.c (the roce: and switches: sections) share. Not
 * for other modules: they see config.h only. */
#ifndef LOOMD_CONFIG_PARSE_H
#define LOOMD_CONFIG_PARSE_H

#include <stdio.h>

#include <yaml.h>

#include "daemon/core/config.h"

struct parse {
	const char *name;       /* file name for messages */
	const char *text;       /* the whole input, to place reader errors */
	size_t len;
	yaml_document_t *doc;
	struct loom_config *c;  /* scratch copy being filled */
	char *err;
	size_t errlen;
	/* Where the roce: section and each switch begin, for the checks of
	 * the policy that run once the whole file is read. */
	unsigned long roce_line;
	unsigned long roce_field_line[32];   /* per enum qos_field bit */
	unsigned long switch_line[LOOM_MAX_SWITCHES];
};

/* Record "FILE:LINE: KEY: message" and return -EINVAL; key may be NULL. */
int cfg_fail(struct parse *p, unsigned long line, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
unsigned long cfg_line(const yaml_node_t *n);
const char *cfg_scalar(const yaml_node_t *n);
/* `key:` alone, `~`, `null`: nothing given. */
int cfg_is_null(const yaml_node_t *n);
const char *cfg_node_kind(const yaml_node_t *n);
int cfg_expect(struct parse *p, const yaml_node_t *n, const char *key, yaml_node_type_t want);
/* A mapping key's text, or NULL with the error set. */
const char *cfg_key_text(struct parse *p, const yaml_node_t *k, const char *where);
/* The key of pair pr of a section's mapping `map`: its text, with
 * "SECTION.NAME" in key for errors; NULL with the error set when it is no
 * scalar or came already before it (naming the first line). */
const char *cfg_member_key(struct parse *p, const yaml_node_t *map, const yaml_node_pair_t *pr,
			   const char *section, char *key, size_t keylen);
/* A plain true or false. */
int cfg_bool(struct parse *p, const yaml_node_t *v, const char *key, int *dst);
/* A plain decimal integer in min..max (or 0 when zero_ok). */
int cfg_int(struct parse *p, const yaml_node_t *v, const char *key, long long min,
	    long long max, int zero_ok, long long *dst);
/* Double-quoted, escaped so that it reads back byte for byte. */
void cfg_print_string(FILE *out, const char *s);

/* config_roce.c: the `roce:` section (the fabric's policy, its read-back
 * interval and re-apply switch) and the `switches:` list, each switch with
 * its plugin, address and policy overrides; then the checks of the policy
 * as every switch will hold it. */
int config_parse_roce(struct parse *p, const yaml_node_t *v);
int config_parse_switches(struct parse *p, const yaml_node_t *v);
int config_check_roce(struct parse *p);
void config_print_roce(FILE *out, const struct loom_config *c);
void config_print_switches(FILE *out, const struct loom_config *c);

/* config_ibqos.c: the `ib_qos:` section (InfiniBand QoS policy, checked
 * as a whole when the section ends). */
int config_parse_ibqos(struct parse *p, const yaml_node_t *v);
void config_print_ibqos(FILE *out, const struct loom_config *c);

/* config_ar.c: the `ar:` section (programming adaptive routing). */
void config_defaults_ar(struct loom_config *c);
int config_parse_ar(struct parse *p, const yaml_node_t *v);
void config_print_ar(FILE *out, const struct loom_config *c);

#endif
