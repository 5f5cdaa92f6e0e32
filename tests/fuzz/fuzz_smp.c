/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_smp.c: arbitrary SMP replies into the table readers that
 * loomd's sweep children run, and what the children write into the
 * parent's readers: from the switch's bytes to what loomd keeps.
 *
 *  - LFT: SwitchInfo (LinearFDBTop) and LinearForwardingTable blocks, then
 *    the SL-to-VL tables of every usable switch port pair, in flight on a
 *    umad agent (daemon/ib/lft_read.c and sl2vl_read.c, lft_read_answer,
 *    then lft_read_parse);
 *  - PKeyTable blocks of CA ports and the switch ports facing them
 *    (daemon/ib/pkey_read.c, pkey_read_tables, then pkey_read_parse);
 *  - PortInfo (VLArb caps), SL2VLMappingTable rows and VLArbitration
 *    blocks (daemon/qos/qos_ib_read.c, qos_ib_read_tables, then
 *    qos_ib_read_parse against the default policy).
 *
 * Only the transport is this file's: it defines the libibmad / libibumad
 * calls the readers make (mad_rpc_open_port, smp_query_via, umad_get_port,
 * umad_send, umad_recv, ...), which the link takes before the shared
 * libraries' own. Each
 * smp_query_via answers with the next 64 bytes of the input (the SMP's
 * data field); once the input is used up, nothing answers (a timeout).
 * The first byte picks the reader (its low 2 bits: 0 LFT, 1 PKey, 2 QoS, 3 LFT) and
 * the fabric (bit 2: tests/fabrics/demo-ft2.net, else tiny.net), swept
 * from the first node's port 1 as the sweep would find it.
 *
 * Invariants: a child returns 0, or -EIO (a switch did not answer) with
 * its error; whatever a child wrote after a 0, the parent's reader takes
 * (a reply that makes the child write what the parent refuses would fail
 * every later check of that fabric); LFT: the parent gets the fabric back
 * with as many nodes, one table per switch, LinearFDBTop at most 0xbfff;
 * PKey: one entry per port line, each key 1..0xffff; QoS: each port has
 * in_policy, and first_diff exactly when it is false.
 *
 * FUZZ_SMP_DEBUG=1 prints, per input, how many replies the reader used
 * (how the seeds were sized).
 *
 * By hand: needs all of libloomd, so build it with `make fuzz` and run
 * tests/fuzz/bin/fuzz_smp CORPUS_COPY (see docs/fuzzing.md). */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>
#include <jansson.h>

#include "tests/fuzz/fuzz.h"
#include "daemon/ib/lft_read.h"
#include "daemon/ib/pkey_read.h"
#include "daemon/qos/qos_ib_read.h"
#include "lib/fabric/topo_file.h"
#include "lib/qos/ib_qos.h"
#include "lib/util/log.h"

const char fuzz_name[] = "fuzz_smp";

/* ---- the transport: replies from the input ------------------------------------ */

static const uint8_t *in;
static size_t in_left;
static uint64_t local_guid;
static char port_token; /* what mad_rpc_open_port hands out */

struct ibmad_port *mad_rpc_open_port(char *dev_name, int dev_port, int *mgmt_classes,
				     int num_classes)
{
	(void)dev_name, (void)dev_port, (void)mgmt_classes, (void)num_classes;
	return (struct ibmad_port *)&port_token;
}

void mad_rpc_close_port(struct ibmad_port *srcport)
{
	if (srcport != (struct ibmad_port *)&port_token)
		fuzz_bug("closed a port it did not open");
}

void mad_rpc_set_retries(struct ibmad_port *port, int retries)
{
	(void)port, (void)retries;
}

void mad_rpc_set_timeout(struct ibmad_port *port, int timeout)
{
	(void)port, (void)timeout;
}

uint8_t *smp_query_via(void *buf, ib_portid_t *id, unsigned attrid, unsigned mod,
		       unsigned timeout, const struct ibmad_port *srcport)
{
	(void)id, (void)attrid, (void)mod, (void)timeout;
	if (srcport != (const struct ibmad_port *)&port_token)
		fuzz_bug("an SMP on a port that is not open");
	if (in_left < IB_SMP_DATA_SIZE)
		return NULL;
	memcpy(buf, in, IB_SMP_DATA_SIZE);
	in += IB_SMP_DATA_SIZE;
	in_left -= IB_SMP_DATA_SIZE;
	return buf;
}

int umad_get_port(const char *ca_name, int portnum, umad_port_t *port)
{
	(void)ca_name;
	memset(port, 0, sizeof(*port));
	port->port_guid = htobe64(local_guid);
	port->portnum = portnum ? portnum : 1;
	return 0;
}

int umad_release_port(umad_port_t *port)
{
	(void)port;
	return 0;
}

/* The umad agent of the readers that keep SMPs in flight (lft_read.c's
 * SL-to-VL tables, through daemon/ib/mad_window.c): what was sent waits,
 * and umad_recv answers the oldest with the next 64 bytes of the input as
 * its data (a GetResp of the same attribute), or times out once the input
 * is used up. */
#define FAKE_FD 7
#define PENDING_MAX 64
static uint8_t pending[PENDING_MAX][IB_MAD_SIZE];
static size_t n_pending;

int umad_init(void)
{
	return 0;
}

int umad_open_port(const char *ca_name, int portnum)
{
	(void)ca_name, (void)portnum;
	n_pending = 0;
	return FAKE_FD;
}

int umad_close_port(int portid)
{
	if (portid != FAKE_FD)
		fuzz_bug("closed a umad port it did not open");
	return 0;
}

int umad_register(int portid, int mgmt_class, int mgmt_version, uint8_t rmpp_version,
		  long method_mask[16 / sizeof(long)])
{
	(void)portid, (void)mgmt_class, (void)mgmt_version, (void)rmpp_version, (void)method_mask;
	return 0;
}

int umad_unregister(int portid, int agentid)
{
	(void)portid, (void)agentid;
	return 0;
}

int umad_send(int portid, int agentid, void *umad, int length, int timeout_ms, int retries)
{
	(void)agentid, (void)length, (void)timeout_ms, (void)retries;
	if (portid != FAKE_FD)
		fuzz_bug("a MAD sent on a umad port that is not open");
	if (n_pending == PENDING_MAX)
		return -ENOSPC;
	memcpy(pending[n_pending++], umad_get_mad(umad), IB_MAD_SIZE);
	return 0;
}

int umad_recv(int portid, void *umad, int *length, int timeout_ms)
{
	uint8_t *mad = umad_get_mad(umad);

	(void)timeout_ms;
	if (portid != FAKE_FD)
		fuzz_bug("a MAD received on a umad port that is not open");
	if (!n_pending || in_left < IB_SMP_DATA_SIZE)
		return -ETIMEDOUT;
	memset(umad, 0, umad_size());
	memcpy(mad, pending[0], IB_MAD_SIZE);
	memmove(pending[0], pending[1], --n_pending * sizeof(pending[0]));
	mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET_RESPONSE);
	memcpy(mad + IB_SMP_DATA_OFFS, in, IB_SMP_DATA_SIZE);
	in += IB_SMP_DATA_SIZE;
	in_left -= IB_SMP_DATA_SIZE;
	*length = IB_MAD_SIZE;
	return 0;
}

/* ---- the checks ------------------------------------------------------------------ */

static struct fab *fabrics[2];
static struct ibqos_policy policy;

static void setup(void)
{
	static const char *const files[2] = { "tiny.net", "demo-ft2.net" };
	char path[4096], err[512];

	log_init(fuzz_name, getenv("FUZZ_VERBOSE") ? LOG_LVL_DEBUG : LOG_LVL_ERR,
		 LOG_TARGET_STDERR);
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/tests/fabrics/%s", FUZZ_SRCDIR, files[i]);
		if (!(fabrics[i] = topo_file_read(path, "fuzz", err, sizeof(err)))) {
			fprintf(stderr, "%s: %s\n", fuzz_name, err);
			exit(99);
		}
	}
	ibqos_defaults(&policy);
}

/* The first CA's port 1: where loomd's own HCA port sits in these tests. */
static uint64_t first_ca_port(const struct fab *fab)
{
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct fab_node *n = fab->nodes[i];
		const struct fab_port *p = n->type == IBT_NODE_CA ? fab_port(n, 1) : NULL;

		if (p)
			return p->guid;
	}
	return 0;
}

static void check_lft(const struct fab *fab, const char *text, size_t len)
{
	struct fab *back = NULL;
	struct rl_read *r = NULL;
	char err[512] = "";

	if (lft_read_parse(text, len, &back, &r, err, sizeof(err)) != 0)
		fuzz_bug("the parent refuses the LFT child's answer: %s", err);
	if (back->n_nodes != fab->n_nodes)
		fuzz_bug("%zu nodes sent, %zu read", fab->n_nodes, back->n_nodes);
	if (r->n != fab_count_type(fab, IBT_NODE_SWITCH))
		fuzz_bug("%zu tables for %zu switches", r->n, fab_count_type(fab, IBT_NODE_SWITCH));
	for (size_t i = 0; i < r->n; i++)
		if (r->t[i].top > 0xbfff)
			fuzz_bug("LinearFDBTop %u kept", r->t[i].top);
	rl_read_free(r);
	fab_free(back);
}

static void check_pkeys(char *text)
{
	size_t lines = 0, idx;
	json_t *ports = NULL, *keys, *k;
	const char *name;
	char err[512] = "";

	for (const char *c = strchr(text, '\n'); c; c = strchr(c + 1, '\n'))
		lines++;
	if (pkey_read_parse(text, &ports, err, sizeof(err)) != 0)
		fuzz_bug("the parent refuses the PKey child's answer: %s", err);
	/* LOOMPKEY2, END and one line per port; the same port twice would
	 * be one entry. */
	if (json_object_size(ports) + 2 != lines)
		fuzz_bug("%zu ports from %zu lines", json_object_size(ports), lines);
	json_object_foreach(ports, name, keys) {
		json_array_foreach(keys, idx, k)
			if (!json_is_integer(k) || json_integer_value(k) < 1 ||
			    json_integer_value(k) > 0xffff)
				fuzz_bug("port %s: key %zu out of range", name, idx);
	}
	json_decref(ports);
}

static void check_qos(char *text)
{
	json_t *ports = NULL, *port;
	char err[512] = "";
	size_t idx;

	if (qos_ib_read_parse(text, &policy, &ports, err, sizeof(err)) != 0)
		fuzz_bug("the parent refuses the QoS child's answer: %s", err);
	json_array_foreach(ports, idx, port) {
		json_t *ok = json_object_get(port, "in_policy");

		if (!json_is_boolean(ok))
			fuzz_bug("port %zu has no in_policy", idx);
		if (json_is_true(ok) == !!json_object_get(port, "first_diff"))
			fuzz_bug("port %zu: in_policy %d with%s first_diff", idx, json_is_true(ok),
				 json_object_get(port, "first_diff") ? "" : "out");
	}
	json_decref(ports);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct disc_ib_params p = { .subnet = "fuzz", .ca = "mlx5_0", .port = 1,
				    .timeout_ms = 1, .retries = 1, .max_smps = 1 };
	const struct fab *fab;
	char err[512] = "", *text = NULL;
	size_t len = 0;
	FILE *out;
	int which, rc;

	if (!size)
		return 0;
	if (!fabrics[0])
		setup();
	which = (data[0] & 3) % 3;
	fab = fabrics[(data[0] >> 2) & 1];
	local_guid = first_ca_port(fab);
	in = data + 1;
	in_left = size - 1;
	if (!(out = open_memstream(&text, &len)))
		return 0;
	rc = which == 0 ? lft_read_answer(&p, fab, out, err, sizeof(err))
	   : which == 1 ? pkey_read_tables(&p, fab, out, err, sizeof(err))
			: qos_ib_read_tables(&p, fab, out, err, sizeof(err));
	if (fclose(out) != 0)
		fuzz_bug("cannot close the answer");
	if (getenv("FUZZ_SMP_DEBUG"))
		fprintf(stderr, "reader %d rc %d used %zu left %zu: %s\n", which, rc, (size - 1 - in_left) / 64, in_left, err);
	if (rc < 0) {
		if (rc != -EIO && rc != -ENOMEM)
			fuzz_bug("reader %d returned %d (%s): %s", which, rc, strerror(-rc), err);
		if (!err[0])
			fuzz_bug("reader %d failed without an error", which);
	} else if (which == 0) {
		check_lft(fab, text, len);
	} else if (which == 1) {
		check_pkeys(text);
	} else {
		check_qos(text);
	}
	free(text);
	return 0;
}
