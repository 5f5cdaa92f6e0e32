/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/qos/ib_qos.h: the InfiniBand QoS policy of loom.yaml's `ib_qos:` section
 * (service levels per traffic class, the SL-to-VL map, the two VL
 * arbitration tables, VLHighLimit, the number of data VLs), its checks, the
 * OpenSM options that apply it, and the comparison of what a port holds
 * with it. Pure functions: no I/O.
 *
 * How it is applied: as OpenSM's own options (qos TRUE, qos_max_vls,
 * qos_high_limit, qos_vlarb_high, qos_vlarb_low, qos_sl2vl), which OpenSM's
 * QoS manager programs into every CA port and switch port, and re-reads on
 * SIGHUP (docs/testbed-notes.md). A tenant's partition carries its class's
 * SL as the partition flag `sl=N` (lib/fabric/partitions.h), which OpenSM's SA puts
 * in the PathRecords of that partition.
 *
 * With a routing engine that breaks deadlocks with VL layers (dfsssp: n_vls
 * = L > 1), every path has a layer, and the layers must not share a VL. Both
 * the classes and the layers then live in the SL (a path has one):
 *
 *   SLs   layer l owns the K = 16 / L SLs l*K .. l*K + K-1; a path of class
 *         SL s (s < K) in layer l carries SL l*K + s (libloomosm's path_sl:
 *         OpenSM's hint, the partition's sl=, is s). So SL mod K is the
 *         class, SL div K the layer.
 *   VLs   the policy's sl2vl over SLs 0..K-1 is the class map: it uses VLs
 *         0..V-1 (V = its highest VL + 1). Layer l gets VLs l*V .. l*V+V-1:
 *         SL l*K + s goes to VL l*V + sl2vl[s]. SLs past L*K are dropped
 *         (VL15): nothing hands them out.
 *   VLArb each weighted entry (vl, w) with vl < V becomes L entries
 *         (l*V + vl, w), entry-major; entries of other VLs carry nothing and
 *         go. Every class keeps its share, split evenly over the layers.
 *
 * Deadlock freedom holds: a VL carries one layer, and one layer's paths are
 * acyclic on every subset of its SLs. The classes stay apart: two classes
 * share a VL only where the policy made them share one. It needs every
 * class SL below K and V * L <= max_vls; ibqos_combine() says when not.
 * libloomosm does the expansion (it knows L when OpenSM programs the ports)
 * while loom's block is in OpenSM's options file; loomd reads back against
 * ibqos_layered(). Without loom's block, libloomosm keeps SL = layer, VL =
 * layer (the identity the engines assume). */
#ifndef LOOM_IB_QOS_H
#define LOOM_IB_QOS_H

#include <stddef.h>
#include <stdint.h>

/* loomd's block in OpenSM's options file (daemon/qos/qos_ib.c writes it,
 * libloomosm looks for it): whole lines, newline included. */
#define IBQOS_BLOCK_BEGIN \
	"# ---- loom ib_qos begin: written by loomd (loom.yaml ib_qos), do not edit\n"
#define IBQOS_BLOCK_END "# ---- loom ib_qos end\n"

#define IBQOS_SLS        16
#define IBQOS_VLARB_MAX  64   /* entries per arbitration table (IBA 7.6.9) */
#define IBQOS_MAX_CLASSES 16
#define IBQOS_CLASS_LEN  32
#define IBQOS_VL_DROP    15   /* SL2VL: VL15 means "drop this SL" */

struct ibqos_entry {
	uint8_t vl;       /* 0..14 */
	uint8_t weight;   /* 0..255, in units of 64 bytes; 0 = skip */
};

struct ibqos_class {
	char name[IBQOS_CLASS_LEN];
	uint8_t sl;
};

struct ibqos_policy {
	int set;                     /* the section is in loom.yaml: loom manages QoS */
	unsigned n_classes;
	struct ibqos_class classes[IBQOS_MAX_CLASSES];
	uint8_t sl2vl[IBQOS_SLS];    /* SL -> VL 0..14, 15 = drop */
	unsigned n_high, n_low;
	struct ibqos_entry high[IBQOS_VLARB_MAX];
	struct ibqos_entry low[IBQOS_VLARB_MAX];
	uint8_t high_limit;          /* VLHighLimit 0..255 */
	uint8_t max_vls;             /* data VLs used: 1, 2, 4, 8 or 15 */
};

/* What a check found wrong, so that the config parser can point at the
 * line of that key. */
enum ibqos_field {
	IBQOS_F_NONE, IBQOS_F_CLASSES, IBQOS_F_SL2VL, IBQOS_F_HIGH, IBQOS_F_LOW,
	IBQOS_F_MAX_VLS,
};

/* OpenSM's own defaults (opensm(8), "QOS CONFIGURATION"), set = 0. */
void ibqos_defaults(struct ibqos_policy *p);

/* The checks of a whole policy: a class on an SL that sl2vl drops, a VL
 * (>= max_vls) that the port would not have, a VL that traffic is mapped to
 * but that neither arbitration table gives any weight (it would starve).
 * 0, or -EINVAL with "KEY: what" in err and the key in *field. */
int ibqos_check(const struct ibqos_policy *p, enum ibqos_field *field, char *err,
		size_t errlen);

/* The class's SL, or -1 when the policy has no such class. */
int ibqos_class_sl(const struct ibqos_policy *p, const char *name);

/* Whether p can be applied to a fabric that the routing engine routed on
 * n_vls VL layers (top of this file): 0, or -EBUSY with the reason in err
 * (a class SL not below 16 / n_vls; more VLs than max_vls; an arbitration
 * table past IBQOS_VLARB_LAYERED entries once expanded). */
int ibqos_combine(const struct ibqos_policy *p, unsigned n_vls, char *err, size_t errlen);

/* The policy the ports hold when the engine uses n_vls layers: *out = p
 * with sl2vl and both arbitration tables expanded as described at the top
 * (n_vls <= 1: a copy of p). 0, or ibqos_combine()'s -EBUSY. */
int ibqos_layered(const struct ibqos_policy *p, unsigned n_vls, struct ibqos_policy *out,
		  char *err, size_t errlen);

/* The pieces of that expansion, for libloomosm, which sees OpenSM's tables
 * one port (one arbitration block) at a time:
 *   ibqos_layer_sls      K, the SLs of one layer (16 / n_layers)
 *   ibqos_class_vls      V of a class map: its highest VL over SLs 0..k-1,
 *                        plus one (VL15, dropped, does not count)
 *   ibqos_layered_sl     the SL of a path of class SL `hint` in `layer`
 *                        (a hint not below K is treated as SL 0)
 *   ibqos_layered_sl2vl  the whole SL2VL map from the class map
 *   ibqos_layered_vlarb  one table from the class table `in` (n entries):
 *                        at most cap entries written, the rest of out[0..cap)
 *                        zeroed; returns the number the full expansion has */
#define IBQOS_VLARB_LAYERED 32  /* one VLArbitration block: libloomosm expands
				 * the first and clears the second */
unsigned ibqos_layer_sls(unsigned n_layers);
unsigned ibqos_class_vls(const uint8_t map[IBQOS_SLS], unsigned k);
uint8_t ibqos_layered_sl(unsigned layer, unsigned n_layers, uint8_t hint);
void ibqos_layered_sl2vl(const uint8_t map[IBQOS_SLS], unsigned n_layers,
			 uint8_t out[IBQOS_SLS]);
unsigned ibqos_layered_vlarb(const struct ibqos_entry *in, unsigned n, unsigned class_vls,
			     unsigned n_layers, struct ibqos_entry *out, unsigned cap);

/* The opensm.conf lines that apply p (qos TRUE and the qos_* options), with
 * OpenSM's option names and formats, '\n' terminated. Returns the length
 * snprintf would; the text fits when it is < len (IBQOS_OPTIONS_MAX always
 * does: 64 entries of each table at most). */
#define IBQOS_OPTIONS_MAX 2048
int ibqos_opensm_options(const struct ibqos_policy *p, char *buf, size_t len);

/* Read-back: the first SL whose VL in got[] differs from the policy, or -1
 * when the map is the policy's. */
int ibqos_diff_sl2vl(const struct ibqos_policy *p, const uint8_t got[IBQOS_SLS]);

/* Read-back of one arbitration table (high != 0: the high-priority one) of
 * a port with `cap` entries (PortInfo VLArbHighCap / VLArbLowCap): entry i
 * should be the policy's i-th, or {0, 0} past the policy's list. The first
 * differing index (>= cap: a weighted policy entry the port cannot hold),
 * or -1. */
int ibqos_diff_vlarb(const struct ibqos_policy *p, int high, const struct ibqos_entry *got,
		     unsigned cap);

/* SL2VL of one SMP's 8 data bytes (two SLs a byte, even SL in the high
 * nibble) into sl2vl[16]; and the reverse. */
void ibqos_sl2vl_decode(const uint8_t *data, uint8_t sl2vl[IBQOS_SLS]);
void ibqos_sl2vl_encode(const uint8_t sl2vl[IBQOS_SLS], uint8_t *data);

#endif
