/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/tenants/tenants_eth.c: a tenant on RoCE is an access VLAN on exactly the
 * switch ports facing its hosts. On the loop, a change is prepared from the
 * store: every switch it touches (the tenant's ports now and before), with
 * all of each one's host-facing ports. Then the tenant worker thread, after
 * the InfiniBand part, on those switches one after another, each through
 * its own plugin handle:
 *  1. read every host-facing port's access VLAN (vlan_get);
 *  2. set the VLAN on each member port that lacks it, clear it from each
 *     other port that holds it (vlan_set / vlan_clear);
 *  3. read them all back: each member holds the VLAN, no other port does.
 * Anything short of that puts every port it changed, on every switch, back
 * to the VLAN it had in step 1, and the change fails naming the switch and
 * port: a tenant is never left half isolated. A check (t->once) only reads. */
#include "autoconf.h"
#include "daemon/tenants/tenants_impl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/log.h"
#include "daemon/roce/switch_open.h"
#include "daemon/tenants/store_tenants.h"

const struct loom_switch_conf *tenants_eth_switch_conf(const struct tenants_settings *c,
						       const char *name)
{
	for (int i = 0; i < c->sw.n_switches; i++)
		if (!strcmp(c->sw.switches[i].name, name))
			return &c->sw.switches[i];
	return NULL;
}

/* ---- the loop: the switches of one change -------------------------------------- */

static struct top_switch *eth_switch(struct tenants_mod *m, struct top *t, const char *name,
				     char *err, size_t errlen)
{
	const struct loom_switch_conf *sc;
	struct top_switch *s, *v;

	for (size_t i = 0; i < t->n_eth; i++)
		if (!strcmp(t->eth[i].sw.name, name))
			return &t->eth[i];
	if (!(sc = tenants_eth_switch_conf(m->conf, name))) {
		snprintf(err, errlen, "switch %s is no longer in loom.yaml's switches", name);
		return NULL;
	}
	if (!(v = realloc(t->eth, (t->n_eth + 1) * sizeof(*v)))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->eth = v;
	s = &t->eth[t->n_eth++];
	memset(s, 0, sizeof(*s));
	s->sw = *sc;
	s->ops = plugin_cache_get(m->plugins, m->conf->plugin_dir, sc->plugin, s->plugin_err,
				  sizeof(s->plugin_err));
	return s;
}

static int eth_port(struct top_switch *s, const char *port, int member)
{
	size_t i;

	for (i = 0; i < s->n_ports && strcmp(s->ports[i], port); i++)
		;
	if (i == s->n_ports) {
		void *p = realloc(s->ports, (i + 1) * sizeof(*s->ports));
		void *b;

		if (!p)
			return -ENOMEM;
		s->ports = p;
		if (!(b = realloc(s->member, i + 1)))
			return -ENOMEM;
		s->member = b;
		snprintf(s->ports[i], sizeof(s->ports[i]), "%s", port);
		s->member[i] = 0;
		s->n_ports++;
	}
	s->member[i] |= (uint8_t)member;
	return 0;
}

int tenants_eth_prepare(struct tenants_mod *m, struct top *t, const json_t *cur, char *err,
			size_t errlen)
{
	const json_t *sets[] = { cur ? json_object_get(cur, "eth_ports") : NULL,
				 t->prev ? json_object_get(t->prev, "eth_ports") : NULL };
	json_t *all = NULL, *x;
	size_t i;
	int rc = 0;

	for (int k = 0; k < 2; k++)
		json_array_foreach(sets[k], i, x) {
			const char *sw = json_string_value(json_object_get(x, "switch"));
			const char *port = json_string_value(json_object_get(x, "port"));
			struct top_switch *s;

			/* A port the tenant leaves, on a switch taken out of
			 * loom.yaml: loom cannot reach it any more, and must
			 * not keep the tenant from being changed or deleted. */
			if (k == 1 && !tenants_eth_switch_conf(m->conf, sw)) {
				log_warn("tenant %s: switch %s is no longer in loom.yaml: %s keeps "
					 "VLAN %u", t->name, sw, port, t->vlan);
				continue;
			}
			if (!(s = eth_switch(m, t, sw, err, errlen)))
				return -ENOENT;
			if (eth_port(s, port, k == 0) < 0) {
				snprintf(err, errlen, "out of memory");
				return -ENOMEM;
			}
		}
	if (!t->n_eth)
		return 0;
	/* Every other host-facing port of those switches must not hold the VLAN. */
	if (store_tenant_eth_host_ports(m->store, &all) < 0) {
		snprintf(err, errlen, "cannot read the switches' ports from the database");
		return -EIO;
	}
	json_array_foreach(all, i, x) {
		const char *sw = json_string_value(json_object_get(x, "switch"));

		for (size_t k = 0; k < t->n_eth && rc == 0; k++)
			if (!strcmp(t->eth[k].sw.name, sw))
				rc = eth_port(&t->eth[k],
					      json_string_value(json_object_get(x, "port")), 0);
	}
	json_decref(all);
	if (rc < 0)
		snprintf(err, errlen, "out of memory");
	return rc;
}

/* ---- the worker ------------------------------------------------------------------ */

/* Say what failed, naming the switch (and port); keeps the first error. */
__attribute__((format(printf, 3, 4)))
static void switch_fail(struct top *t, const struct top_switch *s, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	if (t->err[0])
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(t->err, sizeof(t->err), "VLAN %u: switch %s: %s", t->vlan, s->sw.name, msg);
}

/* Steps 1 and 2 on one switch. */
static int converge(struct top *t, struct top_switch *s)
{
	char err[512] = "";
	int rc;

	if (!s->ops) {
		switch_fail(t, s, "%s", s->plugin_err);
		return -ENOENT;
	}
	if (!(s->before = calloc(s->n_ports + 1, sizeof(*s->before))) ||
	    !(s->changed = calloc(s->n_ports + 1, 1))) {
		switch_fail(t, s, "out of memory");
		return -ENOMEM;
	}
	if ((rc = switch_open(s->ops, &s->sw, &s->h, err, sizeof(err))) < 0) {
		switch_fail(t, s, "%s", err);
		return rc;
	}
	for (size_t i = 0; i < s->n_ports; i++)
		if ((rc = s->ops->vlan_get(s->h, s->ports[i], &s->before[i], err, sizeof(err))) < 0) {
			switch_fail(t, s, "%s: %s", s->ports[i], err);
			return rc;
		}
	if (t->once)
		return 0;
	/* HA: a node that lost the lease pushes nothing more (the new leader
	 * owns the switches now). */
	if (tenants_fence_lost(t))
		return t->rc;
	for (size_t i = 0; i < s->n_ports; i++) {
		int has = s->before[i] == t->vlan;

		if (s->member[i] && !has)
			rc = s->ops->vlan_set(s->h, s->ports[i], (uint16_t)t->vlan, err, sizeof(err));
		else if (!s->member[i] && has)
			rc = s->ops->vlan_clear(s->h, s->ports[i], err, sizeof(err));
		else
			continue;
		/* A failed call may still have changed the port: undo it too. */
		s->changed[i] = 1;
		if (!t->n_repaired++)
			snprintf(t->repaired, sizeof(t->repaired), "switch %s %s: VLAN %u -> %u",
				 s->sw.name, s->ports[i], s->before[i], s->member[i] ? t->vlan : 0);
		if (rc < 0) {
			switch_fail(t, s, "%s: %s", s->ports[i], err);
			return rc;
		}
	}
	return 0;
}

/* Step 3 on one switch. */
static int check(struct top *t, struct top_switch *s)
{
	size_t missing = 0, extra = 0;
	char err[512] = "", first[160] = "";
	int rc;

	for (size_t i = 0; i < s->n_ports; i++) {
		uint16_t vid;

		if ((rc = s->ops->vlan_get(s->h, s->ports[i], &vid, err, sizeof(err))) < 0) {
			switch_fail(t, s, "reading %s back: %s", s->ports[i], err);
			return rc;
		}
		if (s->member[i] && vid != t->vlan)
			missing++;
		else if (!s->member[i] && vid == t->vlan)
			extra++;
		else
			continue;
		if (!first[0])
			snprintf(first, sizeof(first), "%s %s it, VLAN %u", s->ports[i],
				 s->member[i] ? "lacks" : "holds", vid);
	}
	if (!missing && !extra)
		return 0;
	switch_fail(t, s, "%zu member port%s without it, %zu other port%s with it (first: %s)", missing,
		    missing == 1 ? "" : "s", extra, extra == 1 ? "" : "s", first);
	return -EAGAIN;
}

/* Put back what converge() changed on one switch. */
static void undo(struct top *t, struct top_switch *s)
{
	char err[512];

	for (size_t i = 0; s->h && s->changed && i < s->n_ports; i++) {
		int rc;

		if (!s->changed[i])
			continue;
		rc = s->before[i] ? s->ops->vlan_set(s->h, s->ports[i], s->before[i], err,
						     sizeof(err))
				  : s->ops->vlan_clear(s->h, s->ports[i], err, sizeof(err));
		if (rc < 0)
			log_err("tenant %s: switch %s: %s could not be put back to VLAN %u: %s",
				t->name, s->sw.name, s->ports[i], s->before[i], err);
		else
			log_notice("tenant %s: switch %s: %s put back to VLAN %u", t->name,
				   s->sw.name, s->ports[i], s->before[i]);
	}
}

int tenants_eth_apply(struct top *t)
{
	int rc = 0;

	for (size_t k = 0; k < t->n_eth && rc == 0; k++)
		rc = converge(t, &t->eth[k]);
	for (size_t k = 0; k < t->n_eth && rc == 0; k++)
		rc = check(t, &t->eth[k]);
	if (rc < 0 && !t->lost)  /* lost: the new leader owns the ports */
		for (size_t k = 0; k < t->n_eth; k++)
			undo(t, &t->eth[k]);
	for (size_t k = 0; k < t->n_eth; k++)
		if (t->eth[k].h) {
			t->eth[k].ops->close(t->eth[k].h);
			t->eth[k].h = NULL;
		}
	return rc;
}

void tenants_eth_free(struct top *t)
{
	for (size_t k = 0; k < t->n_eth; k++) {
		free(t->eth[k].ports);
		free(t->eth[k].member);
		free(t->eth[k].before);
		free(t->eth[k].changed);
	}
	free(t->eth);
	t->eth = NULL;
	t->n_eth = 0;
}
