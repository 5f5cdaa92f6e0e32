/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/lft_read.c: the forwarding tables of a live subnet, read back from
 * its switches with SMPs in a `loomd --read-lfts` child (see lft_read.h).
 *
 * The child walks the subnet first (the same walk as a sweep): the tables
 * are judged against the fabric as it is at the moment they are read, not
 * against a sweep from minutes ago that may still show a cable since pulled.
 * Queries are sequential: a switch answers one SMP in microseconds (ibsim:
 * the 648 SMPs of a 54-switch, 648-host fat tree take 25 ms, the walk
 * before them 110 ms), so SMPs in flight would buy nothing here yet.
 *
 * Then the SL-to-VL tables of the pairs a path can use (sl2vl_read.c: many
 * in flight, on a umad agent of its own once libibmad's port is closed);
 * a pair that did not answer is left out, and the judge takes VL = SL for
 * it.
 *
 * Stream from the child (same executable at both ends, so native layout):
 *   header  magic "LOOMLFT1", struct lft_head (sizes, times, counts)
 *   fabric  fab_len bytes of lib/fabric/fabric_wire.h
 *   tables  n_tables times struct lft_wire then top + 1 entry bytes
 *   sl2vl   n_sl2vl times struct rl_sl2vl
 *   trailer magic "LOOMEND1" */
#include "autoconf.h"
#include "daemon/ib/lft_read.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "lib/util/clock.h"
#include "daemon/ib/dr_route.h"
#include "daemon/ib/sl2vl_read.h"
#include "lib/fabric/fabric_wire.h"
#include "lib/util/log.h"
#include "daemon/ib/walker.h"

static const char head_magic[8] = "LOOMLFT2";
static const char tail_magic[8] = "LOOMEND1";

struct lft_head {
	char magic[8];
	uint32_t wire_size;    /* sizeof(struct lft_wire): the layout check */
	uint32_t pad;
	uint64_t fab_len;
	double started, finished;
	uint64_t smps;
	uint64_t n_tables;
	uint64_t n_sl2vl;
};

struct lft_wire {
	uint64_t guid;
	uint16_t lid;
	uint16_t top;
	uint32_t pad;
};

/* ---- the child: reading ------------------------------------------------------- */

/* One switch's SwitchInfo and LFT blocks up to LinearFDBTop. */
static int read_switch(struct ibmad_port *mp, ib_portid_t *id, const struct fab_node *sw,
		       struct rl_read *r, uint8_t *lft, char *err, size_t errlen)
{
	uint8_t buf[IB_SMP_DATA_SIZE];
	unsigned top;

	memset(buf, 0, sizeof(buf));
	r->smps++;
	if (!smp_query_via(buf, id, IB_ATTR_SWITCH_INFO, 0, 0, mp)) {
		snprintf(err, errlen, "switch 0x%016llx \"%s\" did not answer SwitchInfo",
			 (unsigned long long)sw->guid, sw->desc);
		return -EIO;
	}
	top = mad_get_field(buf, 0, IB_SW_LINEAR_FDB_TOP_F);
	if (top > 0xbfff)  /* unicast LIDs end at 0xbfff; more is not a linear table */
		top = 0xbfff;
	for (unsigned block = 0; block <= top / IB_SMP_DATA_SIZE; block++) {
		unsigned first = block * IB_SMP_DATA_SIZE;
		unsigned n = top + 1 - first < IB_SMP_DATA_SIZE ? top + 1 - first : IB_SMP_DATA_SIZE;

		r->smps++;
		if (!smp_query_via(buf, id, IB_ATTR_LINEARFORWTBL, block, 0, mp)) {
			snprintf(err, errlen, "switch 0x%016llx \"%s\" did not answer for LFT "
				 "block %u", (unsigned long long)sw->guid, sw->desc, block);
			return -EIO;
		}
		memcpy(lft + first, buf, n);
	}
	return rl_read_add(r, sw->guid, sw->ports[0].lid, (uint16_t)top, lft);
}

int lft_read_tables(const struct disc_ib_params *p, const struct fab *fab,
		    struct rl_read **read, char *err, size_t errlen)
{
	struct dr_routes d = { 0 };
	struct ibmad_port *mp = NULL;
	struct rl_read *r = NULL;
	uint8_t *lft = NULL;
	int rc;

	*read = NULL;
	if ((rc = dr_routes_build(p, fab, &d, err, errlen)) < 0)
		return rc;
	lft = malloc(0xc000);
	r = rl_read_new();
	if (!lft || !r) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	if (!(mp = dr_open_port(p, err, errlen))) {
		rc = -ENODEV;
		goto out;
	}
	r->started = clock_wall();
	for (size_t i = 0; i < d.n; i++) {
		ib_portid_t id;

		memset(&id, 0, sizeof(id));
		id.drpath = d.r[i].path;
		if ((rc = read_switch(mp, &id, d.r[i].n, r, lft, err, errlen)) < 0)
			goto out;
	}
	mad_rpc_close_port(mp);
	mp = NULL;
	if ((rc = sl2vl_read(p, fab, &d, r, err, errlen)) < 0)
		goto out;
	r->finished = clock_wall();
	rl_read_sort(r);
	*read = r;
	r = NULL;
	rc = 0;
out:
	if (mp)
		mad_rpc_close_port(mp);
	rl_read_free(r);
	free(lft);
	dr_routes_clear(&d);
	return rc;
}

/* ---- the child: writing ------------------------------------------------------- */

static int write_stream(const struct fab *fab, const struct rl_read *r, FILE *out)
{
	struct lft_head h;
	char *fbuf = NULL;
	size_t flen = 0;
	FILE *mem = open_memstream(&fbuf, &flen);
	int rc;

	if (!mem)
		return -ENOMEM;
	rc = fab_wire_write(fab, mem);
	if (fclose(mem) != 0 && rc == 0)
		rc = -EIO;
	if (rc < 0) {
		free(fbuf);
		return rc;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, head_magic, sizeof(h.magic));
	h.wire_size = sizeof(struct lft_wire);
	h.fab_len = flen;
	h.started = r->started;
	h.finished = r->finished;
	h.smps = r->smps;
	h.n_tables = r->n;
	h.n_sl2vl = r->n_sl2vl;
	rc = fwrite(&h, sizeof(h), 1, out) == 1 && fwrite(fbuf, 1, flen, out) == flen ? 0 : -EIO;
	free(fbuf);
	for (size_t i = 0; rc == 0 && i < r->n; i++) {
		struct lft_wire w = { .guid = r->t[i].guid, .lid = r->t[i].lid, .top = r->t[i].top };

		if (fwrite(&w, sizeof(w), 1, out) != 1 ||
		    fwrite(r->t[i].port, 1, (size_t)w.top + 1, out) != (size_t)w.top + 1)
			rc = -EIO;
	}
	if (rc == 0 && r->n_sl2vl &&
	    fwrite(r->sl2vl, sizeof(*r->sl2vl), r->n_sl2vl, out) != r->n_sl2vl)
		rc = -EIO;
	if (rc == 0 && (fwrite(tail_magic, sizeof(tail_magic), 1, out) != 1 || fflush(out) != 0))
		rc = -EIO;
	return rc;
}

int lft_read_answer(const struct disc_ib_params *p, const struct fab *fab, FILE *out,
			  char *err, size_t errlen)
{
	struct rl_read *r = NULL;
	int rc = lft_read_tables(p, fab, &r, err, errlen);

	if (rc == 0 && (rc = write_stream(fab, r, out)) < 0)
		snprintf(err, errlen, "cannot write the tables: %s", strerror(-rc));
	rl_read_free(r);
	return rc;
}

int lft_read_main(int argc, char **argv)
{
	return walker_child_main(argc, argv, "loomd-read-lfts", lft_read_answer);
}

/* ---- the parent --------------------------------------------------------------------- */

int lft_read_parse(const char *buf, size_t len, struct fab **fab, struct rl_read **read,
		   char *err, size_t errlen)
{
	struct lft_head h;
	struct rl_read *r = NULL;
	size_t at = sizeof(h);

	if (len < sizeof(h) + sizeof(tail_magic))
		goto short_stream;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, head_magic, sizeof(h.magic)) != 0 ||
	    h.wire_size != sizeof(struct lft_wire)) {
		snprintf(err, errlen, "not a forwarding table stream of this build");
		return -EPROTO;
	}
	if (h.fab_len > len - at)
		goto short_stream;
	if (!(*fab = fab_wire_read(buf + at, h.fab_len, err, errlen)))
		return -EPROTO;
	at += h.fab_len;
	if (!(r = rl_read_new()))
		goto nomem;
	r->started = h.started;
	r->finished = h.finished;
	r->smps = h.smps;
	for (uint64_t i = 0; i < h.n_tables; i++) {
		struct lft_wire w;

		if (len - at < sizeof(w))
			goto short_stream;
		memcpy(&w, buf + at, sizeof(w));
		at += sizeof(w);
		if (len - at < (size_t)w.top + 1)
			goto short_stream;
		if (rl_read_add(r, w.guid, w.lid, w.top, (const uint8_t *)buf + at) < 0)
			goto nomem;
		at += (size_t)w.top + 1;
	}
	if (h.n_sl2vl > (len - at) / sizeof(struct rl_sl2vl))
		goto short_stream;
	for (uint64_t i = 0; i < h.n_sl2vl; i++) {
		struct rl_sl2vl pr;

		memcpy(&pr, buf + at, sizeof(pr));
		at += sizeof(pr);
		if (rl_read_add_sl2vl(r, pr.guid, pr.in, pr.out, pr.vl) < 0)
			goto nomem;
	}
	if (len - at != sizeof(tail_magic) || memcmp(buf + at, tail_magic, sizeof(tail_magic)))
		goto short_stream;
	rl_read_sort(r);
	*read = r;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	rl_read_free(r);
	fab_free(*fab);
	*fab = NULL;
	return -ENOMEM;
short_stream:
	snprintf(err, errlen, "forwarding table stream cut short or malformed (%zu bytes)", len);
	rl_read_free(r);
	fab_free(*fab);
	*fab = NULL;
	return -EPROTO;
}

int lft_read_run(const struct disc_ib_params *p, struct fab **fab, struct rl_read **read,
		 char *err, size_t errlen)
{
	char *out = NULL;
	size_t len = 0;
	int rc;

	*fab = NULL;
	*read = NULL;
	if ((rc = walker_run("--read-lfts", p, &out, &len, NULL, err, errlen)) == 0)
		rc = lft_read_parse(out, len, fab, read, err, errlen);
	free(out);
	return rc;
}
