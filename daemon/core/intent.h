/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
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

/* The same for n keys in one transaction (values[i] NULL: delete keys[i]):
 * all written or none. */
typedef int (*intent_putv_fn)(void *arg, size_t n, const char *const *keys,
			      const char *const *values, char *err, size_t errlen);

/* Fencing inside a change: does this node still hold the lease (as of its
 * last renewal, with the margin)? 1 yes; 0 no, another node leads; -1 no,
 * and no leader is known (no quorum). Cheap (atomics, no etcd call): a
 * worker asks it before each step that touches the fabric or a file
 * OpenSM reads. Any thread. */
typedef int (*intent_held_fn)(void *arg);

/* What loomd.c hands a module that records intent. */
struct intent_writer {
	intent_put_fn put;
	intent_putv_fn putv;
	intent_held_fn held;
	void *arg;
	const char *node;   /* this node's name: the records say which leader wrote them */
};

#endif
