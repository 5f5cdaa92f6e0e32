/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/linuxdcb/linuxdcb.c: the `linuxdcb` switch plugin (linuxdcb.so):
 * a Linux host's NIC ports, or switchdev ports, configured through DCB
 * netlink (rtnetlink RTM_GETDCB / RTM_SETDCB, IEEE 802.1Qaz commands: what
 * iproute2's `dcb pfc`, `dcb ets` and `dcb app` do), with libmnl. The ops
 * table of include/loom/loom_plugin.h; the messages, the lp_qos <-> DCB mapping
 * and the diff are dcb_msg.c (pure, unit tested without a kernel), the
 * read-diff-write of one netdev dcb_apply.c (over this file's socket, or a
 * test's fake kernel).
 *
 * loom.yaml:  switches: - { name: host1, plugin: linuxdcb, address: "eth2,eth3" }
 * address: one netdev name or a comma-separated list; loomd must run on
 * that host (in its network namespace). No credentials. Options: ecn=auto
 * (default), ecn=tc, ecn=off (below); dcqcn=auto (default), on, off and
 * sysfs=/PATH (below, DCQCN); any other is refused, so a typo shows.
 *
 * open: every name must exist (if_nametoindex); one NETLINK_ROUTE socket
 *   per handle, its receive timeout the endpoint's timeout_ms.
 * inventory: hostname (uname), model "Linux <kernel release>", os_version
 *   /etc/os-release PRETTY_NAME, MAC of the first netdev; ports = the named
 *   netdevs, with speed (ethtool ioctl; 0 when the driver reports none),
 *   MTU, admin state (IFF_UP) and operational state (IFF_RUNNING). All
 *   through ioctls on a socket, which (unlike /sys) see the network
 *   namespace the caller runs in.
 * lldp_neighbors: none, always (0, no items): the plugin does not run or
 *   read an LLDP agent; lldpd on the host can be read by other means.
 * qos_read: the IEEE PFC, ETS and APP table of the first port of q->ports
 *   that is one of the handle's netdevs (else the first netdev), in lp_qos
 *   terms (dcb_msg.h: DSCP -> priority read as DSCP -> traffic class, the
 *   priority being the class on a host; queues and PGs = classes).
 * qos_apply: for each netdev (want->ports that are the handle's, or all
 *   when want has none): read, diff, and report each differing item as an
 *   lp_change (key "dcb pfc eth2", field "prio-pfc 3", "off" -> "on"; key
 *   "dcb ets eth2", fields "ets tc-bw 0", "ets tc-tsa 6", "ets prio-tc 2";
 *   key "dcb app eth2", field "app dscp 26", "" -> "3"); unless dry_run,
 *   write ETS, then PFC (DCB_CMD_IEEE_SET), then the APP entries (SET for
 *   the new ones, DCB_CMD_IEEE_DEL for the stale ones), reporting each
 *   part's changes done = 1 once the kernel and driver accepted it, then
 *   read back and fail (-EIO) if the netdev does not hold what was written.
 *   Kernel errors name the netdev and the errno ("eth2: the driver has no
 *   DCB support (EOPNOTSUPP)"): a netdev whose DCB cannot be read (dummy,
 *   veth: no dcbnl_ops) is diffed against nothing, so every item shows
 *   with before "", done = 0. After the first error nothing more is
 *   written, but the remaining netdevs are still read and their changes
 *   reported, done = 0.
 * ECN (option ecn=auto|tc|off, default auto; tc_msg.h has the recipe
 *   and its sources): on a switchdev port (a netdev with
 *   IFLA_PHYS_SWITCH_ID, e.g. mlxsw's Spectrum ports) the driver offloads
 *   tc qdiscs to the ASIC, so the policy's ECN marking is written as a
 *   root `ets` (class t = band 7-t, the policy's strict classes and
 *   weights) with a `red ... ecn` child on each marking class's band,
 *   before the DCB part of that netdev: reported as key "tc ets eth2"
 *   field "root" (the root in `tc` words) and key "tc red eth2 tc3"
 *   fields "min", "max" (bytes), "probability" ("10%"), "ecn" ("on"),
 *   done = 1 once the kernel accepted it, then read back (RTM_GETQDISC)
 *   and -EIO when it differs. A RED on a class without ECN in the policy
 *   is deleted; other qdiscs on such classes are left alone. A kernel
 *   without sch_ets or sch_red refuses with ENOENT, named with the netdev
 *   and the missing qdisc. On a plain host port (auto) ECN is NOT set: a
 *   host kernel's `tc red ecn` only sees traffic the kernel sends, not
 *   the RDMA traffic the NIC sends by itself, which the NIC firmware
 *   marks (DCQCN, below); qos_apply logs
 *   that (NOTICE, EOPNOTSUPP) without failing. ecn=tc writes the qdiscs
 *   on any port (software qdiscs where nothing offloads them); ecn=off
 *   never touches qdiscs. qos_read fills the ECN fields from the RED
 *   qdiscs where tc is used, else reports them off. The PFC watchdog and
 *   headroom are not set (NOTICE).
 * DCQCN (dcqcn.h has the files and their source): where SYSFS/DEV/ecn/
 *   exists (dcqcn=auto; dcqcn=on: always, a missing file then an error
 *   naming its path; sysfs= defaults to /sys/class/net), after ECN's qdiscs
 *   and before DCB, qos_apply makes roce_np/enable/P and roce_rp/enable/P
 *   1 for the classes with ECN, 0 for the others, and roce_np/cnp_dscp,
 *   cnp_802p_prio the policy's CNPs: key "dcqcn eth2", fields
 *   "roce_np enable 3", "roce_np cnp_dscp"..., read back after writing.
 *   qos_read fills the CNP fields from them. Without the files (auto) a
 *   NOTICE says the NIC's ECN reaction stays the firmware's.
 * vlan_set / vlan_clear: -EOPNOTSUPP: a host port is not an access port.
 * health: the netdevs still exist.
 * counters_read: per netdev, the kernel's counters (/proc/net/dev, of the
 *   caller's network namespace) and the driver's (ethtool -S through the
 *   SIOCETHTOOL ioctl: ETHTOOL_GSSET_INFO, GSTRINGS, GSTATS), mapped to
 *   loom's names by eth_stats.c (mlx5's per-priority PFC pauses and their
 *   durations, ECN marks per class, pause storm events, the physical
 *   port's octets and discards). A driver without statistics (dummy) gives
 *   the kernel's counters only; a netdev gone is a port error. */
#include "autoconf.h"
#include "dcb_msg.h"
#include "eth_stats.h"
#include "tc_msg.h"
#include "dcqcn.h"
#include "../lp_util.h"

#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/ethtool.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>

#define LD_MAX_DEV 64
#define LD_RXBUF 32768

enum ecn_mode { ECN_AUTO, ECN_TC, ECN_OFF };
static const char *const ecn_names[] = { "auto", "tc", "off" };
enum dcqcn_mode { DCQCN_AUTO, DCQCN_ON, DCQCN_OFF };
static const char *const dcqcn_names[] = { "auto", "on", "off" };

struct lp_switch {
	char name[LP_NAME_LEN];
	enum ecn_mode ecn;
	enum dcqcn_mode dcqcn;
	char sysfs[PATH_MAX];     /* where the netdevs' ecn/ directories are */
	const struct lp_host *host;
	struct mnl_socket *nl;
	uint32_t portid;
	int timeout_ms;
	size_t n_dev;
	char dev[LD_MAX_DEV][IFNAMSIZ];
	struct dcbm_io io;        /* io.ctx = this handle */
	char rx[LD_RXBUF];
};

/* ---- netlink ------------------------------------------------------------ */

struct talk {
	int (*cb)(const struct nlmsghdr *nlh, void *ctx);
	void *ctx;
	int rc;                   /* the callback's verdict */
};

static int talk_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;

	if (!t->rc)
		t->rc = t->cb(nlh, t->ctx);
	return MNL_CB_OK;
}

/* The handle's NETLINK_ROUTE socket, with the endpoint's timeout. */
static int nl_open(struct lp_switch *sw)
{
	struct timeval tv = { sw->timeout_ms / 1000, (sw->timeout_ms % 1000) * 1000 };
	int rc;

	if (!(sw->nl = mnl_socket_open(NETLINK_ROUTE)))
		return -errno;
	if (mnl_socket_bind(sw->nl, 0, MNL_SOCKET_AUTOPID) < 0 ||
	    setsockopt(mnl_socket_get_fd(sw->nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		rc = -errno;
		mnl_socket_close(sw->nl);
		sw->nl = NULL;
		return rc;
	}
	sw->portid = mnl_socket_get_portid(sw->nl);
	return 0;
}

/* Send nlh, run cb on the replies until the ack: 0, the callback's
 * negative verdict, or -errno (the kernel's, or -ETIMEDOUT). After a
 * timeout the socket is replaced, so that a late answer cannot be taken
 * for the next request's. */
static int talk(void *handle, struct nlmsghdr *nlh, dcbm_reply_fn cb, void *ctx)
{
	struct lp_switch *sw = handle;
	struct talk t = { cb, ctx, 0 };
	uint32_t seq = nlh->nlmsg_seq;
	ssize_t n;
	int ret;

	if (!sw->nl && (ret = nl_open(sw)))
		return ret;
	if (mnl_socket_sendto(sw->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		n = mnl_socket_recvfrom(sw->nl, sw->rx, sizeof(sw->rx));
		if (n < 0) {
			ret = errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
			mnl_socket_close(sw->nl);
			sw->nl = NULL;
			return ret;
		}
		if (!dcbm_nl_lengths_ok(sw->rx, (size_t)n))
			return -EPROTO;  /* never from the kernel; libmnl would overread */
		ret = mnl_cb_run(sw->rx, (size_t)n, seq, sw->portid, talk_cb, &t);
		if (ret == MNL_CB_ERROR)
			return errno ? -errno : -EPROTO;
		if (ret == MNL_CB_STOP)
			return t.rc;
	}
}

/* ---- open, close, health ------------------------------------------------ */

/* "ecn=auto|tc|off", comma-separated; anything else is refused. */
/* One "name=value" option of opts whose value is one of names[0..n): its
 * index, or -1 when s is not that option. */
static int enum_option(const char *s, size_t len, const char *name,
		       const char *const *names, int n)
{
	size_t k = strlen(name);

	if (len <= k + 1 || strncmp(s, name, k) || s[k] != '=')
		return -1;
	for (int i = 0; i < n; i++)
		if (strlen(names[i]) == len - k - 1 && !strncmp(s + k + 1, names[i], len - k - 1))
			return i;
	return -1;
}

static int parse_options(const char *opts, struct lp_switch *sw, char *err, size_t errlen)
{
	const char *s = opts;

	sw->ecn = ECN_AUTO;
	sw->dcqcn = DCQCN_AUTO;
	snprintf(sw->sysfs, sizeof(sw->sysfs), "%s", DCQCN_SYSFS_ROOT);
	while (s && *s) {
		size_t n = strcspn(s, ",");
		int i;

		if ((i = enum_option(s, n, "ecn", ecn_names, 3)) >= 0) {
			sw->ecn = (enum ecn_mode)i;
		} else if ((i = enum_option(s, n, "dcqcn", dcqcn_names, 3)) >= 0) {
			sw->dcqcn = (enum dcqcn_mode)i;
		} else if (n > 6 && !strncmp(s, "sysfs=", 6) && s[6] == '/' &&
			   n - 6 < sizeof(sw->sysfs)) {
			snprintf(sw->sysfs, sizeof(sw->sysfs), "%.*s", (int)(n - 6), s + 6);
		} else if (n) {
			snprintf(err, errlen, "option \"%.*s\" in \"%s\": linuxdcb takes only "
				 "ecn=auto|tc|off, dcqcn=auto|on|off, sysfs=/ABSOLUTE/PATH", (int)n, s,
				 opts);
			return -EINVAL;
		}
		s += n + (s[n] == ',');
	}
	return 0;
}

static int ld_open(const struct lp_endpoint *ep, const struct lp_host *host,
		   struct lp_switch **out, char *err, size_t errlen)
{
	struct lp_switch *sw;
	const char *s;
	int rc;

	*out = NULL;
	if (!ep->address || !*ep->address) {
		snprintf(err, errlen, "no address: linuxdcb wants netdev names, \"eth2,eth3\"");
		return -EINVAL;
	}
	if (!(sw = calloc(1, sizeof(*sw)))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if ((rc = parse_options(ep->options, sw, err, errlen))) {
		free(sw);
		return rc;
	}
	snprintf(sw->name, sizeof(sw->name), "%s", ep->name ? ep->name : "");
	sw->host = host;
	for (s = ep->address; *s;) {
		size_t n;

		while (*s == ',' || *s == ' ')
			s++;
		n = strcspn(s, ", ");
		if (!n)
			break;
		if (n >= IFNAMSIZ || sw->n_dev == LD_MAX_DEV) {
			snprintf(err, errlen, "address \"%s\": %s", ep->address,
				 n >= IFNAMSIZ ? "a netdev name is at most 15 characters"
					       : "more than 64 netdevs");
			rc = -EINVAL;
			goto fail;
		}
		memcpy(sw->dev[sw->n_dev], s, n);
		sw->dev[sw->n_dev][n] = '\0';
		if (!if_nametoindex(sw->dev[sw->n_dev])) {
			snprintf(err, errlen, "%s: no such netdev on this host (%s)",
				 sw->dev[sw->n_dev], strerror(errno));
			rc = -ENODEV;
			goto fail;
		}
		sw->n_dev++;
		s += n;
	}
	if (!sw->n_dev) {
		snprintf(err, errlen, "address \"%s\" names no netdev", ep->address);
		rc = -EINVAL;
		goto fail;
	}
	sw->timeout_ms = ep->timeout_ms > 0 ? ep->timeout_ms : 5000;
	if ((rc = nl_open(sw))) {
		snprintf(err, errlen, "netlink socket: %s", strerror(-rc));
		goto fail;
	}
	sw->io.talk = talk;
	sw->io.ctx = sw;
	sw->io.seq = (uint32_t)time(NULL);
	sw_log(sw, LP_LOG_INFO, "linuxdcb: %zu netdev(s) from \"%s\", ecn=%s, dcqcn=%s under %s",
	       sw->n_dev, ep->address, ecn_names[sw->ecn], dcqcn_names[sw->dcqcn], sw->sysfs);
	*out = sw;
	return 0;
fail:
	if (sw->nl)
		mnl_socket_close(sw->nl);
	free(sw);
	return rc;
}

static void ld_close(struct lp_switch *sw)
{
	if (!sw)
		return;
	if (sw->nl)
		mnl_socket_close(sw->nl);
	free(sw);
}

static int ld_health(struct lp_switch *sw, char *err, size_t errlen)
{
	for (size_t i = 0; i < sw->n_dev; i++)
		if (!if_nametoindex(sw->dev[i])) {
			snprintf(err, errlen, "%s: the netdev is gone", sw->dev[i]);
			return -ENODEV;
		}
	return 0;
}

/* ---- inventory ---------------------------------------------------------- */

static void os_release(char *out, size_t outlen)
{
	char line[256];
	FILE *f = fopen("/etc/os-release", "r");

	out[0] = '\0';
	if (!f && !(f = fopen("/usr/lib/os-release", "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		char *v, *e;

		if (strncmp(line, "PRETTY_NAME=", 12))
			continue;
		v = line + 12;
		v[strcspn(v, "\n")] = '\0';
		if (*v == '"' || *v == '\'') {
			char q = *v++;

			if ((e = strchr(v, q)))
				*e = '\0';
		}
		snprintf(out, outlen, "%.*s", (int)(outlen - 1), v);
		break;
	}
	fclose(f);
}

static int ld_inventory(struct lp_switch *sw, struct lp_inventory *inv,
			const struct lp_port_sink *sink, char *err, size_t errlen)
{
	struct utsname u;
	int fd, rc = 0;

	memset(inv, 0, sizeof(*inv));
	if (uname(&u) == 0) {
		snprintf(inv->hostname, sizeof(inv->hostname), "%.63s", u.nodename);
		snprintf(inv->model, sizeof(inv->model), "Linux %.56s", u.release);
	}
	os_release(inv->os_version, sizeof(inv->os_version));
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0 &&
	    (fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0) {
		snprintf(err, errlen, "socket for interface ioctls: %s", strerror(errno));
		return -errno;
	}
	for (size_t i = 0; i < sw->n_dev; i++) {
		struct lp_port p = { 0 };
		struct ethtool_cmd ec = { .cmd = ETHTOOL_GSET };
		struct ifreq ifr;

		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", sw->dev[i]);
		if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", sw->dev[i],
				 errno == ENODEV ? "the netdev is gone" : strerror(errno));
			break;
		}
		snprintf(p.name, sizeof(p.name), "%s", sw->dev[i]);
		p.admin_up = !!(ifr.ifr_flags & IFF_UP);
		p.oper_up = !!(ifr.ifr_flags & IFF_RUNNING);
		if (ioctl(fd, SIOCGIFMTU, &ifr) == 0)
			p.mtu = (uint32_t)ifr.ifr_mtu;
		ifr.ifr_data = (char *)&ec;
		if (ioctl(fd, SIOCETHTOOL, &ifr) == 0) {
			uint32_t speed = ethtool_cmd_speed(&ec);

			p.speed_mbps = (speed == (uint32_t)SPEED_UNKNOWN || speed == 0xFFFF) ? 0 : speed;
		}
		if (i == 0 && ioctl(fd, SIOCGIFHWADDR, &ifr) == 0) {
			const unsigned char *m = (const unsigned char *)ifr.ifr_hwaddr.sa_data;

			snprintf(inv->mac, sizeof(inv->mac), "%02x:%02x:%02x:%02x:%02x:%02x", m[0],
				 m[1], m[2], m[3], m[4], m[5]);
		}
		if (sink && sink->port && (rc = sink->port(sink->ctx, &p)))
			break;
	}
	close(fd);
	return rc;
}

static int ld_lldp(struct lp_switch *sw, const struct lp_neighbor_sink *out, char *err,
		   size_t errlen)
{
	/* No LLDP agent is read: no neighbours, never an error. */
	return 0;
}

/* ---- QoS ------------------------------------------------------------------ */

static int own_dev(const struct lp_switch *sw, const char *name)
{
	for (size_t i = 0; i < sw->n_dev; i++)
		if (!strcmp(sw->dev[i], name))
			return (int)i;
	return -1;
}

/* Whether dev's ECN is tc's: 1, 0 (said why in *why), or -errno. */
static int uses_tc(struct lp_switch *sw, const char *dev, int *ifindex, const char **why,
		   char *err, size_t errlen)
{
	int rc;

	*why = "";
	if (!(*ifindex = (int)if_nametoindex(dev))) {
		snprintf(err, errlen, "%s: the netdev is gone", dev);
		return -ENODEV;
	}
	switch (sw->ecn) {
	case ECN_OFF:
		*why = "ecn=off";
		return 0;
	case ECN_TC:
		return 1;
	case ECN_AUTO:
		break;
	}
	if ((rc = tcm_is_switchdev(&sw->io, dev, *ifindex, err, errlen)) == 0)
		*why = "not a switchdev port (no IFLA_PHYS_SWITCH_ID): a host's tc red qdisc only "
		       "marks what the kernel sends, not the NIC's RDMA traffic; left to the NIC "
		       "firmware and the switches (ecn=tc sets it anyway)";
	return rc;
}

/* Whether dev's DCQCN files are loom's to set: dcqcn=on always (a missing
 * file is then an error naming it), auto when DEV/ecn exists, off never. */
static int uses_dcqcn(struct lp_switch *sw, const char *dev)
{
	return sw->dcqcn == DCQCN_ON ||
	       (sw->dcqcn == DCQCN_AUTO && dcqcn_present(sw->sysfs, dev));
}

static int ld_qos_read(struct lp_switch *sw, struct lp_qos *q, char *err, size_t errlen)
{
	const char *dev = sw->dev[0], *why;
	struct dcbm_state *st;
	struct tcm_state *ts;
	int rc, ifindex;

	for (size_t i = 0; i < q->n_ports && i < LP_MAX_PORTS; i++)
		if (own_dev(sw, q->ports[i].port) >= 0) {
			dev = q->ports[i].port;
			break;
		}
	if (!(st = malloc(sizeof(*st))) || !(ts = malloc(sizeof(*ts)))) {
		free(st);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (!(rc = dcbm_get(&sw->io, dev, st, err, errlen)) && (rc = dcbm_to_qos(st, q)) == -ENOENT)
		snprintf(err, errlen, "%s: no priority has PFC (no lossless configuration)", dev);
	if (!rc && (rc = uses_tc(sw, dev, &ifindex, &why, err, errlen)) == 1) {
		if (!(rc = tcm_get(&sw->io, dev, ifindex, ts, err, errlen)))
			tcm_to_qos(ts, q);
	}
	if (rc >= 0 && uses_dcqcn(sw, dev)) {
		struct dcqcn_state d;

		if (!(rc = dcqcn_read(sw->sysfs, dev, 1, &d, err, errlen))) {
			q->cnp_set = 1;
			q->cnp_dscp = (uint8_t)d.cnp_dscp;
			q->cnp_priority = (uint8_t)d.cnp_prio;
		}
	}
	free(ts);
	free(st);
	return rc < 0 ? rc : 0;
}

/* The ECN classes of want, "3" or "3,4" ("" none). */
static void ecn_classes(const struct lp_qos *want, char *tcs, size_t len)
{
	size_t o = 0;

	tcs[0] = '\0';
	for (unsigned t = 0; t < LP_TCS; t++)
		if (want->ecn[t].enabled && o < len)
			o += (size_t)snprintf(tcs + o, len - o, "%s%u", o ? "," : "", t);
}

/* What is left of the QoS state after dcb_msg's and tc_msg's view. */
static void log_unmanaged(struct lp_switch *sw, const struct lp_qos *want)
{
	if (want->pfcwd.enabled)
		sw_log(sw, LP_LOG_NOTICE, "the PFC watchdog is not set by linuxdcb (EOPNOTSUPP): "
		       "it is the NIC firmware's");
}

/* The caller's change sink, remembering that it asked to stop. */
struct sink_proxy {
	const struct lp_change_sink *to;
	int stop;
};

static int proxy_change(void *ctx, const struct lp_change *c)
{
	struct sink_proxy *p = ctx;
	int rc;

	if (p->stop || !p->to || !p->to->change)
		return p->stop;
	if ((rc = p->to->change(p->to->ctx, c)))
		p->stop = rc;
	return rc;
}

static int ld_qos_apply(struct lp_switch *sw, const struct lp_qos *want, int dry_run,
			const struct lp_change_sink *changes, char *err, size_t errlen)
{
	struct sink_proxy px = { changes, 0 };
	struct lp_change_sink sink = { &px, proxy_change };
	struct dcbm_work *a;
	struct tcm_work *tw;
	size_t devs[LD_MAX_DEV], n = 0;
	char e2[512], tcs[32];
	int rc = 0;

	if (want->n_ports) {
		for (size_t i = 0; i < want->n_ports && i < LP_MAX_PORTS; i++) {
			int d = own_dev(sw, want->ports[i].port);

			if (d < 0) {
				snprintf(err, errlen, "port %s is not one of this switch's netdevs",
					 want->ports[i].port);
				return -ENOENT;
			}
			if (n < LD_MAX_DEV)
				devs[n++] = (size_t)d;
		}
	} else {
		for (n = 0; n < sw->n_dev; n++)
			devs[n] = n;
	}
	if (!(a = malloc(sizeof(*a))) || !(tw = malloc(sizeof(*tw)))) {
		free(a);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	log_unmanaged(sw, want);
	ecn_classes(want, tcs, sizeof(tcs));
	for (size_t i = 0; i < n && !px.stop; i++) {
		const char *dev = sw->dev[devs[i]], *why;
		uint64_t rate = 0;
		int ifindex, tc;

		for (size_t k = 0; k < want->n_ports && k < LP_MAX_PORTS; k++)
			if (!strcmp(want->ports[k].port, dev))
				rate = (uint64_t)want->ports[k].speed_mbps * 125000;
		/* ECN's qdiscs first, then DCB: on a netdev without DCB (a
		 * dummy) the qdiscs are still written */
		tc = uses_tc(sw, dev, &ifindex, &why, rc ? e2 : err, rc ? sizeof(e2) : errlen);
		if (tc < 0 && !rc)
			rc = tc;
		else if (tc == 0 && tcs[0])
			sw_log(sw, LP_LOG_NOTICE, "%s: ECN marking on traffic class %s is not set by "
			       "linuxdcb (%s): %s", dev, tcs, sw->ecn == ECN_OFF ? "ecn=off" :
			       "EOPNOTSUPP", why);
		if (tc == 1 && !px.stop) {
			if (!rc)
				rc = tcm_apply_dev(&sw->io, dev, ifindex, want, rate, !dry_run, &sink,
						   tw, err, errlen);
			else
				tcm_apply_dev(&sw->io, dev, ifindex, want, rate, 0, &sink, tw, e2,
					      sizeof(e2));
		}
		if (px.stop)
			break;
		/* DCQCN next, also before DCB (a NIC's ecn files do not need it) */
		if (uses_dcqcn(sw, dev)) {
			int d = dcqcn_apply_dev(sw->sysfs, dev, want, !dry_run && !rc, &sink,
						rc ? e2 : err, rc ? sizeof(e2) : errlen);

			if (d < 0 && !rc)
				rc = d;
		} else if (tcs[0] && sw->dcqcn == DCQCN_AUTO) {
			sw_log(sw, LP_LOG_NOTICE, "%s: no DCQCN files under %s/%s/ecn: the NIC's "
			       "ECN reaction on class %s stays the firmware's (dcqcn=on makes it an "
			       "error)", dev, sw->sysfs, dev, tcs);
		}
		if (px.stop)
			break;
		if (!rc)
			rc = dcbm_apply_dev(&sw->io, dev, want, !dry_run, &sink, a, err, errlen);
		else /* after an error: no more writes, but say what was not done */
			dcbm_apply_dev(&sw->io, dev, want, 0, &sink, a, e2, sizeof(e2));
	}
	free(tw);
	free(a);
	if (px.stop)
		return px.stop;          /* the caller asked to stop */
	if (rc < 0)
		sw_log(sw, dry_run ? LP_LOG_WARNING : LP_LOG_ERR, "QoS %s stopped: %s",
		       dry_run ? "plan" : "apply", err);
	return rc;
}

/* ---- VLANs ---------------------------------------------------------------- */

/* A Linux host's port has no access VLAN for loom to set or read. */
static int no_vlan(const char *port, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: a Linux host port is not a switch access port; linuxdcb sets "
		 "no VLAN (EOPNOTSUPP)", port ? port : "");
	return -EOPNOTSUPP;
}

static int ld_vlan_set(struct lp_switch *sw, const char *port, uint16_t vid, char *err,
		       size_t errlen)
{
	(void)sw, (void)vid;
	return no_vlan(port, err, errlen);
}

static int ld_vlan_clear(struct lp_switch *sw, const char *port, char *err, size_t errlen)
{
	(void)sw;
	return no_vlan(port, err, errlen);
}

static int ld_vlan_get(struct lp_switch *sw, const char *port, uint16_t *vid, char *err,
		       size_t errlen)
{
	(void)sw;
	*vid = 0;
	return no_vlan(port, err, errlen);
}

/* qos plan's objects: every setting is one netdev's own (its DCB ETS, PFC
 * and APP table, its qdisc), shared with no other port; they always exist,
 * so each is a change. */
static const char *ld_shared(const char *key)
{
	(void)key;
	return "";
}

static int ld_qos_objects(struct lp_switch *sw, const struct lp_qos *want,
			  const struct lp_object_sink *out, char *err, size_t errlen)
{
	return lp_objects_by_dry_run(sw, want, ld_qos_apply, ld_shared, 1, out, err, errlen);
}

/* ---- counters ---------------------------------------------------------------- */

/* /proc/net/dev's text (free it). */
static char *read_proc_net_dev(char *err, size_t errlen)
{
	FILE *f = fopen("/proc/net/dev", "re");
	size_t n = 0, cap = 0;
	char *buf = NULL;

	if (!f) {
		snprintf(err, errlen, "/proc/net/dev: %s", strerror(errno));
		return NULL;
	}
	for (;;) {
		size_t got;

		if (n + 4096 + 1 > cap) {
			char *b = realloc(buf, cap = cap ? 2 * cap : 16384);

			if (!b || cap > (64u << 20)) {
				free(b ? b : buf);
				fclose(f);
				snprintf(err, errlen, "/proc/net/dev: out of memory");
				return NULL;
			}
			buf = b;
		}
		if (!(got = fread(buf + n, 1, cap - n - 1, f)))
			break;
		n += got;
	}
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* The driver's statistics of dev (ethtool -S): *n 0 when the driver has
 * none (EOPNOTSUPP); -errno with err else. */
static int driver_stats(int fd, const char *dev, char (**names)[LDS_NAME_LEN], uint64_t **vals,
			size_t *n, char *err, size_t errlen)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} sset = { .hdr = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ULL << ETH_SS_STATS } };
	struct ethtool_gstrings *gs = NULL;
	struct ethtool_stats *st = NULL;
	struct ifreq ifr;
	uint32_t count;

	*names = NULL;
	*vals = NULL;
	*n = 0;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_data = (char *)&sset;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0) {
		if (errno == EOPNOTSUPP)
			return 0;
		snprintf(err, errlen, "%s: ETHTOOL_GSSET_INFO: %s", dev, strerror(errno));
		return -errno;
	}
	if (!(sset.hdr.sset_mask & (1ULL << ETH_SS_STATS)) || !(count = sset.len))
		return 0;
	if (count > 65536) {
		snprintf(err, errlen, "%s: %u driver statistics: more than loom reads", dev, count);
		return -E2BIG;
	}
	gs = calloc(1, sizeof(*gs) + (size_t)count * ETH_GSTRING_LEN);
	st = calloc(1, sizeof(*st) + (size_t)count * sizeof(uint64_t));
	if (!gs || !st) {
		free(gs);
		free(st);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = count;
	ifr.ifr_data = (char *)gs;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0) {
		snprintf(err, errlen, "%s: ETHTOOL_GSTRINGS: %s", dev, strerror(errno));
		goto fail;
	}
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = count;
	ifr.ifr_data = (char *)st;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0) {
		snprintf(err, errlen, "%s: ETHTOOL_GSTATS: %s", dev, strerror(errno));
		goto fail;
	}
	/* The driver's count may have changed between the calls: the names
	 * and values are only paired for as many as both calls gave. */
	*n = gs->len < st->n_stats ? gs->len : st->n_stats;
	if (*n > count)
		*n = count;
	*names = malloc(*n * LDS_NAME_LEN + 1);
	*vals = malloc(*n * sizeof(uint64_t) + 1);
	if (!*names || !*vals) {
		free(*names);
		free(*vals);
		*names = NULL;
		*vals = NULL;
		*n = 0;
		errno = ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	memcpy(*names, gs->data, *n * LDS_NAME_LEN);
	memcpy(*vals, st->data, *n * sizeof(uint64_t));
	free(gs);
	free(st);
	return 0;
fail:
	{
		int e = errno ? errno : EIO;

		free(gs);
		free(st);
		return -e;
	}
}

static int ld_counters(struct lp_switch *sw, const struct lp_counter_sink *out, char *err,
		       size_t errlen)
{
	char *text = read_proc_net_dev(err, errlen);
	int fd, rc = 0;

	if (!text)
		return -EIO;
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0 &&
	    (fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0) {
		rc = -errno;
		snprintf(err, errlen, "socket for ethtool ioctls: %s", strerror(errno));
		free(text);
		return rc;
	}
	for (size_t i = 0; i < sw->n_dev && rc == 0; i++) {
		char (*names)[LDS_NAME_LEN] = NULL, why[256];
		uint64_t *vals = NULL;
		struct lds_kernel k;
		size_t n = 0;
		int r;

		if ((r = lds_proc_net_dev(text, sw->dev[i], &k, why, sizeof(why))) == 0)
			r = driver_stats(fd, sw->dev[i], &names, &vals, &n, why, sizeof(why));
		if (r == 0)
			rc = lds_report(sw->dev[i], &k, (const char (*)[LDS_NAME_LEN])names, vals, n,
					out);
		else if (out->port_error)
			rc = out->port_error(out->ctx, sw->dev[i], r == -ENOENT ?
					     "the netdev is gone (not in /proc/net/dev)" : why);
		free(names);
		free(vals);
	}
	close(fd);
	free(text);
	if (rc)
		snprintf(err, errlen, "the counters read stopped (%d)", rc);
	return rc;
}

extern const struct loom_plugin_v1 loom_plugin_v1;
const struct loom_plugin_v1 loom_plugin_v1 = {
	.abi = LOOM_PLUGIN_ABI,
	.size = sizeof(struct loom_plugin_v1),
	.name = "linuxdcb",
	.version = PACKAGE_VERSION,
	.open = ld_open,
	.close = ld_close,
	.inventory = ld_inventory,
	.lldp_neighbors = ld_lldp,
	.qos_read = ld_qos_read,
	.qos_apply = ld_qos_apply,
	.qos_objects = ld_qos_objects,
	.vlan_set = ld_vlan_set,
	.vlan_clear = ld_vlan_clear,
	.health = ld_health,
	.vlan_get = ld_vlan_get,
	.counters_read = ld_counters,
};
