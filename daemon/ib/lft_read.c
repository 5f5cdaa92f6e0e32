/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/lft_read.c: the forwarding tables of a live subnet, read back from
 * its switches with SMPs in a `loomd --read-lfts` child (see lft_read.h).
 *
 * The child walks the subnet first (the same walk as a sweep): the tables
 * are judged against the fabric as it is at the moment they are read, not
 * against a sweep from minutes ago that may still show a cable since pulled.
 * Each switch's SwitchInfo and LFT blocks go one after the other (its
 * management processor answers one SMP at a time), and up to max_smps
 * switches are read at once through mad_window.h (issue 44): one after the
 * other, a real switch's ~100 us per SMP makes the 27 blocks of each of 460
 * switches (1152 hosts) 1.3 s; spread over switches, the window waits on
 * no one switch. A switch that does not answer costs its own tries, holding
 * one slot, and stops the read with its name, as before.
 *
 * Then the SL-to-VL tables of the pairs a path can use (sl2vl_read.c: many
 * in flight, on a umad agent of its own once libibmad's port is closed);
 * a pair that did not answer is left out, and the judge takes VL = SL for
 * it.
 *
 * Stream from the child (same executable at both ends, so native layout):
 *   header  magic "LOOMLFT3", struct lft_head (sizes, times, counts)
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
#include "daemon/ib/mad_window.h"
#include "daemon/ib/sl2vl_read.h"
#include "lib/fabric/fabric_wire.h"
#include "lib/util/log.h"
#include "daemon/ib/walker.h"

static const char head_magic[8] = "LOOMLFT3";
static const char tail_magic[8] = "LOOMEND1";

struct lft_head {
	char magic[8];
	uint32_t wire_size;    /* sizeof(struct lft_wire): the layout check */
	uint32_t pad;
	uint64_t fab_len;
	double started, finished;
	double tables_finished;  /* the LFTs whole, before the SL-to-VL reads */
	uint64_t smps, tables_smps;
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

/* A switch's sequence: SwitchInfo, then its LFT blocks up to LinearFDBTop,
 * one out at a time (a switch's management processor answers one SMP after
 * the other anyway); up to max_smps switches at once. */
struct lft_seq {
	int block;             /* -1: SwitchInfo is out, else that LFT block */
	uint16_t top;
	unsigned status;       /* the answer's MAD status, D bit off */
	uint8_t *lft;          /* top + 1 entries, while the switch is under way */
	uint8_t data[IB_SMP_DATA_SIZE];
};

struct lft_reader {
	const struct dr_routes *d;
	struct lft_seq *s;
	struct rl_read *r;
};

static int lft_build(void *ctx, size_t i, uint32_t tid, uint8_t *buf, size_t blen, char *err,
		     size_t errlen)
{
	struct lft_reader *rd = ctx;
	const struct lft_seq *s = &rd->s[i];
	int len = s->block < 0 ?
		dr_smp_build(buf, blen, IB_MAD_METHOD_GET, IB_ATTR_SWITCH_INFO, 0,
			     &rd->d->r[i].path, tid, NULL) :
		dr_smp_build(buf, blen, IB_MAD_METHOD_GET, IB_ATTR_LINEARFORWTBL,
			     (uint32_t)s->block, &rd->d->r[i].path, tid, NULL);

	if (len < 0)
		snprintf(err, errlen, "cannot build an SMP for switch 0x%016llx",
			 (unsigned long long)rd->d->r[i].n->guid);
	return len;
}

/* The answer of the SMP out: its status and data kept for lft_next. */
static int lft_answer(void *ctx, size_t i, uint8_t *mad)
{
	struct lft_reader *rd = ctx;
	struct lft_seq *s = &rd->s[i];
	uint16_t attr = s->block < 0 ? IB_ATTR_SWITCH_INFO : IB_ATTR_LINEARFORWTBL;

	if (!mad_window_is_get_resp(mad, IB_SMI_DIRECT_CLASS, attr) ||
	    (s->block >= 0 && mad_get_field(mad, 0, IB_MAD_ATTRMOD_F) != (unsigned)s->block))
		return 0;
	/* Bit 15 of a directed-route SMP's status is its D bit, not an error. */
	s->status = mad_get_field(mad, 0, IB_MAD_STATUS_F) & 0x7fff;
	memcpy(s->data, mad + IB_SMP_DATA_OFFS, sizeof(s->data));
	return 1;
}

/* Switch i's SMP is over: the next block, or the table is whole. An SMP
 * that no try got answered, or answered with an error status, stops the
 * read, naming the switch (as libibmad's query did). */
static int lft_next(void *ctx, size_t i, int answered, char *err, size_t errlen)
{
	struct lft_reader *rd = ctx;
	struct lft_seq *s = &rd->s[i];
	const struct fab_node *sw = rd->d->r[i].n;
	unsigned first, n;

	if (!answered || s->status) {
		char what[48];

		if (s->block < 0)
			snprintf(what, sizeof(what), "SwitchInfo");
		else
			snprintf(what, sizeof(what), "for LFT block %d", s->block);
		if (!answered)
			snprintf(err, errlen, "switch 0x%016llx \"%s\" did not answer %s",
				 (unsigned long long)sw->guid, sw->desc, what);
		else
			snprintf(err, errlen, "switch 0x%016llx \"%s\" answered %s with status "
				 "0x%04x", (unsigned long long)sw->guid, sw->desc, what, s->status);
		return -EIO;
	}
	if (s->block < 0) {
		unsigned top = mad_get_field(s->data, 0, IB_SW_LINEAR_FDB_TOP_F);

		if (top > 0xbfff)  /* unicast LIDs end at 0xbfff; more is not a linear table */
			top = 0xbfff;
		s->top = (uint16_t)top;
		if (!(s->lft = malloc((size_t)top + 1))) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		s->block = 0;
		return 1;
	}
	first = (unsigned)s->block * IB_SMP_DATA_SIZE;
	n = s->top + 1u - first < IB_SMP_DATA_SIZE ? s->top + 1u - first : IB_SMP_DATA_SIZE;
	memcpy(s->lft + first, s->data, n);
	if (first + n <= s->top) {
		s->block++;
		return 1;
	}
	if (rl_read_add(rd->r, sw->guid, sw->ports[0].lid, s->top, s->lft) < 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	free(s->lft);
	s->lft = NULL;
	return 0;
}

/* Every switch's table through mad_window.h, on an umad agent of our own. */
static int read_switches(const struct disc_ib_params *p, const struct dr_routes *d,
			 struct rl_read *r, char *err, size_t errlen)
{
	struct mad_window_params wp = { .fd = -1, .agent = -1 };
	struct lft_reader rd = { .d = d, .r = r };
	struct mad_window_req *req = NULL;
	struct mad_window_stats st = { 0 };
	int fd = -1, agent = -1, rc;

	if (!d->n)
		return 0;
	rd.s = calloc(d->n, sizeof(*rd.s));
	req = calloc(d->n, sizeof(*req));
	if (!rd.s || !req) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < d->n; i++)
		rd.s[i].block = -1;
	if ((rc = dr_umad_open(p, &fd, &agent, err, errlen)) < 0)
		goto out;
	wp.fd = fd;
	wp.agent = agent;
	dr_window_params(p, &wp);
	rc = mad_window_run_seq(&wp, d->n, req, lft_build, lft_answer, lft_next, &rd, &st, err,
				errlen);
	r->smps += st.sent;
out:
	dr_umad_close(fd, agent);
	for (size_t i = 0; rd.s && i < d->n; i++)
		free(rd.s[i].lft);  /* a run stopped on the way */
	free(rd.s);
	free(req);
	return rc;
}

int lft_read_tables(const struct disc_ib_params *p, const struct fab *fab, int sl2vl,
		    struct rl_read **read, char *err, size_t errlen)
{
	struct dr_routes d = { 0 };
	struct rl_read *r = NULL;
	int rc;

	*read = NULL;
	if ((rc = dr_routes_build(p, fab, &d, err, errlen)) < 0)
		return rc;
	if (!(r = rl_read_new())) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	r->started = clock_wall();
	if ((rc = read_switches(p, &d, r, err, errlen)) < 0)
		goto out;
	r->tables_finished = clock_wall();
	r->tables_smps = r->smps;
	if (sl2vl && (rc = sl2vl_read(p, fab, &d, r, err, errlen)) < 0)
		goto out;
	r->finished = clock_wall();
	rl_read_sort(r);
	*read = r;
	r = NULL;
	rc = 0;
out:
	rl_read_free(r);
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
	h.tables_finished = r->tables_finished;
	h.tables_smps = r->tables_smps;
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
	int rc = lft_read_tables(p, fab, 1, &r, err, errlen);

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
	r->tables_finished = h.tables_finished;
	r->tables_smps = h.tables_smps;
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
