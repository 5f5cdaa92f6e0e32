/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/sm_read.c: see sm_read.h.
 *
 * The SMInfo attribute is answered by the SM itself (the HCA hands the SMP
 * to the SM's QP0 agent), so a port advertises IsSM while an SM holds it
 * open, and an SM that hangs answers nothing. The IBA (14.4.1, SMInfo)
 * has the SM_Key returned only to a requester that presented the right
 * key: loom presents none, so the key reads 0 whatever the SM holds
 * (OpenSM: "Responding to SM not master with zero sm_key"). */
#include "autoconf.h"
#include "daemon/ib/sm_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "daemon/ib/dr_route.h"

struct sm_reader {
	struct ibmad_port *mp;
	struct fab *fab;
};

/* One SMInfo Get along path to the port (node, port); the SM noted either way. */
static int ask(struct sm_reader *rd, const ib_dr_path_t *path, const struct fab_node *n,
	       unsigned port)
{
	uint8_t buf[IB_SMP_DATA_SIZE];
	struct fab_sm sm;
	ib_portid_t id;

	memset(&id, 0, sizeof(id));
	memset(&sm, 0, sizeof(sm));
	memset(buf, 0, sizeof(buf));
	id.drpath = *path;
	sm.node_guid = n->guid;
	sm.port = (uint8_t)port;
	if (smp_query_via(buf, &id, IB_ATTR_SMINFO, 0, 0, rd->mp)) {
		sm.answered = 1;
		sm.guid = mad_get_field64(buf, 0, IB_SMINFO_GUID_F);
		sm.sm_key = mad_get_field64(buf, 0, IB_SMINFO_KEY_F);
		sm.act_count = mad_get_field(buf, 0, IB_SMINFO_ACT_F);
		sm.priority = (uint8_t)mad_get_field(buf, 0, IB_SMINFO_PRIO_F);
		sm.state = (uint8_t)mad_get_field(buf, 0, IB_SMINFO_STATE_F);
	}
	return fab_add_sm(rd->fab, &sm) == -ENOMEM ? -ENOMEM : 0;  /* past 64: not noted */
}

static int is_sm(const struct fab_port *fp)
{
	return fp && (fp->capmask & FAB_CAP_IS_SM);
}

static int ask_ca(void *ctx, const struct dr_route *r, unsigned port, const struct fab_node *ca,
		  const struct fab_port *far)
{
	ib_dr_path_t path = r->path;

	if (!is_sm(far))
		return 0;
	path.p[++path.cnt] = (uint8_t)port;
	return ask(ctx, &path, ca, far->num);
}

static int sm_cmp(const void *x, const void *y)
{
	const struct fab_sm *a = x, *b = y;

	if (a->node_guid != b->node_guid)
		return a->node_guid < b->node_guid ? -1 : 1;
	return (int)a->port - (int)b->port;
}

int sm_read_fabric(const struct disc_ib_params *p, struct fab *fab, char *err, size_t errlen)
{
	struct dr_routes d = { 0 };
	struct sm_reader rd = { NULL, fab };
	int rc = 0;

	if ((rc = dr_routes_build(p, fab, &d, err, errlen)) < 0)
		return rc;
	if (!(rd.mp = dr_open_port(p, err, errlen))) {
		dr_routes_clear(&d);
		return -ENODEV;
	}
	if (d.local->type != IBT_NODE_SWITCH && is_sm(fab_port(d.local, d.local_port))) {
		ib_dr_path_t here = { 0 };

		rc = ask(&rd, &here, d.local, d.local_port);
	}
	for (size_t i = 0; rc == 0 && i < d.n; i++) {
		if (is_sm(fab_port(d.r[i].n, 0)))
			rc = ask(&rd, &d.r[i].path, d.r[i].n, 0);
		if (rc == 0)
			rc = dr_ca_ports(fab, &d, i, ask_ca, &rd);
	}
	mad_rpc_close_port(rd.mp);
	dr_routes_clear(&d);
	if (rc < 0) {
		snprintf(err, errlen, "out of memory");
		return rc;
	}
	if (fab->n_sms > 1)
		qsort(fab->sms, fab->n_sms, sizeof(*fab->sms), sm_cmp);
	fab->sm_read = FAB_SM_READ;
	return 0;
}
