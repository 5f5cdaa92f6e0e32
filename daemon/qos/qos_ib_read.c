/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/qos/qos_ib_read.c: see qos_ib_read.h.
 *
 * The child walks the subnet, then reads by directed route: every CA port
 * (through the switch it hangs on and out of the port it is cabled to, so
 * that the SMP arrives on that port, as pkey_read.c does) and every cabled
 * port of every switch. Its stdout is text:
 *   LOOMQOSIB1
 *   P 0x<node guid> C|S <port> <low cap> <high cap> <node description>
 *   M <in port> <16 hex digits: the VL of SL 0..15>      (SL2VL, one per row)
 *   L <vl>:<weight> ...                                  (low table, cap entries)
 *   H <vl>:<weight> ...                                  (high table)
 *   END
 * The parent compares each port's lines with the policy as it parses. */
#include "autoconf.h"
#include "daemon/qos/qos_ib_read.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "daemon/ib/dr_route.h"
#include "lib/util/log.h"
#include "daemon/ib/walker.h"

/* One SMP Get; 0 or -EIO with err. */
static int get(struct ibmad_port *mp, const ib_dr_path_t *path, unsigned attr, unsigned mod,
	       uint8_t *buf, const char *what, uint64_t guid, unsigned port, char *err,
	       size_t errlen)
{
	ib_portid_t id;

	memset(&id, 0, sizeof(id));
	id.drpath = *path;
	memset(buf, 0, IB_SMP_DATA_SIZE);
	if (smp_query_via(buf, &id, attr, mod, 0, mp))
		return 0;
	snprintf(err, errlen, "node 0x%016" PRIx64 " port %u did not answer %s", guid, port, what);
	return -EIO;
}

/* A VLArbitration table of `cap` entries from blocks `first`, first + 1. */
static int read_vlarb(struct ibmad_port *mp, const ib_dr_path_t *path, unsigned port,
		      unsigned first, unsigned cap, char tag, uint64_t guid, FILE *out,
		      char *err, size_t errlen)
{
	uint8_t buf[IB_SMP_DATA_SIZE];
	int rc;

	if (cap > IBQOS_VLARB_MAX)
		cap = IBQOS_VLARB_MAX;
	fputc(tag, out);
	for (unsigned b = 0; b * 32 < cap; b++) {
		/* AttributeModifier: block (1, 2 low; 3, 4 high) << 16 | port. */
		if ((rc = get(mp, path, IB_ATTR_VL_ARBITRATION, (first + b) << 16 | port, buf,
			      "VLArbitration", guid, port, err, errlen)) < 0)
			return rc;
		for (unsigned i = 0; i < 32 && b * 32 + i < cap; i++)
			fprintf(out, " %u:%u", buf[2 * i] & 0xf, buf[2 * i + 1]);
	}
	fputc('\n', out);
	return 0;
}

static void print_row(FILE *out, unsigned in, const uint8_t *buf)
{
	uint8_t m[IBQOS_SLS];

	ibqos_sl2vl_decode(buf, m);
	fprintf(out, "M %u ", in);
	for (unsigned sl = 0; sl < IBQOS_SLS; sl++)
		fprintf(out, "%x", m[sl]);
	fputc('\n', out);
}

/* One port: its PortInfo caps, SL2VL rows, arbitration tables. For a CA,
 * path ends at the CA; for a switch, at the switch and port is the output
 * port of the rows (in_ports lists the input ports, n_in of them). */
static int read_port(struct ibmad_port *mp, const ib_dr_path_t *path, const struct fab_node *n,
		     unsigned port, const unsigned *in_ports, unsigned n_in, FILE *out,
		     char *err, size_t errlen)
{
	int sw = n->type == IBT_NODE_SWITCH;
	uint8_t buf[IB_SMP_DATA_SIZE];
	unsigned low_cap, high_cap;
	int rc;

	if ((rc = get(mp, path, IB_ATTR_PORT_INFO, sw ? port : 0, buf, "PortInfo", n->guid, port,
		      err, errlen)) < 0)
		return rc;
	low_cap = mad_get_field(buf, 0, IB_PORT_VL_ARBITRATION_LOW_CAP_F);
	high_cap = mad_get_field(buf, 0, IB_PORT_VL_ARBITRATION_HIGH_CAP_F);
	fprintf(out, "P 0x%016" PRIx64 " %c %u %u %u %s\n", n->guid, sw ? 'S' : 'C', port,
		low_cap, high_cap, n->desc);
	if (!sw) {
		if ((rc = get(mp, path, IB_ATTR_SLVL_TABLE, 0, buf, "SL2VLMappingTable", n->guid,
			      port, err, errlen)) < 0)
			return rc;
		print_row(out, 0, buf);
	}
	for (unsigned i = 0; sw && i < n_in; i++) {
		/* AttributeModifier: input port << 8 | output port. */
		if ((rc = get(mp, path, IB_ATTR_SLVL_TABLE, in_ports[i] << 8 | port, buf,
			      "SL2VLMappingTable", n->guid, port, err, errlen)) < 0)
			return rc;
		print_row(out, in_ports[i], buf);
	}
	if ((rc = read_vlarb(mp, path, sw ? port : 0, 1, low_cap, 'L', n->guid, out, err,
			     errlen)) < 0)
		return rc;
	return read_vlarb(mp, path, sw ? port : 0, 3, high_cap, 'H', n->guid, out, err, errlen);
}

static int read_switch(struct ibmad_port *mp, const struct fab *fab, const struct dr_route *r,
		       FILE *out, char *err, size_t errlen)
{
	const struct fab_node *sw = r->n;
	unsigned in[256], n_in = 0;
	int rc = 0;

	/* The rows that carry traffic: from every cabled port (and port 0,
	 * the switch's own management traffic). */
	in[n_in++] = 0;
	for (unsigned port = 1; port <= sw->nports; port++)
		if (fab_peer(fab, fab_port(sw, port), NULL))
			in[n_in++] = port;
	for (unsigned i = 1; rc == 0 && i < n_in; i++)
		rc = read_port(mp, &r->path, sw, in[i], in, n_in, out, err, errlen);
	return rc;
}

struct reader {
	struct ibmad_port *mp;
	FILE *out;
	char *err;
	size_t errlen;
};

/* The port of a CA a switch port faces. */
static int read_ca(void *ctx, const struct dr_route *r, unsigned port,
		   const struct fab_node *ca, const struct fab_port *far)
{
	struct reader *rd = ctx;
	ib_dr_path_t path = r->path;

	path.p[++path.cnt] = (uint8_t)port;
	return read_port(rd->mp, &path, ca, far->num, NULL, 0, rd->out, rd->err, rd->errlen);
}

int qos_ib_read_tables(const struct disc_ib_params *p, const struct fab *fab, FILE *out,
		       char *err, size_t errlen)
{
	struct dr_routes d = { 0 };
	struct ibmad_port *mp;
	int rc = 0;

	if ((rc = dr_routes_build(p, fab, &d, err, errlen)) < 0)
		return rc;
	if (!(mp = dr_open_port(p, err, errlen))) {
		dr_routes_clear(&d);
		return -ENODEV;
	}
	fputs("LOOMQOSIB1\n", out);
	if (d.local->type == IBT_NODE_CA) {
		ib_dr_path_t here = { 0 };

		rc = read_port(mp, &here, d.local, d.local_port, NULL, 0, out, err, errlen);
	}
	for (size_t i = 0; rc == 0 && i < d.n; i++) {
		struct reader rd = { mp, out, err, errlen };

		if ((rc = read_switch(mp, fab, &d.r[i], out, err, errlen)) == 0)
			rc = dr_ca_ports(fab, &d, i, read_ca, &rd);
	}
	if (rc == 0)
		fputs("END\n", out);
	mad_rpc_close_port(mp);
	dr_routes_clear(&d);
	return rc;
}

int qos_ib_read_main(int argc, char **argv)
{
	return walker_child_main(argc, argv, "loomd-read-qos", qos_ib_read_tables);
}

/* ---- the parent --------------------------------------------------------------- */

/* The port being parsed, and what it has shown so far. */
struct cur {
	json_t *port;        /* NULL before the first P line */
	unsigned low_cap, high_cap;
	char diff[160];
};

static void finish(struct cur *c, json_t *ports)
{
	if (!c->port)
		return;
	json_object_set_new(c->port, "in_policy", json_boolean(!c->diff[0]));
	if (c->diff[0])
		json_object_set_new(c->port, "first_diff", json_string(c->diff));
	json_array_append_new(ports, c->port);
	c->port = NULL;
}

static int parse_vlarb(struct cur *c, const struct ibqos_policy *p, int high, char *rest)
{
	struct ibqos_entry got[IBQOS_VLARB_MAX] = { { 0, 0 } };
	unsigned cap = high ? c->high_cap : c->low_cap, n = 0, vl, w;
	char *save = NULL;
	int i;

	for (char *t = strtok_r(rest, " ", &save); t && n < IBQOS_VLARB_MAX;
	     t = strtok_r(NULL, " ", &save)) {
		if (sscanf(t, "%u:%u", &vl, &w) != 2)
			return -EPROTO;
		got[n++] = (struct ibqos_entry){ (uint8_t)vl, (uint8_t)w };
	}
	if (n < cap && n < IBQOS_VLARB_MAX)
		return -EPROTO;
	if (!c->diff[0] && (i = ibqos_diff_vlarb(p, high, got, cap)) >= 0) {
		const struct ibqos_entry *t = high ? p->high : p->low;
		unsigned pn = high ? p->n_high : p->n_low;
		struct ibqos_entry want = (unsigned)i < pn ? t[i] : (struct ibqos_entry){ 0, 0 };

		if ((unsigned)i >= cap)
			snprintf(c->diff, sizeof(c->diff), "VLArb %s: the policy has %u entries, "
				 "the port holds %u (VL %u weight %u does not fit)",
				 high ? "high" : "low", pn, cap, want.vl, want.weight);
		else
			snprintf(c->diff, sizeof(c->diff), "VLArb %s[%d]: VL %u weight %u, policy "
				 "VL %u weight %u", high ? "high" : "low", i, got[i].vl,
				 got[i].weight, want.vl, want.weight);
	}
	return 0;
}

static int parse_line(struct cur *c, const struct ibqos_policy *p, json_t *ports, char *line)
{
	unsigned long long guid;
	unsigned port, lc, hc, in;
	char type, hex[17];
	int off = 0, sl;

	switch (line[0]) {
	case 'P':
		if (sscanf(line, "P 0x%llx %c %u %u %u %n", &guid, &type, &port, &lc, &hc, &off) < 5 ||
		    !off)
			return -EPROTO;
		finish(c, ports);
		snprintf(hex, sizeof(hex), "%016llx", guid);
		c->port = json_pack("{s:s, s:s+, s:s, s:i}", "node", line + off, "guid", "0x", hex,
				    "type", type == 'S' ? "switch" : "CA", "port", (int)port);
		c->low_cap = lc;
		c->high_cap = hc;
		c->diff[0] = '\0';
		return c->port ? 0 : -ENOMEM;
	case 'M': {
		uint8_t m[IBQOS_SLS];

		if (!c->port || sscanf(line, "M %u %16s", &in, hex) != 2 || strlen(hex) != 16)
			return -EPROTO;
		for (unsigned s = 0; s < IBQOS_SLS; s++)
			m[s] = (uint8_t)strtoul((char[]){ hex[s], 0 }, NULL, 16);
		if (!c->diff[0] && (sl = ibqos_diff_sl2vl(p, m)) >= 0)
			snprintf(c->diff, sizeof(c->diff), "SL2VL in %u SL %d: VL %u, policy %u", in,
				 sl, m[sl], p->sl2vl[sl]);
		return 0;
	}
	case 'L':
	case 'H':
		return c->port ? parse_vlarb(c, p, line[0] == 'H', line + 1) : -EPROTO;
	}
	return -EPROTO;
}

int qos_ib_read_parse(char *text, const struct ibqos_policy *p, json_t **ports, char *err,
		      size_t errlen)
{
	char *save = NULL, *line = strtok_r(text, "\n", &save);
	struct cur c = { 0 };
	int rc = 0, ended = 0;

	if (!line || strcmp(line, "LOOMQOSIB1")) {
		snprintf(err, errlen, "not a QoS table stream of this build");
		return -EPROTO;
	}
	*ports = json_array();
	while (rc == 0 && (line = strtok_r(NULL, "\n", &save))) {
		if (!strcmp(line, "END")) {
			ended = 1;
			break;
		}
		rc = parse_line(&c, p, *ports, line);
	}
	finish(&c, *ports);
	if (rc < 0 || !ended) {
		json_decref(*ports);
		*ports = NULL;
		snprintf(err, errlen, "QoS table stream %s", rc < 0 ? "garbled" : "cut short");
		return -EPROTO;
	}
	return 0;
}

int qos_ib_read_run(const struct disc_ib_params *params, const struct ibqos_policy *p,
		    json_t **ports, char *err, size_t errlen)
{
	char *out = NULL;
	size_t len = 0;
	int rc;

	*ports = NULL;
	if ((rc = walker_run("--read-qos", params, &out, &len, NULL, err, errlen)) == 0)
		rc = qos_ib_read_parse(out, p, ports, err, errlen);
	free(out);
	return rc;
}
