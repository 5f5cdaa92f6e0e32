/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/discovery_part.c: see discovery_part.h.
 *
 * Why walk from the switch rather than read a few PortInfos: libibnetdisc's
 * partial walk (a start node, one hop) reads the switch, every neighbour and
 * the nodes on the way with the same queries and the same mapping
 * (discovery_ib.c's disc_ib_map) as the full walk, so what it records is
 * what the full walk would, field for field. About (ports + 1) x (radix +
 * 2) SMPs per switch: tens of milliseconds, where the full walk of a large
 * subnet takes seconds. */
#include "autoconf.h"
#include "daemon/ib/discovery_part.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "daemon/ib/dr_route.h"
#include "daemon/ib/walker.h"
#include "lib/fabric/fabric_part.h"
#include "lib/fabric/fabric_wire.h"
#include "lib/util/log.h"

#define PART_MAX_GUIDS 1024  /* switches per run: more is a full sweep's job */
#define PART_ROUNDS 4        /* walks of the nodes a walk left stale */

/* ---- loomd's side ---------------------------------------------------------------- */

struct fab *disc_part_sweep(const struct disc_ib_params *p, const struct fab *base,
			    const uint64_t *guids, size_t n, int *need_full, char *err,
			    size_t errlen)
{
	char *list = NULL, *out = NULL;
	size_t list_len = 0, len = 0;
	FILE *mem = open_memstream(&list, &list_len);
	struct fab *fab = NULL;

	*need_full = 0;
	if (!mem) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		fprintf(mem, "0x%016" PRIx64 "\n", guids[i]);
	if (fclose(mem) != 0) {
		free(list);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (walker_run_fabric_more(DISC_PART_MODE, p, base, list, list_len, &out, &len, err,
				   errlen) == 0)
		fab = fab_wire_read(out, len, err, errlen);
	else if (strncmp(err, DISC_PART_NEED_FULL, strlen(DISC_PART_NEED_FULL)) == 0)
		*need_full = 1;
	free(list);
	free(out);
	return fab;
}

/* ---- the child -------------------------------------------------------------------- */

/* The directed route from the local port to node `guid` of fab (sorted,
 * every switch reachable): a switch's own, or a CA's through a switch it
 * is cabled to. 0, or -ENOENT. */
static int path_to(const struct dr_routes *d, const struct fab *fab, uint64_t guid,
		   ib_dr_path_t *path)
{
	const struct fab_node *n = fab_find(fab, guid);

	if (!n)
		return -ENOENT;
	if (n == d->local) {
		memset(path, 0, sizeof(*path));
		return 0;
	}
	for (size_t i = 0; i < d->n; i++) {
		if (d->r[i].n == n) {
			*path = d->r[i].path;
			return 0;
		}
	}
	for (unsigned q = 1; q <= n->nports; q++) {
		const struct fab_node *sw;
		const struct fab_port *far = fab_peer(fab, &n->ports[q], &sw);

		if (!far || sw->type != IBT_NODE_SWITCH)
			continue;
		for (size_t i = 0; i < d->n; i++)
			if (d->r[i].n == sw && d->r[i].path.cnt + 1 < IB_SUBNET_PATH_HOPS_MAX) {
				*path = d->r[i].path;
				path->p[++path->cnt] = far->num;
				return 0;
			}
	}
	return -ENOENT;
}

/* libibnetdisc from `path`, one hop, mapped as the full walk maps; *sent
 * grows by the SMPs it sent. */
static struct fab *walk_from(const struct disc_ib_params *p, const ib_dr_path_t *path,
			     uint64_t *sent, char *err, size_t errlen)
{
	struct ibnd_config cfg;
	ib_portid_t from;
	char ca[UMAD_CA_NAME_LEN] = "";
	ibnd_fabric_t *ib;
	struct fab *part;

	memset(&cfg, 0, sizeof(cfg));
	cfg.max_smps = p->max_smps > 0 ? (unsigned)p->max_smps : 2;
	cfg.timeout_ms = p->timeout_ms > 0 ? (unsigned)p->timeout_ms : 0;
	cfg.retries = p->retries > 0 ? (unsigned)p->retries : 0;
	cfg.flags = IBND_CONFIG_MLX_EPI;
	cfg.mkey = p->m_key;
	cfg.max_hops = 1;
	memset(&from, 0, sizeof(from));
	from.drpath = *path;
	if (p->ca)
		snprintf(ca, sizeof(ca), "%s", p->ca);
	if (!(ib = ibnd_discover_fabric(ca[0] ? ca : NULL, p->port, &from, &cfg))) {
		snprintf(err, errlen, "the walk from a changed switch failed (no answer to "
			 "SMPs?%s)", DISC_IB_MKEY_HINT(p));
		return NULL;
	}
	*sent += ib->total_mads_used;
	if (!(part = fab_new(p->subnet)) || disc_ib_map(ib, part, err, errlen) < 0) {
		if (!part)
			snprintf(err, errlen, "out of memory");
		fab_free(part);
		part = NULL;
	}
	ibnd_destroy_fabric(ib);
	return part;
}

/* Walk node `guid` of *work and merge: 0, -EAGAIN (a full sweep is
 * needed, err says why), or another -errno. *work is replaced by the
 * reachable part, sorted. */
static int walk_one(const struct disc_ib_params *p, struct fab **work, uint64_t guid,
		    struct fab_part_stale *stale, uint64_t *sent, char *err, size_t errlen)
{
	struct dr_routes d;
	ib_dr_path_t path;
	struct fab *part, *kept;
	uint64_t local;
	int rc;

	if (!fab_find(*work, guid))
		return 0;  /* gone with an earlier change */
	if ((rc = dr_routes_build(p, *work, &d, err, errlen)) < 0)
		return rc;
	local = d.local->guid;
	rc = path_to(&d, *work, guid, &path);
	dr_routes_clear(&d);
	if (rc < 0)
		return 0;  /* not reachable any more: dropped below */
	if (!(part = walk_from(p, &path, sent, err, errlen)))
		return -EIO;
	rc = fab_part_merge(*work, part, guid, stale, err, errlen);
	fab_free(part);
	if (rc < 0)
		return rc;
	if (!(kept = fab_part_reachable(*work, local))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	fab_free(*work);
	fab_sort(kept);
	*work = kept;
	return 0;
}

static size_t parse_guids(const char *text, uint64_t *guids, size_t max)
{
	size_t n = 0;
	const char *s = text;

	while (s && *s && n < max) {
		char *end;
		unsigned long long v = strtoull(s, &end, 16);

		if (end == s)
			break;
		guids[n++] = v;
		s = end;
		while (*s == '\n' || *s == ' ')
			s++;
	}
	return n;
}

static int part_run(const struct disc_ib_params *p, const struct fab *base, FILE *out,
		    char *err, size_t errlen)
{
	static uint64_t todo[PART_MAX_GUIDS];
	struct fab_part_stale stale = { 0 };
	size_t len, n;
	const char *more = walker_child_more(&len);
	struct fab *work;
	uint64_t sent = 0;  /* libibnetdisc's SMPs: it counts no retries nor losses */
	int rc = 0;

	if ((rc = disc_ib_check_local_port(p, err, errlen)) < 0)
		return rc;
	n = parse_guids(more, todo, PART_MAX_GUIDS);
	if (!(work = fab_dup(base))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	fab_sort(work);
	for (int round = 0; n && round < PART_ROUNDS; round++) {
		stale.n = 0;
		for (size_t i = 0; i < n && rc == 0; i++)
			rc = walk_one(p, &work, todo[i], &stale, &sent, err, errlen);
		if (rc < 0)
			goto out;
		if (stale.overflow) {
			rc = -EAGAIN;
			snprintf(err, errlen, "more than %d devices lost their link",
				 FAB_PART_MAX_STALE);
			goto out;
		}
		memcpy(todo, stale.guid, stale.n * sizeof(*todo));
		n = stale.n;
	}
	if (n) {
		rc = -EAGAIN;
		snprintf(err, errlen, "the links kept moving over %d walks", PART_ROUNDS);
		goto out;
	}
	if (fab_part_dangling(work, err, errlen)) {
		rc = -EAGAIN;
		goto out;
	}
	if ((rc = fab_check(work, err, errlen)) < 0)
		goto out;
	work->smps.sent = sent;
	if ((rc = fab_wire_write(work, out)) < 0)
		snprintf(err, errlen, "cannot write the fabric: %s", strerror(-rc));
out:
	if (rc == -EAGAIN) {
		char why[768];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "%s: %s", DISC_PART_NEED_FULL, why);
	}
	fab_free(work);
	return rc;
}

int disc_part_main(int argc, char **argv)
{
	return walker_child_main(argc, argv, "loomd-walk-part", part_run);
}
