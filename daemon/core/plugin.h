/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/plugin.h: loading switch plugins, shared objects that export the
 * ops table of include/loom/loom_plugin.h. */
#ifndef LOOMD_PLUGIN_H
#define LOOMD_PLUGIN_H

#include <stddef.h>

#include "loom/loom_plugin.h"

struct plugin;

/* Load DIR/NAME.so and check it: the loom_plugin_v1 symbol, an ABI version
 * from LOOM_PLUGIN_ABI_MIN to LOOM_PLUGIN_ABI, a table as large as that
 * version's, every required op present, and its name equal to NAME. NAME is [a-z0-9_-], at most 63 bytes. 0 and *out
 * (free with plugin_free), or -errno with one line in err naming the file:
 * -ENOENT no such file, -EINVAL not a loom plugin or the wrong one,
 * -EPROTO another ABI version. */
int plugin_load(const char *dir, const char *name, struct plugin **out, char *err,
		size_t errlen);
void plugin_free(struct plugin *p);

const struct loom_plugin_v1 *plugin_ops(const struct plugin *p);
const char *plugin_path(const struct plugin *p);

/* The counters op of a loaded table, or NULL when it has none: an ABI-1
 * plugin (whose table ends before the op: never read there) or one that
 * left it out. Callers take ops of ABI 2 and later only through such
 * accessors. */
typedef int (*lp_counters_read_fn)(struct lp_switch *sw, const struct lp_counter_sink *out,
				   char *err, size_t errlen);
lp_counters_read_fn plugin_counters_op(const struct loom_plugin_v1 *o);

#endif
