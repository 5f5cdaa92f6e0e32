/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/fabric/fabric_diff.h: what changed between two sweeps of one subnet. A pure
 * function of two fabric graphs; the store turns the result into event rows. */
#ifndef LOOM_FABRIC_DIFF_H
#define LOOM_FABRIC_DIFF_H

#include <stddef.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/nodename.h"

enum fab_ev_kind {
	FAB_EV_SUBNET_FIRST_SWEEP,  /* no earlier sweep: one summary event */
	FAB_EV_NODE_APPEARED,
	FAB_EV_NODE_DISAPPEARED,
	FAB_EV_LINK_UP,
	FAB_EV_LINK_DOWN,
	FAB_EV_PORT_STATE,          /* logical or physical state of a port changed */
	FAB_EV_LINK_DEGRADED,       /* width or speed below what both ends support */
	FAB_EV_LINK_RESTORED,       /* a degraded link runs at full width/speed again */
	FAB_EV_LID_CHANGE,
	FAB_EV_DESC_CHANGE,
	/* A storm, coalesced: more than FAB_DIFF_EACH events of one of the
	 * kinds above in one diff are one of these, subject "subnet NAME". */
	FAB_EV_PORT_STATES,         /* port_state */
	FAB_EV_LID_CHANGES,         /* lid_change */
	FAB_EV_NODES_APPEARED,      /* node_appeared */
	FAB_EV_NODES_DISAPPEARED,   /* node_disappeared */
	FAB_EV_DESC_CHANGES,        /* desc_change */
	FAB_EV_COUNT
};

/* Events of one coalescing kind a diff lists one by one, at most. */
#define FAB_DIFF_EACH 16

enum fab_ev_severity {
	FAB_SEV_INFO,
	FAB_SEV_NOTICE,
	FAB_SEV_WARNING,
	FAB_SEV_ERROR,
};

struct fab_event {
	enum fab_ev_kind kind;
	enum fab_ev_severity severity;
	char subject[160];   /* "0x...[port] (name)" or "0x...[p] <-> 0x...[q]" */
	char old_value[128]; /* "" when not applicable */
	char new_value[128];
};

struct fab_diff {
	size_t n_events;
	struct fab_event *events;
};

/* Compare `old` (may be NULL: first sweep) with `cur`. Both are left
 * untouched. Subjects name nodes by GUID and nodename_of(names, ...): the
 * site's node-name-map (NULL: their descriptions). Returns a new diff, or
 * NULL with errno = ENOMEM. */
struct fab_diff *fab_diff_new(const struct fab *old, const struct fab *cur,
			      const struct nodename_map *names);
void fab_diff_free(struct fab_diff *diff);

/* "node_appeared", ...; "info", "notice", "warning", "error". */
const char *fab_ev_kind_name(enum fab_ev_kind kind);
const char *fab_ev_severity_name(enum fab_ev_severity sev);

#endif
