/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/tenants/tenants_ib.c: a tenant on InfiniBand is a partition key on
 * exactly the HCA ports of its hosts. loom owns a partitions file (the
 * operator's static partitions, then one per tenant), rewritten whole from
 * the store at each change; OpenSM re-reads it in the heavy sweep loom
 * asks for (through libloomosm.so, else SIGHUP: daemon/routing/opensm_sweep.h). A change is confirmed
 * by reading the PKey tables of every CA port of every swept subnet back
 * (`loomd --read-pkeys` children) until the key is on each member port,
 * with the membership asked, and on no other port. The children are handed
 * each subnet's last swept fabric, as validation's are (issue 44: the walk
 * was 90% of a read); a read that fails with it, or that does not find a
 * member's port (a host cabled since that sweep), walks the subnet from then
 * on. */
#include "autoconf.h"
#include "daemon/tenants/tenants_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "lib/util/clock.h"
#include "lib/util/log.h"
#include "lib/fabric/partitions.h"
#include "daemon/core/store.h"
#include "daemon/core/file_atomic.h"
#include "daemon/tenants/store_tenants.h"
#include "daemon/ib/swept_subnets.h"


/* The file's text from the store's tenants. NULL with err. */
char *tenants_ib_file_text(struct tenants_mod *m, char *err, size_t errlen)
{
	json_t *list = NULL, *t;
	struct part_tenant *pt = NULL;
	uint64_t **guids = NULL;
	char *static_text = NULL, *text = NULL;
	size_t i, n = 0, np = 0;

	if (m->conf->t.tenant_static_partitions[0] &&
	    !(static_text = file_read_text(m->conf->t.tenant_static_partitions, err, errlen)))
		return NULL;
	if (store_tenant_list(m->store, &list) < 0) {
		snprintf(err, errlen, "cannot read the tenants from the database");
		goto out;
	}
	n = json_array_size(list);
	pt = calloc(n + 1, sizeof(*pt));
	guids = calloc(n + 1, sizeof(*guids));
	if (!pt || !guids)
		goto nomem;
	json_array_foreach(list, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		json_t *full = NULL, *ports, *p;
		const char *cls;
		size_t k;

		if (!json_object_get(t, "pkey"))
			continue; /* Ethernet only: no partition */

		if (store_tenant_get(m->store, name, &full) < 0) {
			snprintf(err, errlen, "cannot read tenant %s from the database", name);
			goto out;
		}
		ports = json_object_get(full, "ports");
		guids[i] = calloc(json_array_size(ports) + 1, sizeof(**guids));
		if (!guids[i]) {
			json_decref(full);
			goto nomem;
		}
		json_array_foreach(ports, k, p)
			guids[i][k] = strtoull(json_string_value(json_object_get(p, "guid")), NULL, 16);
		pt[np] = (struct part_tenant){
			.name = name, .pkey = (unsigned)json_integer_value(json_object_get(t, "pkey")),
			.limited = !strcmp(json_string_value(json_object_get(t, "membership")),
					   "limited"),
			.guids = guids[i], .n_guids = json_array_size(ports),
		};
		/* The class's SL as loom.yaml says now; a class it no longer
		 * has leaves the partition on the default SL, said in the log. */
		if ((cls = json_string_value(json_object_get(t, "class")))) {
			int sl = ibqos_class_sl(&m->conf->ib_qos, cls);

			if (sl >= 0) {
				pt[np].has_sl = 1;
				pt[np].sl = (unsigned)sl;
			} else {
				log_warn("tenant %s: class %s is not in ib_qos.classes: its "
					 "partition keeps the default SL", name, cls);
			}
		}
		np++;
		json_decref(full);
	}
	if (!(text = part_file_new(static_text, pt, np)))
		goto nomem;
	goto out;
nomem:
	snprintf(err, errlen, "out of memory");
out:
	for (i = 0; guids && i < n; i++)
		free(guids[i]);
	free(guids);
	free(pt);
	json_decref(list);
	free(static_text);
	return text;
}




/* ---- the worker's part ---------------------------------------------------- */

/* Is the key (15 bits, any membership) in a port's table? Its entry, or 0. */
static unsigned entry_of(const json_t *keys, unsigned pkey)
{
	size_t i;
	json_t *k;

	json_array_foreach(keys, i, k)
		if (((unsigned)json_integer_value(k) & 0x7fff) == pkey)
			return (unsigned)json_integer_value(k);
	return 0;
}

/* Compare one read of every subnet with what the tenant wants; 0 when it
 * holds, else -EAGAIN and err names the ports that are wrong. */
static int judge(const struct top *t, json_t *const *reads, size_t n_sub, size_t *unseen_out,
		 char *err, size_t errlen)
{
	unsigned want = t->limited ? t->pkey : t->pkey | 0x8000;
	size_t missing = 0, extra = 0, wrong = 0, unseen = 0, sw_missing = 0, sw_extra = 0;
	int check_sw = t->m->conf->t.tenant_check_switch_ports;
	char first[160] = "", ca[32];
	const char *guid;
	json_t *v;

	for (size_t s = 0; s < n_sub; s++)
		json_object_foreach(reads[s], guid, v) {
			unsigned e = entry_of(v, t->pkey);
			int sw = strstr(guid, "/sw") != NULL;
			int member;

			/* A switch port is judged by the CA port it faces; it
			 * holds the key, whatever the CA's membership. */
			snprintf(ca, sizeof(ca), "%.*s", (int)strcspn(guid, "/"), guid);
			member = t->members && json_object_get(t->members, ca);
			if (sw && !check_sw)
				continue;
			if (sw && member && !e)
				sw_missing++;
			else if (sw && !member && e)
				sw_extra++;
			else if (sw)
				continue;
			else if (member && !e)
				missing++;
			else if (member && e != want)
				wrong++;
			else if (!member && e)
				extra++;
			else
				continue;
			if (!first[0])
				snprintf(first, sizeof(first), "%s%s %s 0x%04x",
					 sw ? "the switch port facing " : "", ca,
					 member ? "lacks" : "holds", sw ? t->pkey : want);
		}
	json_object_foreach(t->members, guid, v) {
		size_t s;

		for (s = 0; s < n_sub && !json_object_get(reads[s], guid); s++)
			;
		if (s == n_sub && !unseen++ && !first[0])
			snprintf(first, sizeof(first), "%s was not found in any subnet", guid);
	}
	*unseen_out = unseen;
	if (!missing && !extra && !wrong && !unseen && !sw_missing && !sw_extra)
		return 0;
	snprintf(err, errlen, "PKey 0x%04x: %zu member port%s without it, %zu with the wrong "
		 "membership, %zu other port%s with it, %zu member port%s not found; switch "
		 "ports: %zu facing members without it, %zu facing others with it (first: %s)",
		 t->pkey, missing, missing == 1 ? "" : "s", wrong, extra, extra == 1 ? "" : "s",
		 unseen, unseen == 1 ? "" : "s", sw_missing, sw_extra, first);
	return -EAGAIN;
}

/* The read walks every subnet from now on. */
static void forget_fabs(struct top *t)
{
	for (size_t s = 0; s < LOOM_MAX_SUBNETS; s++) {
		fab_free(t->fabs[s]);
		t->fabs[s] = NULL;
	}
}

int tenants_ib_apply(struct top *t, struct top **tops, size_t n, double deadline)
{
	struct tenants_mod *m = t->m;
	size_t n_sub = t->sub ? t->sub->n : 0;
	json_t **reads = calloc(n_sub + 1, sizeof(*reads));
	char why[1024] = "";
	size_t left = n, unseen = 0;
	int signalled = 0, rc = 0, pid;

	for (size_t i = 0; i < n; i++)
		tops[i]->rc = -EAGAIN;
	if (!reads) {
		snprintf(t->err, sizeof(t->err), "out of memory");
		return -ENOMEM;
	}
	if (t->file_text) {
		/* HA: the file and OpenSM are the leader's (fencing) */
		if (tenants_fence_lost(t)) {
			rc = t->rc;
			goto out;
		}
		if ((rc = file_write_atomic(m->conf->t.tenant_partitions_file, t->file_text,
						t->err, sizeof(t->err))) < 0)
			goto out;
		if (tenants_fence_lost(t)) {
			rc = t->rc;
			goto out;
		}
		if (opensm_sweep_ask(&t->osm, "tenants", &pid, why, sizeof(why)) == 0) {
			log_info("tenants: %s rewritten, OpenSM re-reads it (%s)",
				 m->conf->t.tenant_partitions_file, why);
			signalled = 1;
		}
	}
	/* One read of the fabric a pass, judged against every tenant asked,
	 * until each holds, or has had its one read (no_wait), or the time is
	 * up. */
	for (int pass = 0;; pass++) {
		int read_ok = 1, handed = 0, redo = 0;

		for (size_t s = 0; s < n_sub; s++) {
			json_decref(reads[s]);
			reads[s] = NULL;
			handed |= t->fabs[s] != NULL;
			if (t->fabs[s] && pkey_read_run_fab(&t->sub->p[s], t->fabs[s], &reads[s],
							    t->err, sizeof(t->err)) < 0) {
				log_info("tenants: subnet %s: the PKey read on its last swept "
					 "fabric failed (%s): walking it", t->sub->names[s], t->err);
				forget_fabs(t);
			}
			if (!reads[s] &&
			    pkey_read_run(&t->sub->p[s], &reads[s], t->err, sizeof(t->err)) < 0) {
				read_ok = 0;
				break;
			}
		}
		left = 0;
		for (size_t i = 0; i < n; i++) {
			struct top *x = tops[i];

			if (x->rc == 0 || (pass > 0 && x->no_wait))
				continue;
			if (!read_ok) {
				x->rc = -EIO;
				if (x != t)
					snprintf(x->err, sizeof(x->err), "%s", t->err);
			} else if ((x->rc = judge(x, reads, n_sub, &unseen, x->err,
						  sizeof(x->err))) == 0) {
				x->err[0] = '\0';
				continue;
			} else if (unseen && handed) {
				redo = 1;
			}
			left += !x->no_wait;
		}
		if (redo) {  /* a member's port cabled since the sweep: read again, walking */
			log_info("tenants: a member's port is not in the last swept fabric: "
				 "reading again with a walk");
			forget_fabs(t);
			pass--;
			continue;
		}
		if (!left || clock_wall() >= deadline || t->once)
			break;
		/* HA: the lease lost while waiting: the new leader owns it now */
		if (tenants_fence_lost(t))
			break;
		usleep(500000);
	}
	rc = t->lost ? t->rc : 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = tops[i]->rc;
	if (rc < 0 && t->file_text && !signalled && why[0]) {
		size_t l = strlen(t->err);

		snprintf(t->err + l, sizeof(t->err) - l, "; %s", why);
	}
out:
	for (size_t s = 0; s < n_sub; s++)
		json_decref(reads[s]);
	free(reads);
	return rc;
}

void tenants_ib_rewrite(struct tenants_mod *m, const char *why)
{
	char err[512] = "";
	char *text;

	if ((text = tenants_ib_file_text(m, err, sizeof(err))) &&
	    file_write_atomic(m->conf->t.tenant_partitions_file, text, err, sizeof(err)) == 0) {
		struct opensm_sweep s;
		char how[1024];
		int pid;

		opensm_sweep_find(m->osm, m->conf->t.tenant_opensm_pid_file, m->store, &s);
		if (opensm_sweep_ask(&s, "tenants", &pid, how, sizeof(how)) == 0)
			log_notice("tenants: %s rewritten (%s), OpenSM re-reads it (%s)",
				   m->conf->t.tenant_partitions_file, why, how);
		else
			log_warn("tenants: %s rewritten (%s), but OpenSM was not asked to re-read "
				 "it: %s", m->conf->t.tenant_partitions_file, why, how);
	} else {
		log_err("tenants: %s: cannot rewrite the partitions file: %s", why, err);
	}
	free(text);
}

/* The IB subnets to read (every swept one), with the configured MAD limits. */
int tenants_ib_fill_subnets(struct tenants_mod *m, struct top *t)
{

	if (!t->sub && !(t->sub = calloc(1, sizeof(*t->sub))))
		return -ENOMEM;
	if (swept_subnets_get(m->store, &m->conf->mad, t->sub) < 0)
		return -EIO;
	for (size_t s = 0; s < t->sub->n; s++) {
		int k = swept_fabs_find(&m->fabs, t->sub->names[s]);

		fab_free(t->fabs[s]);
		t->fabs[s] = k >= 0 ? fab_hold(m->fabs.s[k].last) : NULL;
	}
	return t->sub->n ? 0 : -ENOENT;
}
