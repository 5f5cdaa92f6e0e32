/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_nvue_json.c: arbitrary bytes as the body of an NVUE REST
 * answer to the nvue plugin's GETs (plugins/nvue/), parsed as nv_request
 * parses it (json_loadb, flags 0; a body that is not JSON is NULL, which the
 * decoders take as an empty answer), then handed to every decoder of
 * answers, as nvue.c calls them (no selector: each ignores what is not its
 * own, so one corpus file is one real answer):
 *   GET system and GET platform      nv_system_parse (the body as both)
 *   GET interface                    nv_ports_parse (nv_is_port, nv_port_parse)
 *   GET interface/swp1/lldp/neighbor nv_neighbors_parse
 *   GET .../bridge/domain/br_default nv_access_parse
 *   the applied tree {"qos": GET qos?rev=applied, "interface": GET
 *   interface?rev=applied}, as nvue.c's read_applied puts them together:
 *                                    nv_qos_parse for swp1 and swp2
 *   counters_read's GETs (nvue_counters.c): nv_counters_read with the
 *   body as the switch: GET interface is its member "interface" (else the
 *   body), GET interface/<port>/X its member "interface/<port>/X", else its
 *   member "X" ("counters/qos", "qos/counters", "qos/pfc-watchdog"), else a
 *   404; and each piece on the body itself (nv_link_counters_parse of its
 *   member "swp1", nv_qos_counters_parse, nv_pfcwd_counters_parse)
 * What qos_apply does with a read-back is checked too: nv_qos_leaves of it
 * (when NVUE would take it), written into the applied tree as a merge PATCH
 * (nv_patch_set, then RFC 7386 as the switch merges), must read back
 * (nv_leaf_value) as each leaf's value, parse again, and give the same
 * leaves: apply, read back, apply again changes nothing.
 * nvue_reply.c, nvue_qos.c and nvue_counters.c are compiled in (no curl: nvue_http.c is not).
 *
 * Invariants: 0 or a negative errno with a message; strings the sinks get
 * NUL-terminated within their arrays; counters as fuzz_counters.h checks
 * them (loom's names, indices, widths, once each, a port's error naming the
 * GET and never beside its counters); a VLAN 0..4094; a read-back's
 * classes, queues, groups 0..7, weights and mark probability 0..100; the
 * round trip above.
 *
 * By hand (BUILD is a configured build directory):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DLOOM_LIBFUZZER -D_GNU_SOURCE \
 *       -I BUILD -I . -I include -I plugins/nvue tests/fuzz/fuzz_nvue_json.c \
 *       plugins/nvue/nvue_reply.c plugins/nvue/nvue_qos.c plugins/lp_util.c -ljansson \
 *       -o fuzz_nvue_json
 *   cp -r tests/fuzz/corpus/nvue_json work && ./fuzz_nvue_json work */
#include "autoconf.h"

#include <errno.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_lp.h"
#include "tests/fuzz/fuzz_counters.h"
#include "nvue.h"
#include "../lp_util.h"

const char fuzz_name[] = "fuzz_nvue_json";

static int on_port(void *ctx, const struct lp_port *p)
{
	(void)ctx;
	fuzz_check_terminated(p->name, sizeof(p->name), "port name");
	fuzz_check_terminated(p->alias, sizeof(p->alias), "port alias");
	if (!p->name[0] || p->admin_up > 1 || p->oper_up > 1)
		fuzz_bug("port \"%s\": admin %u oper %u", p->name, p->admin_up, p->oper_up);
	return 0;
}

static int on_neighbor(void *ctx, const struct lp_neighbor *n)
{
	(void)ctx;
	fuzz_check_lp_neighbor(n);
	if (strcmp(n->local_port, "swp1"))
		fuzz_bug("neighbour on %s, asked swp1", n->local_port);
	return 0;
}

static void check_qos(const struct lp_qos *q)
{
	fuzz_check_lp_qos(q);
	if (q->n_ports != 2 || strcmp(q->ports[0].port, "swp1") || strcmp(q->ports[1].port, "swp2"))
		fuzz_bug("qos: the caller's ports were not kept");
}

/* RFC 7386: patch merged into *target (objects merged, null removes). */
static void merge(json_t *target, json_t *patch)
{
	const char *k;
	json_t *v;

	json_object_foreach(patch, k, v) {
		json_t *t = json_object_get(target, k);

		if (json_is_null(v)) {
			json_object_del(target, k);
		} else if (json_is_object(v)) {
			if (!json_is_object(t)) {
				t = json_object();
				if (!t || json_object_set_new(target, k, t))
					fuzz_bug("out of memory");
			}
			merge(t, v);
		} else if (json_object_set(target, k, v)) {
			fuzz_bug("out of memory");
		}
	}
}

static void init_ports(struct lp_qos *q)
{
	memset(q, 0, sizeof(*q));
	q->n_ports = 2;
	memcpy(q->ports[0].port, "swp1", 5);
	memcpy(q->ports[1].port, "swp2", 5);
}

static void round_trip(json_t *root, const struct lp_qos *q)
{
	static struct lp_qos q2;
	struct nv_leaves l, l2;
	json_t *applied, *patch;
	char err[256] = "", buf[NV_STR_LEN];
	int rc;

	if (nv_qos_leaves("leaf1", q, &l, err, sizeof(err))) {
		fuzz_check_rc(-EINVAL, err, "nv_qos_leaves");
		nv_leaves_free(&l);
		return;               /* what NVUE would refuse: never sent */
	}
	applied = json_deep_copy(root);
	patch = json_object();
	if (!applied || !patch)
		fuzz_bug("out of memory");
	for (size_t i = 0; i < l.n; i++)
		if (nv_patch_set(patch, &l.v[i]))
			fuzz_bug("nv_patch_set failed");
	merge(applied, patch);
	for (size_t i = 0; i < l.n; i++) {
		nv_leaf_value(applied, &l.v[i], buf, sizeof(buf));
		if (strcmp(buf, l.v[i].value))
			fuzz_bug("%s %s: \"%s\" written, \"%s\" read back", l.v[i].path,
				 l.v[i].field, l.v[i].value, buf);
	}
	init_ports(&q2);
	rc = nv_qos_parse(json_object_get(applied, "qos"), json_object_get(applied, "interface"),
			  &q2, err, sizeof(err));
	if (rc)
		fuzz_bug("what loom wrote does not read back: %s", err);
	if (nv_qos_leaves("leaf1", &q2, &l2, err, sizeof(err)))
		fuzz_bug("what loom wrote reads back as something NVUE refuses: %s", err);
	if (l2.n != l.n)
		fuzz_bug("%zu leaves, %zu after a round trip", l.n, l2.n);
	for (size_t i = 0; i < l.n; i++)
		if (strcmp(l.v[i].path, l2.v[i].path) || strcmp(l.v[i].field, l2.v[i].field) ||
		    strcmp(l.v[i].value, l2.v[i].value))
			fuzz_bug("%s %s \"%s\" is %s %s \"%s\" after a round trip", l.v[i].path,
				 l.v[i].field, l.v[i].value, l2.v[i].path, l2.v[i].field,
				 l2.v[i].value);
	nv_leaves_free(&l);
	nv_leaves_free(&l2);
	json_decref(patch);
	json_decref(applied);
}

/* The body as a switch's operational tree, for nv_counters_read. */
static int body_get(void *ctx, const char *path, json_t **out, char *err, size_t errlen)
{
	json_t *body = ctx, *a = NULL;
	const char *rest;

	*out = NULL;
	if (!strcmp(path, "interface")) {
		a = json_object_get(body, "interface");
		a = a ? a : body;
	} else if (!(a = json_object_get(body, path)) && !strncmp(path, "interface/", 10) &&
		   (rest = strchr(path + 10, '/'))) {
		a = json_object_get(body, rest + 1);
	}
	if (!a) {
		snprintf(err, errlen, "GET %s: 404", path);
		return -ENOENT;
	}
	*out = json_incref(a);
	return 0;
}

static void counters(json_t *body)
{
	static struct fc_seen seen;
	static struct lp_port_counters pc;
	struct lp_counter_sink sink = { &seen, fc_counter, fc_port_error };
	struct nv_source src = { body, body_get, 0 };
	char err[256] = "", reason[320] = "";
	int rc;

	fc_reset(&seen, "GET ");
	rc = nv_counters_read(&src, &sink, err, sizeof(err));
	fuzz_check_rc(rc, err, "nv_counters_read");
	if (src.qos_at != 0 && src.qos_at != 1)
		fuzz_bug("qos_at %d", src.qos_at);
	pc.n = 0;
	rc = nv_link_counters_parse("swp1", json_object_get(body, "swp1"), &pc, reason,
				    sizeof(reason));
	fuzz_check_rc(rc, reason, "nv_link_counters_parse");
	rc = nv_qos_counters_parse("swp1", "interface/swp1/counters/qos", body, &pc, reason,
				   sizeof(reason));
	fuzz_check_rc(rc, reason, "nv_qos_counters_parse");
	rc = nv_pfcwd_counters_parse("swp1", "interface/swp1/qos/pfc-watchdog", body, &pc, reason,
				     sizeof(reason));
	fuzz_check_rc(rc, reason, "nv_pfcwd_counters_parse");
	if (pc.n > LP_PORT_COUNTERS)
		fuzz_bug("%zu counters", pc.n);
	fc_reset(&seen, "GET ");
	for (size_t i = 0; i < pc.n; i++)
		fc_counter(&seen, &pc.c[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct lp_port_sink ports = { NULL, on_port };
	static const struct lp_neighbor_sink nbrs = { NULL, on_neighbor };
	static struct lp_qos q;
	struct lp_inventory inv;
	json_t *body = json_loadb((const char *)data, size, 0, NULL);
	char err[256] = "";
	uint16_t vid = 77;
	int rc;

	rc = nv_system_parse(body, body, &inv, err, sizeof(err));
	fuzz_check_rc(rc, err, "nv_system_parse");
	fuzz_check_terminated(inv.hostname, sizeof(inv.hostname), "hostname");
	fuzz_check_terminated(inv.model, sizeof(inv.model), "model");
	fuzz_check_terminated(inv.os_version, sizeof(inv.os_version), "os_version");
	fuzz_check_terminated(inv.mac, sizeof(inv.mac), "mac");
	err[0] = '\0';
	fuzz_check_rc(nv_ports_parse(body, &ports, err, sizeof(err)), err, "nv_ports_parse");
	err[0] = '\0';
	fuzz_check_rc(nv_neighbors_parse("swp1", body, &nbrs, err, sizeof(err)), err,
		 "nv_neighbors_parse");
	err[0] = '\0';
	rc = nv_access_parse(body, "GET br_default", &vid, err, sizeof(err));
	fuzz_check_rc(rc, err, "nv_access_parse");
	if (vid > 4094 || (rc && vid))
		fuzz_bug("access VLAN %u (rc %d)", vid, rc);
	init_ports(&q);
	err[0] = '\0';
	rc = nv_qos_parse(json_object_get(body, "qos"), json_object_get(body, "interface"), &q,
			  err, sizeof(err));
	fuzz_check_rc(rc, err, "nv_qos_parse");
	if (rc == 0) {
		check_qos(&q);
		round_trip(body, &q);
	}
	counters(body);
	json_decref(body);
	return 0;
}
