/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/linuxdcb/eth_stats.h: a netdev's counters in loom's names
 * (loom_plugin.h's struct lp_counter), from what the kernel gives (pure:
 * linuxdcb.c does the I/O; tests/unit/plugins/linuxdcb/test_eth_stats.c feeds it string
 * sets).
 *
 * Two sources, both in the caller's network namespace:
 *  - the kernel's own counters of every netdev (struct rtnl_link_stats64:
 *    rx/tx bytes, errors, dropped), as /proc/net/dev lists them (a
 *    per-namespace file, unlike /sys/class/net): in_octets, out_octets,
 *    in_errors, out_errors, in_discards, out_discards. On an RDMA NIC
 *    these miss the traffic the NIC sends and receives by itself (RoCE).
 *  - the driver's statistics (ethtool -S: ETHTOOL_GSSET_INFO, GSTRINGS,
 *    GSTATS). Named per driver; mapped are mlx5's (the kernel's
 *    drivers/net/ethernet/mellanox/mlx5/core/en_stats.c):
 *      rx_prio<p>_pause, tx_prio<p>_pause       -> pfc_rx_pause, pfc_tx_pause (priority p)
 *      rx_prio<p>_pause_duration, tx_...        -> pfc_rx/tx_pause_duration_us (microseconds)
 *      rx_prio<p>_marked (ECN-marked, per TC)   -> ecn_marked (queue p: on a host the
 *                                                  class is the queue)
 *      tx_pause_storm_warning_events, tx_pause_storm_error_events
 *                                               -> pause_storm_warning, pause_storm_error
 *      rx_bytes_phy, tx_bytes_phy               -> in_octets, out_octets (the physical
 *                                                  port's: RoCE included; they replace
 *                                                  the kernel's)
 *      rx_discards_phy, tx_discards_phy, tx_errors_phy
 *                                               -> in_discards, out_discards, out_errors
 *                                                  (likewise)
 *    Names are compared without trailing blanks (some kernels' mlx5 had
 *    "tx_pause_storm_warning_events "). Other drivers' names are not
 *    mapped: their PFC counters are left out, never guessed. */
#ifndef LINUXDCB_ETH_STATS_H
#define LINUXDCB_ETH_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "loom/loom_plugin.h"

#define LDS_NAME_LEN 32       /* ETH_GSTRING_LEN */

/* The kernel's counters of one netdev, as /proc/net/dev has them. */
struct lds_kernel {
	uint64_t rx_bytes, rx_errors, rx_dropped;
	uint64_t tx_bytes, tx_errors, tx_dropped;
};

/* The line of `dev` in /proc/net/dev's text: 0 and *k, -ENOENT when the
 * text has no such netdev, -EPROTO (with err naming the netdev and what is
 * wrong) for a line that is not 16 decimal numbers. */
int lds_proc_net_dev(const char *text, const char *dev, struct lds_kernel *k, char *err,
		     size_t errlen);

/* Report dev's counters through out: the kernel's (k, NULL: none) and the
 * driver's (names[i], each LDS_NAME_LEN bytes, not necessarily
 * NUL-terminated, with vals[i]; n may be 0), each counter once, 64 bits
 * wide. What out->counter returns ends it and is returned. */
int lds_report(const char *dev, const struct lds_kernel *k, const char (*names)[LDS_NAME_LEN],
	       const uint64_t *vals, size_t n, const struct lp_counter_sink *out);

#endif
