/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/qos/qos_intent.h: the RoCE policy as loom replicates it (HA, issue
 * 21): the record under /loom/CLUSTER/policy/roce that the leader writes
 * (daemon/core/intent.h) before a qos-apply, a retry or a re-apply touches a
 * switch, and again with each switch's outcome once the apply is read back.
 *
 * The record: {"version": V, "at": wall time, "by": "qos-apply" | "retry" |
 * "reapply", "switches": {NAME: {"policy": {...}, "state": "applying" | "in
 * policy" | "drifted" | "partial" | "unreachable", "landed": N, "error": E,
 * "at": T}}}. "policy" is the switch's policy as applied (the fabric's
 * `roce:` merged with the switch's overrides: what its plugin resolves
 * against the ports), every field of struct qos_policy under its loom.yaml
 * name; V is a hash of every switch's policy (16 hex digits), the same on
 * every node for the same policy. A new leader compares V with its own
 * loom.yaml's and re-applies the replicated policy where a switch reads
 * back drifted or its last outcome was not "in policy". */
#ifndef LOOMD_QOS_INTENT_H
#define LOOMD_QOS_INTENT_H

#include <jansson.h>

#include "daemon/core/intent.h"

struct qos_policy;
struct work_queue;

/* The policy as JSON (a new reference; NULL out of memory). */
json_t *qos_intent_policy(const struct qos_policy *p);
/* The version of a record's "switches" (their "policy" only) into out
 * (17 bytes). */
void qos_intent_version(const json_t *switches, char out[17]);

/* FNV-1a of a text as 16 hex digits (the version of an options block). */
void qos_intent_hash(const char *text, char out[17]);

/* The records policy/ib_qos and policy/ib_cc: {"file": the options file
 * the leader wrote, "options": the text of loom's block in it, "version":
 * qos_intent_hash(options), "by": the leader's node, "at"}. Every node
 * writes that block into its own OpenSM options file (its ib_qos /
 * ib_cc.opensm_config) as the leader wrote it (osm_block.h).
 *
 * Put key = record (stolen) with fn on a worker of q, then then(ctx, rc,
 * err) on the loop: rc 0 written, else nothing may be touched. 0, or
 * -errno (then is not called, record freed). */
int qos_intent_put_async(struct work_queue *q, intent_put_fn fn, void *fnarg, const char *key,
			 json_t *record, void (*then)(void *ctx, int rc, const char *err),
			 void *ctx);

#endif
