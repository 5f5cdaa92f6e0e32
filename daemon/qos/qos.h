/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/qos/qos.h: the lossless RoCE policy on the Ethernet switches, through
 * their plugins (include/loom/loom_plugin.h), as control commands:
 *   "qos-plan"   (read)  what applying would change, per switch, per key;
 *   "qos-status" (read)  each switch in policy, drifted or unreachable;
 *   "qos-apply"  (write) apply, then read back: in policy only when the
 *                        switch then holds exactly the policy; a switch that
 *                        fails mid-apply is "partial", with what did and did
 *                        not land.
 * Arguments: {"switch": NAME} for one switch, else every configured one.
 * Every switch is worked on in a thread of its own (plugin calls block on
 * the network), all at once up to QOS_MAX_PARALLEL; the event loop only
 * starts requests and answers them. Changes of a switch's state and the
 * applies are events; every roce.interval seconds every switch is read
 * back (or, with roce.reapply, the policy applied again); a failed apply is
 * retried with backoff until the switch is in policy. */
#ifndef LOOMD_QOS_H
#define LOOMD_QOS_H

#include <stddef.h>

#include <jansson.h>

#include "daemon/core/intent.h"

struct event_base;
struct ctl;
struct roce_conf;
struct switches_conf;
struct qos_mod;
struct store;

#define QOS_MAX_PARALLEL 64

/* roce:, switches: and plugins.dir; store: the loop's connection, where
 * state changes and applies are recorded as events. */
struct qos_mod *qos_new(struct event_base *base, const struct roce_conf *roce,
			const struct switches_conf *switches, const char *plugin_dir,
			struct store *store, char *err, size_t errlen);
/* Waits for the requests under way and answers them. Before ctl_free(). */
void qos_free(struct qos_mod *m);
/* The switches, policy and plugin directory of requests from now on. */
int qos_reconfigure(struct qos_mod *m, const struct roce_conf *roce,
		    const struct switches_conf *switches, const char *plugin_dir);
/* Also the gate (core/ctl.h) that loomd's own re-applies and retries ask:
 * only the leader pushes (a follower's interval reads back only). */
int qos_register(struct qos_mod *m, struct ctl *ctl);
/* The configured switches whose last request found them in state ("in
 * policy", "drifted", "partial", "unreachable"): /metrics' RoCE drift. */
int qos_switches_in_state(const struct qos_mod *m, const char *state);
/* HA: each apply (command, re-apply, retry) first puts the policy record
 * (qos_intent.h) with fn; when that fails nothing is applied and a
 * command is answered with the reason. After the apply, the record again
 * with each switch's outcome. */
void qos_set_intent(struct qos_mod *m, const struct intent_writer *w);
/* ha_watch's fn for "policy/": on a new leader (leading 1) the record
 * policy/roce against this node's loom.yaml: the same version, the policy
 * applied again to every switch (read back, only drifted keys change: a
 * switch left partial is finished); another one, the switches read back
 * only, the replicated policy staying until an operator's qos-apply here.
 * One event ha_takeover_policy (subject roce) says which. A follower: none. */
void qos_watch(void *arg, const json_t *records, int leading);
/* fn(arg) on the loop each time switch reads were recorded in the store
 * (issue 43: the Ethernet cabling check follows the LLDP they hold). */
void qos_on_recorded(struct qos_mod *m, void (*fn)(void *arg), void *arg);

#endif
