/* plugins/lp_util.h: small helpers every switch plugin compiles in (they
 * see include/loom/loom_plugin.h and nothing else of loom, so what they share
 * is source, not a library). */
#ifndef LOOM_LP_UTIL_H
#define LOOM_LP_UTIL_H

#include <stddef.h>

#include "loom/loom_plugin.h"

/* Log through loomd's logger, if it gave one. */
void lp_logf(const struct lp_host *host, const char *switch_name, enum lp_log_level level,
	     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* A plugin's switch handle has `host` and `name`: log for it. */
#define sw_log(sw, level, ...) lp_logf((sw)->host, (sw)->name, (level), __VA_ARGS__)

/* Room for one more item in the array *v of n items of size bytes (*cap
 * of them allocated, doubling from first): 0, or -ENOMEM with *v as it
 * was. */
int lp_grow(void *v, size_t *cap, size_t n, size_t size, size_t first);

/* src (NULL: "") into dst of len bytes, cut if longer. */
void lp_copy_str(char *dst, size_t len, const char *src);

#endif
