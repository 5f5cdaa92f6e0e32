/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/fabric/fabric.h: the fabric graph of one IB subnet, as discovery finds it and
 * the store keeps it. Nodes are keyed by node GUID; every port knows its peer
 * (node GUID + port number). A link is a pair of peered ports and is reported
 * once, from the end with the smaller (node GUID, port). */
#ifndef LOOM_FABRIC_H
#define LOOM_FABRIC_H

#include <stddef.h>
#include <stdint.h>

#include "lib/fabric/ibtypes.h"

#define FAB_DESC_LEN 64     /* NodeDescription is 64 bytes */
#define FAB_NAME_LEN 64

struct fab_port {
	uint8_t num;               /* 0 is a switch's management port */
	uint8_t present;           /* the port was found (else all other fields are 0) */
	uint64_t guid;             /* port GUID */
	uint16_t lid;              /* base LID (a switch's ports report port 0's) */
	uint8_t lmc;
	uint8_t state;             /* PortInfo:PortState, IBT names */
	uint8_t phys_state;        /* PortInfo:PortPhysicalState */
	uint8_t width_active, width_enabled, width_supported;   /* IBT_WIDTH_* */
	uint16_t speed_active, speed_enabled, speed_supported;  /* IBT_SPEED_* */
	uint8_t mtu;               /* active (neighbor) MTU enum 1..5 */
	uint8_t vls;               /* number of data VLs the port supports */
	uint8_t has_peer;          /* linked: peer_guid/peer_port are valid */
	uint8_t peer_port;
	uint64_t peer_guid;        /* node GUID of the node at the other end */
	/* issue 43, subnet managers and keys: PortInfo as the sweep read it
	 * (fab->sm_read says whether it did; not stored, not diffed) */
	uint32_t capmask;          /* PortInfo:CapabilityMask (FAB_CAP_IS_SM...) */
	uint64_t m_key;            /* PortInfo:M_Key as answered (hidden: 0) */
	uint16_t m_key_lease;      /* PortInfo:M_KeyLeasePeriod, seconds */
	uint8_t m_key_protect;     /* PortInfo:M_KeyProtectBits, 0..3 */
};

struct fab_node {
	int type;                  /* enum ibt_node_type */
	uint64_t guid;             /* node GUID */
	uint64_t sysimg_guid;
	uint32_t vendor_id;
	uint16_t device_id;
	uint32_t revision;
	char desc[FAB_DESC_LEN + 1];
	uint8_t nports;            /* NodeInfo:NumPorts */
	struct fab_port *ports;    /* nports + 1 entries, index = port number */
};

/* A GUID discovery met in two places (two nodes, or two ports): the graph
 * keeps the first, this says where the second was. */
#define FAB_DUP_LEN (2 * FAB_DESC_LEN + 16)
struct fab_dup {
	uint64_t guid;
	uint8_t is_port;           /* a port GUID (else a node GUID) */
	/* each sighting: "desc[port]" (port GUID), "desc" (a switch) or
	 * "desc (on neighbour-desc[port])" (a node GUID, where it hangs) */
	char first[FAB_DUP_LEN];
	char second[FAB_DUP_LEN];
};

/* PortInfo:CapabilityMask bit 1: an SM runs behind the port. */
#define FAB_CAP_IS_SM 0x00000002u

/* A subnet manager the sweep met: a port that advertises IsSM, and what
 * its SMInfo (SubnGet, attribute 0x0020) answered. */
#define FAB_SM_MAX 64
enum fab_sm_state { FAB_SM_NOTACTIVE, FAB_SM_DISCOVERING, FAB_SM_STANDBY, FAB_SM_MASTER };
struct fab_sm {
	uint64_t node_guid;        /* the node whose port advertises IsSM */
	uint8_t port;              /* that port (a switch's SM: 0) */
	uint8_t answered;          /* 0: SMInfo went unanswered (the rest is 0) */
	uint8_t priority;          /* SMInfo:Priority 0..15 */
	uint8_t state;             /* SMInfo:SMState, enum fab_sm_state */
	uint8_t seen;              /* FAB_SM_SEEN_*: who told of it */
	uint32_t act_count;        /* SMInfo:ActCount */
	uint64_t guid;             /* SMInfo:GUID, the SM's port GUID */
	uint64_t sm_key;           /* SMInfo:SM_Key as answered: IBA returns 0 to a
				    * requester that is not an authenticated SM */
};

/* fab_sm.seen */
#define FAB_SM_SEEN_PORT 1         /* its port advertises IsSM (SMInfo asked of it) */
#define FAB_SM_SEEN_SA 2           /* the SA's SMInfoRecord table lists it */

/* fab->sm_read */
#define FAB_SM_NOT_READ 0          /* no PortInfo keys nor SMInfo (a fabric from a file) */
#define FAB_SM_READ 1              /* read by this sweep */
#define FAB_SM_COPIED 2            /* copied from an earlier sweep's (fab_dup) */

/* fab->smps: the SMPs of the walk that found the fabric (issue 44), each
 * count FAB_COUNT_UNKNOWN where that walk does not count it (libibnetdisc's,
 * also an incremental sweep's, counts what it sent, neither retries nor
 * losses); all unknown for a
 * fabric no walk made here (fab_new, fab_dup: a copy is no sweep). Not a
 * property of the fabric: not stored with it, not diffed. */
#define FAB_COUNT_UNKNOWN UINT64_MAX
struct fab_smps {
	uint64_t sent;      /* SMPs sent, every try counted */
	uint64_t retries;   /* tries after a request's first */
	uint64_t lost;      /* requests whose every try went unanswered */
};

struct fab {
	char subnet[FAB_NAME_LEN]; /* loom's name of the subnet (config) */
	size_t n_nodes;
	struct fab_node **nodes;   /* in insertion order until fab_sort() */
	size_t n_dups;
	struct fab_dup *dups;      /* duplicate GUIDs discovery met (validation reports them) */
	int sm_read;               /* FAB_SM_*: ports' capmask/keys and sms are real */
	size_t n_sms;
	struct fab_sm *sms;        /* at most FAB_SM_MAX, in the fabric's node order */
	struct fab_smps smps;      /* the walk's SMPs (above) */
	/* private: */
	size_t cap;
	size_t hash_size;
	struct fab_node **hash;    /* open addressing on guid */
	int refs;                  /* fab_hold / fab_free, atomically */
};

struct fab_link {
	const struct fab_node *a_node, *b_node;
	const struct fab_port *a, *b;  /* (a_node->guid, a->num) < (b_node->guid, b->num) */
};

struct fab *fab_new(const char *subnet);
/* Drop a reference: the fabric is freed with its last. */
void fab_free(struct fab *fab);
/* Another reference to fab (any thread may drop it with fab_free); fab
 * must not change while two hold it. Returns fab. */
struct fab *fab_hold(struct fab *fab);

/* Add a node with nports ports (all not present). Returns NULL with
 * errno = EEXIST if the GUID is already there, ENOMEM on allocation failure. */
struct fab_node *fab_add_node(struct fab *fab, int type, uint64_t guid, uint8_t nports);
/* A copy of node n (its fields and ports) added to fab: the new node, or
 * NULL with errno (EEXIST, ENOMEM). */
struct fab_node *fab_copy_node(struct fab *fab, const struct fab_node *n);
/* A deep copy of fab (nodes in the same order, dups too), or NULL. */
struct fab *fab_dup(const struct fab *fab);
/* Pull the cable at port `port` of node `guid`: both ends lose their peer
 * and go Down / Polling, no width or speed active. 0, or -ENOENT when
 * there is no such port. */
int fab_unlink(struct fab *fab, uint64_t guid, unsigned port);
struct fab_node *fab_find(const struct fab *fab, uint64_t guid);
/* Port `num` of node, or NULL if out of range or not present. */
struct fab_port *fab_port(const struct fab_node *node, unsigned num);
/* The peer of a linked port, or NULL. */
const struct fab_port *fab_peer(const struct fab *fab, const struct fab_port *port,
				const struct fab_node **peer_node);

/* Note a duplicate GUID; -ENOMEM. */
int fab_add_dup(struct fab *fab, uint64_t guid, int is_port, const char *first,
		const char *second);

/* Note a subnet manager; -ENOMEM, or -ENOSPC past FAB_SM_MAX. */
int fab_add_sm(struct fab *fab, const struct fab_sm *sm);
/* "MASTER", "STANDBY", "DISCOVERING", "NOTACTIVE" */
const char *fab_sm_state_name(unsigned state);

/* Note in fab->dups each port GUID found on two nodes (a switch's ports share
 * its port 0's GUID; a CA's ports have their own); 0 or -ENOMEM. */
int fab_find_port_dups(struct fab *fab);

/* Sort nodes by GUID (for stable output and diffs). */
void fab_sort(struct fab *fab);

/* Call fn once per link. Returns the first non-zero value fn returns, or 0. */
int fab_foreach_link(const struct fab *fab,
		     int (*fn)(const struct fab_link *link, void *arg), void *arg);

size_t fab_count_ports(const struct fab *fab);  /* present ports */
size_t fab_count_links(const struct fab *fab);
size_t fab_count_type(const struct fab *fab, int type);

/* A link runs below what both ends support (width or speed). */
int fab_link_degraded(const struct fab_port *a, const struct fab_port *b);

/* Check internal consistency: every peer exists and points back.
 * Returns 0 or -EINVAL with a description in err. */
int fab_check(const struct fab *fab, char *err, size_t errlen);

#endif
