/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/validate/validate_sm.h: the validate module's part of issue 43's
 * subnet managers and keys: what it keeps of each subnet's SM lists between
 * sweeps (the activity-count rule compares the newest with the previous),
 * its settings (validation.sm_allowed, validation.keys), the rules run for
 * one fabric (lib/validate/sm.h, keys.h) and the "subnet_managers" list
 * fabric-validate answers with. */
#ifndef LOOMD_VALIDATE_SM_H
#define LOOMD_VALIDATE_SM_H

#include <stddef.h>

#include <jansson.h>

#include "daemon/validate/config_validate.h"
#include "lib/fabric/fabric.h"
#include "lib/fabric/nodename.h"
#include "lib/validate/report.h"

/* One subnet's SM lists, newest and previous (opaque). */
struct vsm_history;

/* fab is the subnet's newest sweep: a freshly read SM list becomes the
 * newest, the newest the previous; a list copied from an earlier sweep
 * (FAB_SM_COPIED) or none changes nothing. *h made on first use. 0 or
 * -ENOMEM. */
int vsm_track(struct vsm_history **h, const struct fab *fab);
void vsm_history_free(struct vsm_history *h);
/* A copy of the previous list (the one the newest is judged against), n
 * in *n: NULL with *n 0 when there is none (or no memory: no judgement). */
struct fab_sm *vsm_prev_copy(const struct vsm_history *h, size_t *n);

struct vsm_settings {
	char allowed[VALIDATE_SM_ALLOWED_MAX][VALIDATE_SM_NAME_LEN];
	int n_allowed;
	int keys;                  /* enum keys_mode */
};

void vsm_settings_of(const struct validate_conf *c, struct vsm_settings *s);

/* The SM and key rules on fab into r: 0 or -ENOMEM. */
int vsm_check(const struct vsm_settings *s, const struct fab *fab, const struct fab_sm *prev,
	      size_t n_prev, const struct nodename_map *names, struct val_report *r);

/* [{"guid", "node", "port", "where" (node[port] as findings name it),
 * "priority", "state" (SILENT: no answer), "act_count", "answered",
 * "is_sm_port" (its port advertises IsSM), "sa" (the SA's table lists it)}],
 * or JSON null when the sweep did not read them; NULL: no memory. */
json_t *vsm_json(const struct fab *fab, const struct nodename_map *names);

#endif
