/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/roce/switch_open.c: see switch_open.h. */
#include "autoconf.h"
#include "daemon/roce/switch_open.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/roce/config_roce.h"
#include "lib/util/log.h"
#include "daemon/core/plugin.h"

#define PLUGIN_CACHE_MAX 16
#define CRED_MAX 4096

struct cached_plugin {
	char path[PATH_MAX];
	struct plugin *p;      /* NULL: it did not load, err says why */
	char err[512];
};

struct plugin_cache {
	struct cached_plugin v[PLUGIN_CACHE_MAX];
	int n;
};

struct plugin_cache *plugin_cache_new(void)
{
	return calloc(1, sizeof(struct plugin_cache));
}

void plugin_cache_free(struct plugin_cache *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n; i++)
		plugin_free(c->v[i].p);
	free(c);
}

const struct loom_plugin_v1 *plugin_cache_get(struct plugin_cache *c, const char *dir,
					      const char *name, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct cached_plugin *cp = NULL;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s.so", dir, name) >= sizeof(path)) {
		snprintf(err, errlen, "%.200s/%.63s.so: path too long", dir, name);
		return NULL;
	}
	for (int i = 0; i < c->n && !cp; i++)
		if (!strcmp(c->v[i].path, path))
			cp = &c->v[i];
	if (!cp) {
		if (c->n == PLUGIN_CACHE_MAX) {
			snprintf(err, errlen, "more than %d plugins", PLUGIN_CACHE_MAX);
			return NULL;
		}
		cp = &c->v[c->n++];
		snprintf(cp->path, sizeof(cp->path), "%s", path);
		if (plugin_load(dir, name, &cp->p, cp->err, sizeof(cp->err)) < 0)
			log_err("switch plugin %s: %s", name, cp->err);
	}
	if (!cp->p)
		snprintf(err, errlen, "%s", cp->err);
	return cp->p ? plugin_ops(cp->p) : NULL;
}

__attribute__((format(printf, 3, 4)))
static void host_log(enum lp_log_level level, const char *sw, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_msg(level <= LP_LOG_ERR ? LOG_LVL_ERR : level == LP_LOG_WARNING ? LOG_LVL_WARNING :
		level == LP_LOG_NOTICE ? LOG_LVL_NOTICE : level == LP_LOG_INFO ? LOG_LVL_INFO :
		LOG_LVL_DEBUG, "switch %s: %s", sw ? sw : "?", msg);
}

static const struct lp_host switch_host = { .log = host_log };

/* The credentials file's content (NUL-terminated, trailing newline cut). */
static int read_credentials(const char *path, char *buf, size_t len, char *err,
			    size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e = errno;
	ssize_t n;

	if (fd < 0) {
		snprintf(err, errlen, "credentials %s: %s", path, strerror(e));
		return -e;
	}
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "credentials %s: %s", path, strerror(errno));
		return -EIO;
	}
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	return 0;
}

int switch_open(const struct loom_plugin_v1 *ops, const struct loom_switch_conf *sw,
		struct lp_switch **out, char *err, size_t errlen)
{
	struct lp_endpoint ep = { .name = sw->name, .address = sw->address,
				  .options = sw->options[0] ? sw->options : NULL,
				  .timeout_ms = SWITCH_TIMEOUT_MS };
	char *creds = NULL;
	int rc = 0;

	*out = NULL;
	if (sw->credentials[0]) {
		if (!(creds = malloc(CRED_MAX))) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		rc = read_credentials(sw->credentials, creds, CRED_MAX, err, errlen);
		ep.credentials = creds;
	}
	if (rc == 0)
		rc = ops->open(&ep, &switch_host, out, err, errlen);
	if (creds) {
		/* The plugin copied what it keeps: loom's copy goes now. */
		explicit_bzero(creds, CRED_MAX);
		free(creds);
	}
	return rc;
}
