/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/sm.c: the subnet-manager rules (sm.h). The lists are at most
 * FAB_SM_MAX long: every rule is a scan of them, the previous list looked
 * up per SM by (node, port), or by SM GUID for one only the SA lists. */
#include "autoconf.h"
#include "lib/validate/sm.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sm_where(const struct fab *fab, const struct nodename_map *names,
		     const struct fab_sm *sm, char *buf, size_t len)
{
	const struct fab_node *n = fab_find(fab, sm->node_guid);
	if (n)
		snprintf(buf, len, "%s[%u]", nodename_of(names, n->guid, n->desc), sm->port);
	else if (sm->node_guid)
		snprintf(buf, len, "0x%016" PRIx64 "[%u]", sm->node_guid, sm->port);
	else   /* the SA lists it, the walk did not meet its port */
		snprintf(buf, len, "SM 0x%016" PRIx64, sm->guid);
	return buf;
}

/* An allowed entry names the SM: its node's name or description, its node
 * GUID or its port GUID (SMInfo:GUID). */
static int allowed(const struct fab *fab, const struct sm_opts *o, const struct fab_sm *sm)
{
	const struct fab_node *n = fab_find(fab, sm->node_guid);
	const char *name = n ? nodename_of(o->names, n->guid, n->desc) : NULL;

	for (size_t i = 0; i < o->n_allowed; i++) {
		const char *a = o->allowed[i];
		char *end;
		unsigned long long g;

		if ((name && !strcmp(a, name)) || (n && !strcmp(a, n->desc)))
			return 1;
		if (!strncmp(a, "0x", 2) || !strncmp(a, "0X", 2)) {
			g = strtoull(a, &end, 16);
			if (!*end && (g == sm->node_guid || (sm->answered && g == sm->guid)))
				return 1;
		}
	}
	return 0;
}

static const struct fab_sm *prev_of(const struct sm_opts *o, const struct fab_sm *sm)
{
	for (size_t i = 0; o->prev && i < o->n_prev; i++)
		if (sm->node_guid ? o->prev[i].node_guid == sm->node_guid && o->prev[i].port == sm->port
				  : o->prev[i].guid == sm->guid)   /* one only the SA lists */
			return &o->prev[i];
	return NULL;
}

static void describe(const struct fab_sm *sm, char *buf, size_t len)
{
	if (sm->answered)
		snprintf(buf, len, "SM 0x%016" PRIx64 " %s, priority %u, ActCount %u", sm->guid,
			 fab_sm_state_name(sm->state), sm->priority, sm->act_count);
	else
		snprintf(buf, len, "no answer to SMInfo");
}

static int masters(const struct fab *fab, const struct sm_opts *o, struct val_report *r,
		   const struct fab_sm **top)
{
	char subject[200] = "", where[160];
	size_t n = 0, off = 0;

	*top = NULL;
	for (size_t i = 0; i < fab->n_sms; i++) {
		const struct fab_sm *sm = &fab->sms[i];

		if (!sm->answered || sm->state != FAB_SM_MASTER)
			continue;
		if (!*top || sm->priority > (*top)->priority)
			*top = sm;
		sm_where(fab, o->names, sm, where, sizeof(where));
		if (off < sizeof(subject))
			off += (size_t)snprintf(subject + off, sizeof(subject) - off, "%s%s",
						n ? ", " : "", where);
		n++;
	}
	if (n < 2)
		return 0;
	return val_add(r, VAL_SM_MASTERS, 0, "one MASTER", "", "%s", subject);
}

int sm_check(const struct fab *fab, const struct sm_opts *o, struct val_report *r)
{
	const struct fab_sm *top;
	char where[160], what[200], want[320];

	if (fab->sm_read == FAB_SM_NOT_READ)
		return 0;
	if (masters(fab, o, r, &top) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < fab->n_sms; i++) {
		const struct fab_sm *sm = &fab->sms[i], *was = prev_of(o, sm);

		sm_where(fab, o->names, sm, where, sizeof(where));
		describe(sm, what, sizeof(what));
		if (o->n_allowed && !allowed(fab, o, sm) &&
		    val_add(r, VAL_SM_UNLISTED, 0, "only the SMs validation.sm_allowed names", what,
			    "%s", where) < 0)
			return -ENOMEM;
		if (!sm->answered) {
			if (val_add(r, VAL_SM_STALLED, 0, "an answer to SMInfo (SubnGet)",
				    "the port advertises IsSM but its SM did not answer", "%s",
				    where) < 0)
				return -ENOMEM;
		} else if (sm->state == FAB_SM_MASTER && was && was->answered &&
			   was->guid == sm->guid && was->act_count == sm->act_count) {
			snprintf(want, sizeof(want), "an ActCount that moves between sweeps");
			snprintf(what, sizeof(what), "ActCount %u, as at the previous sweep",
				 sm->act_count);
			if (val_add(r, VAL_SM_STALLED, 0, want, what, "%s", where) < 0)
				return -ENOMEM;
		}
		if (top && sm->answered && sm->state == FAB_SM_STANDBY &&
		    sm->priority > top->priority) {
			char tw[160];

			snprintf(want, sizeof(want), "priority at most %u (the MASTER's, %s)",
				 top->priority, sm_where(fab, o->names, top, tw, sizeof(tw)));
			snprintf(what, sizeof(what), "STANDBY with priority %u", sm->priority);
			if (val_add(r, VAL_SM_PRIORITY, 0, want, what, "%s", where) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}
