/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/lp_util.h: small helpers every switch plugin compiles in (they
 * see include/loom/loom_plugin.h and nothing else of loom, so what they share
 * is source, not a library). */
#ifndef LOOM_LP_UTIL_H
#define LOOM_LP_UTIL_H

#include <stddef.h>
#include <stdint.h>

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

/* The qos_objects op of a plugin whose objects are the keys its own dry run
 * reports: apply(sw, want, 1, ...) collected key by key, each reported once
 * in order, a create when none of its fields existed and a delete when none
 * stays (else a change; always a change with contexts, where keys are
 * configuration contexts that always exist, as EOS's), shared_with from
 * shared(key). */
typedef int (*lp_apply_fn)(struct lp_switch *sw, const struct lp_qos *want, int dry_run,
			   const struct lp_change_sink *changes, char *err, size_t errlen);
int lp_objects_by_dry_run(struct lp_switch *sw, const struct lp_qos *want, lp_apply_fn apply,
			  const char *(*shared)(const char *key), int contexts,
			  const struct lp_object_sink *out, char *err, size_t errlen);

/* src (NULL: "") into dst of len bytes, cut if longer. */
void lp_copy_str(char *dst, size_t len, const char *src);

/* One port's counters of a counters_read, gathered before any is reported
 * (a port with a fault reports none of them: loom_plugin.h). */
#define LP_PORT_COUNTERS 128
struct lp_port_counters {
	struct lp_counter c[LP_PORT_COUNTERS];
	size_t n;
};

/* Add one (port and name are the caller's, kept by pointer until reported);
 * a second one of the same name, scope and index is dropped (first kept). */
void lp_counter_put(struct lp_port_counters *pc, const char *port, const char *name,
		    enum lp_counter_scope scope, unsigned index, unsigned bits, int gauge,
		    uint64_t value);
/* Report a port: reason "" -> each counter through out->counter, else
 * out->port_error(port, reason) (if set) and none. The sink's value. */
int lp_counters_report(const struct lp_port_counters *pc, const char *port, const char *reason,
		       const struct lp_counter_sink *out);

#endif
