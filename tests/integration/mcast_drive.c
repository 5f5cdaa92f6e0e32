/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/integration/mcast_drive.c: what validate_mcast.sh does to a simulated
 * fabric that no stock tool does (run under the umad2sim preload, the host
 * chosen with SIM_HOST):
 *   mcast_drive join MGID...             an SA MCMemberRecord Set (join, full
 *                                        member) of this host's port to each
 *                                        MGID (IPv6 text): prints "MGID MLID"
 *   mcast_drive mft LID MLID PORT add|drop  the MFT entry of MLID on the switch
 *                                        of LID, with PORT put in or taken out
 *                                        (SMP Get, then Set, LID-routed)
 *   mcast_drive mask LID MLID NPORTS     the ports of that entry, one line
 * Exit 0, or 1 with a line on stderr. */
#include "autoconf.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

static int join(int argc, char **argv)
{
	int classes[] = { IB_SA_CLASS, IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	struct ibmad_port *mp = mad_rpc_open_port(NULL, 0, classes, 3);
	umad_port_t port;
	ib_portid_t sm;

	if (!mp || umad_get_port(NULL, 0, &port) < 0) {
		fprintf(stderr, "mcast_drive: cannot open the local port\n");
		return 1;
	}
	uint64_t prefix = be64toh(port.gid_prefix), guid = be64toh(port.port_guid);

	memset(&sm, 0, sizeof(sm));
	ib_portid_set(&sm, port.sm_lid, 0, 0);
	umad_release_port(&port);   /* its pkeys table (what it allocated) */
	for (int i = 0; i < argc; i++) {
		uint8_t buf[IB_SA_DATA_SIZE], mgid[16], gid[16];
		ib_sa_call_t sa;

		if (inet_pton(AF_INET6, argv[i], mgid) != 1) {
			fprintf(stderr, "mcast_drive: %s is not an MGID\n", argv[i]);
			return 1;
		}
		for (int b = 0; b < 8; b++) {
			gid[b] = (uint8_t)(prefix >> (56 - 8 * b));
			gid[8 + b] = (uint8_t)(guid >> (56 - 8 * b));
		}
		memset(buf, 0, sizeof(buf));
		mad_set_array(buf, 0, IB_SA_MCM_MGID_F, mgid);
		mad_set_array(buf, 0, IB_SA_MCM_PORTGID_F, gid);
		mad_set_field(buf, 0, IB_SA_MCM_QKEY_F, 0x0b1b);
		mad_set_field(buf, 0, IB_SA_MCM_PKEY_F, 0xffff);
		mad_set_field(buf, 0, IB_SA_MCM_JOIN_STATE_F, 1);
		memset(&sa, 0, sizeof(sa));
		sa.attrid = IB_SA_ATTR_MCRECORD;
		sa.method = IB_MAD_METHOD_SET;
		/* MGID, PortGID, Q_Key, TClass, P_Key, SL, FlowLabel, JoinState:
		 * what a create needs */
		sa.mask = 1 << 0 | 1 << 1 | 1 << 2 | 1 << 6 | 1 << 7 | 1 << 12 | 1 << 13 | 1 << 16;
		if (!sa_rpc_call(mp, buf, &sm, &sa, 0)) {
			fprintf(stderr, "mcast_drive: the SA refused the join to %s\n", argv[i]);
			return 1;
		}
		printf("%s 0x%04x\n", argv[i], mad_get_field(buf, 0, IB_SA_MCM_MLID_F));
	}
	mad_rpc_close_port(mp);
	return 0;
}

static int mask(char **argv)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	struct ibmad_port *mp = mad_rpc_open_port(NULL, 0, classes, 2);
	unsigned lid = strtoul(argv[0], NULL, 0), mlid = strtoul(argv[1], NULL, 0);
	unsigned nports = strtoul(argv[2], NULL, 0), idx = mlid - 0xc000;
	uint8_t buf[IB_SMP_DATA_SIZE];
	ib_portid_t id;

	if (!mp || mlid < 0xc000)
		return 1;
	memset(&id, 0, sizeof(id));
	ib_portid_set(&id, (int)lid, 0, 0);
	for (unsigned pos = 0; pos <= nports / 16; pos++) {
		unsigned m;

		memset(buf, 0, sizeof(buf));
		if (!smp_query_via(buf, &id, IB_ATTR_MULTICASTFORWTBL, pos << 28 | idx / 32, 0, mp)) {
			fprintf(stderr, "mcast_drive: LID %u did not answer the MFT Get\n", lid);
			return 1;
		}
		m = (unsigned)buf[2 * (idx % 32)] << 8 | buf[2 * (idx % 32) + 1];
		for (unsigned b = 0; b < 16; b++)
			if (m >> b & 1)
				printf(" %u", pos * 16 + b);
	}
	printf("\n");
	mad_rpc_close_port(mp);
	return 0;
}

static int mft(char **argv)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	struct ibmad_port *mp = mad_rpc_open_port(NULL, 0, classes, 2);
	unsigned lid = strtoul(argv[0], NULL, 0), mlid = strtoul(argv[1], NULL, 0);
	unsigned port = strtoul(argv[2], NULL, 0), idx = mlid - 0xc000;
	unsigned am = (port / 16) << 28 | idx / 32;
	uint8_t buf[IB_SMP_DATA_SIZE];
	ib_portid_t id;
	unsigned mask;

	if (!mp || mlid < 0xc000) {
		fprintf(stderr, "mcast_drive: no port, or MLID 0x%x is not multicast\n", mlid);
		return 1;
	}
	memset(&id, 0, sizeof(id));
	ib_portid_set(&id, (int)lid, 0, 0);
	memset(buf, 0, sizeof(buf));
	if (!smp_query_via(buf, &id, IB_ATTR_MULTICASTFORWTBL, am, 0, mp)) {
		fprintf(stderr, "mcast_drive: LID %u did not answer the MFT Get\n", lid);
		return 1;
	}
	mask = (unsigned)buf[2 * (idx % 32)] << 8 | buf[2 * (idx % 32) + 1];
	if (!strcmp(argv[3], "add"))
		mask |= 1u << (port % 16);
	else
		mask &= ~(1u << (port % 16));
	buf[2 * (idx % 32)] = (uint8_t)(mask >> 8);
	buf[2 * (idx % 32) + 1] = (uint8_t)mask;
	if (!smp_set_via(buf, &id, IB_ATTR_MULTICASTFORWTBL, am, 0, mp)) {
		fprintf(stderr, "mcast_drive: LID %u did not answer the MFT Set\n", lid);
		return 1;
	}
	mad_rpc_close_port(mp);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "join"))
		return join(argc - 2, argv + 2);
	if (argc == 6 && !strcmp(argv[1], "mft"))
		return mft(argv + 2);
	if (argc == 5 && !strcmp(argv[1], "mask"))
		return mask(argv + 2);
	fprintf(stderr, "usage: mcast_drive join MGID... | mft LID MLID PORT add|drop | mask LID MLID NPORTS\n");
	return 2;
}
