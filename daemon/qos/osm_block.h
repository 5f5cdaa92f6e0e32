/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/qos/osm_block.h: loom's block of OpenSM's options file, the life
 * that ib_qos (qos_ib.c) and ib_cc (qos_ibcc.c) share: an apply writes the
 * options loom.yaml gives between the module's marker lines of its options
 * file (lib/qos/options_block.h), the rest of the file the operator's, and
 * asks OpenSM for the heavy sweep that re-reads it (its plugin, else
 * SIGHUP: daemon/routing/opensm_sweep.h); under HA (issue 21) the leader first
 * puts the record policy/NAME (qos_intent.h) and writes nothing when that
 * fails, a follower mirrors the leader's block into its own file and
 * signals its own OpenSM, and a new leader says whether the replicated
 * options are its loom.yaml's (event ha_takeover_policy, subject NAME).
 * Each module fills a struct osm_block_ops: its name, markers, how its
 * options are built and checked, what its answer adds. Everything here
 * runs on the loop (the record's put on a worker of the block's own). */
#ifndef LOOMD_OSM_BLOCK_H
#define LOOMD_OSM_BLOCK_H

#include <stddef.h>

#include <jansson.h>

#include "daemon/core/intent.h"

struct event_base;
struct ctl;
struct ctl_req;
struct osm_block;
struct osm_report;
struct store;

struct osm_block_ops {
	/* "ib_qos": the log lines' prefix, the events NAME_applied,
	 * NAME_drift and NAME_in_policy, the record policy/NAME and the
	 * key NAME.opensm_config in messages. */
	const char *name;
	const char *apply_cmd;      /* "qos-ib-apply": named when a takeover differs */
	const char *begin, *end;    /* the block's marker lines */
	size_t max;                 /* the options' buffer (IBQOS_OPTIONS_MAX, ...) */
	/* loom.yaml's options for an apply into buf (len bytes): 0, or < 0
	 * having answered req with why not. *carry: a number of the module's,
	 * handed back to answer (ib_qos: the routing's VL layers). */
	int (*options)(void *mod, struct ctl_req *req, char *buf, size_t len, int *carry);
	/* This node's own options at a takeover: 0, or < 0 when it has none. */
	int (*mine)(void *mod, char *buf, size_t len);
	/* A later setting of the file that wins over the block's (NULL:
	 * none is looked for): nonzero with why, else why "". */
	int (*drift)(const char *text, const char *options, char *why, size_t whylen);
	/* The detail of the event NAME_applied (NULL: the options). */
	const char *(*applied_detail)(void *mod, const char *options);
	/* Adds the module's keys to the answer {"file", "options",
	 * "opensm_pid", "opensm_asked", "opensm_how"} of an apply; why: drift's (NULL: nothing to add). */
	void (*answer)(void *mod, json_t *ans, const char *why, int carry);
};

/* The block of one module (mod: handed to every op), recording its events
 * into store. NULL with err. */
struct osm_block *osm_block_new(struct event_base *base, const struct osm_block_ops *ops,
				void *mod, struct store *store, char *err, size_t errlen);
/* Waits for a record's put under way (its apply then answered). */
void osm_block_free(struct osm_block *b);
/* The options file (NAME.opensm_config, "" none) and OpenSM's pid file
 * (tenants.opensm_pid_file, "" the SM's reports) from now on, copied. */
void osm_block_reconfigure(struct osm_block *b, const char *path, const char *pid_file);
/* The channel to libloomosm.so that asks OpenSM without a signal (NULL:
 * SIGHUP only); it must outlive b. */
void osm_block_set_opensm(struct osm_block *b, struct osm_report *osm);
/* The options file, as last given ("" none). */
const char *osm_block_path(const struct osm_block *b);
/* HA: the record policy/NAME put with w before any apply writes. */
void osm_block_set_intent(struct osm_block *b, const struct intent_writer *w);

/* Registers ops->apply_cmd (CTL_WRITE, no argument): the options, the
 * record under HA, then the block written, OpenSM asked, the event
 * NAME_applied and the answer. */
int osm_block_register(struct osm_block *b, struct ctl *ctl);
/* The options file as OpenSM reads it against options: why "" when it
 * holds them and no later line overrides them (ops->drift), else what
 * differs (or why the file cannot be read). */
void osm_block_check(const struct osm_block *b, const char *options, char *why,
		     size_t whylen);
/* ha_watch's fn for "policy/", the record NAME: on a follower (leading 0)
 * the block mirrored, on a new leader the event ha_takeover_policy. */
void osm_block_watch(struct osm_block *b, const json_t *records, int leading);

/* One subject's drift now ("" in policy) against was (NULL never seen):
 * when it changed (not when first seen in policy), a warning when it
 * drifted and the event NAME_drift or NAME_in_policy (subject, was, now).
 * 1 changed, 0 not. */
int osm_block_note(struct store *store, const char *name, const char *subject,
		   const char *was, const char *now);

#endif
