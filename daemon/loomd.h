/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/loomd.h: the daemon as a whole: one event loop, the modules
 * registered on it, signals, reload. main.c only parses arguments. */
#ifndef LOOMD_LOOMD_H
#define LOOMD_LOOMD_H

struct loomd_options {
	const char *config_path;    /* -c; NULL = default (missing file = defaults) */
	const char *db_path;        /* --db: overrides database.path */
	const char *socket_path;    /* --socket: overrides control.socket */
	int foreground;             /* -f */
	int debug;                  /* -d: log level debug */
	const char *check_user;     /* -n -u USER: whose rights to check (the unit's User=);
				     * NULL: the calling user's */
};

/* Register every module's section of loom.yaml with the configuration
 * (daemon/core/config_parse.h); idempotent. loomd_run and
 * loomd_check_config call it; so does anything else that loads a
 * configuration (the unit tests). 0 or -errno. */
int loomd_config_init(void);

/* The exit status of a start that cannot succeed by trying again: the
 * configuration is refused, or the database is newer than this loomd
 * (sysexits' EX_CONFIG; loomd.service lists it in RestartPreventExitStatus=
 * so systemd does not restart it every 5 s). Other failures exit 1. */
#define LOOMD_EXIT_CONFIG 78

/* Run loomd until SIGTERM/SIGINT. Returns the process exit status. */
int loomd_run(const struct loomd_options *opt);

/* -n: load and check the configuration, print it normalized to stdout,
 * and warn on stderr about each path loomd would write that the user
 * (check_user, else the caller) could not (daemon/core/config_writable.h).
 * Returns the exit status (0 ok, also with warnings; 1 bad config or no
 * such user). */
int loomd_check_config(const struct loomd_options *opt);

#endif
