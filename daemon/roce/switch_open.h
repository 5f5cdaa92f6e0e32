/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/roce/switch_open.h: what the modules that talk to Ethernet switches
 * (qos.c, tenants_eth.c) share: their plugins, loaded once per module, and
 * a handle on a configured switch (its credentials read for the open and
 * wiped after). */
#ifndef LOOMD_SWITCH_OPEN_H
#define LOOMD_SWITCH_OPEN_H

#include <stddef.h>

#include "loom/loom_plugin.h"

struct loom_switch_conf;
struct plugin_cache;

/* Per network operation of a plugin. */
#define SWITCH_TIMEOUT_MS 5000

struct plugin_cache *plugin_cache_new(void);
void plugin_cache_free(struct plugin_cache *c);
/* DIR/NAME.so, loaded at the first call and kept; a plugin that failed to
 * load is logged once and its error given again at each call (NULL + err). */
const struct loom_plugin_v1 *plugin_cache_get(struct plugin_cache *c, const char *dir,
					      const char *name, char *err, size_t errlen);

/* Open a handle on `sw` through `ops` (close it with ops->close). Plugins
 * log through loomd's log as "switch NAME: ...". 0, or -errno with err. */
int switch_open(const struct loom_plugin_v1 *ops, const struct loom_switch_conf *sw,
		struct lp_switch **out, char *err, size_t errlen);

#endif
