/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/plugin.c: loading and checking switch plugins (see plugin.h). */
#include "autoconf.h"
#include "daemon/core/plugin.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/util/log.h"

struct plugin {
	void *dl;
	const struct loom_plugin_v1 *ops;
	char path[PATH_MAX];
};

static int name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= LP_NAME_LEN)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
		      name[i] == '_' || name[i] == '-'))
			return 0;
	return 1;
}

/* The bytes of the ops table of ABI version abi: each version appends. */
static size_t table_size(uint32_t abi)
{
	return abi >= 2 ? sizeof(struct loom_plugin_v1)
			: offsetof(struct loom_plugin_v1, counters_read);
}

/* The first required op the table lacks, or NULL (every version's
 * required ops are ABI 1's; later ones are optional). */
static const char *missing_op(const struct loom_plugin_v1 *o)
{
	static const struct {
		const char *name;
		size_t off;
	} ops[] = {
#define OP(x) { #x, offsetof(struct loom_plugin_v1, x) }
		OP(open), OP(close), OP(inventory), OP(lldp_neighbors), OP(qos_read),
		OP(qos_apply), OP(vlan_set), OP(vlan_clear), OP(health), OP(vlan_get),
#undef OP
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		void *fn;

		memcpy(&fn, (const char *)o + ops[i].off, sizeof(fn));
		if (!fn)
			return ops[i].name;
	}
	return NULL;
}

int plugin_load(const char *dir, const char *name, struct plugin **out, char *err,
		size_t errlen)
{
	struct plugin *p;
	const struct loom_plugin_v1 *o;
	const char *missing;
	struct stat st;
	int rc = -EINVAL;

	*out = NULL;
	if (!name_ok(name)) {
		snprintf(err, errlen, "plugin name \"%s\": want 1..63 of a-z, 0-9, '_', '-'", name);
		return -EINVAL;
	}
	if (!(p = calloc(1, sizeof(*p)))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if ((size_t)snprintf(p->path, sizeof(p->path), "%s/%s.so", dir, name) >= sizeof(p->path)) {
		snprintf(err, errlen, "%s/%s.so: path too long", dir, name);
		goto fail;
	}
	if (stat(p->path, &st) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", p->path, strerror(errno));
		goto fail;
	}
	/* RTLD_LOCAL: two plugins never see each other's symbols. */
	if (!(p->dl = dlopen(p->path, RTLD_NOW | RTLD_LOCAL))) {
		snprintf(err, errlen, "%s", dlerror());
		goto fail;
	}
	if (!(o = dlsym(p->dl, LOOM_PLUGIN_SYMBOL))) {
		snprintf(err, errlen, "%s: not a loom plugin (no %s symbol)", p->path,
			 LOOM_PLUGIN_SYMBOL);
		goto fail;
	}
	if (o->abi < LOOM_PLUGIN_ABI_MIN || o->abi > LOOM_PLUGIN_ABI) {
		snprintf(err, errlen, "%s: plugin ABI version %u, this loomd speaks %u to %u",
			 p->path, o->abi, LOOM_PLUGIN_ABI_MIN, LOOM_PLUGIN_ABI);
		rc = -EPROTO;
		goto fail;
	}
	if (o->size < table_size(o->abi)) {
		snprintf(err, errlen, "%s: ops table of %u bytes, ABI version %u needs %zu",
			 p->path, o->size, o->abi, table_size(o->abi));
		rc = -EPROTO;
		goto fail;
	}
	if ((missing = missing_op(o))) {
		snprintf(err, errlen, "%s: no \"%s\" op", p->path, missing);
		goto fail;
	}
	if (!o->name || strcmp(o->name, name)) {
		snprintf(err, errlen, "%s: calls itself \"%s\", not \"%s\"", p->path,
			 o->name ? o->name : "", name);
		goto fail;
	}
	p->ops = o;
	*out = p;
	log_info("plugin %s %s loaded from %s", o->name, o->version ? o->version : "?",
		 p->path);
	return 0;
fail:
	plugin_free(p);
	return rc;
}

void plugin_free(struct plugin *p)
{
	if (!p)
		return;
	if (p->dl)
		dlclose(p->dl);
	free(p);
}

const struct loom_plugin_v1 *plugin_ops(const struct plugin *p)
{
	return p->ops;
}

lp_counters_read_fn plugin_counters_op(const struct loom_plugin_v1 *o)
{
	if (!o || o->abi < 2 || o->size < table_size(2))
		return NULL;
	return o->counters_read;
}

const char *plugin_path(const struct plugin *p)
{
	return p->path;
}
