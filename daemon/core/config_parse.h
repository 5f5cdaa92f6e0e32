/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/config_parse.h: how a module writes its section of loom.yaml.
 *
 * config.c knows no section but core's own (log, database, control,
 * plugins). Every other section is a `struct config_section` that its
 * module defines (daemon/ib/config_discovery.c, daemon/tenants/
 * config_tenants.c, daemon/roce/config_roce.c, ...) and daemon/loomd.c
 * registers, in the documented order, which is also the order
 * config_print() writes them in.
 *
 * A section owns a struct of its own, declared by its module (struct
 * tenants_conf in daemon/tenants/config_tenants.h, ...): `size` bytes that
 * struct loom_config keeps for it, which the module reads through
 * config_section_get() and nothing else of the configuration. Core's own
 * sections (size 0) are fields of struct loom_config itself.
 *
 * A section is either a table of keys (type, bounds, default, place in
 * its struct; the table drives parsing, defaults and printing, so they
 * cannot disagree) or a parse/print pair of its own for sections with a
 * shape of their own (switches:). A key of kind CFG_CUSTOM inside a table
 * has its own parse/print (discovery.subnets). Every hook gets the
 * section's own struct (`sec`).
 *
 * A table's file defines CFG_SECTION_TYPE (its struct) before the CFG_KEY_*
 * lines; the offsets are in that struct.
 *
 * Errors are one line "FILE:LINE: KEY: what is wrong" through cfg_fail().
 * Parsing fills a scratch copy (p->c) that is only copied out when the
 * whole file is valid. Only for config_*.c files: other modules see
 * config.h and their own section's header. */
#ifndef LOOMD_CONFIG_PARSE_H
#define LOOMD_CONFIG_PARSE_H

#include <stddef.h>
#include <stdio.h>

#include <yaml.h>

#include "daemon/core/config.h"

struct parse;

/* What a key holds, which decides how its scalar is checked and printed. */
enum cfg_kind {
	CFG_LEVEL,    /* enum log_level by name */
	CFG_TARGET,   /* enum log_target by name */
	CFG_PATH,     /* absolute path */
	CFG_OPT_PATH, /* absolute path, or "" for none */
	CFG_SOCKET,   /* absolute path that also fits sockaddr_un.sun_path */
	CFG_STRING,   /* free text (no control characters) */
	CFG_INT,      /* decimal integer in min..max (or 0 if zero_ok), into an int */
	CFG_BOOL,     /* true or false, into an int */
	CFG_CUSTOM,   /* the key's own parse and print */
};

struct cfg_key {
	const char *name;
	enum cfg_kind kind;
	size_t off;           /* offset in the section's struct (or the table's struct) */
	size_t size;          /* buffer size for the string kinds */
	int min, max;         /* CFG_INT bounds */
	int zero_ok;          /* CFG_INT: 0 is also valid ("off") */
	long long def;        /* default: CFG_INT, CFG_BOOL, CFG_LEVEL, CFG_TARGET */
	const char *def_str;  /* default of the string kinds; NULL: "" */
	/* CFG_CUSTOM: parse the value of `key` into sec (the table's struct);
	 * print it after "  NAME:". */
	int (*parse)(struct parse *p, const yaml_node_t *v, const char *key, void *sec);
	void (*print)(FILE *out, const void *sec);
};

/* The struct a file's CFG_KEY_* lines describe: the file defines
 * CFG_SECTION_TYPE first (core's own: struct loom_config). */
#define CFG_FIELD_SIZE(field) sizeof(((CFG_SECTION_TYPE *)0)->field)
#define CFG_KEY_STR(key, kind, field, dflt) \
	{ key, kind, offsetof(CFG_SECTION_TYPE, field), CFG_FIELD_SIZE(field), \
	  0, 0, 0, 0, dflt, NULL, NULL }
#define CFG_KEY_INT(key, field, lo, hi, zero, dflt) \
	{ key, CFG_INT, offsetof(CFG_SECTION_TYPE, field), sizeof(int), lo, hi, zero, \
	  dflt, NULL, NULL, NULL }
#define CFG_KEY_BOOL(key, field, dflt) \
	{ key, CFG_BOOL, offsetof(CFG_SECTION_TYPE, field), sizeof(int), 0, 0, 0, \
	  dflt, NULL, NULL, NULL }
#define CFG_KEY_CUSTOM(key, parse_fn, print_fn) \
	{ key, CFG_CUSTOM, 0, 0, 0, 0, 0, 0, NULL, parse_fn, print_fn }

/* How loomd writes a path: made or replaced in its directory (a file
 * written beside it and renamed over it, a socket bound: the nearest
 * existing directory must take entries; loomd creates the missing ones), or
 * also opened for writing in place when it exists (the database). */
enum cfg_write { CFG_WRITE_REPLACE, CFG_WRITE_IN_PLACE };
/* One path a section writes: its key as "section.key", the path. */
typedef void cfg_written_fn(void *ctx, const char *key, const char *path, enum cfg_write how);

struct config_section {
	const char *name;
	size_t size;                  /* its struct's; 0: fields of struct loom_config (core) */
	const struct cfg_key *keys;   /* a table of keys, or NULL with parse/print */
	size_t n_keys;
	/* A section of its own shape: the value under `name:` (any node). */
	int (*parse)(struct parse *p, const yaml_node_t *v, void *sec);
	void (*print)(FILE *out, const void *sec);
	/* After the keys' defaults (NULL: none). */
	void (*defaults)(void *sec);
	/* Once the whole file is read, present or not (NULL: none). */
	int (*check)(struct parse *p, void *sec);
	/* What loomd's start needs of the host for it (config_check_host;
	 * NULL: nothing): 0 or -errno with the line made by cfg_host_fail. */
	int (*check_host)(const struct loom_config *c, const void *sec, char *err,
			  size_t errlen);
	/* The paths loomd writes for it, as configured (`loomd -n -u USER`
	 * warns when USER could not write one: config_writable.h; NULL: none):
	 * add() once for each. */
	void (*written)(const void *sec, cfg_written_fn *add, void *ctx);
};

/* Add a section; the order of registration is the order of printing.
 * Registering the same section again is a no-op. 0, -EEXIST (another
 * section of that name) or -ENOSPC. Before any config_load(). */
int config_register(const struct config_section *s);

/* The struct of section s being filled by this parse (another section's,
 * for a check that spans two: tenants' switch names); NULL if s is not
 * registered. */
void *cfg_section(struct parse *p, const struct config_section *s);

#define CFG_MAX_SCRATCH 32  /* a table section takes one, and some custom parsers */

struct parse {
	const char *name;       /* file name for messages */
	const char *text;       /* the whole input, to place reader errors */
	size_t len;
	yaml_document_t *doc;
	struct loom_config *c;  /* scratch copy being filled */
	char *err;
	size_t errlen;
	/* Per-parse memory of sections, by name (cfg_scratch). */
	struct {
		const char *name;
		void *mem;
	} scratch[CFG_MAX_SCRATCH];
	size_t n_scratch;
};

/* Zeroed memory of `size` bytes that lives for this parse, the same for
 * every call with the same name (a section's lines, for its check). NULL:
 * out of memory or slots. */
void *cfg_scratch(struct parse *p, const char *name, size_t size);
/* The line where a table section's key was set in this file, else 0. */
unsigned long cfg_key_line(struct parse *p, const char *section, const char *key);

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
/* An absolute path, or none (null or "": dst ""), of at most size - 1
 * bytes into dst. */
int cfg_opt_path(struct parse *p, const yaml_node_t *v, const char *key, char *dst, size_t size);
/* A plain true or false. */
int cfg_bool(struct parse *p, const yaml_node_t *v, const char *key, int *dst);
/* A plain decimal integer in min..max (or 0 when zero_ok). */
int cfg_int(struct parse *p, const yaml_node_t *v, const char *key, long long min,
	    long long max, int zero_ok, long long *dst);
/* Double-quoted, escaped so that it reads back byte for byte. */
void cfg_print_string(FILE *out, const char *s);

/* Every path the sections of c write, in their order, through add(). */
void config_written(const struct loom_config *c, cfg_written_fn *add, void *ctx);

/* For check_host: "FILE:LINE: SECTION.KEY: why" where the file c->path set
 * the value, else "SECTION.KEY: why"; returns rc. */
int cfg_host_fail(const struct loom_config *c, const char *section, const char *key,
		  const char *value, int rc, const char *why, char *err, size_t errlen);
/* A socket to bind at `path` (SECTION.KEY): no other kind of file in its
 * place, and its nearest existing directory takes entries. */
int cfg_host_socket(const struct loom_config *c, const char *section, const char *key,
		    const char *path, char *err, size_t errlen);

/* Keys of a table (tab[0..n)) over any struct: the index of `name` or -1;
 * one scalar value of key d into base + d->off; its printed form; its
 * default into base. */
int cfg_find_key(const struct cfg_key *tab, size_t n, const char *name);
int cfg_parse_value(struct parse *p, const yaml_node_t *v, const char *key,
		    const struct cfg_key *d, void *base);
void cfg_print_value(FILE *out, const struct cfg_key *d, const void *base);
void cfg_default_value(const struct cfg_key *d, void *base);
/* Every pair of the mapping `map` (checked to be one) as keys of tab[0..n)
 * into base, "WHERE.NAME" in errors: an unknown key or one given twice is
 * refused; seen[i] is set to the key node of tab[i] (seen holds n). */
int cfg_parse_table(struct parse *p, const yaml_node_t *map, const char *where,
		    const struct cfg_key *tab, size_t n, void *base, const yaml_node_t **seen);
/* A section's key whose value is a mapping of keys of its own (http.tls,
 * ha.tls): null leaves base as it is (the caller set the defaults), else
 * the mapping read by tab[0..n), n <= CFG_SUBTABLE_MAX; and its keys
 * printed one a line under "  KEY:". */
#define CFG_SUBTABLE_MAX 16
int cfg_parse_subtable(struct parse *p, const yaml_node_t *v, const char *key,
		       const struct cfg_key *tab, size_t n, void *base);
void cfg_print_subtable(FILE *out, const struct cfg_key *tab, size_t n, const void *base);

#endif
