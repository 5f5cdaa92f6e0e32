/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/report.c: the findings' catalogue and list (report.h). */
#include "autoconf.h"
#include "lib/validate/report.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	enum val_severity sev;
	const char *what;
} codes[VAL_CODE_COUNT] = {
	[VAL_MISSING] = { "missing", VAL_ERROR, "a planned cable is not there" },
	[VAL_SWAPPED] = { "swapped", VAL_ERROR, "two planned cables are plugged crosswise" },
	[VAL_MISWIRED] = { "miswired", VAL_ERROR,
			   "the planned nodes are cabled, another port at one end" },
	[VAL_WRONG_PEER] = { "wrong-peer", VAL_ERROR, "a planned port is cabled to another node" },
	[VAL_EXTRA] = { "extra", VAL_ERROR, "a cable the plan does not have" },
	[VAL_SLOW] = { "slow", VAL_WARNING, "a cable below the plan's width or speed" },
	[VAL_UNKNOWN_NODE] = { "unknown-node", VAL_ERROR,
			       "a planned node that no node of the fabric (or several) describes" },
	[VAL_RENAMED] = { "renamed", VAL_WARNING,
			  "a planned node found by its GUID under another description" },
	[VAL_DEGRADED] = { "degraded", VAL_WARNING,
			   "a link below the best width or speed both ends support" },
	[VAL_DUP_NODE_GUID] = { "dup-node-guid", VAL_ERROR, "one node GUID on two nodes" },
	[VAL_DUP_PORT_GUID] = { "dup-port-guid", VAL_ERROR, "one port GUID on two ports" },
	[VAL_DUP_DESC] = { "dup-desc", VAL_WARNING, "one node description on several nodes" },
	[VAL_EMPTY_DESC] = { "empty-desc", VAL_WARNING, "a node without a description" },
	[VAL_LID_CONFLICT] = { "lid-conflict", VAL_ERROR, "one LID on two ports" },
	[VAL_LID_UNASSIGNED] = { "lid-unassigned", VAL_ERROR, "an active port without a LID" },
	[VAL_PORT_STUCK] = { "port-stuck", VAL_ERROR, "a linked port left in INIT or ARMED" },
	[VAL_MTU_MISMATCH] = { "mtu-mismatch", VAL_WARNING,
			       "the two ends of a link at different MTUs" },
	[VAL_VL_MISMATCH] = { "vl-mismatch", VAL_WARNING,
			      "the two ends of a link with different VL capabilities" },
	[VAL_PORT_COUNT] = { "port-count", VAL_WARNING,
			     "a switch with another port count than the others of its level" },
	[VAL_LEAF_UPLINKS] = { "leaf-uplinks", VAL_ERROR,
			       "a leaf with another uplink count than the other leaves" },
	[VAL_LEAF_LINK] = { "leaf-link", VAL_ERROR, "two leaf switches cabled to each other" },
	[VAL_UNREACHABLE] = { "unreachable", VAL_ERROR,
			      "a leaf that reaches another leaf only on a path that is not up-down" },
	[VAL_BER] = { "ber", VAL_WARNING, "a link whose symbol errors exceed the BER threshold" },
	/* issue 43, partitions */
	[VAL_PART_DEFAULT] = { "default-partition", VAL_WARNING,
			       "a host port's membership of the default partition is not the "
			       "policy's (validation.default_partition)" },
	[VAL_PART_MEMBER] = { "partition-member", VAL_ERROR,
			      "a tenant's port without the tenant's PKey (or with the other "
			      "membership)" },
	[VAL_PART_INTRUDER] = { "partition-intruder", VAL_ERROR,
				"a port holding a tenant's PKey that loom did not put there" },
	[VAL_PART_SHARED] = { "partition-shared", VAL_ERROR,
			      "a port holding the PKeys of two tenants" },
	[VAL_PART_UNENFORCED] = { "partition-unenforced", VAL_WARNING,
				  "the switch port facing a host lacks the host's partition: "
				  "not enforced there" },
	/* issue 43, rails and Ethernet cabling */
	[VAL_RAIL_STRAY] = { "rail-stray", VAL_ERROR,
			     "an HCA cabled to a leaf whose other HCAs are on another rail" },
	[VAL_RAIL_TIE] = { "rail-tie", VAL_ERROR,
			   "a leaf whose HCAs are on two or more rails, none the most" },
	/* issue 43, subnet managers and keys */
	[VAL_SM_MASTERS] = { "sm-masters", VAL_ERROR, "more than one subnet manager is MASTER" },
	[VAL_SM_UNLISTED] = { "sm-unlisted", VAL_ERROR,
			      "a subnet manager that validation.sm_allowed does not name" },
	[VAL_SM_STALLED] = { "sm-stalled", VAL_ERROR,
			     "a subnet manager that does not answer, or a MASTER whose activity "
			     "count stopped" },
	[VAL_SM_PRIORITY] = { "sm-priority", VAL_WARNING,
			      "a STANDBY subnet manager with a higher priority than the MASTER" },
	[VAL_MKEY_UNSET] = { "m-key-unset", VAL_WARNING,
			     "ports without an M_Key (M_Key 0, protect bits 0)" },
	[VAL_MKEY_UNPROTECTED] = { "m-key-unprotected", VAL_WARNING,
				   "ports whose M_Key any SubnGet reads (protect bits 0)" },
	/* issue 43, multicast */
	[VAL_MCAST_UNREACHED] = { "mcast-unreached", VAL_ERROR,
				  "a multicast group member that the group's tree does not "
				  "join to the other members" },
	[VAL_MCAST_LOOP] = { "mcast-loop", VAL_ERROR,
			     "a cycle of switch links that forward a multicast group" },
	[VAL_MCAST_NOT_UPDOWN] = { "mcast-not-updown", VAL_WARNING,
				   "a multicast tree that goes down, then up again (fat tree)" },
	[VAL_MCAST_LEAK] = { "mcast-leak", VAL_WARNING,
			     "a switch forwarding a multicast group to a port that is not a member" },
};

const char *val_code_name(enum val_code c)
{
	return (unsigned)c < VAL_CODE_COUNT ? codes[c].name : "?";
}

enum val_code val_code_of(const char *name)
{
	for (unsigned i = 0; i < VAL_CODE_COUNT; i++)
		if (!strcmp(codes[i].name, name))
			return (enum val_code)i;
	return VAL_CODE_COUNT;
}

enum val_severity val_code_severity(enum val_code c)
{
	return (unsigned)c < VAL_CODE_COUNT ? codes[c].sev : VAL_ERROR;
}

const char *val_code_what(enum val_code c)
{
	return (unsigned)c < VAL_CODE_COUNT ? codes[c].what : "";
}

const char *val_severity_name(enum val_severity s)
{
	return s == VAL_ERROR ? "error" : "warning";
}

int val_add(struct val_report *r, enum val_code code, unsigned line, const char *want,
	    const char *got, const char *fmt, ...)
{
	struct val_finding *f;
	va_list ap;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 32;
		struct val_finding *nf = realloc(r->f, cap * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		r->f = nf;
		r->cap = cap;
	}
	f = &r->f[r->n++];
	memset(f, 0, sizeof(*f));
	f->code = code;
	f->sev = val_code_severity(code);
	f->line = line;
	snprintf(f->want, sizeof(f->want), "%s", want ? want : "");
	snprintf(f->got, sizeof(f->got), "%s", got ? got : "");
	va_start(ap, fmt);
	vsnprintf(f->subject, sizeof(f->subject), fmt, ap);
	va_end(ap);
	return 0;
}

void val_report_clear(struct val_report *r)
{
	free(r->f);
	memset(r, 0, sizeof(*r));
}

static int finding_cmp(const void *x, const void *y)
{
	const struct val_finding *a = x, *b = y;
	int c;

	if (a->sev != b->sev)
		return a->sev < b->sev ? -1 : 1;
	if ((c = strcmp(a->subject, b->subject)))
		return c;
	return a->code < b->code ? -1 : a->code > b->code;
}

void val_report_sort(struct val_report *r)
{
	if (r->n > 1)
		qsort(r->f, r->n, sizeof(*r->f), finding_cmp);
}

/* The two ends of a link subject "A[p] - B[q]" in one order, so that the
 * plan's orientation and the fabric's compare equal. 0, or -1 for another
 * subject. */
static int link_key(const char *subject, char *out, size_t len)
{
	const char *sep = strstr(subject, "] - ");
	char a[sizeof(((struct val_finding *)0)->subject)];
	const char *b;

	if (!sep || subject[strlen(subject) - 1] != ']')
		return -1;
	snprintf(a, sizeof(a), "%.*s", (int)(sep + 1 - subject), subject);
	b = sep + 4;
	if (strcmp(a, b) <= 0)
		snprintf(out, len, "%s|%s", a, b);
	else
		snprintf(out, len, "%s|%s", b, a);
	return 0;
}

static int str_cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static int is_cabling(enum val_code c)
{
	return c == VAL_MISSING || c == VAL_SWAPPED || c == VAL_MISWIRED ||
	       c == VAL_WRONG_PEER || c == VAL_EXTRA;
}

/* The names of the nodes in a cabling finding's text ("A[p] - B[q], C[r]
 * and D[s]"): each end is a name and a bracketed port, the ends joined by
 * " - ", ", " or " and ". */
static int add_names(const char *text, char ***v, size_t *n, size_t *cap)
{
	const char *s = text;

	while (*s) {
		const char *br = strchr(s, '['), *close;

		if (!br || !(close = strchr(br, ']')))
			return 0;
		if (*n == *cap) {
			char **nv = realloc(*v, (*cap = *cap ? 2 * *cap : 16) * sizeof(**v));

			if (!nv)
				return -1;
			*v = nv;
		}
		if (!((*v)[*n] = strndup(s, (size_t)(br - s))))
			return -1;
		(*n)++;
		s = close + 1;
		while (*s == ' ' || *s == '-' || *s == ',')
			s++;
		if (!strncmp(s, "and ", 4))
			s += 4;
	}
	return 0;
}

/* issue 43: a rail-stray ("HCA[p] - leaf[q]") whose HCA a cabling finding
 * names: the plan's finding already moves that cable. */
static int rail_explained(const struct val_finding *f, char **names, size_t n)
{
	char hca[sizeof(f->subject)], *key = hca;
	const char *br = strchr(f->subject, '[');

	if (f->code != VAL_RAIL_STRAY || !br)
		return 0;
	snprintf(hca, sizeof(hca), "%.*s", (int)(br - f->subject), f->subject);
	return bsearch(&key, names, n, sizeof(*names), str_cmp) != NULL;
}

/* A fat tree's structural finding on a node that a cabling finding names
 * says the same fault again (the missing uplink is why the leaf has one
 * uplink less): the plan's finding is the one a technician acts on. */
static void drop_explained(struct val_report *r)
{
	char **names = NULL;
	size_t n = 0, cap = 0, i, out = 0;

	for (i = 0; i < r->n; i++)
		if (is_cabling(r->f[i].code) &&
		    (add_names(r->f[i].subject, &names, &n, &cap) < 0 ||
		     add_names(r->f[i].want, &names, &n, &cap) < 0))
			goto out;   /* out of memory: nothing dropped */
	if (!n)
		goto out;
	qsort(names, n, sizeof(*names), str_cmp);
	for (i = 0; i < r->n; i++) {
		const char *key = r->f[i].subject;

		if ((r->f[i].code == VAL_LEAF_UPLINKS || r->f[i].code == VAL_UNREACHABLE) &&
		    bsearch(&key, names, n, sizeof(*names), str_cmp))
			continue;
		if (rail_explained(&r->f[i], names, n))
			continue;
		r->f[out++] = r->f[i];
	}
	r->n = out;
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* A link's `degraded` when the plan's `slow` says the same of it. */
static void drop_shadowed(struct val_report *r)
{
	size_t i, n_slow = 0, out = 0;
	char **slow = NULL, key[520], *kp = key;

	for (i = 0; i < r->n; i++)
		n_slow += r->f[i].code == VAL_SLOW;
	if (n_slow && (slow = calloc(n_slow, sizeof(*slow)))) {
		n_slow = 0;
		for (i = 0; i < r->n; i++)
			if (r->f[i].code == VAL_SLOW && link_key(r->f[i].subject, key, sizeof(key)) == 0 &&
			    (slow[n_slow] = strdup(key)))
				n_slow++;
		qsort(slow, n_slow, sizeof(*slow), str_cmp);
		for (i = 0; i < r->n; i++)
			if (!(r->f[i].code == VAL_DEGRADED &&
			      link_key(r->f[i].subject, key, sizeof(key)) == 0 &&
			      bsearch(&kp, slow, n_slow, sizeof(*slow), str_cmp)))
				r->f[out++] = r->f[i];
		r->n = out;
		for (i = 0; i < n_slow; i++)
			free(slow[i]);
		free(slow);
	}
}

void val_report_settle(struct val_report *r)
{
	drop_explained(r);
	drop_shadowed(r);
	val_report_sort(r);
}

size_t val_count(const struct val_report *r, enum val_severity sev)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		n += r->f[i].sev == sev;
	return n;
}
