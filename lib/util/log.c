/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/log.c: leveled logging to stderr or syslog. Thread safe: one write(2)
 * per line on stderr, syslog(3) is itself thread safe.
 *
 * Under systemd, stderr is often a stream to the journal: systemd then sets
 * $JOURNAL_STREAM to "DEVICE:INODE" of that stream (systemd.exec(5)). When
 * stderr is that very file, each line starts with sd-daemon(3)'s "<N>"
 * priority prefix (3 error, 4 warning, 5 notice, 6 info, 7 debug), which
 * journald strips and keeps as the line's PRIORITY; the timestamp and pid
 * are left out, as the journal records both. The prefix, not the journal's
 * native protocol: one write(2) a line as before, no socket of our own to
 * lose, and it works with any StandardError=journal unit. */
#include "autoconf.h"
#include "lib/util/log.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

static const char *log_names[] = { "error", "warning", "notice", "info", "debug" };
static const int log_syslog_prio[] = { LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG };

static struct {
	char ident[32];
	enum log_level level;
	enum log_target target;
	int syslog_open;
	int journal;   /* stderr is $JOURNAL_STREAM: "<N>" prefixes */
} log_state = { "loom", LOG_LVL_INFO, LOG_TARGET_STDERR, 0, 0 };

int log_stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) < 0)
		return 0;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void log_init(const char *ident, enum log_level level, enum log_target target)
{
	snprintf(log_state.ident, sizeof(log_state.ident), "%s", ident);
	log_state.level = level;
	if (target == LOG_TARGET_SYSLOG && !log_state.syslog_open) {
		openlog(log_state.ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
		log_state.syslog_open = 1;
	} else if (target == LOG_TARGET_STDERR && log_state.syslog_open) {
		closelog();
		log_state.syslog_open = 0;
	}
	log_state.target = target;
	log_state.journal = target == LOG_TARGET_STDERR && log_stderr_is_journal();
}

void log_set_level(enum log_level level)
{
	log_state.level = level;
}

enum log_level log_get_level(void)
{
	return log_state.level;
}

enum log_target log_get_target(void)
{
	return log_state.target;
}

int log_level_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(log_names) / sizeof(log_names[0]); i++)
		if (strcmp(name, log_names[i]) == 0)
			return (int)i;
	if (strcmp(name, "err") == 0)
		return LOG_LVL_ERR;
	if (strcmp(name, "warn") == 0)
		return LOG_LVL_WARNING;
	return -1;
}

const char *log_level_name(enum log_level level)
{
	if ((unsigned)level >= sizeof(log_names) / sizeof(log_names[0]))
		return "?";
	return log_names[level];
}

void log_vmsg(enum log_level level, const char *fmt, va_list ap)
{
	char msg[2048];

	if (level > log_state.level)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (log_state.target == LOG_TARGET_SYSLOG) {
		syslog(log_syslog_prio[level], "%s", msg);
		return;
	}

	char line[2200], ts[32];
	struct timespec now;
	struct tm tm;
	int n;

	if (log_state.journal) {
		n = snprintf(line, sizeof(line), "<%d>%s: %s\n", log_syslog_prio[level],
			     log_names[level], msg);
		goto out;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	localtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	n = snprintf(line, sizeof(line), "%s.%03ld %s[%d] %s: %s\n", ts,
		     now.tv_nsec / 1000000L, log_state.ident, (int)getpid(), log_names[level], msg);
out:
	if (n > (int)sizeof(line) - 1)
		n = sizeof(line) - 1;
	if (write(STDERR_FILENO, line, (size_t)n) < 0) {
		/* nowhere left to report it */
	}
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}
