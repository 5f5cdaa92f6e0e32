/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/log.h: leveled logging to stderr or syslog, shared by every program. */
#ifndef LOOM_LOG_H
#define LOOM_LOG_H

#include <stdarg.h>
#include <stddef.h>

#include "lib/util/err.h"   /* err_fmt, err_at: every logger of errors uses them */

enum log_level {
	LOG_LVL_ERR = 0,
	LOG_LVL_WARNING,
	LOG_LVL_NOTICE,
	LOG_LVL_INFO,
	LOG_LVL_DEBUG,
};

enum log_target {
	LOG_TARGET_STDERR = 0,
	LOG_TARGET_SYSLOG,
};

/* Set up logging for program `ident`. May be called again (reload). */
void log_init(const char *ident, enum log_level level, enum log_target target);
void log_set_level(enum log_level level);
/* 1 when stderr is the journal stream systemd named in $JOURNAL_STREAM:
 * lines then carry sd-daemon(3)'s "<N>" priority prefix. */
int log_stderr_is_journal(void);
enum log_level log_get_level(void);
enum log_target log_get_target(void);

/* "error", "warning", "notice", "info", "debug" <-> enum; -1 if unknown. */
int log_level_from_name(const char *name);
const char *log_level_name(enum log_level level);

void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void log_vmsg(enum log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#define log_err(...)     log_msg(LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...)    log_msg(LOG_LVL_WARNING, __VA_ARGS__)
#define log_notice(...)  log_msg(LOG_LVL_NOTICE, __VA_ARGS__)
#define log_info(...)    log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...)   log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

#endif
