/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/config.h: loomd's configuration, parsed from YAML (libyaml).
 * Parse errors name the file, line and key.
 *
 * struct loom_config is the whole file: core's own settings (log,
 * database, control, plugins) as fields, and every other section as the
 * struct of the module that owns it (config_parse.h), kept in `sections`
 * and read with config_section_get() through the module's own accessor
 * (tenants_conf_get(), ...). daemon/loomd.c hands each module its own
 * section at start and at reload; no module holds the whole. config.c
 * walks the file and knows only core's sections. */
#ifndef LOOMD_CONFIG_H
#define LOOMD_CONFIG_H

#include <limits.h>
#include <stdio.h>

#include "lib/util/log.h"

#define LOOM_DEFAULT_CONFIG  "/etc/loom/loom.yaml"
#define LOOM_DEFAULT_DB      "/var/lib/loom/loom.db"
#define LOOM_DEFAULT_SOCKET  "/run/loom/loomd.sock"
/* Where OpenSM's libloomosm.so reports (its LOSM_REPORT_SOCKET): keep equal. */
#define LOOM_DEFAULT_OSM_SOCKET "/run/loom/osm.sock"
#define LOOM_DEFAULT_PARTITIONS "/var/lib/loom/partitions.conf"
#define LOOM_DEFAULT_TOKENS "/etc/loom/tokens"
#define LOOM_MAX_SUBNETS     16
#define LOOM_NAME_LEN        64
/* Where switch plugins (NAME.so) are; configure passes $(pkglibdir)/plugins. */
#ifndef LOOM_DEFAULT_PLUGIN_DIR
#define LOOM_DEFAULT_PLUGIN_DIR "/usr/lib/loom/plugins"
#endif
#ifndef LOOM_DEFAULT_WEB_DIR   /* Makefile.am sets both; `make fuzz` builds without */
#define LOOM_DEFAULT_WEB_DIR "/usr/share/loom/web"
#endif
#define LOOM_MAX_SWITCHES    256
#define LOOM_ADDRESS_LEN     128
#define LOOM_HTTP_MAX_LISTEN 8
#define LOOM_HA_ENDPOINTS_LEN 1024
/* Room for every module's section struct: about 296000 bytes today, the
 * switches 193540 of them; a section that does not fit is refused at
 * registration (-ENOSPC, and loomd does not start): grow this. */
#define LOOM_CONFIG_SECTION_BYTES (320 * 1024)

struct loom_config {
	char path[PATH_MAX];            /* file it came from; "" for built-in defaults */

	/* log: */
	enum log_level log_level;       /* log.level: error|warning|notice|info|debug */
	enum log_target log_target;     /* log.target: stderr|syslog */

	/* database: */
	char db_path[PATH_MAX];         /* database.path */

	/* control: */
	char socket_path[PATH_MAX];     /* control.socket */
	char admin_group[LOOM_NAME_LEN];/* control.admin_group; "" = root only */
	int ctl_max_clients;            /* control.max_clients 16..512 */
	int ctl_max_per_uid;            /* control.max_clients_per_uid 1..512 */
	int ctl_max_output;             /* control.max_output_bytes 65536..1073741824 */
	int ctl_stall_s;                /* control.stall_timeout_s 1..3600 */
	int ctl_idle_s;                 /* control.idle_timeout_s 0 (never) or 10..86400 */
	int ctl_read_rate_s;            /* control.read_rate_s 0 (no limit) or 1..3600 */

	/* plugins: */
	char plugin_dir[PATH_MAX];      /* plugins.dir */

	/* Every module's section, each in its own struct, at the place its
	 * registration gave it (config_section_get). */
	_Alignas(16) unsigned char sections[LOOM_CONFIG_SECTION_BYTES];
};

struct config_section;
/* Core's own sections, for the registration in daemon/loomd.c. */
extern const struct config_section config_log, config_database, config_control,
	config_plugins;

/* The struct of section s (a module's accessor calls this: tenants_conf_get
 * ...); for core's sections, c itself. NULL when s is not registered. */
const void *config_section_get(const struct loom_config *c, const struct config_section *s);
/* The same to change: for the value loomd.c keeps over a reload's. */
void *config_section_edit(struct loom_config *c, const struct config_section *s);

/* Fill *c with the built-in defaults of every registered section. */
void config_defaults(struct loom_config *c);

/* Parse `path` into *c, starting from the defaults. On error *c is left
 * untouched, -EINVAL (or -errno for I/O) is returned and err holds one line
 * "FILE:LINE: KEY: what is wrong". */
int config_load(const char *path, struct loom_config *c, char *err, size_t errlen);
/* The same from a string; `name` stands for the file name in messages. */
int config_load_string(const char *name, const char *text, size_t len,
		       struct loom_config *c, char *err, size_t errlen);

/* What loomd's start needs of the host, for `loomd -n` (the running daemon
 * never calls it: a reload keeps the database and sockets it has). The
 * database's directory takes files, or is missing one level only (the
 * start creates that one); each socket's path holds no other kind of
 * file and its nearest existing directory takes entries; plugins.dir
 * exists when switches are configured. 0, or -errno with one line
 * "FILE:LINE: KEY: what is wrong" (just "KEY: ..." when the value is not
 * the file's: a default or a command-line override). */
int config_check_host(const struct loom_config *c, char *err, size_t errlen);

/* Write the configuration as normalized YAML (every key, in the documented
 * order), such that config_load() of the output gives the same config. */
int config_print(const struct loom_config *c, FILE *out);

#endif
