/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/discovery_ib.c: one InfiniBand subnet swept with directed-route SMPs
 * (libibnetdisc's walk, or loom's own, walk_dr.c: discovery.walker; either
 * keeps max_smps MADs in flight), mapped into loom's fabric graph.
 *
 * What is decoded, and how, follows what infiniband-diags shows operators
 * (ibnetdiscover, iblinkinfo), so that loom's answers can be checked against
 * those tools: speeds fold the classic, FDR10 (Mellanox extended PortInfo)
 * and extended-speed fields into one loom speed; a switch's ports carry the
 * LID of its management port 0.
 *
 * All-or-nothing: a port that is physically up but whose neighbour never
 * answered means the walk is incomplete, and an incomplete fabric recorded as
 * the truth would raise false "node disappeared" events; such a sweep fails.
 * A duplicate GUID is not such a hole: the graph keeps the device found
 * first and fab->dups says where the other is (discovery_dups.c). */
#include "autoconf.h"
#include "daemon/ib/discovery_ib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "daemon/ib/discovery_dups.h"
#include "daemon/ib/sm_read.h"
#include "daemon/ib/walk_dr.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"

/* PortInfo:CapabilityMask bit 14, IsExtendedSpeedsSupported (host order). */
#define PI_CAP_HAS_EXT_SPEEDS 0x00004000u
/* PortInfo:PortPhysicalState LinkUp. */
#define PI_PHYS_LINKUP 5

/* PortInfo:LinkSpeed{Active,Enabled,Supported}: 1 SDR, 2 DDR, 4 QDR. */
static unsigned speed_classic(unsigned v)
{
	unsigned s = 0;

	if (v & 1)
		s |= IBT_SPEED_SDR;
	if (v & 2)
		s |= IBT_SPEED_DDR;
	if (v & 4)
		s |= IBT_SPEED_QDR;
	return s;
}

/* PortInfo:LinkSpeedExt*: 1 FDR, 2 EDR, 4 HDR, 8 NDR. (The values 15 and 30
 * only mean something in a Set, never in what a port reports.) */
static unsigned speed_ext(unsigned v)
{
	unsigned s = 0;

	if (v == 15 || v == 30)
		return 0;
	if (v & 1)
		s |= IBT_SPEED_FDR;
	if (v & 2)
		s |= IBT_SPEED_EDR;
	if (v & 4)
		s |= IBT_SPEED_HDR;
	if (v & 8)
		s |= IBT_SPEED_NDR;
	return s;
}

/* The capability mask that says whether extended speeds apply: a switch
 * reports it on port 0 only. */
static uint32_t port_capmask(ibnd_port_t *p)
{
	ibnd_node_t *n = p->node;

	if (n->type == IB_NODE_SWITCH && n->ports && n->ports[0])
		return mad_get_field(n->ports[0]->info, 0, IB_PORT_CAPMASK_F);
	return mad_get_field(p->info, 0, IB_PORT_CAPMASK_F);
}

static void map_speeds(ibnd_port_t *p, struct fab_port *fp)
{
	unsigned act = speed_classic(mad_get_field(p->info, 0, IB_PORT_LINK_SPEED_ACTIVE_F));
	unsigned ena = speed_classic(mad_get_field(p->info, 0, IB_PORT_LINK_SPEED_ENABLED_F));
	unsigned sup = speed_classic(mad_get_field(p->info, 0, IB_PORT_LINK_SPEED_SUPPORTED_F));

	/* FDR10 lives in Mellanox's extended PortInfo (queried by libibnetdisc
	 * for Mellanox nodes only; zero elsewhere). */
	if (mad_get_field(p->ext_info, 0, IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F) & 1)
		sup |= IBT_SPEED_FDR10;
	if (mad_get_field(p->ext_info, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F) & 1)
		ena |= IBT_SPEED_FDR10;
	if (mad_get_field(p->ext_info, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F) & 1)
		act = IBT_SPEED_FDR10;

	if (port_capmask(p) & PI_CAP_HAS_EXT_SPEEDS) {
		unsigned eact = speed_ext(mad_get_field(p->info, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F));

		sup |= speed_ext(mad_get_field(p->info, 0, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F));
		ena |= speed_ext(mad_get_field(p->info, 0, IB_PORT_LINK_SPEED_EXT_ENABLED_F));
		if (eact)
			act = eact;  /* an extended speed, when active, wins */
	}
	fp->speed_active = (uint16_t)act;
	fp->speed_enabled = (uint16_t)ena;
	fp->speed_supported = (uint16_t)sup;
}

static void map_port(ibnd_port_t *p, struct fab_port *fp)
{
	ibnd_node_t *n = p->node;
	const unsigned wmask = IBT_WIDTH_1X | IBT_WIDTH_2X | IBT_WIDTH_4X | IBT_WIDTH_8X |
			       IBT_WIDTH_12X;

	fp->present = 1;
	fp->guid = p->guid;
	if (n->type == IB_NODE_SWITCH) {
		fp->lid = n->smalid;
		fp->lmc = n->smalmc;
	} else {
		fp->lid = p->base_lid;
		fp->lmc = p->lmc;
	}
	fp->state = (uint8_t)mad_get_field(p->info, 0, IB_PORT_STATE_F);
	fp->phys_state = (uint8_t)mad_get_field(p->info, 0, IB_PORT_PHYS_STATE_F);
	fp->width_active = mad_get_field(p->info, 0, IB_PORT_LINK_WIDTH_ACTIVE_F) & wmask;
	/* Enabled reads back as a mask; 255 ("set to supported") is a Set value. */
	fp->width_enabled = mad_get_field(p->info, 0, IB_PORT_LINK_WIDTH_ENABLED_F) & wmask;
	fp->width_supported = mad_get_field(p->info, 0, IB_PORT_LINK_WIDTH_SUPPORTED_F) & wmask;
	map_speeds(p, fp);
	fp->mtu = (uint8_t)mad_get_field(p->info, 0, IB_PORT_NEIGHBOR_MTU_F);
	fp->vls = (uint8_t)ibt_vlcap_count((int)mad_get_field(p->info, 0, IB_PORT_VL_CAP_F));
	/* issue 43: what validation's SM and key rules judge (a switch's
	 * CapabilityMask and M_Key are port 0's) */
	fp->capmask = port_capmask(p);
	fp->m_key = mad_get_field64(p->info, 0, IB_PORT_MKEY_F);
	fp->m_key_lease = (uint16_t)mad_get_field(p->info, 0, IB_PORT_MKEY_LEASE_F);
	fp->m_key_protect = (uint8_t)mad_get_field(p->info, 0, IB_PORT_MKEY_PROT_BITS_F);
	if (p->remoteport && p->remoteport->node) {
		fp->has_peer = 1;
		fp->peer_guid = p->remoteport->node->guid;
		fp->peer_port = (uint8_t)p->remoteport->portnum;
	}
}

/* NodeDescription is 64 bytes, not necessarily terminated; keep what prints. */
static void copy_desc(char *dst, const char *src)
{
	size_t i;

	for (i = 0; i < FAB_DESC_LEN && src[i]; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
	dst[i] = '\0';
}

static int map_node(struct fab *fab, ibnd_node_t *n, char *err, size_t errlen)
{
	struct fab_node *fn;

	if (n->numports < 0 || n->numports > 254) {
		snprintf(err, errlen, "node 0x%016llx reports %d ports",
			 (unsigned long long)n->guid, n->numports);
		return -EPROTO;
	}
	fn = fab_add_node(fab, n->type, n->guid, (uint8_t)n->numports);
	if (!fn) {
		int e = errno;

		snprintf(err, errlen, "node 0x%016llx: %s", (unsigned long long)n->guid,
			 e == EEXIST ? "found twice (duplicate node GUID)" : strerror(e));
		return -e;
	}
	fn->sysimg_guid = mad_get_field64(n->info, 0, IB_NODE_SYSTEM_GUID_F);
	fn->vendor_id = mad_get_field(n->info, 0, IB_NODE_VENDORID_F);
	fn->device_id = (uint16_t)mad_get_field(n->info, 0, IB_NODE_DEVID_F);
	fn->revision = mad_get_field(n->info, 0, IB_NODE_REVISION_F);
	copy_desc(fn->desc, n->nodedesc);
	for (int i = 0; i <= n->numports; i++) {
		ibnd_port_t *p = n->ports ? n->ports[i] : NULL;

		if (p)
			map_port(p, &fn->ports[i]);
	}
	return 0;
}

int disc_ib_map(struct ibnd_fabric *ib, struct fab *fab, char *err, size_t errlen)
{
	for (ibnd_node_t *node = ib->nodes; node; node = node->next)
		if (map_node(fab, node, err, errlen) < 0)
			return -EPROTO;
	return 0;
}

static int is_dup_end(const struct disc_ib_dup_end *ends, size_t n_ends, uint64_t guid,
		      unsigned port)
{
	for (size_t i = 0; i < n_ends; i++)
		if (ends[i].guid == guid && ends[i].port == port)
			return 1;
	return 0;
}

/* A port that is physically up on a node other than a switch's port 0 must
 * lead somewhere; if it does not, its neighbour did not answer (unless it
 * leads to a device with a duplicate GUID: ends). */
static int check_complete(const struct fab *fab, const struct disc_ib_dup_end *ends,
			  size_t n_ends, char *err, size_t errlen)
{
	size_t dangling = 0;
	const struct fab_node *first_n = NULL;
	unsigned first_p = 0;

	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct fab_node *n = fab->nodes[i];

		for (unsigned p = 1; p <= n->nports; p++) {
			const struct fab_port *fp = &n->ports[p];

			if (!fp->present || fp->has_peer || fp->phys_state != PI_PHYS_LINKUP ||
			    is_dup_end(ends, n_ends, n->guid, p))
				continue;
			if (!dangling++) {
				first_n = n;
				first_p = p;
			}
		}
	}
	if (!dangling)
		return 0;
	snprintf(err, errlen,
		 "incomplete sweep: %zu port(s) with a link up lead to a node that did not "
		 "answer (first: 0x%016llx \"%s\" port %u)", dangling,
		 (unsigned long long)first_n->guid, first_n->desc, first_p);
	return -EIO;
}

static void free_walk(ibnd_fabric_t *ib, int own)
{
	if (own)
		walk_dr_free(ib);
	else if (ib)
		ibnd_destroy_fabric(ib);
}

/* Say clearly why a local port cannot be used, before sending any MAD. */
int disc_ib_check_local_port(const struct disc_ib_params *p, char *err, size_t errlen)
{
	umad_port_t up;
	const char *ca = p->ca && *p->ca ? p->ca : NULL;
	int rc = umad_get_port(ca, p->port, &up);

	if (rc < 0) {
		snprintf(err, errlen, "local port %s/%d: %s", ca ? ca : "(first HCA)", p->port,
			 ca ? "no such HCA or port" : "no InfiniBand HCA found");
		return -ENODEV;
	}
	if (up.phys_state != PI_PHYS_LINKUP) {
		snprintf(err, errlen, "local port %s/%d has no link (physical state %s)",
			 up.ca_name, up.portnum, ibt_phys_state_name((int)up.phys_state));
		umad_release_port(&up);
		return -ENOLINK;
	}
	umad_release_port(&up);
	return 0;
}

/* The local port as the sweep itself saw it (sysfs may lag behind, and a
 * simulator's never changes): a port without link sees only its own node,
 * and recording that would make the whole fabric "disappear". */
static int local_link_down(ibnd_fabric_t *ib, char *err, size_t errlen)
{
	ibnd_node_t *n = ib->from_node;
	ibnd_port_t *p = n && n->ports && ib->from_portnum >= 0 &&
			 ib->from_portnum <= n->numports ? n->ports[ib->from_portnum] : NULL;
	unsigned phys;

	if (!p || (n->type == IB_NODE_SWITCH && ib->from_portnum == 0))
		return 0;
	phys = mad_get_field(p->info, 0, IB_PORT_PHYS_STATE_F);
	if (phys == PI_PHYS_LINKUP)
		return 0;
	snprintf(err, errlen, "local port %d of \"%s\" has no link (physical state %s)",
		 ib->from_portnum, n->nodedesc, ibt_phys_state_name((int)phys));
	return 1;
}

/* libibnetdisc's walk of the subnet of p's local port (ca: its HCA name,
 * or "" for the first); *smps: what it sent (it counts no retries, no
 * losses: those stay unknown). */
static ibnd_fabric_t *walk_ibnd(const struct disc_ib_params *p, const char *ca,
				struct fab_smps *smps, char *err, size_t errlen)
{
	struct ibnd_config cfg;
	ibnd_fabric_t *ib;
	double t0;

	memset(&cfg, 0, sizeof(cfg));
	cfg.max_smps = p->max_smps > 0 ? (unsigned)p->max_smps : 2;
	cfg.timeout_ms = p->timeout_ms > 0 ? (unsigned)p->timeout_ms : 0;
	cfg.retries = p->retries > 0 ? (unsigned)p->retries : 0;
	cfg.flags = IBND_CONFIG_MLX_EPI;  /* FDR10 needs Mellanox's extended PortInfo */
	cfg.mkey = p->m_key;  /* ports whose M_Key is protected answer nothing else */
	t0 = clock_mono();
	ib = ibnd_discover_fabric(ca[0] ? (char *)ca : NULL, p->port, NULL, &cfg);
	if (!ib)
		snprintf(err, errlen, "discovery from %s/%d failed (no answer to SMPs?%s)",
			 ca[0] ? ca : "(first HCA)", p->port, DISC_IB_MKEY_HINT(p));
	if (ib)
		smps->sent = ib->total_mads_used;
	if (ib && getenv(DISC_IB_WALK_STATS_ENV))
		log_warn("subnet %s: walk (libibnetdisc): %u SMPs, %.0f ms", p->subnet,
			 ib->total_mads_used, (clock_mono() - t0) * 1000.0);
	return ib;
}

/* loom's own walk (walk_dr.h); *own set when it is the one that answered
 * (free with walk_dr_free), else libibnetdisc's, which a duplicate GUID
 * falls back to; *smps: its SMPs (the fallback's: only libibnetdisc's). */
static ibnd_fabric_t *walk_loom(const struct disc_ib_params *p, const char *ca, int *own,
				struct fab_smps *smps, char *err, size_t errlen)
{
	struct walk_dr_stats st;
	ibnd_fabric_t *ib;
	int rc = walk_dr_fabric(p, &ib, &st, err, errlen);

	if (rc == -EEXIST) {
		log_warn("subnet %s: %s: walked again with libibnetdisc", p->subnet, err);
		*own = 0;
		return walk_ibnd(p, ca, smps, err, errlen);
	}
	if (rc < 0) {
		if (rc == -EIO)
			snprintf(err + strlen(err), errlen - strlen(err), "%s",
				 DISC_IB_MKEY_HINT(p));
		return NULL;
	}
	*own = 1;
	smps->sent = st.q.sent;
	smps->retries = st.q.retries;
	smps->lost = st.q.lost;
	/* SMPs retried or lost say the fabric (or a node) drops them: worth the
	 * operator's eye, in loomd's log (the child's stderr) */
	log_msg(st.q.retries || st.q.lost || getenv(DISC_IB_WALK_STATS_ENV) ? LOG_LVL_WARNING
									      : LOG_LVL_DEBUG,
		  "subnet %s: walk: %zu nodes, %llu SMPs (%llu retries, %llu lost, %llu "
		  "refused), at most %zu out to %zu nodes, %.0f ms", p->subnet, st.nodes,
		  (unsigned long long)st.q.sent, (unsigned long long)st.q.retries,
		  (unsigned long long)st.q.lost, (unsigned long long)st.q.refused, st.q.peak,
		  st.q.peak_targets, st.seconds * 1000.0);
	return ib;
}

struct fab *disc_ib_sweep(const struct disc_ib_params *p, char *err, size_t errlen)
{
	char ca[UMAD_CA_NAME_LEN] = "";
	ibnd_fabric_t *ib;
	struct fab *fab;
	struct disc_ib_dup_end *ends = NULL;
	size_t n = 0, n_ends = 0;
	int own = 0;
	struct fab_smps smps = { FAB_COUNT_UNKNOWN, FAB_COUNT_UNKNOWN, FAB_COUNT_UNKNOWN };

	if (disc_ib_check_local_port(p, err, errlen) < 0)
		return NULL;
	if (p->ca)
		snprintf(ca, sizeof(ca), "%s", p->ca);
	ib = p->walker == DISC_IB_WALKER_LOOM ? walk_loom(p, ca, &own, &smps, err, errlen)
					      : walk_ibnd(p, ca, &smps, err, errlen);
	if (!ib)
		return NULL;
	if (local_link_down(ib, err, errlen))
		goto fail;
	if (!(fab = fab_new(p->subnet))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	fab->smps = smps;
	/* loom's walk stops at a duplicate GUID (walk_loom): nothing to undo */
	if (!own && disc_ib_dups_resolve(ib, ca[0] ? ca : NULL, p->port, p->timeout_ms, p->m_key,
					 fab, &ends, &n_ends) < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail_fab;
	}
	if (disc_ib_map(ib, fab, err, errlen) < 0)
		goto fail_fab;
	for (ibnd_node_t *node = ib->nodes; node; node = node->next)
		n++;
	free_walk(ib, own);
	ib = NULL;
	fab_sort(fab);
	if (fab_find_port_dups(fab) < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail_fab;
	}
	if (check_complete(fab, ends, n_ends, err, errlen) < 0 ||
	    fab_check(fab, err, errlen) < 0)
		goto fail_fab;
	free(ends);
	/* A subnet manager that cannot be asked is no reason to lose the sweep:
	 * the fabric then says it has no SM list (sm_read). */
	if (p->read_sms && sm_read_fabric(p, fab, err, errlen) < 0)
		log_warn("subnet %s: the subnet managers were not read: %s", p->subnet, err);
	log_debug("subnet %s: %zu nodes swept from %s/%d", p->subnet, n,
		  ca[0] ? ca : "(first HCA)", p->port);
	return fab;
fail_fab:
	fab_free(fab);
fail:
	free(ends);
	free_walk(ib, own);
	return NULL;
}

int disc_ib_local_ports(struct disc_ib_local_port *out, int max)
{
	char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	int n_cas = umad_get_cas_names(names, UMAD_MAX_DEVICES);
	int n = 0;

	if (n_cas < 0)
		return n_cas;
	for (int i = 0; i < n_cas; i++) {
		umad_ca_t ca;

		if (umad_get_ca(names[i], &ca) < 0)
			continue;
		for (int p = 0; p <= ca.numports && p < UMAD_CA_MAX_PORTS; p++) {
			umad_port_t *up = ca.ports[p];

			/* sysfs says "InfiniBand" (umad2sim: "IB"); skip RoCE. */
			if (!up || strcmp(up->link_layer, "Ethernet") == 0)
				continue;
			if (n < max) {
				snprintf(out[n].ca, sizeof(out[n].ca), "%.*s",
					 (int)sizeof(out[n].ca) - 1, names[i]);
				out[n].port = up->portnum;
				out[n].state = (int)up->state;
			}
			n++;
		}
		umad_release_ca(&ca);
	}
	return n;
}
