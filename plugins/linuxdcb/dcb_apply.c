/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/linuxdcb/dcb_apply.c: read, diff and write one netdev's IEEE DCB
 * over a transport (struct dcbm_io: the plugin's netlink socket, or a
 * test's fake kernel), reporting each change as loom_plugin.h asks. */
#include "autoconf.h"
#include "dcb_msg.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/rtnetlink.h>

static const char *errname(int e)
{
	const char *s = strerrorname_np(e);

	return s ? s : "E?";
}

static int get_cb(const struct nlmsghdr *nlh, void *ctx)
{
	return dcbm_parse_get(nlh, ctx);
}

static int set_cb(const struct nlmsghdr *nlh, void *ctx)
{
	(void)ctx;
	return dcbm_parse_set_reply(nlh);
}

static void kernel_err(const char *dev, const char *what, int rc, char *err, size_t errlen)
{
	if (rc == -EOPNOTSUPP)
		snprintf(err, errlen, "%s: the driver has no DCB support (EOPNOTSUPP) [%s]", dev,
			 what);
	else
		snprintf(err, errlen, "%s: %s: %s (%s)", dev, what, strerror(-rc), errname(-rc));
}

int dcbm_get(struct dcbm_io *io, const char *dev, struct dcbm_state *st, char *err,
	     size_t errlen)
{
	struct nlmsghdr *nlh = dcbm_build(io->buf, sizeof(io->buf), RTM_GETDCB, DCB_CMD_IEEE_GET,
					  ++io->seq, dev, NULL, NULL, NULL, 0);
	int rc;

	memset(st, 0, sizeof(*st));
	if (!nlh) {
		snprintf(err, errlen, "%s: not a netdev name", dev);
		return -EINVAL;
	}
	if ((rc = io->talk(io->ctx, nlh, get_cb, st)))
		kernel_err(dev, "RTM_GETDCB DCB_CMD_IEEE_GET", rc, err, errlen);
	return rc;
}

static int dcb_set(struct dcbm_io *io, const char *dev, uint8_t cmd, const char *what,
		   const struct ieee_pfc *pfc, const struct ieee_ets *ets,
		   const struct dcb_app *app, size_t n_app, char *err, size_t errlen)
{
	struct nlmsghdr *nlh = dcbm_build(io->buf, sizeof(io->buf), RTM_SETDCB, cmd, ++io->seq,
					  dev, pfc, ets, app, n_app);
	int rc;

	if (!nlh) {
		snprintf(err, errlen, "%s: %s: message too large", dev, what);
		return -EMSGSIZE;
	}
	if ((rc = io->talk(io->ctx, nlh, set_cb, NULL)))
		kernel_err(dev, what, rc, err, errlen);
	return rc;
}

static int collect_change(void *ctx, const struct dcbm_change *c)
{
	struct dcbm_work *w = ctx;

	if (w->n == DCBM_MAX_CHANGES)
		return -E2BIG;
	w->c[w->n++] = *c;
	return 0;
}

/* Report the collected changes of `part` (every part: 0) with `done`. */
static int report(const struct lp_change_sink *sink, const struct dcbm_work *w, unsigned part,
		  int done)
{
	int rc;

	if (!sink || !sink->change)
		return 0;
	for (size_t i = 0; i < w->n; i++) {
		const struct dcbm_change *c = &w->c[i];
		struct lp_change lc = { c->key, c->field, c->before, c->after, done };

		if (part && c->part != part)
			continue;
		if ((rc = sink->change(sink->ctx, &lc)))
			return rc;
	}
	return 0;
}

int dcbm_apply_dev(struct dcbm_io *io, const char *dev, const struct lp_qos *want, int write,
		   const struct lp_change_sink *sink, struct dcbm_work *w, char *err,
		   size_t errlen)
{
	static const unsigned order[] = { DCBM_ETS, DCBM_PFC, DCBM_APP };
	unsigned parts = 0, written = 0, part = 0;
	size_t n_add, n_del;
	int rc, get_rc, src;

	get_rc = dcbm_get(io, dev, &w->cur, err, errlen);
	if (get_rc)
		memset(&w->cur, 0, sizeof(w->cur));  /* unreadable: diff against nothing */
	dcbm_from_qos(want, &w->cur, &w->want);
	w->n = 0;
	if ((src = dcbm_diff(dev, &w->cur, &w->want, collect_change, w, &parts))) {
		if (!get_rc)
			snprintf(err, errlen, "%s: more than %d changes", dev, DCBM_MAX_CHANGES);
		return get_rc ? get_rc : src;
	}
	if (get_rc || !write) {
		src = report(sink, w, 0, 0);
		return get_rc ? get_rc : src;
	}
	rc = 0;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		part = order[i];
		if (!(parts & part))
			continue;
		switch (part) {
		case DCBM_ETS:
			rc = dcb_set(io, dev, DCB_CMD_IEEE_SET, "RTM_SETDCB DCB_ATTR_IEEE_ETS", NULL,
				     &w->want.ets, NULL, 0, err, errlen);
			break;
		case DCBM_PFC:
			rc = dcb_set(io, dev, DCB_CMD_IEEE_SET, "RTM_SETDCB DCB_ATTR_IEEE_PFC",
				     &w->want.pfc, NULL, NULL, 0, err, errlen);
			break;
		case DCBM_APP:
			dcbm_app_plan(&w->cur, &w->want, w->add, &n_add, w->del, &n_del);
			/* the new entries first, so a DSCP is never without one */
			if (n_add)
				rc = dcb_set(io, dev, DCB_CMD_IEEE_SET,
					     "RTM_SETDCB DCB_ATTR_IEEE_APP_TABLE", NULL, NULL,
					     w->add, n_add, err, errlen);
			if (!rc && n_del)
				rc = dcb_set(io, dev, DCB_CMD_IEEE_DEL,
					     "RTM_SETDCB DCB_CMD_IEEE_DEL DCB_ATTR_IEEE_APP_TABLE",
					     NULL, NULL, w->del, n_del, err, errlen);
			break;
		}
		if (rc)
			break;
		written |= part;
		if ((src = report(sink, w, part, 1)))
			return src;
	}
	if (rc) {
		/* the failed part and every later one: not written */
		for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
			if ((parts & order[i]) && !(written & order[i]) &&
			    (src = report(sink, w, order[i], 0)))
				break;
		return rc;
	}
	if (!parts)
		return 0;
	/* read back: the driver may have taken the write and kept something else */
	if ((rc = dcbm_get(io, dev, &w->back, err, errlen)))
		return rc;
	dcbm_from_qos(want, &w->back, &w->want);
	w->n = 0;
	dcbm_diff(dev, &w->back, &w->want, collect_change, w, &parts);
	if (w->n) {
		const struct dcbm_change *c = &w->c[0];

		snprintf(err, errlen, "%s: the driver accepted the DCB write but reads back "
			 "%s \"%s\" = \"%s\", not \"%s\" (%zu item(s) differ)", dev, c->key,
			 c->field, c->before, c->after, w->n);
		return -EIO;
	}
	return 0;
}
