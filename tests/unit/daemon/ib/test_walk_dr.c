/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/ib/test_walk_dr.c: loom's walk (daemon/ib/walk_dr.c) on
 * a small subnet simulated behind a fake umad io, for what ibsim never
 * shows: ibsim's ports train at SDR and its devices are not on
 * libibnetdisc's list, so no walk there asks Mellanox's extended PortInfo.
 * Here: a Mellanox CA and switch at QDR (10 Gb/s active, no extended speed)
 * are asked it, the CA's FDR10 answer is kept (and mapped: FDR10 active);
 * the switch refuses it (the port's timeout report) and is asked it once,
 * not for each of its QDR ports; a CA of another vendor is never asked; a
 * port down is kept, not walked through. And a CA answering with the GUID
 * of another ends the walk with -EEXIST (the caller falls back to
 * libibnetdisc).
 *
 * The subnet: CA "a" (local, 0x1003 ConnectX-3, QDR) port 1 -- switch "s"
 * (0xc738 SwitchX, 4 ports) port 1; s port 2 -- CA "b" (0x1003, QDR); s port
 * 3 -- CA "c" (vendor 0x1234, QDR); s port 4 down. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "daemon/ib/discovery_ib.h"
#include "daemon/ib/walk_dr.h"
#include "lib/fabric/fabric.h"
#include "tests/unit/fixtures/check_run.h"

#define UMAD_CAP (sizeof(struct ib_user_mad) + IB_MAD_SIZE)   /* room */
#define UMAD_LEN ((size_t)umad_size() + IB_MAD_SIZE)          /* what a buffer holds */
#define N_NODES 4
#define QUEUE 256

struct sim_node {
	uint64_t guid;
	int type;             /* 1 CA, 2 switch */
	int nports;
	unsigned devid, vendor;
	int peer[5], peer_port[5];   /* by port: node index, -1 none */
	int down[5];
	int refuse_ext;       /* bounces the extended PortInfo */
};

static struct sim_node net[N_NODES];
static uint8_t queue[QUEUE][UMAD_CAP];
static size_t q_head, q_tail;
static unsigned ext_asked[N_NODES];

static void setup_net(void)
{
	memset(net, 0, sizeof(net));
	for (int i = 0; i < N_NODES; i++)
		for (int p = 0; p < 5; p++)
			net[i].peer[p] = -1;
	net[0] = (struct sim_node){ 0xa0, 1, 1, 0x1003, 0x2c9, { -1, 1, -1, -1, -1 },
				    { 0, 1 }, { 0 }, 0 };
	net[1] = (struct sim_node){ 0x50, 2, 4, 0xc738, 0x2c9, { -1, 0, 2, 3, -1 },
				    { 0, 1, 1, 1, 0 }, { 0, 0, 0, 0, 1 }, 1 };
	net[2] = (struct sim_node){ 0xb0, 1, 1, 0x1003, 0x2c9, { -1, 1, -1, -1, -1 },
				    { 0, 2 }, { 0 }, 0 };
	net[3] = (struct sim_node){ 0xc0, 1, 1, 0x1234, 0x1234, { -1, 1, -1, -1, -1 },
				    { 0, 3 }, { 0 }, 0 };
	q_head = q_tail = 0;
	memset(ext_asked, 0, sizeof(ext_asked));
}

/* The node a DR SMP reaches and the port it enters by; -1 if none. */
static int route(const uint8_t *mad, int *in_port)
{
	unsigned hops = mad_get_field((void *)mad, 0, IB_DRSMP_HOPCNT_F);
	const uint8_t *path = mad + 128;  /* the SMP's InitialPath */
	int n = 0;

	*in_port = 1;  /* the local CA's port */
	for (unsigned h = 1; h <= hops; h++) {
		int out = path[h];

		if (out < 1 || out > net[n].nports || net[n].peer[out] < 0 || net[n].down[out])
			return -1;
		*in_port = net[n].peer_port[out];
		n = net[n].peer[out];
	}
	return n;
}

static void answer(const struct sim_node *s, int node, int in_port, uint8_t *mad,
		   struct ib_user_mad *u)
{
	uint8_t *d = mad + IB_SMP_DATA_OFFS;
	unsigned attr = mad_get_field(mad, 0, IB_MAD_ATTRID_F);
	unsigned am = mad_get_field(mad, 0, IB_MAD_ATTRMOD_F);

	memset(d, 0, IB_SMP_DATA_SIZE);
	mad[3] = 0x81;
	if (attr == IB_ATTR_NODE_INFO) {
		mad_set_field64(d, 0, IB_NODE_GUID_F, s->guid);
		mad_set_field64(d, 0, IB_NODE_PORT_GUID_F, s->guid + (s->type == 1 ? 1 : 0));
		mad_set_field(d, 0, IB_NODE_TYPE_F, (uint32_t)s->type);
		mad_set_field(d, 0, IB_NODE_NPORTS_F, (uint32_t)s->nports);
		mad_set_field(d, 0, IB_NODE_LOCAL_PORT_F, s->type == 2 ? (uint32_t)in_port : 1);
		mad_set_field(d, 0, IB_NODE_DEVID_F, s->devid);
		mad_set_field(d, 0, IB_NODE_VENDORID_F, s->vendor);
	} else if (attr == IB_ATTR_NODE_DESC) {
		snprintf((char *)d, IB_SMP_DATA_SIZE, "node-%llx", (unsigned long long)s->guid);
	} else if (attr == IB_ATTR_PORT_INFO) {
		int up = am == 0 || !s->down[am];

		mad_set_field(d, 0, IB_PORT_LID_F, (uint32_t)(node + 1));
		mad_set_field(d, 0, IB_PORT_LOCAL_PORT_F, (uint32_t)in_port);
		mad_set_field(d, 0, IB_PORT_STATE_F, up ? 4 : 1);
		mad_set_field(d, 0, IB_PORT_PHYS_STATE_F, up ? 5 : 3);
		mad_set_field(d, 0, IB_PORT_LINK_WIDTH_ACTIVE_F, 2);
		mad_set_field(d, 0, IB_PORT_LINK_SPEED_ACTIVE_F, 4);  /* QDR, 10 Gb/s */
		mad_set_field(d, 0, IB_PORT_LINK_SPEED_SUPPORTED_F, 7);
		mad_set_field(d, 0, IB_PORT_LINK_SPEED_ENABLED_F, 7);
	} else if (attr == IB_ATTR_MLNX_EXT_PORT_INFO) {
		ext_asked[node]++;
		if (s->refuse_ext) {
			u->status = ETIMEDOUT;
			return;
		}
		mad_set_field(d, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F, 1);
		mad_set_field(d, 0, IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F, 1);
		mad_set_field(d, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F, 1);
	}
}

static int sim_send(void *ctx, void *umad, int len, int timeout_ms)
{
	uint8_t *slot = queue[q_tail++ % QUEUE];
	uint8_t *mad = umad_get_mad(slot);
	int in_port, node;

	(void)ctx;
	(void)len;
	(void)timeout_ms;
	memcpy(slot, umad, UMAD_LEN);
	if ((node = route(mad, &in_port)) < 0) {
		q_tail--;  /* lost on the way */
		return 0;
	}
	answer(&net[node], node, in_port, mad, (struct ib_user_mad *)slot);
	return 0;
}

static int sim_recv(void *ctx, void *umad, int *len, int timeout_ms)
{
	(void)ctx;
	(void)timeout_ms;
	if (q_head == q_tail)
		return -ETIMEDOUT;
	memcpy(umad, queue[q_head++ % QUEUE], UMAD_LEN);
	*len = IB_MAD_SIZE;
	return 0;
}

static const struct mad_window_io sim_io = { sim_send, sim_recv, NULL };
static const struct disc_ib_params params = { .subnet = "t", .timeout_ms = 5, .retries = 1,
					      .max_smps = 8 };

static ibnd_node_t *find(ibnd_fabric_t *f, uint64_t guid)
{
	for (ibnd_node_t *n = f->nodes; n; n = n->next)
		if (n->guid == guid)
			return n;
	return NULL;
}

START_TEST(the_extended_portinfo_is_asked_where_libibnetdisc_asks_it)
{
	ibnd_fabric_t *f;
	struct walk_dr_stats st;
	char err[256] = "";
	ibnd_node_t *a, *s, *c;

	setup_net();
	ck_assert_msg(walk_dr_fabric_io(&params, &sim_io, &f, &st, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_uint_eq(st.nodes, 4);
	ck_assert_ptr_nonnull(a = find(f, 0xa0));
	ck_assert_ptr_nonnull(s = find(f, 0x50));
	ck_assert_ptr_nonnull(c = find(f, 0xc0));
	ck_assert_ptr_eq(f->from_node, a);
	/* the CAs of the list answer it: kept */
	ck_assert_uint_eq(ext_asked[0], 1);
	ck_assert_uint_eq(ext_asked[2], 1);
	ck_assert_uint_eq(mad_get_field(a->ports[1]->ext_info, 0,
					IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F), 1);
	/* the switch refuses: asked once for its 4 ports at QDR (0..3) */
	ck_assert_uint_eq(ext_asked[1], 1);
	ck_assert_uint_eq(st.q.refused, 1);
	/* another vendor's CA: never */
	ck_assert_uint_eq(ext_asked[3], 0);
	/* links, and the port down present but without a peer */
	ck_assert_ptr_eq(a->ports[1]->remoteport, s->ports[1]);
	ck_assert_ptr_eq(s->ports[3]->remoteport, c->ports[1]);
	ck_assert_ptr_nonnull(s->ports[4]);
	ck_assert_ptr_null(s->ports[4]->remoteport);
	ck_assert_uint_eq(mad_get_field(s->ports[4]->info, 0, IB_PORT_PHYS_STATE_F), 3);
	ck_assert_uint_eq(s->smalid, 2);
	walk_dr_free(f);
}
END_TEST

START_TEST(fdr10_from_the_extended_portinfo_is_mapped)
{
	ibnd_fabric_t *f;
	struct walk_dr_stats st;
	char err[256] = "";
	struct fab *fab = fab_new("t");
	const struct fab_node *n;

	setup_net();
	ck_assert_int_eq(walk_dr_fabric_io(&params, &sim_io, &f, &st, err, sizeof(err)), 0);
	ck_assert_msg(disc_ib_map(f, fab, err, sizeof(err)) == 0, "%s", err);
	fab_sort(fab);
	ck_assert_ptr_nonnull(n = fab_find(fab, 0xa0));
	ck_assert_uint_eq(n->ports[1].speed_active, IBT_SPEED_FDR10);
	ck_assert_ptr_nonnull(n = fab_find(fab, 0xc0));
	ck_assert_uint_eq(n->ports[1].speed_active, IBT_SPEED_QDR);
	walk_dr_free(f);
	fab_free(fab);
}
END_TEST

START_TEST(a_guid_found_twice_ends_the_walk_for_libibnetdisc)
{
	ibnd_fabric_t *f = (void *)1;
	struct walk_dr_stats st;
	char err[256] = "";

	setup_net();
	net[3].guid = 0xb0;  /* c answers with b's GUID */
	ck_assert_int_eq(walk_dr_fabric_io(&params, &sim_io, &f, &st, err, sizeof(err)), -EEXIST);
	ck_assert_ptr_null(f);
	ck_assert_msg(strstr(err, "0x00000000000000b0 found twice"), "%s", err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("walk_dr");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, the_extended_portinfo_is_asked_where_libibnetdisc_asks_it);
	tcase_add_test(tc, fdr10_from_the_extended_portinfo_is_mapped);
	tcase_add_test(tc, a_guid_found_twice_ends_the_walk_for_libibnetdisc);
	suite_add_tcase(s, tc);
	return check_run(s);
}
