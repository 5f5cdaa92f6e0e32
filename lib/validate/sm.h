/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/sm.h: the subnet managers a sweep met (issue 43), judged. A
 * pure function of the fabric's SM list (fab->sms: every port that
 * advertises IsSM and what its SMInfo answered) and the previous sweep's:
 *   sm-masters    more than one SM in MASTER state (one finding, naming them)
 *   sm-unlisted   an SM whose node name, node GUID or port GUID is not in
 *                 opts->allowed (no list: not checked)
 *   sm-stalled    an SM that did not answer SMInfo, or a MASTER whose
 *                 ActCount is the previous sweep's (a STANDBY's count need
 *                 not move; its silence is what shows it stopped)
 *   sm-priority   a STANDBY with a higher priority than the MASTER
 * A fabric without an SM list (fab->sm_read FAB_SM_NOT_READ: from a file,
 * or a walk that could not ask) gets no finding. Subjects name the SM's
 * node and port ("host-3[1]") as health.h's do. */
#ifndef LOOM_VALIDATE_SM_H
#define LOOM_VALIDATE_SM_H

#include <stddef.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/nodename.h"
#include "lib/validate/report.h"

struct sm_opts {
	const char *const *allowed;   /* node names or GUIDs ("0x..."); none: not checked */
	size_t n_allowed;
	const struct fab_sm *prev;    /* the previous sweep's SMs (NULL: no judgement of */
	size_t n_prev;                /* activity counts) */
	const struct nodename_map *names;  /* the site's names (NULL: none) */
};

/* Add the findings to *r: 0, or -ENOMEM. */
int sm_check(const struct fab *fab, const struct sm_opts *o, struct val_report *r);

/* "host-3[1]": the SM's node by the site's name (else its description, else
 * its GUID) and port, in buf; "SM 0x..." (its port GUID) for one only the
 * SA lists, on a port the fabric does not have. */
const char *sm_where(const struct fab *fab, const struct nodename_map *names,
		     const struct fab_sm *sm, char *buf, size_t len);

#endif
