/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/pkey_read.c: see pkey_read.h.
 *
 * The child walks the subnet, then asks every CA port for block 0 of its
 * PKeyTable (32 entries), and the next blocks while a block is full, by
 * directed route: through the switch a CA hangs on and out of the port it
 * is cabled to, so that the SMP arrives on (and the table is that of) that
 * CA port. Then the same of the switch port it is cabled to (the switch's
 * PKeyTable, attribute modifier port << 16 | block), which is where a
 * switch enforces partitions: OpenSM copies a CA's keys there. Its stdout
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
#include "lib/util/log.h"
#include "daemon/ib/walker.h"

#define PKEY_BLOCKS_MAX 8   /* 256 entries: more than any HCA has */

/* One port's table, printed as a line: `port` 0 is the CA port the path
 * ends on, else that port of the switch the path ends on. */
static int read_port(struct ibmad_port *mp, const ib_dr_path_t *path, unsigned port,
		     uint64_t guid, FILE *out, char *err, size_t errlen)
{
	uint8_t buf[IB_SMP_DATA_SIZE];
	ib_portid_t id;

	memset(&id, 0, sizeof(id));
	id.drpath = *path;
	fprintf(out, "0x%016" PRIx64 "%s", guid, port ? "/sw" : "");
	for (unsigned block = 0; block < PKEY_BLOCKS_MAX; block++) {
		int full = 1;

		memset(buf, 0, sizeof(buf));
		if (!smp_query_via(buf, &id, IB_ATTR_PKEY_TBL, port << 16 | block, 0, mp)) {
			if (block > 0)
				break; /* past the table's end */
			snprintf(err, errlen, "%s 0x%016" PRIx64 " did not answer PKeyTable",
				 port ? "the switch port facing" : "port", guid);
			return -EIO;
		}
		for (unsigned i = 0; i < 32; i++) {
			unsigned k = (unsigned)buf[2 * i] << 8 | buf[2 * i + 1];

			if (k)
				fprintf(out, " 0x%04x", k);
			else
				full = 0;
		}
		if (!full)
			break;
	}
	fputc('\n', out);
	return 0;
}

struct reader {
	struct ibmad_port *mp;
	FILE *out;
	char *err;
	size_t errlen;
};

/* The switch port facing a CA, then the CA's port. */
static int read_pair(void *ctx, const struct dr_route *r, unsigned port,
		     const struct fab_node *ca, const struct fab_port *far)
{
	struct reader *rd = ctx;
	ib_dr_path_t path = r->path;
	int rc;

	(void)ca;
	if ((rc = read_port(rd->mp, &path, port, far->guid, rd->out, rd->err, rd->errlen)) < 0)
		return rc;
	path.p[++path.cnt] = (uint8_t)port;
	return read_port(rd->mp, &path, 0, far->guid, rd->out, rd->err, rd->errlen);
}

int pkey_read_tables(const struct disc_ib_params *p, const struct fab *fab, FILE *out,
		     char *err, size_t errlen)
{
	struct dr_routes d = { 0 };
	struct ibmad_port *mp;
	int rc;

	if ((rc = dr_routes_build(p, fab, &d, err, errlen)) < 0)
		return rc;
	if (!(mp = dr_open_port(p, err, errlen))) {
		dr_routes_clear(&d);
		return -ENODEV;
	}
	fputs("LOOMPKEY2\n", out);
	if (d.local->type == IBT_NODE_CA) {
		ib_dr_path_t here = { 0 };

		rc = read_port(mp, &here, 0, fab_port(d.local, d.local_port)->guid, out, err,
			       errlen);
	}
	for (size_t i = 0; rc == 0 && i < d.n; i++) {
		struct reader rd = { mp, out, err, errlen };

		rc = dr_ca_ports(fab, &d, i, read_pair, &rd);
	}
	if (rc == 0)
		fputs("END\n", out);
	mad_rpc_close_port(mp);
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
