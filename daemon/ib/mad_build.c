/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/mad_build.c: see mad_build.h. */
#include "autoconf.h"
#include "daemon/ib/mad_build.h"

#include <errno.h>
#include <string.h>

#include <infiniband/umad.h>

int madb_build(uint8_t *buf, size_t blen, const struct madb_req *r)
{
	uint8_t zero[IB_SA_DATA_SIZE > IB_PC_DATA_SZ ? IB_SA_DATA_SIZE : IB_PC_DATA_SZ] = { 0 };
	ib_rpc_t rpc;
	ib_portid_t id;
	int len;

	if (blen < (size_t)umad_size() + IB_MAD_SIZE)
		return -EINVAL;
	memset(&rpc, 0, sizeof(rpc));
	memset(&id, 0, sizeof(id));
	rpc.mgtclass = r->mgmt_class;
	rpc.method = r->method;
	rpc.attr.id = r->attr;
	rpc.attr.mod = r->am;
	rpc.trid = r->tid;
	if (r->mgmt_class == IB_SMI_DIRECT_CLASS && r->path) {
		rpc.datasz = IB_SMP_DATA_SIZE;
		rpc.dataoffs = IB_SMP_DATA_OFFS;
		id.drpath = *r->path;
	} else if (r->mgmt_class == IB_PERFORMANCE_CLASS) {
		rpc.datasz = IB_PC_DATA_SZ;
		rpc.dataoffs = IB_PC_DATA_OFFS;
		id.lid = r->lid;
		id.qp = 1;
		id.qkey = IB_DEFAULT_QP1_QKEY;
	} else if (r->mgmt_class == IB_SA_CLASS) {
		rpc.datasz = IB_SA_DATA_SIZE;
		rpc.dataoffs = IB_SA_DATA_OFFS;
		id.lid = r->lid;
		id.qp = 1;
		id.qkey = IB_DEFAULT_QP1_QKEY;
	} else {
		return -EINVAL;
	}
	memset(buf, 0, blen);
	len = mad_build_pkt(buf, &rpc, &id, NULL, (void *)(r->data ? r->data : zero));
	return len < 0 ? -EINVAL : len;
}

void madb_set_mkey(uint8_t *mad, uint64_t mkey)
{
	int cls = (int)mad_get_field(mad, 0, IB_MAD_MGMTCLASS_F);

	if (cls == IB_SMI_CLASS || cls == IB_SMI_DIRECT_CLASS)
		mad_set_field64(mad, 0, IB_MAD_MKEY_F, mkey);
}
