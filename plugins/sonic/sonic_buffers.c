/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/sonic/sonic_buffers.c: what SONiC's buffermgrd will make of the
 * cable lengths and lossless priorities loom writes, checked before a byte
 * is written (traditional buffer model; docs/sonic-qos-notes.md section 7).
 *
 * buffermgrd builds a lossless port's headroom from its PORT speed, its
 * CABLE_LENGTH and PORT_QOS_MAP.pfc_enable with the row (speed, cable) of
 * the SKU's pg_profile_lookup.ini. With no such row it logs "No PG profile
 * configured for speed %s and cable length %s", drops the update for good,
 * and PFC runs with no headroom (SW:cfgmgr/buffermgr.cpp,
 * doSpeedUpdateTask: task_invalid_entry). So, for every managed port with
 * lossless priorities, the (speed, cable) pair loom is about to write must
 * have a row. Where the rows come from:
 *   - the plugin option pg_profile_lookup=PATH, a copy of the SKU's
 *     pg_profile_lookup.ini on the loomd host: the rows themselves;
 *   - otherwise the lossless profiles buffermgrd already made on the switch
 *     (CONFIG_DB BUFFER_PROFILE|pg_lossless_<speed>_<cable>_profile): each
 *     proves a row. A speed with none of them cannot be checked: the apply
 *     goes on and the log says how to make it checkable.
 * A pair with no row refuses the whole apply, naming the port, the speed,
 * the length and the lengths that have a row: nothing is written, and the
 * operator sets the port's cable_m (the next longer length is the safe
 * choice: more headroom than the cable needs, never less).
 *
 * buffermgrd also never deletes a lossless BUFFER_PG it made: when
 * pfc_enable narrows from "3,4" to "3" it writes BUFFER_PG|<port>|3 and
 * leaves |3-4 behind (headroom kept on the lossy priority 4, two entries
 * for priority group 3). sn_buffers_plan_stale deletes a managed port's
 * buffermgrd-made entries (profile pg_lossless_...) that are not a run of
 * the new lossless priorities, before pfc_enable is written: buffermgrd's
 * new entries then land after the deletion, never under it.
 *
 * With buffer_model dynamic (DEVICE_METADATA|localhost) buffermgrd
 * computes the headroom from the cable length itself: no lookup, and the
 * lossless BUFFER_PG entries are the operator's ("profile NULL"), not
 * touched. */
#include "sonic.h"
#include "../lp_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PG_PROFILE "pg_lossless_"

/* ---- pg_profile_lookup.ini ------------------------------------------------ */

static int rows_add(struct sn_lengths **v, size_t *n, size_t *cap, const char *speed,
		    unsigned cable_m, unsigned line)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].speed, speed) && (*v)[i].cable_m == cable_m)
			return 0;
	if (lp_grow(v, cap, *n, sizeof(**v), 32))
		return -ENOMEM;
	lp_copy_str((*v)[*n].speed, sizeof((*v)[*n].speed), speed);
	(*v)[*n].cable_m = cable_m;
	(*v)[(*n)++].line = line;
	return 0;
}

/* "100000" and "5m" as buffermgrd reads them (the first two words of a
 * row); 0 or -EINVAL. */
static int parse_pair(const char *speed, const char *cable, unsigned *cable_m)
{
	char *end;
	unsigned long m;

	if (!*speed || strspn(speed, "0123456789") != strlen(speed) || strlen(speed) > 9)
		return -EINVAL;
	m = strtoul(cable, &end, 10);
	if (end == cable || strcmp(end, "m") || m > 100000)
		return -EINVAL;
	*cable_m = (unsigned)m;
	return 0;
}

int sn_lookup_load(const char *path, struct sn_lookup *lk, char *err, size_t errlen)
{
	char line[512];
	unsigned no = 0;
	size_t cap = 0;
	FILE *f;
	int rc = 0;

	memset(lk, 0, sizeof(*lk));
	lp_copy_str(lk->path, sizeof(lk->path), path);
	if (!(f = fopen(path, "r"))) {
		rc = -errno;
		snprintf(err, errlen, "pg_profile_lookup=%s: %s", path, strerror(-rc));
		return rc;
	}
	while (!rc && fgets(line, sizeof(line), f)) {
		char speed[32], cable[32];
		unsigned cable_m;
		int words;

		no++;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(err, errlen, "%s:%u: line longer than %zu characters", path, no,
				 sizeof(line) - 1);
			rc = -EINVAL;
			break;
		}
		if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
			continue;       /* buffermgrd skips '#' lines and empty ones */
		words = sscanf(line, "%31s %31s", speed, cable);
		if (words != 2 || parse_pair(speed, cable, &cable_m)) {
			snprintf(err, errlen, "%s:%u: \"%.60s\" is not a row \"<speed Mb/s> "
				 "<cable>m <size> <xon> <xoff> <threshold> [<xon_offset>]\"", path,
				 no, strtok(line, "\r\n"));
			rc = -EINVAL;
		} else if (rows_add(&lk->row, &lk->n, &cap, speed, cable_m, no)) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
		}
	}
	if (!rc && ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		rc = -EIO;
	}
	fclose(f);
	if (!rc && !lk->n) {
		snprintf(err, errlen, "%s: no rows (speed, cable, size, xon, xoff, threshold)",
			 path);
		rc = -EINVAL;
	}
	if (rc)
		sn_lookup_free(lk);
	return rc;
}

void sn_lookup_free(struct sn_lookup *lk)
{
	free(lk->row);
	lk->row = NULL;
	lk->n = 0;
}

/* ---- what the switch holds -------------------------------------------------- */

static int profile_add(void *ctx, const char *key)
{
	struct sn_buffers *b = ctx;
	char speed[16], cable[16];
	unsigned cable_m;
	int n = 0;

	/* BUFFER_PROFILE|pg_lossless_<speed>_<cable>_profile, nothing else */
	if (sscanf(key, "BUFFER_PROFILE|" PG_PROFILE "%15[0-9]_%15[0-9m]_profile%n", speed, cable,
		   &n) != 2 || key[n] || parse_pair(speed, cable, &cable_m))
		return 0;
	return rows_add(&b->have, &b->n_have, &b->cap_have, speed, cable_m, 0);
}

struct pg_scan {
	struct sn_buffers *b;
	const struct lp_qos *want;
	size_t cap;
};

/* BUFFER_PG|<managed port>|<range>: remembered, profile read later. */
static int pg_add(void *ctx, const char *key)
{
	struct pg_scan *s = ctx;
	const char *port = key + strlen("BUFFER_PG|"), *bar = strrchr(port, '|');
	struct sn_buffers *b = s->b;
	size_t i, plen;

	if (!bar || (size_t)(bar - port) >= LP_NAME_LEN || strlen(bar + 1) >= sizeof(b->pg->range))
		return 0;
	plen = (size_t)(bar - port);
	for (i = 0; i < s->want->n_ports; i++)
		if (strlen(s->want->ports[i].port) == plen &&
		    !memcmp(s->want->ports[i].port, port, plen))
			break;
	if (i == s->want->n_ports)
		return 0;               /* not a managed port's */
	for (size_t k = 0; k < b->n_pg; k++)
		if (!strcmp(b->pg[k].key, key))
			return 0;       /* SCAN may return a key twice */
	if (lp_grow(&b->pg, &s->cap, b->n_pg, sizeof(*b->pg), 16))
		return -ENOMEM;
	lp_copy_str(b->pg[b->n_pg].key, sizeof(b->pg[b->n_pg].key), key);
	lp_copy_str(b->pg[b->n_pg].range, sizeof(b->pg[b->n_pg].range), bar + 1);
	b->pg[b->n_pg++].profile[0] = '\0';
	return 0;
}

int sn_buffers_read(struct sn_conn *c, const struct lp_qos *want, struct sn_buffers *b,
		    char *err, size_t errlen)
{
	char key[SN_KEY_LEN] = "DEVICE_METADATA|localhost";
	struct pg_scan scan = { b, want, 0 };
	redisReply *meta = NULL, **r = NULL;
	const char *model;
	int rc;

	memset(b, 0, sizeof(*b));
	if ((rc = sn_select(c, SN_CONFIG_DB, err, errlen)) ||
	    (rc = sn_hgetall(c, NULL, 0, key, sizeof(key), 1, &meta, err, errlen)))
		return rc;
	model = sn_hget(meta, "buffer_model");
	b->dynamic = model && !strcmp(model, "dynamic");
	freeReplyObject(meta);
	if (b->dynamic || !want->n_ports)
		return 0;
	if (!(b->speed = calloc(want->n_ports, sizeof(*b->speed))) ||
	    !(r = calloc(want->n_ports, sizeof(*r)))) {
		rc = -ENOMEM;
		goto oom;
	}
	if ((rc = sn_hgetall(c, "PORT", '|', want->ports[0].port, sizeof(want->ports[0]),
			     want->n_ports, r, err, errlen)))
		goto out;
	for (size_t i = 0; i < want->n_ports; i++)
		lp_copy_str(b->speed[i], sizeof(b->speed[i]), sn_hget(r[i], "speed"));
	sn_replies_clear(r, want->n_ports);
	if ((rc = sn_scan(c, "BUFFER_PROFILE|" PG_PROFILE "*", profile_add, b, err, errlen)) ||
	    (rc = sn_scan(c, "BUFFER_PG|*", pg_add, &scan, err, errlen))) {
		if (rc == -ENOMEM)
			goto oom;
		goto out;
	}
	if (b->n_pg) {
		free(r);
		if (!(r = calloc(b->n_pg, sizeof(*r)))) {
			rc = -ENOMEM;
			goto oom;
		}
		if ((rc = sn_hgetall(c, NULL, 0, b->pg[0].key, sizeof(b->pg[0]), b->n_pg, r, err,
				     errlen)))
			goto out;
		for (size_t k = 0; k < b->n_pg; k++)
			sn_ref_name(sn_hget(r[k], "profile"), "", b->pg[k].profile,
				    sizeof(b->pg[k].profile));
		sn_replies_clear(r, b->n_pg);
	}
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	free(r);
	if (rc)
		sn_buffers_free(b);
	return rc;
}

void sn_buffers_free(struct sn_buffers *b)
{
	free(b->speed);
	free(b->have);
	free(b->pg);
	memset(b, 0, sizeof(*b));
}

/* ---- the check ------------------------------------------------------------ */

/* "5m, 40m, 300m": the lengths v has for speed, shortest first; the
 * shortest at least cable_m into *next (0: none). How many. */
static size_t lengths_of(const struct sn_lengths *v, size_t n, const char *speed,
			 unsigned cable_m, char *out, size_t outlen, unsigned *next, int *has)
{
	unsigned last = 0;
	size_t count = 0, o = 0;

	out[0] = '\0';
	*next = 0;
	*has = 0;
	for (;;) {
		unsigned best = 0;

		for (size_t i = 0; i < n; i++)
			if (!strcmp(v[i].speed, speed) && v[i].cable_m > last &&
			    (!best || v[i].cable_m < best))
				best = v[i].cable_m;
		if (!best)
			break;      /* a 0m row (buffermgrd skips 0m) is never offered */
		if (best == cable_m)
			*has = 1;
		if (!*next && best >= cable_m)
			*next = best;
		if (o + 16 < outlen)
			o += (size_t)snprintf(out + o, outlen - o, "%s%um", count ? ", " : "", best);
		count++;
		last = best;
	}
	return count;
}

int sn_buffers_check(const struct sn_buffers *b, const struct sn_lookup *lk,
		     const struct lp_qos *want, const struct lp_host *host, const char *sw_name,
		     char *err, size_t errlen)
{
	if (b->dynamic || !want->pfc_mask)
		return 0;
	for (size_t i = 0; i < want->n_ports; i++) {
		const struct lp_port_buffer *pq = &want->ports[i];
		const struct sn_lengths *v = lk && lk->n ? lk->row : b->have;
		size_t n = lk && lk->n ? lk->n : b->n_have;
		char list[160], from[300];
		unsigned next;
		int has;

		if (!b->speed[i][0] || !pq->cable_m)
			continue;       /* no speed yet: buffermgrd waits for it too */
		if (!lengths_of(v, n, b->speed[i], pq->cable_m, list, sizeof(list), &next, &has)) {
			if (lk && lk->n) {
				snprintf(err, errlen, "%s: %s has no row for speed %s Mb/s, so "
					 "buffermgrd would give its lossless priorities no headroom "
					 "(\"No PG profile configured for speed %s and cable length "
					 "%um\"): nothing written", pq->port, lk->path, b->speed[i],
					 b->speed[i], pq->cable_m);
				return -EINVAL;
			}
			lp_logf(host, sw_name, LP_LOG_WARNING, "%s: cable length %um not checked: "
				"the switch has no lossless headroom profile for speed %s Mb/s yet; "
				"give the SKU's pg_profile_lookup.ini as the plugin option "
				"pg_profile_lookup=PATH to check it", pq->port, pq->cable_m,
				b->speed[i]);
			continue;
		}
		if (has)
			continue;
		if (lk && lk->n)
			snprintf(from, sizeof(from), "rows of %s", lk->path);
		else
			snprintf(from, sizeof(from), "lossless profiles on the switch "
				 "(BUFFER_PROFILE|" PG_PROFILE "%s_<cable>_profile)", b->speed[i]);
		if (next)
			snprintf(from + strlen(from), sizeof(from) - strlen(from),
				 "; the next longer, %um, is safe", next);
		snprintf(err, errlen, "%s: no headroom for speed %s Mb/s and cable %um: buffermgrd "
			 "would find no pg_profile_lookup.ini row (\"No PG profile configured\") and "
			 "PFC would run without headroom; lengths with a row for %s: %s (%s); set "
			 "the port's cable_m to one of them: nothing written", pq->port,
			 b->speed[i], pq->cable_m, b->speed[i], list, from);
		return -EINVAL;
	}
	return 0;
}

/* ---- stale lossless priority groups ---------------------------------------- */

size_t sn_pg_runs(uint8_t mask, char (*out)[8], size_t max)
{
	size_t n = 0;

	for (unsigned lo = 0; lo < 8 && n < max; lo++) {
		unsigned hi = lo;

		if (!(mask >> lo & 1))
			continue;
		while (hi + 1 < 8 && mask >> (hi + 1) & 1)
			hi++;
		if (lo == hi)
			snprintf(out[n++], 8, "%c", '0' + lo);
		else
			snprintf(out[n++], 8, "%c-%c", '0' + lo, '0' + hi);
		lo = hi;
	}
	return n;
}

void sn_buffers_plan_stale(const struct sn_buffers *b, const struct lp_qos *want,
			   struct sn_plan *p)
{
	char runs[8][8];
	size_t n_runs;

	if (!b || b->dynamic)
		return;
	n_runs = sn_pg_runs(want->pfc_mask, runs, 8);
	for (size_t k = 0; k < b->n_pg; k++) {
		int keep = 0;

		if (strncmp(b->pg[k].profile, PG_PROFILE, strlen(PG_PROFILE)))
			continue;       /* lossy, or the operator's: not buffermgrd's */
		for (size_t j = 0; j < n_runs; j++)
			keep |= !strcmp(b->pg[k].range, runs[j]);
		if (!keep)
			sn_plan_del(p, "%s", b->pg[k].key);
	}
}
