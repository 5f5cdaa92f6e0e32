/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/report.h: what validation finds (issue 22), whichever check
 * found it: a code from one catalogue (each with its severity and a line
 * that says what it means), the subject as a technician walks the cabinet
 * ("leaf-3[12] - spine-1[4]", node names and ports), what the plan or the
 * rule wants and what the fabric has.
 *
 * A finding's identity across sweeps is (code, subject): the daemon opens an
 * issue the first sweep a pair appears and clears it the first sweep it is
 * gone, so a subject names only what stays the same while the fault does
 * (ports and names, never a count or a rate). want/got may change. */
#ifndef LOOM_VALIDATE_REPORT_H
#define LOOM_VALIDATE_REPORT_H

#include <stddef.h>

enum val_severity {
	VAL_ERROR = 0,     /* the fabric is not what it must be: fix before jobs run */
	VAL_WARNING = 1,   /* works, but below what it should be */
};

enum val_code {
	/* against the cabling plan (cabling.h) */
	VAL_MISSING,       /* a planned cable is not there */
	VAL_SWAPPED,       /* two planned cables crosswise: one finding */
	VAL_MISWIRED,      /* the right nodes, another port at one end */
	VAL_WRONG_PEER,    /* a planned port cabled to another node */
	VAL_EXTRA,         /* a link the plan does not have, on a planned node */
	VAL_SLOW,          /* below the plan's width or speed */
	VAL_UNKNOWN_NODE,  /* a planned node no node of the fabric describes (or several) */
	VAL_RENAMED,       /* a planned node found by its GUID under another description */
	/* the rules of a healthy fabric (health.h) */
	VAL_DEGRADED,      /* a link below the best width or speed both ends support */
	VAL_DUP_NODE_GUID, /* one node GUID on two nodes */
	VAL_DUP_PORT_GUID, /* one port GUID on two ports */
	VAL_DUP_DESC,      /* one node description on several nodes */
	VAL_EMPTY_DESC,    /* a node without a description */
	VAL_LID_CONFLICT,  /* one LID on two ports */
	VAL_LID_UNASSIGNED,/* an active port (CA, or switch port 0) without a LID */
	VAL_PORT_STUCK,    /* a linked port left in INIT or ARMED */
	VAL_MTU_MISMATCH,  /* the two ends of a link at different MTUs */
	VAL_VL_MISMATCH,   /* the two ends of a link with different VL capabilities */
	VAL_PORT_COUNT,    /* a switch with another port count than its level's */
	VAL_LEAF_UPLINKS,  /* fat tree: a leaf with another uplink count than the others */
	VAL_LEAF_LINK,     /* fat tree: two leaves cabled to each other */
	VAL_UNREACHABLE,   /* fat tree: a leaf that reaches another only not up-down */
	VAL_BER,           /* a link whose symbol errors exceed the BER threshold */
	/* issue 43, partitions (partitions.h) */
	VAL_PART_DEFAULT,  /* a host's default-partition membership against the policy */
	VAL_PART_MEMBER,   /* a tenant's port without the tenant's PKey */
	VAL_PART_INTRUDER, /* a port with a tenant's PKey that loom did not put there */
	VAL_PART_SHARED,   /* a port with the PKeys of two tenants */
	VAL_PART_UNENFORCED, /* a host's switch port without the host's partition */
	/* issue 43, rails and Ethernet cabling (rails.h, eth_cabling.h) */
	VAL_RAIL_STRAY,    /* an HCA port on a leaf of another rail */
	VAL_RAIL_TIE,      /* a leaf whose HCAs are on two rails equally */
	/* issue 43, subnet managers and keys (sm.h, keys.h) */
	VAL_SM_MASTERS,    /* more than one SM in MASTER state */
	VAL_SM_UNLISTED,   /* an SM not in validation.sm_allowed */
	VAL_SM_STALLED,    /* an SM silent, or a MASTER whose ActCount stopped */
	VAL_SM_PRIORITY,   /* a STANDBY with a higher priority than the MASTER */
	VAL_MKEY_UNSET,    /* ports without an M_Key (0, protect bits 0) */
	VAL_MKEY_UNPROTECTED, /* ports with an M_Key but protect bits 0 */
	/* issue 43, multicast: the groups' trees the MFTs make (mcast.h) */
	VAL_MCAST_UNREACHED, /* a group member the others do not reach, or that reaches none */
	VAL_MCAST_LOOP,      /* a cycle of switches forwarding a group */
	VAL_MCAST_NOT_UPDOWN,/* fat tree: a group's tree going down then up */
	VAL_MCAST_LEAK,      /* a group forwarded to a CA port that is not a member */
	VAL_CODE_COUNT
};

struct val_finding {
	enum val_code code;
	enum val_severity sev;
	char subject[240];
	char want[320];    /* "" none */
	char got[320];     /* "" none */
	unsigned line;     /* the plan's line (0: not from a plan's CSV) */
};

struct val_report {
	size_t n;
	struct val_finding *f;
	/* what the checks saw, for the summary line */
	size_t cables, cables_ok;     /* the plan's */
	size_t plan_nodes, nodes_matched;
	size_t nodes, links;          /* the fabric's */
	/* private: */
	size_t cap;
};

/* Add a finding of code (its catalogue severity); subject is a format.
 * -ENOMEM. */
int val_add(struct val_report *r, enum val_code code, unsigned line, const char *want,
	    const char *got, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void val_report_clear(struct val_report *r);
/* Errors first, then warnings; by subject within each (the cabinet's order
 * when names sort the way racks are numbered); then by code. */
void val_report_sort(struct val_report *r);
/* One fault, one finding: a link's `degraded` goes when the plan's `slow`
 * says the same of it, and a fat tree's `leaf-uplinks` or `unreachable`
 * when a cabling finding (missing, swapped, miswired, wrong-peer, extra)
 * names that leaf, a `rail-stray` when one names its HCA; then
 * val_report_sort(). */
void val_report_settle(struct val_report *r);
size_t val_count(const struct val_report *r, enum val_severity sev);

/* "missing", "swapped", ... ; VAL_CODE_COUNT for an unknown name */
const char *val_code_name(enum val_code c);
enum val_code val_code_of(const char *name);
enum val_severity val_code_severity(enum val_code c);
/* One line: what the code means. */
const char *val_code_what(enum val_code c);
const char *val_severity_name(enum val_severity s);

#endif
