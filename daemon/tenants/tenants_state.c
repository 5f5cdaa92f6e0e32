/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/tenants/tenants_state.c: a tenant's states and the steps between
 * them (tenants_state.h draws the diagram), as one table; the one writer of
 * a stored tenant's state. */
#include "autoconf.h"
#include "daemon/tenants/tenants_state.h"

#include <errno.h>
#include <string.h>

#include "daemon/tenants/store_tenants.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"

#define S(x) (1u << (x))
#define LIVE (S(TENANT_APPLYING) | S(TENANT_ACTIVE) | S(TENANT_FAILED))
#define ANY (LIVE | S(TENANT_DELETED))

static const char *const names[] = {
	[TENANT_DELETED] = "deleted", [TENANT_APPLYING] = "applying",
	[TENANT_ACTIVE] = "active", [TENANT_FAILED] = "failed",
};

/* Each step: the states it leaves, and the ones it reaches (one: its
 * target; more: the caller names it). */
static const struct {
	const char *name;
	unsigned from, to;
} steps[] = {
	[TENANT_CHANGED] = { "changed", ANY, S(TENANT_APPLYING) },
	[TENANT_CONFIRMED] = { "confirmed", LIVE, S(TENANT_ACTIVE) },
	[TENANT_NOT_CONFIRMED] = { "not confirmed", LIVE, S(TENANT_FAILED) },
	[TENANT_ROLLED_BACK] = { "rolled back", S(TENANT_APPLYING) | S(TENANT_DELETED), ANY },
	[TENANT_REMOVED] = { "deleted", LIVE, S(TENANT_DELETED) },
	[TENANT_MIRRORED] = { "mirrored", ANY, LIVE },
};

const char *tenants_state_name(enum tenant_state s)
{
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

enum tenant_state tenants_state_parse(const char *name)
{
	for (size_t i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return (enum tenant_state)i;
	return TENANT_DELETED;
}

int tenants_state_next(enum tenant_state from, enum tenant_step step, enum tenant_state to)
{
	unsigned reach;

	if ((unsigned)step >= sizeof(steps) / sizeof(steps[0]) || (unsigned)from > TENANT_FAILED ||
	    !(steps[step].from & S(from)))
		return -EINVAL;
	reach = steps[step].to;
	if (!(reach & (reach - 1)))  /* one target */
		return __builtin_ctz(reach);
	return (unsigned)to <= TENANT_FAILED && (reach & S(to)) ? (int)to : -EINVAL;
}

int tenants_state_set(struct store *st, const char *name, enum tenant_state from,
		      enum tenant_step step, enum tenant_state to, const char *error)
{
	int next = tenants_state_next(from, step, to);

	if (next < 0 || next == TENANT_DELETED) {
		log_warn("tenant %s: %s from %s is not a step of its states: not written", name,
			 (unsigned)step < sizeof(steps) / sizeof(steps[0]) ? steps[step].name : "?",
			 tenants_state_name(from));
		return -EINVAL;
	}
	return store_tenant_set_state(st, clock_wall(), name, names[next], error);
}
