/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/keys.c: the M_Key rules (keys.h). Two passes over the ports:
 * count each kind, then name either a few examples (one finding for the
 * subnet) or each port of a small minority. */
#include "autoconf.h"
#include "lib/validate/keys.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/fabric/ibtypes.h"

#define KEYS_EXAMPLES 4
#define PS_INIT 2

static const char *const want_of[2] = {
	"an M_Key on every port (NVIDIA InfiniBand security guidelines: enable InfiniBand keys "
	"for every class in use); OpenSM: m_key (or m_key_per_port), m_key_protection_level 2, "
	"m_key_lease_period 60",
	"M_Key protect bits (NVIDIA InfiniBand security guidelines: m_key_protection_level 2, "
	"the recommended level); OpenSM: m_key_protection_level 2, m_key_lease_period 60",
};

static const enum val_code code_of[2] = { VAL_MKEY_UNSET, VAL_MKEY_UNPROTECTED };

/* -1: not judged; 0 fine; 1 unset; 2 unprotected */
static int port_kind(const struct fab_node *n, unsigned p)
{
	const struct fab_port *fp = fab_port(n, p);

	if (!fp || (n->type == IBT_NODE_SWITCH ? p != 0 : p == 0 || fp->state < PS_INIT))
		return -1;
	if (fp->m_key_protect)
		return 0;
	return fp->m_key ? 2 : 1;
}

static int add(struct val_report *r, enum val_code code, enum keys_mode mode, const char *want,
	       const char *got, const char *subject)
{
	if (val_add(r, code, 0, want, got, "%s", subject) < 0)
		return -ENOMEM;
	r->f[r->n - 1].sev = mode == KEYS_REQUIRED ? VAL_ERROR : VAL_WARNING;
	return 0;
}

int keys_check(const struct fab *fab, enum keys_mode mode, const struct nodename_map *names,
	       struct val_report *r)
{
	size_t judged = 0, bad[2] = { 0, 0 };
	char got[2][320], subject[160];
	size_t off[2] = { 0, 0 }, shown[2] = { 0, 0 };

	if (mode == KEYS_OFF || fab->sm_read == FAB_SM_NOT_READ)
		return 0;
	for (size_t i = 0; i < fab->n_nodes; i++)
		for (unsigned p = 0; p <= fab->nodes[i]->nports; p++) {
			int k = port_kind(fab->nodes[i], p);

			judged += k >= 0;
			if (k > 0)
				bad[k - 1]++;
		}
	for (int k = 0; k < 2; k++)
		off[k] = (size_t)snprintf(got[k], sizeof(got[k]), "%zu of %zu ports%s", bad[k],
					  judged, bad[k] ? ", e.g." : "");
	for (size_t i = 0; i < fab->n_nodes && (bad[0] || bad[1]); i++) {
		const struct fab_node *n = fab->nodes[i];

		for (unsigned p = 0; p <= n->nports; p++) {
			int k = port_kind(n, p) - 1;
			int minority;

			if (k < 0)
				continue;
			minority = bad[k] * 2 < judged && bad[k] <= KEYS_MINORITY_MAX;
			snprintf(subject, sizeof(subject), "%s[%u]",
				 nodename_of(names, n->guid, n->desc), p);
			if (minority) {
				if (add(r, code_of[k], mode, want_of[k],
					k ? "an M_Key with protect bits 0" : "M_Key 0, protect bits 0",
					subject) < 0)
					return -ENOMEM;
			} else if (shown[k] < KEYS_EXAMPLES && off[k] < sizeof(got[k])) {
				off[k] += (size_t)snprintf(got[k] + off[k], sizeof(got[k]) - off[k],
							   " %s", subject);
				shown[k]++;
			}
		}
	}
	for (int k = 0; k < 2; k++) {
		if (!bad[k] || (bad[k] * 2 < judged && bad[k] <= KEYS_MINORITY_MAX))
			continue;
		snprintf(subject, sizeof(subject), "subnet %s", fab->subnet);
		if (add(r, code_of[k], mode, want_of[k], got[k], subject) < 0)
			return -ENOMEM;
	}
	return 0;
}

int keys_mode_of(const char *s)
{
	if (!strcmp(s, "off"))
		return KEYS_OFF;
	if (!strcmp(s, "report"))
		return KEYS_REPORT;
	if (!strcmp(s, "required"))
		return KEYS_REQUIRED;
	return -1;
}

const char *keys_mode_name(enum keys_mode m)
{
	return m == KEYS_OFF ? "off" : m == KEYS_REQUIRED ? "required" : "report";
}
