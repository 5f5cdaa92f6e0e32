/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/linuxdcb/dcb_msg.h: the DCB netlink messages of the linuxdcb
 * plugin as pure functions on buffers (no socket, no kernel), so that every
 * byte loom sends and every reply it understands can be unit tested; and
 * (dcb_apply.c) the read-diff-write of one netdev over a transport that a
 * test can replace with a fake kernel.
 *
 * Messages (rtnetlink, <linux/dcbnl.h>), as iproute2's `dcb` sends them:
 *   nlmsghdr { RTM_GETDCB | RTM_SETDCB }
 *   struct dcbmsg { dcb_family AF_UNSPEC, cmd DCB_CMD_IEEE_GET|SET|DEL }
 *   DCB_ATTR_IFNAME   "eth2\0"
 *   DCB_ATTR_IEEE     (nested; not in a GET request)
 *     DCB_ATTR_IEEE_ETS        struct ieee_ets
 *     DCB_ATTR_IEEE_PFC        struct ieee_pfc
 *     DCB_ATTR_IEEE_APP_TABLE  (nested)
 *       DCB_ATTR_IEEE_APP      struct dcb_app, one per entry
 * The kernel answers a GET with the same layout (and more attributes,
 * ignored here); it answers a SET or DEL with DCB_ATTR_IEEE as a u8: the
 * driver's error as a negative errno truncated to 8 bits, 0 for success.
 *
 * What loom's lp_qos means in DCB terms (dcbm_from_qos), on a host where
 * the 802.1p priority IS the traffic class:
 *   pfc_en              = pfc_mask (bit p: PFC on priority p)
 *   ets prio_tc[p]      = p (identity; lp_qos has no priority->class map)
 *   ets tc_tsa[t]       = strict if strict_mask bit t, else ets
 *   ets tc_tx_bw[t]     = ets_weight[t], 0 for strict classes; an ETS class
 *                         without traffic gets 1 %, taken from the classes
 *                         with weights in proportion (largest remainder
 *                         first), because older mlx5 drivers refuse any ETS
 *                         class at 0 % ("BW 0 is illegal") and every driver
 *                         wants the ETS classes to sum to 100 %, and either
 *                         refusal fails the whole ETS write
 *   app (DSCP, d, p)    = one entry per DSCP 0..63 with p = dscp_to_tc[d]:
 *                         all 64 are written, because a NIC that has any
 *                         DSCP entry trusts DSCP and maps the DSCPs without
 *                         one by its own default table, not to priority 0.
 * pfc_cap, mbc, delay, willing, ets_cap, cbs, tc_rx_bw and the
 * recommendation fields are kept as the netdev holds them; APP entries of
 * other selectors (ethertype, port) are never touched. dcbm_to_qos is the
 * inverse (a DSCP without an entry reads as priority 0). */
#ifndef LINUXDCB_DCB_MSG_H
#define LINUXDCB_DCB_MSG_H

#include <stddef.h>
#include <stdint.h>

#include <linux/dcbnl.h>
#include <linux/netlink.h>

#include "loom/loom_plugin.h"

#define DCBM_MAX_APP 256          /* APP entries of one netdev kept */
#define DCBM_BUF_SIZE 16384       /* enough for any message built here */

/* What one netdev's IEEE DCB holds (or should hold). */
struct dcbm_state {
	int has_pfc, has_ets;     /* the attribute was there */
	struct ieee_pfc pfc;
	struct ieee_ets ets;
	size_t n_app;
	struct dcb_app app[DCBM_MAX_APP];
	int app_truncated;        /* more entries than DCBM_MAX_APP */
};

/* Build a DCB request in buf[0..len): type RTM_GETDCB or RTM_SETDCB, cmd
 * DCB_CMD_IEEE_*, the netdev's name, and (when any of pfc, ets, app is
 * given) DCB_ATTR_IEEE nesting the given ones. NLM_F_REQUEST | NLM_F_ACK.
 * The message, or NULL when it does not fit or ifname is too long. */
struct nlmsghdr *dcbm_build(void *buf, size_t len, uint16_t type, uint8_t cmd, uint32_t seq,
			    const char *ifname, const struct ieee_pfc *pfc,
			    const struct ieee_ets *ets, const struct dcb_app *app, size_t n_app);

/* The reply to DCB_CMD_IEEE_GET into *st (zeroed first): 0, or -EPROTO
 * (not a DCB message, an attribute of the wrong size). */
int dcbm_parse_get(const struct nlmsghdr *nlh, struct dcbm_state *st);

/* The reply to a SET or DEL: 0 when the driver accepted it, -errno (from
 * the u8 DCB_ATTR_IEEE) when it did not, -EPROTO when there is no such
 * attribute. */
int dcbm_parse_set_reply(const struct nlmsghdr *nlh);

/* What `want` means for a netdev that holds `cur` (see above). */
void dcbm_from_qos(const struct lp_qos *want, const struct dcbm_state *cur,
		   struct dcbm_state *out);
/* What a netdev holding st means in lp_qos terms; q->ports and n_ports
 * are left as they are. 0, or -ENOENT when no priority has PFC. */
int dcbm_to_qos(const struct dcbm_state *st, struct lp_qos *q);

/* The parts of DCB a change belongs to (one write each). */
enum dcbm_part {
	DCBM_ETS = 1,
	DCBM_PFC = 2,
	DCBM_APP = 4,
};

/* One difference, in iproute2 `dcb` terms: key "dcb pfc eth2", field
 * "prio-pfc 3", before "off", after "on"; key "dcb ets eth2", fields
 * "ets tc-bw T", "ets tc-tsa T", "ets prio-tc P"; key "dcb app eth2",
 * field "app dscp D" with the priority (several space-separated when the
 * netdev holds more than one; "" when none). */
struct dcbm_change {
	enum dcbm_part part;
	char key[LP_NAME_LEN + 16];
	char field[32];
	char before[32];
	char after[32];
};

typedef int (*dcbm_change_fn)(void *ctx, const struct dcbm_change *c);

/* Call fn for each field where cur and want differ, ETS first, then PFC,
 * then APP (DSCP entries only); stops at fn's first non-zero return and
 * returns it. *parts (if not NULL) is the OR of the parts that differ. */
int dcbm_diff(const char *ifname, const struct dcbm_state *cur, const struct dcbm_state *want,
	      dcbm_change_fn fn, void *ctx, unsigned *parts);

/* The DSCP APP entries to add (in want, not in cur) and to delete (in cur,
 * not in want) to take cur to want. add and del hold 64 and DCBM_MAX_APP
 * entries. */
void dcbm_app_plan(const struct dcbm_state *cur, const struct dcbm_state *want,
		   struct dcb_app *add, size_t *n_add, struct dcb_app *del, size_t *n_del);

/* Turn the u8 of a SET reply into an errno (positive). */
int dcbm_u8_errno(uint8_t v);

/* Is every netlink message of buf[0..len) between a header and the rest
 * of the buffer long, its nlmsg_len compared as unsigned? libmnl 1.0.4's
 * mnl_nlmsg_ok compares (int)nlmsg_len, so it takes a message announcing
 * 2 GiB or more for one that fits and mnl_cb_run reads past the buffer
 * (found by tests/fuzz/fuzz_dcb_msg): a reply that fails this is refused
 * before libmnl walks it. */
int dcbm_nl_lengths_ok(const void *buf, size_t len);

/* ---- dcb_apply.c: reading and writing one netdev over a transport ---------
 * The plugin's socket, or a test's fake kernel: the same code runs. */

typedef int (*dcbm_reply_fn)(const struct nlmsghdr *nlh, void *ctx);

struct dcbm_io {
	/* Send req and run cb on each reply until the kernel's ack: 0, cb's
	 * first non-zero verdict, or -errno (the ack's, or the transport's). */
	int (*talk)(void *ctx, struct nlmsghdr *req, dcbm_reply_fn cb, void *cbctx);
	void *ctx;
	uint32_t seq;
	unsigned char buf[DCBM_BUF_SIZE];
};

/* DCB_CMD_IEEE_GET of dev into *st: 0, or -errno with one line in err
 * naming dev ("eth2: the driver has no DCB support (EOPNOTSUPP) [...]"). */
int dcbm_get(struct dcbm_io *io, const char *dev, struct dcbm_state *st, char *err,
	     size_t errlen);

#define DCBM_MAX_CHANGES 128

/* Scratch space of dcbm_apply_dev (large: allocate it). */
struct dcbm_work {
	struct dcbm_state cur, want, back;
	struct dcbm_change c[DCBM_MAX_CHANGES];
	size_t n;
	struct dcb_app add[64], del[DCBM_MAX_APP];
};

/* Make dev hold `want` (see linuxdcb.c's header for the steps): read,
 * diff, report each change through sink; when `write`, write ETS, PFC,
 * APP (adds, then deletes) reporting each part's changes done = 1 once
 * accepted, then read back (-EIO when dev does not hold what was
 * written). A dev whose DCB cannot be read is diffed against nothing.
 * On an error every change not written is reported done = 0, and the
 * error is returned with err naming dev and the errno. */
int dcbm_apply_dev(struct dcbm_io *io, const char *dev, const struct lp_qos *want, int write,
		   const struct lp_change_sink *sink, struct dcbm_work *w, char *err,
		   size_t errlen);

#endif
