/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/pkey_read.c: see pkey_read.h.
 *
 * The child walks the subnet, then asks every CA port for block 0 of its
 * PKeyTable (32 entries), and the next blocks while a block is full, by
 * directed route: through the switch a CA hangs on and out of the port it
 * is cabled to, so that the SMP arrives on (and the table is that of) that
 * CA port. Then the same of the switch port it is cabled to (the switch's
 * PKeyTable, attribute modifier port << 16 | block), which is where a
 * switch enforces partitions: OpenSM copies a CA's keys there. A port's
 * blocks go one after the other; up to max_smps ports at once through
 * mad_window.h (issue 44: one SMP at a time, a real leaf's ~100 us per SMP
 * made its 18 hosts' switch ports wait on each other and on every other
 * leaf), in the order every switch's first CA, then every second, so that
 * the window does not wait on one switch. Its stdout
 * is text, one line per port:
 *   LOOMPKEY2
 *   0x<port guid> <pkey> <pkey> ...      (hex, non-zero entries)
 *   0x<port guid>/sw <pkey> ...          (the switch port facing it)
 *   END */
#include "autoconf.h"
#include "daemon/ib/pkey_read.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "daemon/ib/dr_route.h"
#include "daemon/ib/mad_window.h"
#include "lib/util/log.h"
#include "daemon/ib/walker.h"

#define PKEY_BLOCKS_MAX 8   /* 256 entries: more than any HCA has */

/* One port's table to read: `port` 0 is the CA port the path ends on, else
 * that port of the switch the path ends on. Its blocks go one after the
 * other (the next while a block is full); many ports at once. */
struct pkey_port {
	ib_dr_path_t path;
	uint64_t guid;          /* the CA port's (also for the switch port facing it) */
	uint8_t port;
	uint8_t block;          /* the block out */
	uint8_t done;           /* the table is whole */
	uint8_t status_bad;     /* the answer to the block out had an error status */
	uint16_t rank;          /* its place among its switch's ports: the window's order */
	uint16_t n_keys;
	uint16_t keys[32 * PKEY_BLOCKS_MAX];
};

struct pkey_reader {
	struct pkey_port *ports;  /* in the stream's order */
	size_t n, cap;
	size_t *order;            /* the window's request i is ports[order[i]] */
	unsigned rank;            /* the next CA of the switch being listed */
};

static int add_port(struct pkey_reader *rd, const ib_dr_path_t *path, unsigned port,
		    uint64_t guid, unsigned rank)
{
	struct pkey_port *x;

	if (rd->n == rd->cap) {
		size_t c = rd->cap ? 2 * rd->cap : 256;
		struct pkey_port *bigger = realloc(rd->ports, c * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		rd->ports = bigger;
		rd->cap = c;
	}
	x = &rd->ports[rd->n++];
	memset(x, 0, sizeof(*x));
	x->path = *path;
	x->port = (uint8_t)port;
	x->guid = guid;
	x->rank = (uint16_t)rank;
	return 0;
}

/* The switch port facing a CA, then the CA's port. */
static int list_pair(void *ctx, const struct dr_route *r, unsigned port,
		     const struct fab_node *ca, const struct fab_port *far)
{
	struct pkey_reader *rd = ctx;
	ib_dr_path_t path = r->path;
	unsigned rank = rd->rank++;

	(void)ca;
	if (add_port(rd, &path, port, far->guid, rank) < 0)
		return -ENOMEM;
	path.p[++path.cnt] = (uint8_t)port;
	return add_port(rd, &path, 0, far->guid, rank);
}

static int pkey_build(void *ctx, size_t i, uint32_t tid, uint8_t *buf, size_t blen, char *err,
		      size_t errlen)
{
	struct pkey_reader *rd = ctx;
	const struct pkey_port *x = &rd->ports[rd->order[i]];
	int len = dr_smp_build(buf, blen, IB_MAD_METHOD_GET, IB_ATTR_PKEY_TBL,
			       (uint32_t)x->port << 16 | x->block, &x->path, tid, NULL);

	if (len < 0)
		snprintf(err, errlen, "cannot build the PKeyTable Get for port 0x%016" PRIx64,
			 x->guid);
	return len;
}

/* A block's answer: its non-zero keys appended, done unless it is full. */
static int pkey_answer(void *ctx, size_t i, uint8_t *mad)
{
	struct pkey_reader *rd = ctx;
	struct pkey_port *x = &rd->ports[rd->order[i]];
	const uint8_t *data = mad + IB_SMP_DATA_OFFS;
	int full = 1;

	if (!mad_window_is_get_resp(mad, IB_SMI_DIRECT_CLASS, IB_ATTR_PKEY_TBL) ||
	    (mad_get_field(mad, 0, IB_MAD_ATTRMOD_F) & 0xffff) != x->block)
		return 0;
	/* Bit 15 of a directed-route SMP's status is its D bit, not an error. */
	if ((x->status_bad = (mad_get_field(mad, 0, IB_MAD_STATUS_F) & 0x7fff) != 0))
		return 1;
	for (unsigned k = 0; k < 32; k++) {
		unsigned key = (unsigned)data[2 * k] << 8 | data[2 * k + 1];

		if (key)
			x->keys[x->n_keys++] = (uint16_t)key;
		else
			full = 0;
	}
	x->done = !full || x->block + 1 >= PKEY_BLOCKS_MAX;
	return 1;
}

/* A block is over: the next one while the last was full. A block past 0
 * that fails is past the table's end; block 0 failing stops the read,
 * naming the port. */
static int pkey_next(void *ctx, size_t i, int answered, char *err, size_t errlen)
{
	struct pkey_reader *rd = ctx;
	struct pkey_port *x = &rd->ports[rd->order[i]];

	if (!answered || x->status_bad) {
		if (x->block > 0)
			return 0;
		snprintf(err, errlen, "%s 0x%016" PRIx64 " did not answer PKeyTable",
			 x->port ? "the switch port facing" : "port", x->guid);
		return -EIO;
	}
	if (x->done)
		return 0;
	x->block++;
	return 1;
}

/* The window's order: every switch's first CA, then every switch's second,
 * ...: a switch answers one SMP at a time, so consecutive requests on the
 * same switch would wait on it while the others idle. */
static int rank_cmp(const void *a, const void *b, void *ctx)
{
	const struct pkey_port *ports = ctx;
	const struct pkey_port *x = &ports[*(const size_t *)a], *y = &ports[*(const size_t *)b];

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int read_ports(const struct disc_ib_params *p, struct pkey_reader *rd, char *err,
		      size_t errlen)
{
	struct mad_window_params wp = { .fd = -1, .agent = -1 };
	struct mad_window_req *req;
	int fd = -1, agent = -1, rc;

	if (!(rd->order = calloc(rd->n, sizeof(*rd->order))) ||
	    !(req = calloc(rd->n, sizeof(*req)))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < rd->n; i++)
		rd->order[i] = i;
	qsort_r(rd->order, rd->n, sizeof(*rd->order), rank_cmp, rd->ports);
	if ((rc = dr_umad_open(p, &fd, &agent, err, errlen)) == 0) {
		wp.fd = fd;
		wp.agent = agent;
		dr_window_params(p, &wp);
		rc = mad_window_run_seq(&wp, rd->n, req, pkey_build, pkey_answer, pkey_next, rd,
					NULL, err, errlen);
	}
	dr_umad_close(fd, agent);
	free(req);
	return rc;
}

int pkey_read_tables(const struct disc_ib_params *p, const struct fab *fab, FILE *out,
		     char *err, size_t errlen)
{
	struct dr_routes d = { 0 };
	struct pkey_reader rd = { 0 };
	int rc;

	if ((rc = dr_routes_build(p, fab, &d, err, errlen)) < 0)
		return rc;
	if (d.local->type == IBT_NODE_CA) {
		ib_dr_path_t here = { 0 };

		rc = add_port(&rd, &here, 0, fab_port(d.local, d.local_port)->guid, 0);
	}
	for (size_t i = 0; rc == 0 && i < d.n; i++) {
		rd.rank = 0;
		rc = dr_ca_ports(fab, &d, i, list_pair, &rd);
	}
	if (rc < 0)
		snprintf(err, errlen, "out of memory");
	else if (rd.n)
		rc = read_ports(p, &rd, err, errlen);
	if (rc == 0) {
		fputs("LOOMPKEY2\n", out);
		for (size_t i = 0; i < rd.n; i++) {
			const struct pkey_port *x = &rd.ports[i];

			fprintf(out, "0x%016" PRIx64 "%s", x->guid, x->port ? "/sw" : "");
			for (unsigned k = 0; k < x->n_keys; k++)
				fprintf(out, " 0x%04x", x->keys[k]);
			fputc('\n', out);
		}
		fputs("END\n", out);
	}
	free(rd.order);
	free(rd.ports);
	dr_routes_clear(&d);
	return rc;
}

int pkey_read_main(int argc, char **argv)
{
	return walker_child_main(argc, argv, "loomd-read-pkeys", pkey_read_tables);
}

/* ---- the parent --------------------------------------------------------------- */

int pkey_read_parse(char *text, json_t **ports, char *err, size_t errlen)
{
	char *save = NULL, *line = strtok_r(text, "\n", &save);
	int ended = 0;

	if (!line || strcmp(line, "LOOMPKEY2")) {
		snprintf(err, errlen, "not a PKey table stream of this build");
		return -EPROTO;
	}
	*ports = json_object();
	while ((line = strtok_r(NULL, "\n", &save))) {
		char *f = NULL, *tok = strtok_r(line, " ", &f);
		json_t *keys = json_array();

		if (!strcmp(tok, "END")) {
			json_decref(keys);
			ended = 1;
			break;
		}
		while ((line = strtok_r(NULL, " ", &f)))
			json_array_append_new(keys, json_integer(strtol(line, NULL, 16)));
		json_object_set_new(*ports, tok, keys);
	}
	if (!ended) {
		json_decref(*ports);
		*ports = NULL;
		snprintf(err, errlen, "PKey table stream cut short");
		return -EPROTO;
	}
	return 0;
}

int pkey_read_run(const struct disc_ib_params *p, json_t **ports, char *err, size_t errlen)
{
	return pkey_read_run_fab(p, NULL, ports, err, errlen);
}

int pkey_read_run_fab(const struct disc_ib_params *p, const struct fab *fab, json_t **ports,
		      char *err, size_t errlen)
{
	char *out = NULL;
	size_t len = 0;
	int rc;

	*ports = NULL;
	rc = fab ? walker_run_fabric("--read-pkeys", p, fab, &out, &len, err, errlen)
		 : walker_run("--read-pkeys", p, &out, &len, NULL, err, errlen);
	if (rc == 0)
		rc = pkey_read_parse(out, ports, err, errlen);
	free(out);
	return rc;
}
