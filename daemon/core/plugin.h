/* daemon/core/plugin.h: loading switch plugins, shared objects that export the
 * ops table of include/loom/loom_plugin.h. */
#ifndef LOOMD_PLUGIN_H
#define LOOMD_PLUGIN_H

#include <stddef.h>

#include "loom/loom_plugin.h"

struct plugin;

/* Load DIR/NAME.so and check it: the loom_plugin_v1 symbol, ABI version
 * LOOM_PLUGIN_ABI, a table as large as this loomd's, every op present, and
 * its name equal to NAME. NAME is [a-z0-9_-], at most 63 bytes. 0 and *out
 * (free with plugin_free), or -errno with one line in err naming the file:
 * -ENOENT no such file, -EINVAL not a loom plugin or the wrong one,
 * -EPROTO another ABI version. */
int plugin_load(const char *dir, const char *name, struct plugin **out, char *err,
		size_t errlen);
void plugin_free(struct plugin *p);

const struct loom_plugin_v1 *plugin_ops(const struct plugin *p);
const char *plugin_path(const struct plugin *p);

#endif
