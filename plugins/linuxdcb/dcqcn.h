/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/linuxdcb/dcqcn.h: a RoCE NIC's DCQCN (its ECN reaction and
 * notification points) through the sysfs files of NVIDIA/Mellanox mlx5 NICs
 * under MLNX_OFED's mlx5_core (en_sysfs.c / en_ecn.c; the upstream kernel has
 * no such files): ROOT/DEV/ecn/
 *     roce_np/enable/0..7   1: the NIC answers ECN-marked RoCE packets of
 *                           priority p with CNPs (notification point)
 *     roce_rp/enable/0..7   1: the NIC slows a QP of priority p on CNPs
 *                           (reaction point)
 *     roce_np/cnp_dscp      the DSCP of the CNPs it sends
 *     roce_np/cnp_802p_prio their 802.1p priority
 * (roce_rp also holds rpg_*, dce_tcp_*, initial_alpha_value, clamp_tgt_rate,
 * ...: the rate machine's parameters, left at the firmware's values.) Each
 * file reads as "%d\n" and takes "%d". ROOT is /sys/class/net, or a test's
 * directory of the same layout.
 *
 * The lp_qos mapping on a host: priority p = class p (dcb_msg.h); DCQCN is
 * on for the priorities whose class has ECN in the policy (want->ecn[p]),
 * off for the others; the CNP fields are written when want->cnp_set.
 * A file that is missing is never created: the NIC has no such knob, and
 * the error names its path. */
#ifndef LINUXDCB_DCQCN_H
#define LINUXDCB_DCQCN_H

#include <stddef.h>
#include <stdint.h>

#include "loom/loom_plugin.h"

#define DCQCN_SYSFS_ROOT "/sys/class/net"

struct dcqcn_state {
	uint8_t np_enable;   /* bit p: roce_np/enable/p reads 1 */
	uint8_t rp_enable;   /* bit p: roce_rp/enable/p reads 1 */
	int cnp_dscp;        /* -1: not read */
	int cnp_prio;
};

/* 1 when ROOT/DEV/ecn is a directory (the NIC has DCQCN files), else 0. */
int dcqcn_present(const char *root, const char *dev);

/* Every enable file, and the CNP files when with_cnp. 0, or -ENOENT (a
 * file missing: its path in err), -EIO (content that is no number), -errno. */
int dcqcn_read(const char *root, const char *dev, int with_cnp, struct dcqcn_state *st,
	       char *err, size_t errlen);

/* Make DEV's files hold want: read, report each differing file as an
 * lp_change (key "dcqcn DEV", field "roce_np enable 3" / "roce_rp enable 3" /
 * "roce_np cnp_dscp" / "roce_np cnp_802p_prio", before and after as the file
 * reads), write them unless !write (done = 1 once written), then read back:
 * -EIO naming the file when it does not hold what was written. A sink's
 * non-zero answer stops and is returned. 0, or -errno with err. */
int dcqcn_apply_dev(const char *root, const char *dev, const struct lp_qos *want, int write,
		    const struct lp_change_sink *sink, char *err, size_t errlen);

#endif
