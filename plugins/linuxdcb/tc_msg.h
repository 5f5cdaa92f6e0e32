/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/linuxdcb/tc_msg.h: the tc (rtnetlink qdisc) side of the linuxdcb
 * plugin: ECN marking of a traffic class as a `red ... ecn` qdisc under a
 * root `ets` qdisc, the way a switchdev driver (mlxsw, NVIDIA Spectrum)
 * offloads it to the ASIC. The messages are pure functions on buffers
 * (tc_msg.c, unit tested byte for byte by test_tc_msg); tc_apply.c reads,
 * diffs and writes one netdev over the same transport as dcb_apply.c.
 *
 * The recipe, and where each fact comes from:
 *  - Root: `tc qdisc replace dev D root handle 10: ets bands 8 strict S
 *    quanta Q.. priomap 7 6 5 4 3 2 1 0`; RED as a child of a band:
 *    `tc qdisc replace dev D parent 10:B handle 10B: red limit L min MIN
 *    max MAX avpkt A burst N probability P ecn` (the kernel's mlxsw
 *    selftests, tools/testing/selftests/drivers/net/mlxsw/sch_red_ets.sh
 *    and sch_red_core.sh: root `10: ets bands 8 priomap 7 6 5 4 3 2 1 0`,
 *    TC0's RED at parent 10:8 handle 108:, TC1's at 10:7 handle 107:).
 *  - Band N is traffic class 7-N: mlxsw's spectrum_qdisc.c,
 *    MLXSW_SP_PRIO_BAND_TO_TCLASS(band) = IEEE_8021QAZ_MAX_TCS - band - 1;
 *    class 10:(N+1) is band N. So class t's band is 7-t, its class
 *    10:(8-t), and priomap maps priority p to band 7-p (priority = class,
 *    as DCB's prio-tc is written by dcb_msg.c). ETS's strict bands are
 *    the first ones (sch_ets): bands 0..S-1 = classes 7..8-S.
 *  - The root's scheduling is what mlxsw programs for an offloaded ets
 *    (__mlxsw_sp_qdisc_ets_replace: mlxsw_sp_port_ets_set per band with
 *    the weights sch_ets derives from the quanta, as floor(prefix-sum *
 *    100 / total) differences, and mlxsw_sp_port_prio_tc_set from the
 *    priomap), over what DCB ETS set (the mlxsw wiki's "Quality of
 *    Service" page has a section "Incompatibility Between DCB and TC"):
 *    so the ets carries the policy's strict classes and weights, quantum
 *    = weight * 1000 bytes (1 for a weight-0 class: sch_ets refuses 0).
 *  - RED offload (mlxsw wiki "Queues Management", RED; spectrum_qdisc.c
 *    mlxsw_sp_qdisc_red_check_params/_replace): min and max (bytes,
 *    rounded up to cells; 0 refused, min <= max), probability (max_P,
 *    as a percentage rounded up) and the ecn flag are offloaded; limit,
 *    avpkt ("1000 is recommended"), burst and bandwidth are not, harddrop
 *    is not. loom writes limit = 4 * max, avpkt 1000, burst = min/avpkt + 1
 *    (the smallest burst iproute2 accepts: Wlog 1, so a software RED
 *    follows the instantaneous queue as the ASIC's marking does),
 *    bandwidth = the port's speed (tc's default 10 Mbit/s when unknown).
 *  - Wlog, Plog, Scell_log and the 256-byte idle-damping table as
 *    iproute2's tc/tc_red.c (tc_red_eval_ewma, tc_red_eval_P,
 *    tc_red_eval_idle_damping) and tc/q_red.c compute them; psched ticks
 *    per microsecond 1000/64 (/proc/net/psched "000003e8 00000040",
 *    the kernel's PSCHED_SHIFT 6). max_P = probability * 2^32.
 *  - The ecn flag goes in tc_red_qopt.flags (TC_RED_ECN, one of the
 *    kernel's TC_RED_HISTORIC_FLAGS), which every kernel since RED
 *    offload (4.15) reads; iproute2 >= 5.7 sends it as TCA_RED_FLAGS
 *    instead, which kernels before 5.7 ignore. The kernel refuses both at
 *    once. TCA_OPTIONS is nested with NLA_F_NESTED (libmnl's nest; sch_ets
 *    requires it, sch_red ignores it).
 *  - Requests are RTM_NEWQDISC NLM_F_CREATE|NLM_F_REPLACE (`tc qdisc
 *    replace`), RTM_DELQDISC with parent and handle (`tc qdisc del`), and
 *    RTM_GETQDISC NLM_F_DUMP with tcm_ifindex set (`tc qdisc show dev D`),
 *    as iproute2 6.1 sends them (seen with strace; test_tc_msg holds the
 *    bytes). A dump may list other netdevs' qdiscs: filtered by ifindex.
 */
#ifndef LINUXDCB_TC_MSG_H
#define LINUXDCB_TC_MSG_H

#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>
#include <linux/pkt_sched.h>

#include "dcb_msg.h"

#define TCM_ROOT_MAJOR 0x10u
#define TCM_HANDLE(maj, min) ((uint32_t)(maj) << 16 | (uint32_t)(min))
#define TCM_ROOT_HANDLE TCM_HANDLE(TCM_ROOT_MAJOR, 0)
/* class t's band is 7 - t, its class 10:(8-t), its RED 10(8-t): */
#define TCM_CLASS_OF_TC(t) TCM_HANDLE(TCM_ROOT_MAJOR, 8u - (t))
#define TCM_RED_HANDLE(t) TCM_HANDLE(TCM_ROOT_MAJOR * 16u + 8u - (t), 0)
#define TCM_AVPKT 1000u
#define TCM_QUANTUM_PER_PERCENT 1000u
#define TCM_MAX_BANDS 16
#define TCM_MAX_QDISC 64

struct tcm_ets {
	uint8_t nbands, nstrict;
	uint32_t quanta[TCM_MAX_BANDS];   /* band b's, for b >= nstrict */
	uint8_t priomap[TCM_MAX_BANDS];   /* priority -> band */
};

struct tcm_red {
	struct tc_red_qopt qopt;          /* qth_min/max in bytes, as tc sends */
	uint32_t max_P;                   /* probability * 2^32, 0 = from Plog */
	uint32_t flags_bf;                /* TCA_RED_FLAGS value (dump), 0 none */
	uint8_t stab[256];
};

/* One qdisc of a netdev, as RTM_NEWQDISC carries it. */
struct tcm_qdisc {
	uint32_t handle, parent;
	char kind[16];
	int has_ets, has_red;
	struct tcm_ets ets;
	struct tcm_red red;
};

/* Every qdisc of one netdev (a dump, filtered by ifindex). */
struct tcm_state {
	size_t n;
	struct tcm_qdisc q[TCM_MAX_QDISC];
	int truncated;
};

/* What loom wants on a netdev. */
struct tcm_want {
	struct tcm_ets ets;
	struct {
		int on;
		struct tcm_red red;
	} tc[8];
};

/* RED parameters as `tc qdisc ... red limit L min MIN max MAX avpkt A
 * burst B probability PCT/100 bandwidth RATE [ecn]` computes them: 0, or
 * -EINVAL with err (min >= max, no Wlog/Plog/Scell_log fits, or the
 * kernel's red_check_params would refuse: fls(max) + Wlog >= 32). */
int tcm_red_eval(uint32_t limit, uint32_t min, uint32_t max, uint32_t avpkt, uint32_t burst,
		 unsigned percent, uint64_t rate_Bps, int ecn, struct tcm_red *out, char *err,
		 size_t errlen);

/* RTM_NEWQDISC (CREATE|REPLACE|ACK) of a root ets with handle `handle`;
 * of a red child at `parent` with handle `handle`; RTM_DELQDISC of the
 * qdisc at parent/handle; RTM_GETQDISC dump of ifindex. NULL when the
 * buffer is too small. */
struct nlmsghdr *tcm_build_ets(void *buf, size_t len, uint32_t seq, int ifindex,
			       uint32_t handle, const struct tcm_ets *ets);
struct nlmsghdr *tcm_build_red(void *buf, size_t len, uint32_t seq, int ifindex,
			       uint32_t parent, uint32_t handle, const struct tcm_red *red);
struct nlmsghdr *tcm_build_del(void *buf, size_t len, uint32_t seq, int ifindex,
			       uint32_t parent, uint32_t handle);
struct nlmsghdr *tcm_build_dump(void *buf, size_t len, uint32_t seq, int ifindex);
/* RTM_GETLINK of ifindex (for IFLA_PHYS_SWITCH_ID). */
struct nlmsghdr *tcm_build_getlink(void *buf, size_t len, uint32_t seq, int ifindex);

/* One RTM_NEWQDISC (a dump's reply, or a request) added to st when it is
 * ifindex's: 0 (also for other netdevs' and other message types), or
 * -EPROTO for a malformed one. */
int tcm_parse_qdisc(const struct nlmsghdr *nlh, int ifindex, struct tcm_state *st);
/* An RTM_NEWLINK reply: *switchdev = 1 when it has IFLA_PHYS_SWITCH_ID. */
int tcm_parse_link(const struct nlmsghdr *nlh, int *switchdev);

const struct tcm_qdisc *tcm_root(const struct tcm_state *st);
const struct tcm_qdisc *tcm_child(const struct tcm_state *st, uint32_t parent);

/* The probability of a RED in percent (max_P, or Plog when max_P is 0). */
unsigned tcm_red_percent(const struct tcm_red *r);

/* What `want` means on a port of rate_Bps bytes/s (0: unknown): 0, or
 * -EINVAL with err (a strict class below a weighted one, which an ets
 * qdisc whose strict bands come first cannot express; RED parameters). */
int tcm_from_qos(const struct lp_qos *want, uint64_t rate_Bps, struct tcm_want *out,
		 char *err, size_t errlen);
/* The ECN fields of q from the RED qdiscs under loom's root ets (all off
 * when the root is not loom's ets). */
void tcm_to_qos(const struct tcm_state *st, struct lp_qos *q);

/* What to write to take cur to want (tcm_diff reports the same). The
 * root is replaced when it is not an ets with want's bands, strict
 * bands, quanta and priomap (any handle: an operator's equal ets is
 * kept); an ets with loom's handle 10: is changed in place and keeps its
 * children, any other root is replaced by a new 10: and its children go
 * with it; a root of another kind with handle 10: is deleted first. A
 * class's RED is written when it differs (in place when there is one),
 * deleted when the policy has no ECN there; another qdisc on a class the
 * policy marks is deleted first, and left alone otherwise. */
struct tcm_plan {
	int root_write;
	int root_del_first;
	uint32_t major;                   /* the root's handle major after it */
	struct {
		int write;
		uint32_t del_first;       /* handle of a non-RED child, 0 none */
		uint32_t del;             /* handle of a RED to delete, 0 none */
		uint32_t parent, handle;
		const struct tcm_red *cur;
	} tc[8];
};

void tcm_plan(const struct tcm_state *cur, const struct tcm_want *want, struct tcm_plan *p);

enum { TCM_PART_ROOT = 1u << 8 };     /* bit t (0..7): class t's RED */

struct tcm_change {
	unsigned part;
	char key[LP_NAME_LEN + 16];       /* "tc ets eth2", "tc red eth2 tc3" */
	char field[16];                   /* "root"; "min" "max" "probability" "ecn" */
	char before[160];
	char after[160];
};

typedef int (*tcm_change_fn)(void *ctx, const struct tcm_change *c);

/* Each difference between the netdev's qdiscs and want: the root first,
 * then class 7..0's RED; fn's first non-zero return stops it. *parts is
 * the OR of the parts that differ. */
int tcm_diff(const char *ifname, const struct tcm_state *cur, const struct tcm_want *want,
	     tcm_change_fn fn, void *ctx, unsigned *parts);

/* ---- tc_apply.c: one netdev over a transport (dcb_msg.h's dcbm_io) ---- */

#define TCM_MAX_CHANGES 64

struct tcm_work {
	struct tcm_state cur, back;
	struct tcm_want want;
	struct tcm_change c[TCM_MAX_CHANGES];
	size_t n;
};

/* Dump dev's qdiscs: 0, or -errno with err naming dev. */
int tcm_get(struct dcbm_io *io, const char *dev, int ifindex, struct tcm_state *st, char *err,
	    size_t errlen);
/* Whether dev is a switchdev port (IFLA_PHYS_SWITCH_ID): 1, 0, -errno. */
int tcm_is_switchdev(struct dcbm_io *io, const char *dev, int ifindex, char *err,
		     size_t errlen);
/* Make dev's qdiscs hold want's ECN (linuxdcb.c's header): read, diff,
 * report; when `write`, replace the root, then each class's RED (or
 * delete it), reporting each part's changes done = 1 once the kernel
 * accepted it; then read back (-EIO when it differs). On an error the
 * changes not written are reported done = 0. rate_Bps: the port's. */
int tcm_apply_dev(struct dcbm_io *io, const char *dev, int ifindex, const struct lp_qos *want,
		  uint64_t rate_Bps, int write, const struct lp_change_sink *sink,
		  struct tcm_work *w, char *err, size_t errlen);

#endif
