/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/config.c: loomd's configuration. The YAML file is loaded with
 * libyaml's document API; each top-level key is a section registered by the
 * module that owns it (config_parse.h; daemon/loomd.c registers them in the
 * documented order). A section is a table of typed keys, walked here, or
 * parses itself. The same tables drive config_defaults() and
 * config_print(), so the parser, the defaults and the printer cannot
 * disagree about which keys exist or in what order they are written.
 *
 * Parsing fills a scratch copy and only copies it out when the whole file is
 * valid: a bad reload must leave the running configuration untouched.
 *
 * Nesting deeper than CONFIG_MAX_DEPTH and files over CONFIG_MAX_BYTES are
 * refused (file and line) before the document is built.
 *
 * Core's own sections are here: log, database, control and plugins, and
 * config_check_host(), what `loomd -n` checks of the paths the start uses. */
#include "autoconf.h"
#include "daemon/core/config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "daemon/core/config_parse.h"

/* A configuration is a few kilobytes; anything this large is a mistake
 * (wrong file) and is refused before libyaml spends memory on it. */
#define CONFIG_MAX_BYTES (1024 * 1024)
/* loom.yaml's deepest node is a few levels down (switches[i].roce...);
 * libyaml sets no bound of its own, and its scanner's time grows with the
 * square of the nesting (100k "[" take seconds), so deeper is refused
 * before the document is built. */
#define CONFIG_MAX_DEPTH 64
#define CFG_MAX_SECTIONS 24

/* ---- core's sections ------------------------------------------------------- */

#define CFG_SECTION_TYPE struct loom_config

static const struct cfg_key log_keys[] = {
	{ "level", CFG_LEVEL, offsetof(struct loom_config, log_level), 0, 0, 0, 0,
	  LOG_LVL_NOTICE, NULL, NULL, NULL },
	{ "target", CFG_TARGET, offsetof(struct loom_config, log_target), 0, 0, 0, 0,
	  LOG_TARGET_STDERR, NULL, NULL, NULL },
};
const struct config_section config_log = {
	.name = "log", .keys = log_keys, .n_keys = sizeof(log_keys) / sizeof(log_keys[0]),
};

static const struct cfg_key database_keys[] = {
	CFG_KEY_STR("path", CFG_PATH, db_path, LOOM_DEFAULT_DB),
};
/* The database, with its -wal and -shm files and the schema backups
 * beside it. */
static void database_written(const void *sec, cfg_written_fn *add, void *ctx)
{
	add(ctx, "database.path", ((const struct loom_config *)sec)->db_path, CFG_WRITE_IN_PLACE);
}
const struct config_section config_database = {
	.name = "database", .keys = database_keys, .n_keys = 1, .written = database_written,
};

static const struct cfg_key control_keys[] = {
	CFG_KEY_STR("socket", CFG_SOCKET, socket_path, LOOM_DEFAULT_SOCKET),
	CFG_KEY_STR("admin_group", CFG_STRING, admin_group, NULL),
	/* The socket's bounds (daemon/core/ctl_limits.h); every combination
	 * within these ranges is one ctl_limits_check takes, with its reserve
	 * of 8. Above 512 connections, LimitNOFILE of the unit must grow. */
	CFG_KEY_INT("max_clients", ctl_max_clients, 16, 512, 0, 64),
	CFG_KEY_INT("max_clients_per_uid", ctl_max_per_uid, 1, 512, 0, 16),
	CFG_KEY_INT("max_output_bytes", ctl_max_output, 65536, 1073741824, 0, 4194304),
	CFG_KEY_INT("stall_timeout_s", ctl_stall_s, 1, 3600, 0, 30),
	CFG_KEY_INT("idle_timeout_s", ctl_idle_s, 10, 86400, 1, 300),
	CFG_KEY_INT("read_rate_s", ctl_read_rate_s, 1, 3600, 1, 10),
};
static void control_written(const void *sec, cfg_written_fn *add, void *ctx)
{
	add(ctx, "control.socket", ((const struct loom_config *)sec)->socket_path, CFG_WRITE_REPLACE);
}
const struct config_section config_control = {
	.name = "control", .keys = control_keys,
	.n_keys = sizeof(control_keys) / sizeof(control_keys[0]), .written = control_written,
};

static const struct cfg_key plugins_keys[] = {
	CFG_KEY_STR("dir", CFG_PATH, plugin_dir, LOOM_DEFAULT_PLUGIN_DIR),
};
const struct config_section config_plugins = {
	.name = "plugins", .keys = plugins_keys, .n_keys = 1,
};

/* ---- the registry ---------------------------------------------------------- */

static const struct config_section *sections[CFG_MAX_SECTIONS];
static size_t offsets[CFG_MAX_SECTIONS]; /* in struct loom_config's `sections` */
static size_t n_sections, used;

static int section_index(const char *name)
{
	for (size_t i = 0; i < n_sections; i++)
		if (strcmp(sections[i]->name, name) == 0)
			return (int)i;
	return -1;
}

static const struct config_section *find_section(const char *name)
{
	int i = section_index(name);

	return i < 0 ? NULL : sections[i];
}

int config_register(const struct config_section *s)
{
	const struct config_section *old = find_section(s->name);

	if (old)
		return old == s ? 0 : -EEXIST;
	if (n_sections == CFG_MAX_SECTIONS)
		return -ENOSPC;
	if (s->size) {
		size_t at = (used + 15) & ~(size_t)15;

		if (s->size > LOOM_CONFIG_SECTION_BYTES - at)
			return -ENOSPC;  /* LOOM_CONFIG_SECTION_BYTES must grow */
		offsets[n_sections] = at;
		used = at + s->size;
	}
	sections[n_sections++] = s;
	return 0;
}

/* Section i's struct within c. */
static void *section_mem(const struct loom_config *c, size_t i)
{
	if (!sections[i]->size)
		return (void *)(uintptr_t)c;
	return (void *)(uintptr_t)(c->sections + offsets[i]);
}

const void *config_section_get(const struct loom_config *c, const struct config_section *s)
{
	for (size_t i = 0; i < n_sections; i++)
		if (sections[i] == s)
			return section_mem(c, i);
	return NULL;
}

void *config_section_edit(struct loom_config *c, const struct config_section *s)
{
	return (void *)(uintptr_t)config_section_get(c, s);
}

void *cfg_section(struct parse *p, const struct config_section *s)
{
	return (void *)(uintptr_t)config_section_get(p->c, s);
}

void config_defaults(struct loom_config *c)
{
	/* Zero everything, padding and unused bytes included, so that two
	 * equal configurations are also equal for memcmp(). */
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < n_sections; i++) {
		void *sec = section_mem(c, i);

		for (size_t k = 0; k < sections[i]->n_keys; k++)
			cfg_default_value(&sections[i]->keys[k], sec);
		if (sections[i]->defaults)
			sections[i]->defaults(sec);
	}
}

/* ---- parsing ------------------------------------------------------------- */

void *cfg_scratch(struct parse *p, const char *name, size_t size)
{
	for (size_t i = 0; i < p->n_scratch; i++)
		if (strcmp(p->scratch[i].name, name) == 0)
			return p->scratch[i].mem;
	if (p->n_scratch == CFG_MAX_SCRATCH || !(p->scratch[p->n_scratch].mem = calloc(1, size)))
		return NULL;
	p->scratch[p->n_scratch].name = name;
	return p->scratch[p->n_scratch++].mem;
}

/* A table section's keys as the file set them (its scratch): the node of
 * each key, NULL where it was not set. */
static const yaml_node_t **seen_of(struct parse *p, const struct config_section *s)
{
	return cfg_scratch(p, s->name, (s->n_keys + 1) * sizeof(const yaml_node_t *));
}

unsigned long cfg_key_line(struct parse *p, const char *section, const char *key)
{
	const struct config_section *s = find_section(section);
	const yaml_node_t **seen;
	int i;

	if (!s || (i = cfg_find_key(s->keys, s->n_keys, key)) < 0 || !(seen = seen_of(p, s)))
		return 0;
	return seen[i] ? cfg_line(seen[i]) : 0;
}

/* A section that is a table of keys (log:, database:, ...). */
static int parse_keys(struct parse *p, const struct config_section *s, const yaml_node_t *v)
{
	const yaml_node_t **seen = seen_of(p, s);
	int rc;

	if (!seen)
		return cfg_fail(p, cfg_line(v), s->name, "out of memory");
	if (cfg_is_null(v))
		return 0; /* "log:" alone: nothing set, defaults stay */
	if ((rc = cfg_expect(p, v, s->name, YAML_MAPPING_NODE)) < 0)
		return rc;
	return cfg_parse_table(p, v, s->name, s->keys, s->n_keys, cfg_section(p, s), seen);
}

static int parse_root(struct parse *p, const yaml_node_t *root)
{
	const yaml_node_t *given[CFG_MAX_SECTIONS] = { NULL };
	int rc;

	if (cfg_is_null(root))
		return 0; /* a document holding only "---" or "~" */
	if (root->type != YAML_MAPPING_NODE) {
		char names[512] = "";

		for (size_t i = 0; i < n_sections; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", sections[i]->name);
		return cfg_fail(p, cfg_line(root), NULL,
				  "expected a mapping of sections (%s) at the top level, got %s",
				  names, cfg_node_kind(root));
	}
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
	     pr < root->data.mapping.pairs.top; pr++) {
		const yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
		const yaml_node_t *v = yaml_document_get_node(p->doc, pr->value);
		const struct config_section *s;
		const char *name;
		int i;

		if (!(name = cfg_key_text(p, k, "(top level)")))
			return -EINVAL;
		if ((i = section_index(name)) < 0)
			return cfg_fail(p, cfg_line(k), name, "unknown key");
		s = sections[i];
		if (given[i])
			return cfg_fail(p, cfg_line(k), name, "duplicate key (first on line %lu)",
					cfg_line(given[i]));
		given[i] = k;
		if ((rc = s->parse ? s->parse(p, v, section_mem(p->c, (size_t)i))
				   : parse_keys(p, s, v)) < 0)
			return rc;
	}
	for (size_t i = 0; i < n_sections; i++)
		if (sections[i]->check && (rc = sections[i]->check(p, section_mem(p->c, i))) < 0)
			return rc;
	return 0;
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

/* Walk the events of the whole stream once, without building anything,
 * and refuse nesting deeper than CONFIG_MAX_DEPTH at the line where it
 * goes too deep, naming the top-level section it is in. Stopping there
 * keeps the cost of a hostile file at that of its first few hundred bytes.
 * Syntax errors are reported here too, as the load would report them. */
static int check_depth(struct parse *p)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	char section[LOOM_NAME_LEN] = "";
	unsigned long root_items = 0; /* nodes directly under the root mapping */
	int depth = 0, root_map = 0, rc = 0, done = 0;

	if (!yaml_parser_initialize(&parser)) {
		snprintf(p->err, p->errlen, "%s: out of memory", p->name);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)p->text, p->len);
	while (!done && rc == 0) {
		if (!yaml_parser_parse(&parser, &ev)) {
			rc = syntax_error(p, &parser);
			break;
		}
		/* A node right under the root mapping: keys and values alternate. */
		if (depth == 1 && root_map && (ev.type == YAML_SCALAR_EVENT || ev.type == YAML_ALIAS_EVENT ||
				   ev.type == YAML_SEQUENCE_START_EVENT ||
				   ev.type == YAML_MAPPING_START_EVENT) && root_items++ % 2 == 0)
			snprintf(section, sizeof(section), "%.40s",
				 ev.type == YAML_SCALAR_EVENT ? (const char *)ev.data.scalar.value
							       : "");
		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (++depth == 1)
				root_map = ev.type == YAML_MAPPING_START_EVENT;
			if (depth > CONFIG_MAX_DEPTH)
				rc = cfg_fail(p, (unsigned long)ev.start_mark.line + 1,
					      section[0] ? section : NULL,
					      "nested deeper than %d levels; not a loom configuration",
					      CONFIG_MAX_DEPTH);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_DOCUMENT_START_EVENT:
			depth = root_map = 0;
			root_items = 0;
			section[0] = '\0';
			break;
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return rc;
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
	if (!n_sections) {
		snprintf(err, errlen, "%s: no configuration section is registered "
			 "(loomd_config_init)", name);
		return -EINVAL;
	}
	if (strlen(name) >= sizeof(c->path)) {
		snprintf(err, errlen, "%.64s...: file name too long", name);
		return -ENAMETOOLONG;
	}
	if (len > CONFIG_MAX_BYTES) {
		cfg_fail(&p, offset_line(&p, CONFIG_MAX_BYTES), NULL,
			 "larger than %d bytes; not a loom configuration", CONFIG_MAX_BYTES);
		return -EFBIG;
	}
	if ((rc = check_depth(&p)) < 0)
		return rc;
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
	for (size_t i = 0; i < p.n_scratch; i++)
		free(p.scratch[i].mem);
	free(p.c);
	return rc;
}

/* The file's bytes into *buf (malloc'd, to free), at most one byte more
 * than CONFIG_MAX_BYTES; 0 or -errno with "PATH: why" in err. */
static int read_file(const char *path, char **bufp, size_t *lenp, char *err, size_t errlen)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int fd, rc;

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
		if (len > CONFIG_MAX_BYTES)
			break;  /* config_load_string() refuses it, naming the line */
	}
	close(fd);
	*bufp = buf;
	*lenp = len;
	return 0;
fail:
	snprintf(err, errlen, "%s: %s", path, strerror(-rc));
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

int config_load(const char *path, struct loom_config *c, char *err, size_t errlen)
{
	char *buf;
	size_t len;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if ((rc = read_file(path, &buf, &len, err, errlen)) < 0)
		return rc;
	rc = config_load_string(path, buf, len, c, err, errlen);
	free(buf);
	return rc;
}

/* ---- what the start needs of the host (loomd -n) ----------------------------- */

/* In the mapping `map`, the value node of scalar key `name`, or NULL. */
static const yaml_node_t *map_get(yaml_document_t *doc, const yaml_node_t *map,
				  const char *name)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *pr = map->data.mapping.pairs.start;
	     pr < map->data.mapping.pairs.top; pr++) {
		const yaml_node_t *k = yaml_document_get_node(doc, pr->key);

		if (k->type == YAML_SCALAR_NODE && strcmp(cfg_scalar(k), name) == 0)
			return yaml_document_get_node(doc, pr->value);
	}
	return NULL;
}

/* The line where the file c->path sets SECTION.KEY to `value`, else 0 (a
 * built-in default or a command-line override). The file is read again
 * only for the message of a check that failed. */
static unsigned long file_line(const struct loom_config *c, const char *section,
			       const char *key, const char *value)
{
	struct parse p = { .name = c->path };
	yaml_parser_t parser;
	yaml_document_t doc;
	const yaml_node_t *v;
	unsigned long line = 0;
	char *buf, err[256];
	size_t len;

	if (!c->path[0] || read_file(c->path, &buf, &len, err, sizeof(err)) < 0)
		return 0;
	p.text = buf;
	p.len = len;
	p.err = err;
	p.errlen = sizeof(err);
	/* It may have changed since it was loaded: the same bounds apply. */
	if (len <= CONFIG_MAX_BYTES && check_depth(&p) == 0 && yaml_parser_initialize(&parser)) {
		yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
		if (yaml_parser_load(&parser, &doc)) {
			v = map_get(&doc, map_get(&doc, yaml_document_get_root_node(&doc),
						  section), key);
			if (v && v->type == YAML_SCALAR_NODE && strcmp(cfg_scalar(v), value) == 0)
				line = cfg_line(v);
			yaml_document_delete(&doc);
		}
		yaml_parser_delete(&parser);
	}
	free(buf);
	return line;
}

/* "FILE:LINE: SECTION.KEY: why" where the file set the value, else
 * "SECTION.KEY: why"; returns rc. */
int cfg_host_fail(const struct loom_config *c, const char *section, const char *key,
		  const char *value, int rc, const char *why, char *err, size_t errlen)
{
	unsigned long line = file_line(c, section, key, value);

	if (line)
		snprintf(err, errlen, "%s:%lu: %s.%s: %s", c->path, line, section, key, why);
	else
		snprintf(err, errlen, "%s.%s: %s", section, key, why);
	return rc;
}

/* `dir` exists, is a directory, and entries can be made in it: 0, or
 * -errno with the reason in why. */
static int dir_writable(const char *dir, char *why, size_t whylen)
{
	struct stat st;
	int rc;

	if (stat(dir, &st) < 0) {
		rc = -errno;
		snprintf(why, whylen, "directory %s: %s", dir, strerror(-rc));
		return rc;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, whylen, "%s is not a directory", dir);
		return -ENOTDIR;
	}
	if (access(dir, W_OK | X_OK) < 0) {
		rc = -errno;
		snprintf(why, whylen, "cannot create files in directory %s: %s", dir,
			 strerror(-rc));
		return rc;
	}
	return 0;
}

/* `path`'s directory into dir (dirname without touching path). */
static void parent_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	if (n == 0)
		snprintf(dir, len, "%s", slash ? "/" : ".");
	else
		snprintf(dir, len, "%.*s", (int)n, path);
}

/* The database (store_open): the file, if there, is writable; its
 * directory takes new files (SQLite's WAL and shared memory), and if it
 * is missing, its parent does, since the start creates that one level. */
static int check_db(const struct loom_config *c, char *err, size_t errlen)
{
	char dir[PATH_MAX], parent[PATH_MAX], why[2 * PATH_MAX + 128];
	struct stat st;
	int rc;

	if (stat(c->db_path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return cfg_host_fail(c, "database", "path", c->db_path, -EISDIR,
					 "is a directory", err, errlen);
		if (access(c->db_path, R_OK | W_OK) < 0) {
			rc = -errno;
			snprintf(why, sizeof(why), "cannot write %s: %s", c->db_path,
				 strerror(-rc));
			return cfg_host_fail(c, "database", "path", c->db_path, rc, why, err, errlen);
		}
	}
	parent_of(c->db_path, dir, sizeof(dir));
	if (stat(dir, &st) < 0 && errno == ENOENT) {
		parent_of(dir, parent, sizeof(parent));
		if (stat(parent, &st) < 0 || !S_ISDIR(st.st_mode)) {
			snprintf(why, sizeof(why), "directory %s does not exist (loomd creates "
				 "only the database's own directory, %s)", parent, dir);
			return cfg_host_fail(c, "database", "path", c->db_path, -ENOENT, why, err,
					 errlen);
		}
		rc = dir_writable(parent, why, sizeof(why));
	} else {
		rc = dir_writable(dir, why, sizeof(why));
	}
	return rc < 0 ? cfg_host_fail(c, "database", "path", c->db_path, rc, why, err, errlen) : 0;
}

/* A socket to bind (ctl_new, osm_report_new): no other kind of file in
 * its place (a stale socket is replaced, nothing else is), and the nearest
 * existing directory on its path takes new entries (missing ones are
 * created). */
int cfg_host_socket(const struct loom_config *c, const char *section, const char *key,
		    const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX], why[PATH_MAX + 128];
	struct stat st;
	int rc;

	if (lstat(path, &st) == 0 && !S_ISSOCK(st.st_mode)) {
		snprintf(why, sizeof(why), "%s exists and is not a socket", path);
		return cfg_host_fail(c, section, key, path, -EEXIST, why, err, errlen);
	}
	parent_of(path, dir, sizeof(dir));
	while (stat(dir, &st) < 0 && (errno == ENOENT || errno == ENOTDIR) && strcmp(dir, "/"))
		parent_of(dir, dir, sizeof(dir));
	if ((rc = dir_writable(dir, why, sizeof(why))) < 0)
		return cfg_host_fail(c, section, key, path, rc, why, err, errlen);
	return 0;
}

int config_check_host(const struct loom_config *c, char *err, size_t errlen)
{
	int rc;

	if ((rc = check_db(c, err, errlen)) < 0 ||
	    (rc = cfg_host_socket(c, "control", "socket", c->socket_path, err, errlen)) < 0)
		return rc;
	for (size_t i = 0; i < n_sections; i++)
		if (sections[i]->check_host &&
		    (rc = sections[i]->check_host(c, section_mem(c, i), err, errlen)) < 0)
			return rc;
	return 0;
}

void config_written(const struct loom_config *c, cfg_written_fn *add, void *ctx)
{
	for (size_t i = 0; i < n_sections; i++)
		if (sections[i]->written)
			sections[i]->written(section_mem(c, i), add, ctx);
}

/* ---- printing ---------------------------------------------------------------- */

static void print_keys(FILE *out, const struct config_section *s, const void *c)
{
	fprintf(out, "%s:\n", s->name);
	for (size_t k = 0; k < s->n_keys; k++) {
		const struct cfg_key *d = &s->keys[k];

		fprintf(out, "  %s:", d->name);
		if (d->kind == CFG_CUSTOM) {
			d->print(out, c);
			continue;
		}
		fputc(' ', out);
		cfg_print_value(out, d, c);
		fputc('\n', out);
	}
}

int config_print(const struct loom_config *c, FILE *out)
{
	for (size_t i = 0; i < n_sections; i++) {
		if (sections[i]->print)
			sections[i]->print(out, section_mem(c, i));
		else
			print_keys(out, sections[i], section_mem(c, i));
	}
	if (fflush(out) == EOF || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}

int cfg_opt_path(struct parse *p, const yaml_node_t *v, const char *key, char *dst, size_t size)
{
	int rc;

	if ((rc = cfg_expect(p, v, key, YAML_SCALAR_NODE)) < 0)
		return rc;
	/* Null or "" (what config_print writes when it is not set): none,
	 * as for every optional path. */
	if (cfg_is_null(v) || !v->data.scalar.length) {
		dst[0] = '\0';
		return 0;
	}
	if (cfg_scalar(v)[0] != '/')
		return cfg_fail(p, cfg_line(v), key, "\"%.40s\" is not an absolute path",
				cfg_scalar(v));
	if (v->data.scalar.length >= size || strlen(cfg_scalar(v)) != v->data.scalar.length)
		return cfg_fail(p, cfg_line(v), key, "not a usable path");
	memcpy(dst, cfg_scalar(v), v->data.scalar.length + 1);
	return 0;
}
