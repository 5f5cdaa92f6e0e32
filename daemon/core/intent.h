/* daemon/core/intent.h: where a module writes the intent it is about to act
 * on, when something replicates it (HA, issue 21: daemon/ha puts it into
 * etcd). core knows no such module: daemon/loomd.c hands the writer to the
 * modules that record intent (tenants). */
#ifndef LOOMD_CORE_INTENT_H
#define LOOMD_CORE_INTENT_H

#include <stddef.h>

/* Put `value` (JSON text; NULL: delete) under `key` ("tenants/NAME"), in
 * one transaction that holds only while this node is the leader: 0 written;
 * -EPERM nothing written, this node does not hold the leader's lease (the
 * change must not touch the fabric); -errno etcd failed (err says). Blocking,
 * bounded by etcd's timeouts; any thread. */
typedef int (*intent_put_fn)(void *arg, const char *key, const char *value, char *err,
			     size_t errlen);

#endif
