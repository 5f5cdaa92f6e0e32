/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/mcast_read.c: see mcast_read.h.
 *
 * The SA: one SubnAdmGetTable(MCMemberRecord) to the SM's LID, QP1, the
 * answer reassembled by the kernel's RMPP (the umad agent is registered
 * with RMPP, as infiniband-diags' saquery does). A simulator's umad layer
 * (umad2sim) has no RMPP and hands the first segment only: an answer of
 * a whole MAD (256 bytes; a whole answer is as long as its records) that
 * another record would not have fitted in is taken as cut short, and the groups are asked port by port instead (one
 * GetTable of PortGID per CA port: a port's own groups; one of those
 * filling a MAD is an error). Records whose PortGID is zero mean the SA
 * hid the members from a requester without its SM_Key: an error naming
 * the key.
 *
 * The tables: SMPs one after the other by directed route (lft_read.c says
 * why sequential): per switch SwitchInfo, then per block of 32 MLIDs and
 * 16-port position one MulticastForwardingTable Get (attribute modifier
 * position << 28 | block).
 *
 * The child's stdout is text:
 *   LOOMMCAST1
 *   g <mgid, 32 hex> <mlid hex> <port guid hex>:<join state> ...
 *   t <switch guid hex> <mlid hex>=<w0>.<w1>.<w2>.<w3> ...   (port mask words, hex)
 *   m <MADs sent>
 *   END */
#include "autoconf.h"
#include "daemon/ib/mcast_read.h"

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "daemon/ib/dr_route.h"
#include "daemon/ib/walker.h"
#include "lib/fabric/ibtypes.h"

#define SA_NO_RECORDS 0x0300   /* MAD status: ERR_NO_RECORDS */
#define MC_REC_SIZE 56         /* MCMemberRecord, AttributeOffset 7 */
#define SA_ANSWER_MS 10000     /* a whole table of a large fabric: the SA takes its time */

/* ---- the child: the SA --------------------------------------------------------- */

struct sa {
	int fd, agent;
	ib_portid_t sm;
	uint64_t gid_prefix;
	uint64_t sm_key;
	unsigned timeout_ms;
	uint32_t tid;
	uint64_t mads;
	struct mc_data *d;
};

/* The group of mgid in d (added when new), or NULL. */
static struct mc_group *group_of(struct mc_data *d, const uint8_t *mgid, uint16_t mlid)
{
	struct mc_group *g;

	for (size_t i = 0; i < d->n_groups; i++)
		if (!memcmp(d->g[i].mgid, mgid, 16))
			return &d->g[i];
	if (!(g = realloc(d->g, (d->n_groups + 1) * sizeof(*g))))
		return NULL;
	d->g = g;
	g = &d->g[d->n_groups++];
	memset(g, 0, sizeof(*g));
	memcpy(g->mgid, mgid, 16);
	g->mlid = mlid;
	return g;
}

/* Each record of an answer into d: the number taken, or -errno. */
static int take_records(struct sa *s, const uint8_t *mad, size_t len, size_t *hidden)
{
	size_t rsz = (size_t)mad_get_field((void *)mad, 0, IB_SA_ATTROFFS_F) * 8;
	int n = 0;

	if (!rsz)
		return 0;
	for (size_t at = IB_SA_DATA_OFFS; at + IB_SA_MCM_RECSZ <= len; at += rsz) {
		const uint8_t *rec = mad + at;
		uint8_t mgid[16], gid[16];
		struct mc_group *g;
		struct mc_member *m;
		uint64_t guid = 0;

		mad_get_array((void *)rec, 0, IB_SA_MCM_MGID_F, mgid);
		if (!mgid[0])
			continue;   /* padding of a short answer */
		mad_get_array((void *)rec, 0, IB_SA_MCM_PORTGID_F, gid);
		for (int b = 8; b < 16; b++)
			guid = guid << 8 | gid[b];
		n++;
		if (!guid) {
			(*hidden)++;
			continue;
		}
		if (!(g = group_of(s->d, mgid, (uint16_t)mad_get_field((void *)rec, 0,
									IB_SA_MCM_MLID_F))))
			return -ENOMEM;
		for (size_t k = 0; k < g->n; k++)
			if (g->m[k].port_guid == guid)
				goto next;   /* asked twice (port by port) */
		if (!(m = realloc(g->m, (g->n + 1) * sizeof(*m))))
			return -ENOMEM;
		g->m = m;
		g->m[g->n++] = (struct mc_member){ guid, (uint8_t)mad_get_field(
			(void *)rec, 0, IB_SA_MCM_JOIN_STATE_F) };
next:;
	}
	return n;
}

/* One GetTable(MCMemberRecord) with comp_mask and the record in rec (NULL:
 * none): the records into d; *cut when the answer looks cut short. */
static int sa_table(struct sa *s, uint64_t comp_mask, void *rec, int *cut, size_t *hidden,
		    char *err, size_t errlen)
{
	size_t blen = umad_size() + IB_MAD_SIZE;
	uint8_t data[IB_SA_DATA_SIZE] = { 0 };
	void *umad = calloc(1, blen), *grown;
	ib_rpc_t rpc;
	int len, rc, n;
	uint8_t *mad;

	if (!umad)
		return -ENOMEM;
	if (rec)
		memcpy(data, rec, IB_SA_MCM_RECSZ);
	memset(&rpc, 0, sizeof(rpc));
	rpc.mgtclass = IB_SA_CLASS;
	rpc.method = IB_MAD_METHOD_GET_TABLE;
	rpc.attr.id = IB_SA_ATTR_MCRECORD;
	rpc.mask = comp_mask;
	rpc.datasz = IB_SA_DATA_SIZE;
	rpc.dataoffs = IB_SA_DATA_OFFS;
	rpc.timeout = s->timeout_ms;
	rpc.trid = ++s->tid;
	if (mad_build_pkt(umad, &rpc, &s->sm, NULL, data) < 0) {
		free(umad);
		snprintf(err, errlen, "cannot build the SA query");
		return -EINVAL;
	}
	mad_set_field64(umad_get_mad(umad), 0, IB_SA_MKEY_F, s->sm_key);
	s->mads++;
	if (umad_send(s->fd, s->agent, umad, IB_MAD_SIZE, (int)s->timeout_ms, 3) < 0) {
		free(umad);
		snprintf(err, errlen, "cannot send the SA query: %s", strerror(errno));
		return -EIO;
	}
	for (;;) {
		len = (int)(blen - umad_size());
		rc = umad_recv(s->fd, umad, &len, SA_ANSWER_MS);
		if (rc < 0 && errno == ENOSPC && (size_t)len + umad_size() > blen) {
			blen = umad_size() + (size_t)len;
			if (!(grown = realloc(umad, blen))) {
				free(umad);
				return -ENOMEM;
			}
			umad = grown;
			continue;
		}
		if (rc < 0 || umad_status(umad)) {
			free(umad);
			snprintf(err, errlen, "the SA (LID %u) did not answer the MCMemberRecord "
				 "query: no SM runs there, or it dropped the query for a wrong "
				 "SM_Key (validation.multicast_sm_key)", s->sm.lid);
			return -EIO;
		}
		mad = umad_get_mad(umad);
		if ((uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F) == s->tid)
			break;   /* else a late answer to an earlier query */
	}
	rc = (int)mad_get_field(mad, 0, IB_MAD_STATUS_F);
	if (rc && rc != SA_NO_RECORDS) {
		free(umad);
		snprintf(err, errlen, "the SA refused the MCMemberRecord query: status 0x%04x", rc);
		return -EIO;
	}
	n = rc ? 0 : take_records(s, mad, (size_t)len, hidden);
	/* a whole answer is as long as its records; one cut to a MAD is a MAD */
	*cut = n > 0 && (size_t)len == IB_MAD_SIZE &&
	       (size_t)(n + 1) * MC_REC_SIZE > IB_SA_DATA_SIZE;
	free(umad);
	if (n == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return n < 0 ? n : 0;
}

/* Every CA port's groups, one query each. */
static int sa_by_port(struct sa *s, const struct fab *fab, size_t *hidden, char *err,
		      size_t errlen)
{
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct fab_node *n = fab->nodes[i];

		if (n->type != IBT_NODE_CA)
			continue;
		for (unsigned p = 1; p <= n->nports; p++) {
			const struct fab_port *pt = fab_port(n, p);
			uint8_t rec[IB_SA_MCM_RECSZ + 3] = { 0 }, gid[16];
			int cut = 0, rc;

			if (!pt || !pt->guid || !pt->has_peer)
				continue;
			for (int b = 0; b < 8; b++) {
				gid[b] = (uint8_t)(s->gid_prefix >> (56 - 8 * b));
				gid[8 + b] = (uint8_t)(pt->guid >> (56 - 8 * b));
			}
			mad_set_array(rec, 0, IB_SA_MCM_PORTGID_F, gid);
			if ((rc = sa_table(s, 1 << 1, rec, &cut, hidden, err, errlen)) < 0)
				return rc;
			if (cut) {
				snprintf(err, errlen, "the SA's groups of port 0x%016" PRIx64 " fill "
					 "a MAD and the local MAD layer does no RMPP", pt->guid);
				return -EIO;
			}
		}
	}
	return 0;
}

static int read_groups(const struct disc_ib_params *p, const struct fab *fab, uint64_t sm_key,
		       struct mc_data *d, char *err, size_t errlen)
{
	struct sa s = { .fd = -1, .agent = -1, .sm_key = sm_key, .d = d,
			.timeout_ms = p->timeout_ms ? (unsigned)p->timeout_ms : 100 };
	umad_port_t port;
	size_t hidden = 0;
	int cut = 0, rc;

	if (umad_get_port(p->ca, p->port, &port) < 0) {
		snprintf(err, errlen, "cannot read port %s:%d", p->ca, p->port);
		return -ENODEV;
	}
	ib_portid_set(&s.sm, (int)port.sm_lid, 0, 0);
	s.sm.qp = 1;
	s.sm.qkey = IB_DEFAULT_QP1_QKEY;
	s.gid_prefix = be64toh(port.gid_prefix);
	umad_release_port(&port);
	if (!s.sm.lid) {
		snprintf(err, errlen, "port %s:%d knows no SM (SM LID 0)", p->ca, p->port);
		return -EIO;
	}
	if ((s.fd = umad_open_port(p->ca, p->port)) < 0 ||
	    (s.agent = umad_register(s.fd, IB_SA_CLASS, 2, 1, NULL)) < 0) {
		snprintf(err, errlen, "cannot open %s:%d for SA queries", p->ca, p->port);
		rc = -ENODEV;
		goto out;
	}
	if ((rc = sa_table(&s, 0, NULL, &cut, &hidden, err, errlen)) == 0 && cut)
		rc = sa_by_port(&s, fab, &hidden, err, errlen);
	if (rc == 0 && hidden) {
		snprintf(err, errlen, "the SA hid the members of %zu records: its SM_Key is not "
			 "validation.multicast_sm_key", hidden);
		rc = -EACCES;
	}
out:
	d->mads += s.mads;
	if (s.agent >= 0)
		umad_unregister(s.fd, s.agent);
	if (s.fd >= 0)
		umad_close_port(s.fd);
	return rc;
}

/* ---- the child: the tables ----------------------------------------------------- */

/* The blocks of 32 MLIDs to read when a switch gives no MulticastFDBTop:
 * those of the groups' MLIDs, each once. */
static size_t group_blocks(const struct mc_data *d, uint16_t *blocks)
{
	size_t n = 0;

	for (size_t i = 0; i < d->n_groups; i++) {
		uint16_t b;
		size_t k;

		if (d->g[i].mlid < MCAST_MLID_FIRST)
			continue;
		b = (uint16_t)((d->g[i].mlid - MCAST_MLID_FIRST) / 32);
		for (k = 0; k < n && blocks[k] != b; k++)
			;
		if (k == n)
			blocks[n++] = b;
	}
	return n;
}

static int read_switch(struct ibmad_port *mp, const struct dr_route *r, struct mc_data *d,
		       const uint16_t *gblocks, size_t n_gblocks, FILE *out, char *err,
		       size_t errlen)
{
	const struct fab_node *sw = r->n;
	uint8_t buf[IB_SMP_DATA_SIZE];
	struct mc_mask masks[32];
	unsigned top, positions = sw->nports / 16 + 1;
	size_t n_blocks;
	ib_portid_t id;

	memset(&id, 0, sizeof(id));
	id.drpath = r->path;
	memset(buf, 0, sizeof(buf));
	d->mads++;
	if (!smp_query_via(buf, &id, IB_ATTR_SWITCH_INFO, 0, 0, mp)) {
		snprintf(err, errlen, "switch 0x%016" PRIx64 " \"%s\" did not answer SwitchInfo",
			 sw->guid, sw->desc);
		return -EIO;
	}
	top = mad_get_field(buf, 0, IB_SW_MCAST_FDB_TOP_F);
	n_blocks = top >= MCAST_MLID_FIRST && top <= MCAST_MLID_LAST
			   ? (top - MCAST_MLID_FIRST) / 32 + 1 : n_gblocks;
	fprintf(out, "t %" PRIx64, sw->guid);
	for (size_t k = 0; k < n_blocks; k++) {
		unsigned block = top >= MCAST_MLID_FIRST && top <= MCAST_MLID_LAST
					 ? (unsigned)k : gblocks[k];

		memset(masks, 0, sizeof(masks));
		for (unsigned pos = 0; pos < positions; pos++) {
			memset(buf, 0, sizeof(buf));
			d->mads++;
			if (!smp_query_via(buf, &id, IB_ATTR_MULTICASTFORWTBL, pos << 28 | block, 0,
					   mp)) {
				snprintf(err, errlen, "switch 0x%016" PRIx64 " \"%s\" did not answer "
					 "for MFT block %u position %u", sw->guid, sw->desc, block,
					 pos);
				return -EIO;
			}
			for (unsigned i = 0; i < 32; i++) {
				uint64_t bits = (uint64_t)buf[2 * i] << 8 | buf[2 * i + 1];

				masks[i].w[pos / 4] |= bits << (16 * (pos % 4));
			}
		}
		for (unsigned i = 0; i < 32; i++) {
			const uint64_t *w = masks[i].w;

			if (w[0] | w[1] | w[2] | w[3])
				fprintf(out, " %x=%" PRIx64 ".%" PRIx64 ".%" PRIx64 ".%" PRIx64,
					MCAST_MLID_FIRST + block * 32 + i, w[0], w[1], w[2], w[3]);
		}
	}
	fputc('\n', out);
	return 0;
}

static int read_answer(const struct disc_ib_params *p, const struct fab *fab, FILE *out,
		       char *err, size_t errlen)
{
	struct mc_data d = { 0 };
	struct dr_routes routes = { 0 };
	struct ibmad_port *mp = NULL;
	uint16_t *gblocks = NULL;
	uint64_t sm_key = 1;
	size_t n_gblocks, more_len = 0;
	const char *more = walker_child_more(&more_len);
	int rc;

	if (more && sscanf(more, "smkey=%" SCNx64, &sm_key) != 1) {
		snprintf(err, errlen, "bad parameters on stdin");
		return -EINVAL;
	}
	if ((rc = read_groups(p, fab, sm_key, &d, err, errlen)) < 0)
		goto out;
	fputs("LOOMMCAST1\n", out);
	for (size_t i = 0; i < d.n_groups; i++) {
		fputs("g ", out);
		for (int b = 0; b < 16; b++)
			fprintf(out, "%02x", d.g[i].mgid[b]);
		fprintf(out, " %x", d.g[i].mlid);
		for (size_t k = 0; k < d.g[i].n; k++)
			fprintf(out, " %" PRIx64 ":%u", d.g[i].m[k].port_guid, d.g[i].m[k].join_state);
		fputc('\n', out);
	}
	if (!(gblocks = calloc(d.n_groups + 1, sizeof(*gblocks)))) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	n_gblocks = group_blocks(&d, gblocks);
	if ((rc = dr_routes_build(p, fab, &routes, err, errlen)) < 0)
		goto out;
	if (!(mp = dr_open_port(p, err, errlen))) {
		rc = -ENODEV;
		goto out;
	}
	for (size_t i = 0; i < routes.n && rc == 0; i++)
		rc = read_switch(mp, &routes.r[i], &d, gblocks, n_gblocks, out, err, errlen);
	if (rc == 0)
		fprintf(out, "m %" PRIu64 "\nEND\n", d.mads);
out:
	if (mp)
		mad_rpc_close_port(mp);
	dr_routes_clear(&routes);
	free(gblocks);
	mc_data_clear(&d);
	return rc;
}

int mcast_read_main(int argc, char **argv)
{
	return walker_child_main(argc, argv, "loomd-read-mcast", read_answer);
}

/* ---- the parent --------------------------------------------------------------- */

static int parse_group(char *line, struct mc_data *d)
{
	char *f = NULL, *tok = strtok_r(line, " ", &f);
	struct mc_group *g;
	size_t cap = 0;

	if (!tok || strlen(tok) != 32)
		return -EPROTO;
	if (!(g = realloc(d->g, (d->n_groups + 1) * sizeof(*g))))
		return -ENOMEM;
	d->g = g;
	g = &d->g[d->n_groups++];
	memset(g, 0, sizeof(*g));
	for (int b = 0; b < 16; b++) {
		unsigned v;

		if (sscanf(tok + 2 * b, "%2x", &v) != 1)
			return -EPROTO;
		g->mgid[b] = (uint8_t)v;
	}
	if (!(tok = strtok_r(NULL, " ", &f)))
		return -EPROTO;
	g->mlid = (uint16_t)strtoul(tok, NULL, 16);
	while ((tok = strtok_r(NULL, " ", &f))) {
		char *colon = strchr(tok, ':');

		if (!colon)
			return -EPROTO;
		if (g->n == cap) {
			struct mc_member *m = realloc(g->m, (cap = cap ? 2 * cap : 8) * sizeof(*m));

			if (!m)
				return -ENOMEM;
			g->m = m;
		}
		g->m[g->n++] = (struct mc_member){ strtoull(tok, NULL, 16),
						   (uint8_t)strtoul(colon + 1, NULL, 10) };
	}
	return 0;
}

static int entry_cmp(const void *x, const void *y)
{
	const struct mc_entry *a = x, *b = y;

	return a->mlid < b->mlid ? -1 : a->mlid > b->mlid;
}

static int parse_table(char *line, struct mc_data *d)
{
	char *f = NULL, *tok = strtok_r(line, " ", &f);
	struct mc_table *t;
	size_t cap = 0;

	if (!tok)
		return -EPROTO;
	if (!(t = realloc(d->t, (d->n_tables + 1) * sizeof(*t))))
		return -ENOMEM;
	d->t = t;
	t = &d->t[d->n_tables++];
	memset(t, 0, sizeof(*t));
	t->guid = strtoull(tok, NULL, 16);
	while ((tok = strtok_r(NULL, " ", &f))) {
		struct mc_entry e;
		unsigned mlid;

		memset(&e, 0, sizeof(e));
		if (sscanf(tok, "%x=%" SCNx64 ".%" SCNx64 ".%" SCNx64 ".%" SCNx64, &mlid, &e.mask.w[0],
			   &e.mask.w[1], &e.mask.w[2], &e.mask.w[3]) != 5)
			return -EPROTO;
		e.mlid = (uint16_t)mlid;
		if (t->n == cap) {
			struct mc_entry *ne = realloc(t->e, (cap = cap ? 2 * cap : 16) * sizeof(*ne));

			if (!ne)
				return -ENOMEM;
			t->e = ne;
		}
		t->e[t->n++] = e;
	}
	if (t->n)
		qsort(t->e, t->n, sizeof(*t->e), entry_cmp);
	return 0;
}

int mcast_read_parse(char *text, struct mc_data *d, char *err, size_t errlen)
{
	char *save = NULL, *line = strtok_r(text, "\n", &save);
	int ended = 0, rc = 0;

	memset(d, 0, sizeof(*d));
	if (!line || strcmp(line, "LOOMMCAST1")) {
		snprintf(err, errlen, "not a multicast stream of this build");
		return -EPROTO;
	}
	while (rc == 0 && (line = strtok_r(NULL, "\n", &save))) {
		if (!strcmp(line, "END")) {
			ended = 1;
			break;
		}
		if (!strncmp(line, "g ", 2))
			rc = parse_group(line + 2, d);
		else if (!strncmp(line, "t ", 2))
			rc = parse_table(line + 2, d);
		else if (!strncmp(line, "m ", 2))
			d->mads = strtoull(line + 2, NULL, 10);
		else
			rc = -EPROTO;
	}
	if (rc == 0 && !ended)
		rc = -EPROTO;
	if (rc < 0) {
		mc_data_clear(d);
		snprintf(err, errlen, rc == -ENOMEM ? "out of memory"
						    : "multicast stream cut short or malformed");
	}
	return rc;
}

int mcast_read_run(const struct disc_ib_params *p, const struct fab *fab, uint64_t sm_key,
		   struct mc_data *d, char *err, size_t errlen)
{
	char more[64], *out = NULL;
	size_t len = 0;
	int rc;

	memset(d, 0, sizeof(*d));
	snprintf(more, sizeof(more), "smkey=%" PRIx64 "\n", sm_key);
	rc = walker_run_fabric_more(MCAST_READ_MODE, p, fab, more, strlen(more), &out, &len, err,
				    errlen);
	if (rc == 0)
		rc = mcast_read_parse(out, d, err, errlen);
	free(out);
	return rc;
}
