/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/fabric/fabric_diff.c: what changed between two sweeps of one subnet.
 *
 * What an operator wants from the change log decides what is reported:
 * - a node that comes or goes is one event; its links are not listed (a
 *   switch with 36 cables would otherwise bury the log). Link events are only
 *   for links whose two end nodes are in both sweeps;
 * - a port whose link went down or came up is covered by that link event, so
 *   no port_state event is emitted for it as well: "link down" already says
 *   the port lost its peer, and the link subject names both ends;
 * - a switch's ports all carry port 0's LID, so a switch LID change is one
 *   event (port 0), not one per port.
 * - a storm is one event: more than FAB_DIFF_EACH port_state, lid_change,
 *   node_appeared, node_disappeared or desc_change events in one diff (a
 *   subnet coming up under its SM, a switch rebooting with its hosts) are
 *   one port_states (lid_changes, ...) event for the subnet, which counts
 *   them by old -> new value and names the first. Links are never
 *   coalesced: a cut cable is always its own event.
 * Events come out sorted by kind, then subject (subjects begin with the GUID),
 * so two runs over the same fabrics print the same log. */
#include "autoconf.h"
#include "lib/fabric/fabric_diff.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct diff_ctx {
	struct fab_diff *diff;
	size_t cap;
	const struct fab *old, *cur;
	const struct nodename_map *names;  /* the site's names (NULL: descriptions) */
	/* Ports that are an end of a link_up/link_down event, as (guid, port)
	 * word pairs: they get no port_state event. */
	uint64_t *covered;
	size_t n_covered, cap_covered;
};

static const char *kind_names[] = {
	[FAB_EV_SUBNET_FIRST_SWEEP] = "subnet_first_sweep",
	[FAB_EV_NODE_APPEARED] = "node_appeared",
	[FAB_EV_NODE_DISAPPEARED] = "node_disappeared",
	[FAB_EV_LINK_UP] = "link_up",
	[FAB_EV_LINK_DOWN] = "link_down",
	[FAB_EV_PORT_STATE] = "port_state",
	[FAB_EV_LINK_DEGRADED] = "link_degraded",
	[FAB_EV_LINK_RESTORED] = "link_restored",
	[FAB_EV_LID_CHANGE] = "lid_change",
	[FAB_EV_DESC_CHANGE] = "desc_change",
	[FAB_EV_PORT_STATES] = "port_states",
	[FAB_EV_LID_CHANGES] = "lid_changes",
	[FAB_EV_NODES_APPEARED] = "nodes_appeared",
	[FAB_EV_NODES_DISAPPEARED] = "nodes_disappeared",
	[FAB_EV_DESC_CHANGES] = "desc_changes",
};

static const char *sev_names[] = { "info", "notice", "warning", "error" };

const char *fab_ev_kind_name(enum fab_ev_kind kind)
{
	if ((unsigned)kind >= sizeof(kind_names) / sizeof(kind_names[0]))
		return "?";
	return kind_names[kind];
}

const char *fab_ev_severity_name(enum fab_ev_severity sev)
{
	if ((unsigned)sev >= sizeof(sev_names) / sizeof(sev_names[0]))
		return "?";
	return sev_names[sev];
}

static struct fab_event *ev_add(struct diff_ctx *c, enum fab_ev_kind kind,
				enum fab_ev_severity sev)
{
	struct fab_diff *d = c->diff;
	struct fab_event *ev;

	if (d->n_events == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct fab_event *events = realloc(d->events, cap * sizeof(*events));

		if (!events)
			return NULL;
		d->events = events;
		c->cap = cap;
	}
	ev = &d->events[d->n_events++];
	memset(ev, 0, sizeof(*ev));
	ev->kind = kind;
	ev->severity = sev;
	return ev;
}

/* snprintf into a fixed field; truncation of a long description is fine. */
static void field(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void field(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* A node in an event's text: its GUID and its display name (the site's
 * node-name-map, else its description). */
#define NAME(c, n) nodename_of((c)->names, (n)->guid, (n)->desc)

static void node_subject(const struct diff_ctx *c, char *buf, size_t len,
			 const struct fab_node *n)
{
	field(buf, len, "0x%016" PRIx64 " (%s)", n->guid, NAME(c, n));
}

static void port_subject(const struct diff_ctx *c, char *buf, size_t len,
			 const struct fab_node *n, unsigned port)
{
	field(buf, len, "0x%016" PRIx64 "[%u] (%s)", n->guid, port, NAME(c, n));
}

static void link_subject(const struct diff_ctx *c, char *buf, size_t len,
			 const struct fab_link *l)
{
	field(buf, len, "0x%016" PRIx64 "[%u] (%s) <-> 0x%016" PRIx64 "[%u] (%s)",
	      l->a_node->guid, l->a->num, NAME(c, l->a_node),
	      l->b_node->guid, l->b->num, NAME(c, l->b_node));
}

static void link_rate(char *buf, size_t len, const struct fab_port *p)
{
	field(buf, len, "%s %s", ibt_width_name(p->width_active),
	      ibt_speed_name(p->speed_active));
}

static int cover(struct diff_ctx *c, uint64_t guid, unsigned port)
{
	if (c->n_covered + 2 > c->cap_covered) {
		size_t cap = c->cap_covered ? c->cap_covered * 2 : 32;
		uint64_t *v = realloc(c->covered, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->covered = v;
		c->cap_covered = cap;
	}
	c->covered[c->n_covered++] = guid;
	c->covered[c->n_covered++] = port;
	return 0;
}

static int is_covered(const struct diff_ctx *c, uint64_t guid, unsigned port)
{
	/* Few links change per sweep, so a linear scan is cheaper than a set. */
	for (size_t i = 0; i < c->n_covered; i += 2)
		if (c->covered[i] == guid && c->covered[i + 1] == port)
			return 1;
	return 0;
}

/* The same link (same two ends) in `other`, as a link of `other`. */
static int find_link(const struct fab *other, const struct fab_link *l, struct fab_link *out)
{
	const struct fab_node *an = fab_find(other, l->a_node->guid);
	const struct fab_port *a = fab_port(an, l->a->num);
	const struct fab_node *bn;
	const struct fab_port *b;

	if (!a || !(b = fab_peer(other, a, &bn)))
		return 0;
	if (bn->guid != l->b_node->guid || b->num != l->b->num)
		return 0;
	out->a_node = an;
	out->a = a;
	out->b_node = bn;
	out->b = b;
	return 1;
}

/* Links of `old` gone from `cur` (when both end nodes remain), plus the
 * degradation changes of links in both. */
static int old_link(const struct fab_link *l, void *arg)
{
	struct diff_ctx *c = arg;
	struct fab_link now;
	struct fab_event *ev;

	if (find_link(c->cur, l, &now)) {
		int was = fab_link_degraded(l->a, l->b), is = fab_link_degraded(now.a, now.b);
		int rate_changed = l->a->width_active != now.a->width_active ||
				   l->a->speed_active != now.a->speed_active;

		if (!was && !is)
			return 0;
		if (was && is && !rate_changed)
			return 0;
		ev = ev_add(c, is ? FAB_EV_LINK_DEGRADED : FAB_EV_LINK_RESTORED,
			    is ? FAB_SEV_WARNING : FAB_SEV_NOTICE);
		if (!ev)
			return -ENOMEM;
		link_subject(c, ev->subject, sizeof(ev->subject), &now);
		link_rate(ev->old_value, sizeof(ev->old_value), l->a);
		link_rate(ev->new_value, sizeof(ev->new_value), now.a);
		return 0;
	}
	/* Either way the ends' state changes are explained by this event or by
	 * the node's disappearance. */
	if (cover(c, l->a_node->guid, l->a->num) < 0 || cover(c, l->b_node->guid, l->b->num) < 0)
		return -ENOMEM;
	if (!fab_find(c->cur, l->a_node->guid) || !fab_find(c->cur, l->b_node->guid))
		return 0;
	if (!(ev = ev_add(c, FAB_EV_LINK_DOWN, FAB_SEV_WARNING)))
		return -ENOMEM;
	link_subject(c, ev->subject, sizeof(ev->subject), l);
	link_rate(ev->old_value, sizeof(ev->old_value), l->a);
	return 0;
}

static int new_link(const struct fab_link *l, void *arg)
{
	struct diff_ctx *c = arg;
	struct fab_link then;
	struct fab_event *ev;

	if (find_link(c->old, l, &then))
		return 0;
	if (cover(c, l->a_node->guid, l->a->num) < 0 || cover(c, l->b_node->guid, l->b->num) < 0)
		return -ENOMEM;
	if (!fab_find(c->old, l->a_node->guid) || !fab_find(c->old, l->b_node->guid))
		return 0; /* reported as the node's appearance */
	if (!(ev = ev_add(c, FAB_EV_LINK_UP, FAB_SEV_NOTICE)))
		return -ENOMEM;
	link_subject(c, ev->subject, sizeof(ev->subject), l);
	link_rate(ev->new_value, sizeof(ev->new_value), l->a);
	return 0;
}

static void port_state_str(char *buf, size_t len, const struct fab_port *p)
{
	if (!p->present)
		field(buf, len, "absent");
	else
		field(buf, len, "%s/%s", ibt_port_state_name(p->state),
		      ibt_phys_state_name(p->phys_state));
}

static int diff_port(struct diff_ctx *c, const struct fab_node *on, const struct fab_node *n,
		     unsigned num)
{
	static const struct fab_port absent;
	const struct fab_port *op = num <= on->nports ? &on->ports[num] : &absent;
	const struct fab_port *p = num <= n->nports ? &n->ports[num] : &absent;
	struct fab_event *ev;

	if ((op->present != p->present || op->state != p->state ||
	     op->phys_state != p->phys_state) && !is_covered(c, n->guid, num)) {
		/* Getting worse (a lower logical state, or gone) is a warning. */
		int worse = !p->present || (op->present && p->state < op->state);

		if (!(ev = ev_add(c, FAB_EV_PORT_STATE, worse ? FAB_SEV_WARNING : FAB_SEV_NOTICE)))
			return -ENOMEM;
		port_subject(c, ev->subject, sizeof(ev->subject), n, num);
		port_state_str(ev->old_value, sizeof(ev->old_value), op);
		port_state_str(ev->new_value, sizeof(ev->new_value), p);
	}
	if (op->present && p->present && op->lid != p->lid &&
	    (n->type != IBT_NODE_SWITCH || num == 0)) {
		if (!(ev = ev_add(c, FAB_EV_LID_CHANGE, FAB_SEV_NOTICE)))
			return -ENOMEM;
		port_subject(c, ev->subject, sizeof(ev->subject), n, num);
		field(ev->old_value, sizeof(ev->old_value), "%u", op->lid);
		field(ev->new_value, sizeof(ev->new_value), "%u", p->lid);
	}
	return 0;
}

static int diff_nodes(struct diff_ctx *c)
{
	struct fab_event *ev;

	for (size_t i = 0; i < c->cur->n_nodes; i++) {
		const struct fab_node *n = c->cur->nodes[i];
		const struct fab_node *on = fab_find(c->old, n->guid);
		unsigned max;

		if (!on) {
			if (!(ev = ev_add(c, FAB_EV_NODE_APPEARED, FAB_SEV_NOTICE)))
				return -ENOMEM;
			node_subject(c, ev->subject, sizeof(ev->subject), n);
			field(ev->new_value, sizeof(ev->new_value), "%s", ibt_node_type_name(n->type));
			continue;
		}
		if (strcmp(on->desc, n->desc) != 0) {
			if (!(ev = ev_add(c, FAB_EV_DESC_CHANGE, FAB_SEV_INFO)))
				return -ENOMEM;
			node_subject(c, ev->subject, sizeof(ev->subject), n);
			field(ev->old_value, sizeof(ev->old_value), "%s", on->desc);
			field(ev->new_value, sizeof(ev->new_value), "%s", n->desc);
		}
		max = n->nports > on->nports ? n->nports : on->nports;
		for (unsigned p = 0; p <= max; p++) {
			int rc = diff_port(c, on, n, p);

			if (rc < 0)
				return rc;
		}
	}
	for (size_t i = 0; i < c->old->n_nodes; i++) {
		const struct fab_node *on = c->old->nodes[i];

		if (fab_find(c->cur, on->guid))
			continue;
		if (!(ev = ev_add(c, FAB_EV_NODE_DISAPPEARED, FAB_SEV_WARNING)))
			return -ENOMEM;
		node_subject(c, ev->subject, sizeof(ev->subject), on);
		field(ev->old_value, sizeof(ev->old_value), "%s", ibt_node_type_name(on->type));
	}
	return 0;
}

static int first_sweep(struct diff_ctx *c)
{
	const struct fab *f = c->cur;
	struct fab_event *ev = ev_add(c, FAB_EV_SUBNET_FIRST_SWEEP, FAB_SEV_INFO);

	if (!ev)
		return -ENOMEM;
	field(ev->subject, sizeof(ev->subject), "subnet %s", f->subnet);
	field(ev->new_value, sizeof(ev->new_value), "%zu nodes (%zu switches, %zu CAs), %zu links",
	      f->n_nodes, fab_count_type(f, IBT_NODE_SWITCH), fab_count_type(f, IBT_NODE_CA),
	      fab_count_links(f));
	return 0;
}

static int cmp_event(const void *a, const void *b)
{
	const struct fab_event *x = a, *y = b;
	int r;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if ((r = strcmp(x->subject, y->subject)) != 0)
		return r;
	if ((r = strcmp(x->old_value, y->old_value)) != 0)
		return r;
	return strcmp(x->new_value, y->new_value);
}

/* The summary kind of a kind that coalesces, else -1. */
static int summary_of(enum fab_ev_kind k)
{
	switch (k) {
	case FAB_EV_PORT_STATE: return FAB_EV_PORT_STATES;
	case FAB_EV_LID_CHANGE: return FAB_EV_LID_CHANGES;
	case FAB_EV_NODE_APPEARED: return FAB_EV_NODES_APPEARED;
	case FAB_EV_NODE_DISAPPEARED: return FAB_EV_NODES_DISAPPEARED;
	case FAB_EV_DESC_CHANGE: return FAB_EV_DESC_CHANGES;
	default: return -1;
	}
}

/* The events (sorted by kind) of each coalescing kind with more than
 * FAB_DIFF_EACH replaced by one summary: "N ports: 40 Init/LinkUp ->
 * Active/LinkUp, 2 ...; the first 0x...[1] (name)", the worst severity. */
static void coalesce(struct fab_diff *d, const char *subnet)
{
	size_t out = 0;

	for (size_t i = 0; i < d->n_events;) {
		size_t j = i;
		int sum = summary_of(d->events[i].kind);

		while (j < d->n_events && d->events[j].kind == d->events[i].kind)
			j++;
		if (sum < 0 || j - i <= FAB_DIFF_EACH) {
			memmove(&d->events[out], &d->events[i], (j - i) * sizeof(*d->events));
			out += j - i;
			i = j;
			continue;
		}
		struct fab_event ev = { .kind = (enum fab_ev_kind)sum, .severity = FAB_SEV_INFO };
		size_t off, shown = 0;

		field(ev.subject, sizeof(ev.subject), "subnet %s", subnet);
		off = (size_t)snprintf(ev.new_value, sizeof(ev.new_value), "%zu changes:", j - i);
		/* Count each distinct old -> new pair (a few kinds at most). */
		for (size_t a = i; a < j; a++) {
			size_t same = 0;
			int before = 0;

			if (d->events[a].severity > ev.severity)
				ev.severity = d->events[a].severity;
			for (size_t b = i; b < a && !before; b++)
				before = !strcmp(d->events[a].old_value, d->events[b].old_value) &&
					 !strcmp(d->events[a].new_value, d->events[b].new_value);
			if (before || d->events[a].kind == FAB_EV_LID_CHANGE)
				continue;
			for (size_t b = a; b < j; b++)
				same += !strcmp(d->events[a].old_value, d->events[b].old_value) &&
					!strcmp(d->events[a].new_value, d->events[b].new_value);
			if (shown++ < 4 && off < sizeof(ev.new_value))
				off += (size_t)snprintf(ev.new_value + off, sizeof(ev.new_value) - off,
							" %zu %s%s%s,", same, d->events[a].old_value,
							d->events[a].old_value[0] ? " -> " : "",
							d->events[a].new_value);
		}
		field(ev.old_value, sizeof(ev.old_value), "the first: %.100s", d->events[i].subject);
		if (off > 0 && off < sizeof(ev.new_value) && (ev.new_value[off - 1] == ',' || ev.new_value[off - 1] == ':'))
			ev.new_value[off - 1] = '\0';
		d->events[out++] = ev;
		i = j;
	}
	d->n_events = out;
}

struct fab_diff *fab_diff_new(const struct fab *old, const struct fab *cur,
			      const struct nodename_map *names)
{
	struct diff_ctx c = { .old = old, .cur = cur, .names = names };
	int rc;

	if (!(c.diff = calloc(1, sizeof(*c.diff)))) {
		errno = ENOMEM;
		return NULL;
	}
	if (!old) {
		rc = first_sweep(&c);
	} else {
		/* Links first: they decide which ports need no port_state event. */
		rc = fab_foreach_link(old, old_link, &c);
		if (rc == 0)
			rc = fab_foreach_link(cur, new_link, &c);
		if (rc == 0)
			rc = diff_nodes(&c);
	}
	free(c.covered);
	if (rc < 0) {
		fab_diff_free(c.diff);
		errno = -rc;
		return NULL;
	}
	if (c.diff->n_events > 1)
		qsort(c.diff->events, c.diff->n_events, sizeof(*c.diff->events), cmp_event);
	coalesce(c.diff, cur->subnet);
	return c.diff;
}

void fab_diff_free(struct fab_diff *diff)
{
	if (!diff)
		return;
	free(diff->events);
	free(diff);
}
