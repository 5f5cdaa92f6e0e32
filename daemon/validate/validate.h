/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/validate/validate.h: fabric validation (issue 22). After every
 * recorded sweep (the sweeper hands over its fabric: ib/sweep.h's
 * sweeper_on_swept) the fabric is checked against the cabling plan of
 * validation.expected (lib/validate/cabling.h) and the rules of a healthy
 * fabric (lib/validate/health.h, and telemetry's BER alarms), on a work
 * queue of its own, and the findings are recorded as open issues with an
 * event when one opens or clears (store_validate.h). Findings name nodes
 * by the site's names (validate_set_names), else by description. A subnet's last
 * fabric is kept for the commands:
 *   fabric-validate (CTL_READ) {subnet?, plan?: false to leave the
 *     configured plan out, fabric?: true to add the fabric itself
 *     ("fabric": base64 of lib/fabric/fabric_wire.h, for loomctl's
 *     --expected FILE, checked on the client, with "names": {"0x...":
 *     "name"}, the site's names of its nodes)}: the checks run now,
 *     {"subnets": [{"subnet", "plan", "plan_error"?, ...report_json,
 *     "subnet_managers" (validate_sm.h's vsm_json), "multicast"?,
 *     "multicast_warning"? (validate_mcast.h), "warning"? (what was not
 *     checked: BER alarms, partitions)}]}
 *   fabric-issues (CTL_READ) {subnet?}: the open issues
 *     (lib/db/validate_db.h). */
#ifndef LOOMD_VALIDATE_H
#define LOOMD_VALIDATE_H

#include <stddef.h>

struct event_base;
struct ctl;
struct fab;
struct validate_conf;
struct store;
struct validate_mod;
struct nodename_map;

/* store: the loop's connection (fabric-issues). NULL with err. */
struct validate_mod *validate_new(struct event_base *base, const struct validate_conf *conf,
				  struct store *store, char *err, size_t errlen);
/* Waits for the running check. */
void validate_free(struct validate_mod *m);
/* The new plan (read again; when it cannot be read the old one stays,
 * logged) and settings, from the next check on. */
void validate_reconfigure(struct validate_mod *m, const struct validate_conf *conf);
int validate_register(struct validate_mod *m, struct ctl *ctl);
/* The site's node names (held; NULL: none), from the next check on. */
void validate_set_names(struct validate_mod *m, struct nodename_map *names);
/* Discovery's MAD limits, for the children that read tables back after
 * a sweep (issue 43: the PKey tables, the multicast tables and groups), from
 * the next check on. */
struct swept_mad;
void validate_set_mad(struct validate_mod *m, const struct swept_mad *mad);
/* The Ethernet switches' reads were recorded (qos_on_recorded): check the
 * plan's Ethernet rows against their LLDP now, or once the check under way
 * ends; nothing without Ethernet rows or with validation off (issue 43). */
void validate_on_switches_read(void *arg);
/* sweeper_on_swept's listener: takes fab. */
void validate_on_swept(void *arg, const char *subnet, struct fab *fab);


#endif
