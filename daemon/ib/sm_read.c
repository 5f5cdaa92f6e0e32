/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/sm_read.c: see sm_read.h.
 *
 * The SMInfo attribute is answered by the SM itself (the HCA hands the SMP
 * to the SM's QP0 agent), so a port advertises IsSM while an SM holds it
 * open, and an SM that hangs answers nothing. The IBA (14.4.1, SMInfo)
 * has the SM_Key returned only to a requester that presented the right
 * key: loom presents none, so the key reads 0 whatever the SM holds
 * (OpenSM: "Responding to SM not master with zero sm_key").
 *
 * Then OpenSM's own list: a SubnAdmGetTable of SMInfoRecord to the SA (the
 * local port's SM LID, QP1; what `saquery SMIR` shows), as many records as
 * the answer holds (the kernel reassembles RMPP segments; under umad2sim a
 * single MAD, 6 records, is what arrives). An SM the SA lists is marked so;
 * one the walk did not meet is added with the SA's view of it. An SA that
 * does not answer leaves the list as the walk made it. The SA is asked only
 * when a port answered SMInfo as MASTER: the SA runs with the master SM, so
 * with none (no SM yet, or the only one hung) it cannot answer, and asking
 * would wait out (retries + 1) timeouts, 800 ms with loom's defaults, on
 * every sweep of a subnet without a working SM (issue 44). */
#include "autoconf.h"
#include "daemon/ib/sm_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include <infiniband/umad.h>

#include "daemon/ib/dr_route.h"
#include "daemon/ib/mad_build.h"

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
	sm.seen = FAB_SM_SEEN_PORT;
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

/* SMInfoRecord: LID (2), reserved (2), SMInfo (24), padded to 32 bytes */
#define SA_SMIR_SMINFO 4
#define SMINFO_LEN 24

/* The node and port of the port GUID guid in fab: 0, or -ENOENT. */
static int port_of(const struct fab *fab, uint64_t guid, uint64_t *node, uint8_t *port)
{
	for (size_t i = 0; i < fab->n_nodes; i++)
		for (unsigned p = 0; p <= fab->nodes[i]->nports; p++)
			if (fab->nodes[i]->ports[p].present && fab->nodes[i]->ports[p].guid == guid) {
				*node = fab->nodes[i]->guid;
				*port = (uint8_t)(fab->nodes[i]->type == IBT_NODE_SWITCH ? 0 : p);
				return 0;
			}
	return -ENOENT;
}

static void sa_record(struct fab *fab, const uint8_t *smi)
{
	struct fab_sm sm;

	memset(&sm, 0, sizeof(sm));   /* the padding crosses the wire too */
	sm.answered = 1;
	sm.seen = FAB_SM_SEEN_SA;
	sm.guid = mad_get_field64((void *)smi, 0, IB_SMINFO_GUID_F);
	for (size_t i = 0; i < fab->n_sms; i++)
		if (fab->sms[i].answered && fab->sms[i].guid == sm.guid) {
			fab->sms[i].seen |= FAB_SM_SEEN_SA;
			return;
		}
	sm.sm_key = mad_get_field64((void *)smi, 0, IB_SMINFO_KEY_F);
	sm.act_count = mad_get_field((void *)smi, 0, IB_SMINFO_ACT_F);
	sm.priority = (uint8_t)mad_get_field((void *)smi, 0, IB_SMINFO_PRIO_F);
	sm.state = (uint8_t)mad_get_field((void *)smi, 0, IB_SMINFO_STATE_F);
	if (port_of(fab, sm.guid, &sm.node_guid, &sm.port) < 0)
		sm.node_guid = 0;   /* not in the swept fabric: named by its GUID */
	fab_add_sm(fab, &sm);
}

/* The SA's answer to our GetTable (TID tid) in *mad, *len bytes of MAD:
 * 0, or -EIO. A multi-segment answer arrives whole where the kernel does
 * RMPP (umad_recv asks for a larger buffer: -ENOSPC); umad2sim hands the
 * first segment only. */
static int sa_recv(int fd, uint32_t tid, int timeout_ms, uint8_t **buf, int *len)
{
	size_t cap = (size_t)umad_size() + IB_MAD_SIZE * 8;

	for (int tries = 0; tries < 8; tries++) {
		uint8_t *mad;
		int n = (int)(cap - (size_t)umad_size()), rc;

		if (!(*buf = calloc(1, cap)))
			return -ENOMEM;
		rc = umad_recv(fd, *buf, &n, timeout_ms);
		if (rc == -ENOSPC && n > 0 && (size_t)n < 1u << 24) {
			free(*buf);
			cap = (size_t)umad_size() + (size_t)n;
			continue;
		}
		mad = umad_get_mad(*buf);
		if (rc >= 0 && umad_status(*buf) == 0 && n >= IB_SA_DATA_OFFS &&
		    (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F) == tid &&   /* the kernel owns the upper half */
		    mad[3] == IB_MAD_METHOD_GET_TABLE_RESPONSE &&   /* method and R bit */
		    mad_get_field(mad, 0, IB_MAD_STATUS_F) == 0) {
			*len = n;
			return 0;
		}
		free(*buf);
		*buf = NULL;
		if (rc < 0)
			return -EIO;   /* no answer in time; a stray MAD: wait again */
	}
	return -EIO;
}

/* OpenSM's own list, merged into fab->sms: 0, or -EIO when the SA was not
 * asked or did not answer (nothing changed). */
static int sa_list(const struct disc_ib_params *p, struct fab *fab)
{
	const char *ca = p->ca && *p->ca ? p->ca : NULL;
	const struct madb_req r = { .mgmt_class = IB_SA_CLASS,
				    .method = IB_MAD_METHOD_GET_TABLE,
				    .attr = IB_SA_ATTR_SMINFORECORD, .tid = 0x4c534d31 };
	struct madb_req req = r;
	int timeout = p->timeout_ms > 0 ? p->timeout_ms : 1000, fd, agent, len = 0, rc = -EIO;
	uint8_t *req_buf = NULL, *resp = NULL, *data;
	umad_port_t up;
	unsigned recsz;

	if (umad_get_port(ca, p->port, &up) < 0)
		return -EIO;
	req.lid = (uint16_t)up.sm_lid;
	umad_release_port(&up);
	if (!req.lid || (fd = umad_open_port(ca, p->port)) < 0)
		return -EIO;
	if ((agent = umad_register(fd, IB_SA_CLASS, 2, 1, NULL)) < 0 ||
	    !(req_buf = calloc(1, (size_t)umad_size() + IB_MAD_SIZE)) ||
	    madb_build(req_buf, (size_t)umad_size() + IB_MAD_SIZE, &req) < 0 ||
	    umad_send(fd, agent, req_buf, IB_MAD_SIZE, timeout, p->retries) < 0 ||
	    sa_recv(fd, req.tid, timeout * (p->retries + 1), &resp, &len) < 0)
		goto out;
	data = (uint8_t *)umad_get_mad(resp);
	recsz = mad_get_field(data, 0, IB_SA_ATTROFFS_F) * 8;
	if (recsz >= SA_SMIR_SMINFO + SMINFO_LEN) {
		for (int off = IB_SA_DATA_OFFS; off + (int)recsz <= len; off += (int)recsz)
			sa_record(fab, data + off + SA_SMIR_SMINFO);
	}
	rc = 0;
out:
	free(req_buf);
	free(resp);
	if (agent >= 0)
		umad_unregister(fd, agent);
	umad_close_port(fd);
	return rc;
}

/* A port answered SMInfo as MASTER: an SA may answer. */
static int master_met(const struct fab *fab)
{
	for (size_t i = 0; i < fab->n_sms; i++)
		if (fab->sms[i].answered && fab->sms[i].state == FAB_SM_MASTER)
			return 1;
	return 0;
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
	if (master_met(fab))
		sa_list(p, fab);
	if (fab->n_sms > 1)
		qsort(fab->sms, fab->n_sms, sizeof(*fab->sms), sm_cmp);
	fab->sm_read = FAB_SM_READ;
	return 0;
}
