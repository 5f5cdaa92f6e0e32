/* lib/validate/cabling.h: a fabric against its cabling plan (issue 22): what
 * a technician has to fix, cable by cable, as ibdiagnet's and UFM's cable
 * validation report it. A pure function of a plan (lib/validate/plan.h) and
 * a fabric graph (a sweep, or a topology file).
 *
 * Nodes are matched by description. Each finding names the ports the way
 * the plan does ("leaf-3[12]"):
 *   missing     a planned cable is not there: neither end has a link
 *   swapped     two planned cables crosswise (A[a]-D[d] and C[c]-B[b] where
 *               the plan has A[a]-B[b] and C[c]-D[d]): one finding, not four
 *   miswired    the right two nodes, another port at one end
 *   wrong-peer  a planned port is cabled to another node
 *   extra       a link the plan does not have, on a node the plan has
 *   slow        below the plan's width or speed (warning)
 *   unknown-node  a node of the plan that no node of the fabric describes
 *               (or that two do), its cables unchecked
 * A plan whose nodes are mostly not in the fabric is refused as a whole
 * (-EINVAL, one message): it is a plan for another fabric, and ten
 * thousand findings would say nothing more. */
#ifndef LOOM_VALIDATE_CABLING_H
#define LOOM_VALIDATE_CABLING_H

#include <stddef.h>

#include "lib/fabric/fabric.h"
#include "lib/validate/plan.h"

enum cab_kind {
	CAB_MISSING,
	CAB_SWAPPED,
	CAB_MISWIRED,
	CAB_WRONG_PEER,
	CAB_EXTRA,
	CAB_SLOW,
	CAB_UNKNOWN_NODE,
};

struct cab_finding {
	enum cab_kind kind;
	int error;                 /* 1: error, 0: warning */
	char subject[320];         /* the cable(s) or node, plan's names and ports */
	char want[320];            /* what the plan says ("" none) */
	char got[320];             /* what the fabric has ("" none) */
	unsigned line;             /* the plan's line (0: not from a CSV, or extra) */
};

struct cab_report {
	size_t n;
	struct cab_finding *f;
	size_t cables;             /* the plan's */
	size_t cables_ok;          /* there as planned (slow ones included) */
	size_t plan_nodes, nodes_matched;
	/* private: */
	size_t cap;
};

/* 0 with the findings in *r (cab_report_clear() it), -EINVAL when the plan
 * is for another fabric, -ENOMEM; err says why. */
int cabling_check(const struct plan *p, const struct fab *fab, struct cab_report *r, char *err,
		  size_t errlen);
void cab_report_clear(struct cab_report *r);
/* "missing", "swapped", ... */
const char *cab_kind_name(enum cab_kind k);

#endif
