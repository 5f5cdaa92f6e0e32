/* lib/ib_qos.h: the InfiniBand QoS policy of loom.yaml's `ib_qos:` section
 * (service levels per traffic class, the SL-to-VL map, the two VL
 * arbitration tables, VLHighLimit, the number of data VLs), its checks, the
 * OpenSM options that apply it, and the comparison of what a port holds
 * with it. Pure functions: no I/O.
 *
 * How it is applied: as OpenSM's own options (qos TRUE, qos_max_vls,
 * qos_high_limit, qos_vlarb_high, qos_vlarb_low, qos_sl2vl), which OpenSM's
 * QoS manager programs into every CA port and switch port, and re-reads on
 * SIGHUP (docs/testbed-notes.md). A tenant's partition carries its class's
 * SL as the partition flag `sl=N` (lib/partitions.h), which OpenSM's SA puts
 * in the PathRecords of that partition.
 *
 * With a routing engine that breaks deadlocks with VL layers (dfsssp: n_vls
 * > 1), the SL of a path IS its layer: the engine's path_sl answers every
 * PathRecord with the layer, and the SL2VL maps must be the identity on the
 * layers (libloomosm's update_sl2vl). A traffic class SL would then either be
 * overwritten (the class is lost without a word) or, if it won, move a path
 * off its layer and break deadlock freedom. Neither can be trusted, so loom
 * refuses the combination: ibqos_combine() says which and why, and the
 * policy is applied only while the fabric is routed on one VL (ftree,
 * minhop, or dfsssp that needed one layer). Splitting the VLs between
 * layers and classes (classes x layers <= VLs) is possible in principle but
 * needs the engine to pick SL = f(class, layer) per path: not built. */
#ifndef LOOM_IB_QOS_H
#define LOOM_IB_QOS_H

#include <stddef.h>
#include <stdint.h>

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
 * n_vls VL layers: 0, or -EBUSY with the reason in err (see the top of this
 * file: classes and VL layers both claim the SL). */
int ibqos_combine(const struct ibqos_policy *p, unsigned n_vls, char *err, size_t errlen);

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
