/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/linuxdcb/tc_apply.c: read, diff and write one netdev's ECN
 * qdiscs (a root ets, a red ... ecn per marking class; tc_msg.h) over a
 * transport (struct dcbm_io: the plugin's netlink socket, or a test's
 * fake kernel), reporting each change as loom_plugin.h asks. */
#include "autoconf.h"
#include "tc_msg.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/rtnetlink.h>

static const char *errname(int e)
{
	const char *s = strerrorname_np(e);

	return s ? s : "E?";
}

/* One line naming dev, the request and the errno, with what it means for
 * a qdisc request. */
static void kernel_err(const char *dev, const char *what, const char *kind, int rc, char *err,
		       size_t errlen)
{
	const char *hint = "";
	char h[160];

	if (rc == -ENOENT && kind) {
		snprintf(h, sizeof(h), ": this kernel has no `%s` qdisc (CONFIG_NET_SCH_%s, "
			 "module sch_%s)", kind, !strcmp(kind, "ets") ? "ETS" : "RED", kind);
		hint = h;
	} else if (rc == -EOPNOTSUPP) {
		hint = ": the kernel or the driver refuses it";
	}
	snprintf(err, errlen, "%s: %s: %s (%s)%s", dev, what, strerror(-rc), errname(-rc), hint);
}

struct dump_ctx {
	struct tcm_state *st;
	int ifindex;
};

static int dump_cb(const struct nlmsghdr *nlh, void *ctx)
{
	struct dump_ctx *d = ctx;

	return tcm_parse_qdisc(nlh, d->ifindex, d->st);
}

int tcm_get(struct dcbm_io *io, const char *dev, int ifindex, struct tcm_state *st, char *err,
	    size_t errlen)
{
	struct nlmsghdr *nlh = tcm_build_dump(io->buf, sizeof(io->buf), ++io->seq, ifindex);
	struct dump_ctx d = { st, ifindex };
	int rc;

	memset(st, 0, sizeof(*st));
	if (!nlh) {
		snprintf(err, errlen, "%s: no such netdev", dev);
		return -ENODEV;
	}
	if ((rc = io->talk(io->ctx, nlh, dump_cb, &d))) {
		kernel_err(dev, "RTM_GETQDISC dump", NULL, rc, err, errlen);
		return rc;
	}
	if (st->truncated) {
		snprintf(err, errlen, "%s: more than %d qdiscs", dev, TCM_MAX_QDISC);
		return -E2BIG;
	}
	return 0;
}

static int link_cb(const struct nlmsghdr *nlh, void *ctx)
{
	return tcm_parse_link(nlh, ctx);
}

int tcm_is_switchdev(struct dcbm_io *io, const char *dev, int ifindex, char *err,
		     size_t errlen)
{
	struct nlmsghdr *nlh = tcm_build_getlink(io->buf, sizeof(io->buf), ++io->seq, ifindex);
	int sd = 0, rc;

	if (!nlh) {
		snprintf(err, errlen, "%s: no such netdev", dev);
		return -ENODEV;
	}
	if ((rc = io->talk(io->ctx, nlh, link_cb, &sd))) {
		kernel_err(dev, "RTM_GETLINK", NULL, rc, err, errlen);
		return rc;
	}
	return sd;
}

static int ack_cb(const struct nlmsghdr *nlh, void *ctx)
{
	(void)nlh, (void)ctx;
	return 0;
}

static int send_req(struct dcbm_io *io, struct nlmsghdr *nlh, const char *dev, const char *what,
		    const char *kind, char *err, size_t errlen)
{
	int rc;

	if (!nlh) {
		snprintf(err, errlen, "%s: %s: cannot build the request", dev, what);
		return -EINVAL;
	}
	if ((rc = io->talk(io->ctx, nlh, ack_cb, NULL)))
		kernel_err(dev, what, kind, rc, err, errlen);
	return rc;
}

static int collect(void *ctx, const struct tcm_change *c)
{
	struct tcm_work *w = ctx;

	if (w->n == TCM_MAX_CHANGES)
		return -E2BIG;
	w->c[w->n++] = *c;
	return 0;
}

/* Report the collected changes of `parts` with `done`. */
static int report(const struct lp_change_sink *sink, const struct tcm_work *w, unsigned parts,
		  int done)
{
	int rc;

	if (!sink || !sink->change)
		return 0;
	for (size_t i = 0; i < w->n; i++) {
		const struct tcm_change *c = &w->c[i];
		struct lp_change lc = { c->key, c->field, c->before, c->after, done };

		if (!(c->part & parts))
			continue;
		if ((rc = sink->change(sink->ctx, &lc)))
			return rc;
	}
	return 0;
}

/* Write one part (the root, or class t's RED): 0 or -errno. */
static int write_part(struct dcbm_io *io, const char *dev, int ifindex, const struct tcm_plan *p,
		      const struct tcm_want *want, int part, char *err, size_t errlen)
{
	char what[96];
	int rc = 0;

	if (part < 0) {
		if (p->root_del_first &&
		    (rc = send_req(io, tcm_build_del(io->buf, sizeof(io->buf), ++io->seq, ifindex,
						     TC_H_ROOT, TCM_ROOT_HANDLE),
				   dev, "RTM_DELQDISC root 10:", NULL, err, errlen)))
			return rc;
		return send_req(io, tcm_build_ets(io->buf, sizeof(io->buf), ++io->seq, ifindex,
						  TCM_ROOT_HANDLE, &want->ets),
				dev, "RTM_NEWQDISC root 10: ets", "ets", err, errlen);
	}
	if (p->tc[part].del_first) {
		snprintf(what, sizeof(what), "RTM_DELQDISC parent %x:%x (class %d)",
			 p->tc[part].parent >> 16, p->tc[part].parent & 0xffff, part);
		if ((rc = send_req(io, tcm_build_del(io->buf, sizeof(io->buf), ++io->seq, ifindex,
						     p->tc[part].parent, p->tc[part].del_first),
				   dev, what, NULL, err, errlen)))
			return rc;
	}
	if (p->tc[part].write) {
		snprintf(what, sizeof(what), "RTM_NEWQDISC parent %x:%x red ecn (class %d)",
			 p->tc[part].parent >> 16, p->tc[part].parent & 0xffff, part);
		return send_req(io, tcm_build_red(io->buf, sizeof(io->buf), ++io->seq, ifindex,
						  p->tc[part].parent, p->tc[part].handle,
						  &want->tc[part].red),
				dev, what, "red", err, errlen);
	}
	snprintf(what, sizeof(what), "RTM_DELQDISC parent %x:%x red (class %d)",
		 p->tc[part].parent >> 16, p->tc[part].parent & 0xffff, part);
	return send_req(io, tcm_build_del(io->buf, sizeof(io->buf), ++io->seq, ifindex,
					  p->tc[part].parent, p->tc[part].del),
			dev, what, NULL, err, errlen);
}

int tcm_apply_dev(struct dcbm_io *io, const char *dev, int ifindex, const struct lp_qos *want,
		  uint64_t rate_Bps, int write, const struct lp_change_sink *sink,
		  struct tcm_work *w, char *err, size_t errlen)
{
	unsigned parts = 0, written = 0;
	struct tcm_plan p;
	char e2[256];
	int rc, src, get_rc;

	if ((rc = tcm_from_qos(want, rate_Bps, &w->want, e2, sizeof(e2)))) {
		snprintf(err, errlen, "%s: ECN by tc: %s", dev, e2);
		return rc;
	}
	get_rc = tcm_get(io, dev, ifindex, &w->cur, err, errlen);
	if (get_rc)
		memset(&w->cur, 0, sizeof(w->cur));  /* unreadable: diff against nothing */
	w->n = 0;
	if ((src = tcm_diff(dev, &w->cur, &w->want, collect, w, &parts))) {
		if (!get_rc)
			snprintf(err, errlen, "%s: more than %d qdisc changes", dev, TCM_MAX_CHANGES);
		return get_rc ? get_rc : src;
	}
	if (get_rc || !write) {
		src = report(sink, w, ~0u, 0);
		return get_rc ? get_rc : src;
	}
	tcm_plan(&w->cur, &w->want, &p);
	rc = 0;
	for (int part = -1; part < 8 && !rc; part++) {
		/* the root first, then the classes from 7 down, as the diff lists them */
		int t = part < 0 ? -1 : 7 - part;
		unsigned bit = t < 0 ? TCM_PART_ROOT : 1u << t;

		if (!(parts & bit))
			continue;
		if ((rc = write_part(io, dev, ifindex, &p, &w->want, t, err, errlen)))
			break;
		written |= bit;
		if ((src = report(sink, w, bit, 1)))
			return src;
	}
	if (rc) {
		report(sink, w, parts & ~written, 0);
		return rc;
	}
	if (!parts)
		return 0;
	/* read back: what the kernel holds now */
	if ((rc = tcm_get(io, dev, ifindex, &w->back, err, errlen)))
		return rc;
	w->n = 0;
	tcm_diff(dev, &w->back, &w->want, collect, w, &parts);
	if (w->n) {
		const struct tcm_change *c = &w->c[0];

		snprintf(err, errlen, "%s: the kernel accepted the qdisc writes but reads back "
			 "%s \"%s\" = \"%s\", not \"%s\" (%zu item(s) differ)", dev, c->key,
			 c->field, c->before, c->after, w->n);
		return -EIO;
	}
	return 0;
}
