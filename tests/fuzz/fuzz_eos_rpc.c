/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_eos_rpc.c: arbitrary bytes as the HTTP body of eAPI's
 * answer to the eos plugin's runCmds (plugins/eos/): through
 * eos_rpc_decode, the JSON-RPC envelope checks eos_run makes of a 200
 * answer, and then the decoders of the results (eos_reply.c), as eos.c
 * calls them. The body is decoded once for each command list the plugin
 * sends; the lists whose length the "result" array has reach their
 * decoder:
 *   show version, show hostname, show interfaces status  eos_inventory_parse
 *   show lldp neighbors detail                           eos_lldp_parse
 *   show version                                         eos_version_parse
 *   show interfaces Ethernet1 switchport                 eos_switchport_parse
 *   enable, show running-config (text)                   eos_config_parse
 *       (eos_state_parse) for Ethernet1 and Ethernet2, then what qos_read
 *       and qos_apply make of the state: eos_state_to_qos, eos_plan_qos,
 *       eos_plan_cmds
 *   show interfaces [, show priority-flow-control counters detail, show
 *       priority-flow-control counters watchdog, show qos interfaces ecn
 *       counters queue]                              eos_counters_decode (the
 *       plugin sends each in a runCmds of its own; here one answer of one
 *       or of all four stands for them)
 * eos_reply.c, eos_qos.c and eos_counters.c are compiled in (no curl: eos_rpc.c is not).
 *
 * Invariants: every decoder returns 0 or a negative errno with a message
 * (-EPROTO or -EIO for the envelope, and *failed within the commands);
 * a result array has as many entries as commands; names and strings the
 * sinks get are NUL-terminated within their arrays, ports are Ethernet*,
 * in natural order; a VLAN is 0 or 2..4094; a parsed state has one entry
 * per name asked with values in EOS's ranges, its lp_qos classes, queues
 * and groups 0..7, and a plan's commands are non-empty lines; counters as
 * fuzz_counters.h checks them (a port's error naming the command).
 *
 * By hand (BUILD is a configured build directory):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DLOOM_LIBFUZZER -D_GNU_SOURCE \
 *       -I BUILD -I . -I include -I plugins/eos tests/fuzz/fuzz_eos_rpc.c \
 *       plugins/eos/eos_reply.c plugins/eos/eos_qos.c plugins/lp_util.c -ljansson \
 *       -o fuzz_eos_rpc
 *   cp -r tests/fuzz/corpus/eos_rpc work && ./fuzz_eos_rpc work */
#include "autoconf.h"

#include <errno.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_lp.h"
#include "tests/fuzz/fuzz_counters.h"
#include "eos.h"

const char fuzz_name[] = "fuzz_eos_rpc";

struct ports {
	char last[LP_NAME_LEN];
	unsigned n;
};

static int on_port(void *ctx, const struct lp_port *p)
{
	struct ports *ps = ctx;

	fuzz_check_terminated(p->name, sizeof(p->name), "port name");
	fuzz_check_terminated(p->alias, sizeof(p->alias), "port alias");
	if (strncmp(p->name, "Ethernet", 8))
		fuzz_bug("port %s reported", p->name);
	if (ps->n && strverscmp(ps->last, p->name) > 0)
		fuzz_bug("port %s after %s", p->name, ps->last);
	if (p->admin_up > 1 || p->oper_up > 1 || (p->oper_up && !p->admin_up))
		fuzz_bug("port %s: admin %u oper %u", p->name, p->admin_up, p->oper_up);
	memcpy(ps->last, p->name, sizeof(ps->last));
	ps->n++;
	return 0;
}

static int on_neighbor(void *ctx, const struct lp_neighbor *n)
{
	(void)ctx;
	fuzz_check_lp_neighbor(n);
	return 0;
}

static void inventory(json_t *r)
{
	static const struct lp_port_sink sink = { NULL, on_port };
	struct lp_port_sink s = sink;
	struct lp_inventory inv;
	struct ports ps = { "", 0 };
	char err[256] = "";
	int rc;

	s.ctx = &ps;
	rc = eos_inventory_parse(r, &inv, &s, err, sizeof(err));
	fuzz_check_rc(rc, err, "eos_inventory_parse");
	fuzz_check_terminated(inv.hostname, sizeof(inv.hostname), "hostname");
	fuzz_check_terminated(inv.model, sizeof(inv.model), "model");
	fuzz_check_terminated(inv.os_version, sizeof(inv.os_version), "os_version");
	fuzz_check_terminated(inv.mac, sizeof(inv.mac), "mac");
}

static void one_result(json_t *r)
{
	static const struct lp_neighbor_sink nsink = { NULL, on_neighbor };
	static const char cmd[] = "show interfaces Ethernet1 switchport";
	struct lp_inventory inv = { 0 };
	char err[256] = "";
	uint16_t vid = 77;
	int rc;

	rc = eos_lldp_parse(r, &nsink, err, sizeof(err));
	fuzz_check_rc(rc, err, "eos_lldp_parse");
	err[0] = '\0';
	rc = eos_version_parse(r, 0, &inv, err, sizeof(err));
	fuzz_check_rc(rc, err, "eos_version_parse");
	fuzz_check_terminated(inv.model, sizeof(inv.model), "model");
	(void)eos_platform_voq(inv.model);
	err[0] = '\0';
	rc = eos_switchport_parse(r, "Ethernet1", cmd, &vid, err, sizeof(err));
	fuzz_check_rc(rc, err, "eos_switchport_parse");
	if (vid == 1 || vid > 4094 || (rc && vid))
		fuzz_bug("switchport: VLAN %u (rc %d)", vid, rc);
}

static void check_state(const struct eos_state *st, size_t n)
{
	if (st->n != n || !st->intf)
		fuzz_bug("state of %zu interfaces for %zu names", st->n, n);
	for (unsigned d = 0; d < 64; d++)
		if (st->dscp_tc[d] < -1 || st->dscp_tc[d] >= LP_TCS)
			fuzz_bug("dscp %u -> tc %d", d, st->dscp_tc[d]);
	for (unsigned t = 0; t < LP_TCS; t++)
		if (st->tc_txq[t] < -1 || st->tc_txq[t] >= LP_TCS)
			fuzz_bug("tc %u -> tx-queue %d", t, st->tc_txq[t]);
	for (size_t i = 0; i < st->n; i++) {
		const struct eos_intf *x = &st->intf[i];

		fuzz_check_terminated(x->name, sizeof(x->name), "interface name");
		if (x->trust < EOS_TRUST_DEFAULT || x->trust > EOS_TRUST_DSCP)
			fuzz_bug("%s: trust %d", x->name, x->trust);
		for (unsigned t = 0; t < LP_TCS; t++) {
			const struct eos_txq *q = &x->txq[t];

			fuzz_check_terminated(q->ecn_text, sizeof(q->ecn_text), "ecn_text");
			if (q->priority < -1 || q->priority > 1 || q->bandwidth < -1 ||
			    q->bandwidth > 100 || (q->ecn && q->ecn_prob > 100))
				fuzz_bug("%s tx-queue %u: priority %d bandwidth %d ecn prob %u",
					 x->name, t, q->priority, q->bandwidth, q->ecn_prob);
		}
	}
}

static void config(json_t *r)
{
	static const char *const names[] = { "Ethernet1", "Ethernet2" };
	static struct lp_qos q;
	struct eos_state st;
	struct eos_plan plan = { 0 };
	char err[256] = "", **cmds = NULL;
	size_t n = 0;
	int rc;

	rc = eos_config_parse(r, 1, names, 2, &st, err, sizeof(err));
	fuzz_check_rc(rc, err, "eos_config_parse");
	if (rc) {
		eos_state_free(&st);
		return;
	}
	check_state(&st, 2);
	memset(&q, 0, sizeof(q));
	q.n_ports = 2;
	memcpy(q.ports[0].port, names[0], strlen(names[0]) + 1);
	memcpy(q.ports[1].port, names[1], strlen(names[1]) + 1);
	err[0] = '\0';
	rc = eos_state_to_qos(&st, &q, err, sizeof(err));
	fuzz_check_rc(rc, err, "eos_state_to_qos");
	if (rc == 0) {
		fuzz_check_lp_qos(&q);
		if (strcmp(q.ports[0].port, names[0]) || strcmp(q.ports[1].port, names[1]))
			fuzz_bug("eos_state_to_qos changed the port names");
		err[0] = '\0';
		rc = eos_plan_qos(&q, &st, &plan, err, sizeof(err));
		fuzz_check_rc(rc, err, "eos_plan_qos");
		if (rc == 0 && plan.n) {
			if (eos_plan_cmds(&plan, &st, "loom-1-1", &cmds, &n) == 0)
				for (size_t i = 0; i < n; i++)
					if (!cmds[i] || !cmds[i][0] || strchr(cmds[i], '\n'))
						fuzz_bug("plan command %zu: \"%s\"", i,
							 cmds[i] ? cmds[i] : "(null)");
			eos_cmds_free(cmds, n);
		}
		eos_plan_free(&plan);
	}
	eos_state_free(&st);
}

static void counters(json_t *r)
{
	static struct fc_seen seen;
	struct lp_counter_sink sink = { &seen, fc_counter, fc_port_error };
	char err[256] = "";
	int rc;

	fc_reset(&seen, "show ");
	rc = eos_counters_decode(json_array_get(r, 0), json_array_get(r, 1), json_array_get(r, 2),
				 json_array_get(r, 3), &sink, err, sizeof(err));
	fuzz_check_rc(rc, err, "eos_counters_decode");
	for (size_t i = 1; i < seen.n; i++)
		if (strverscmp(seen.port[i - 1], seen.port[i]) > 0)
			fuzz_bug("port %s after %s", seen.port[i], seen.port[i - 1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const inv[] = { "show version", "show hostname",
					   "show interfaces status" };
	static const char *const one[] = { "show lldp neighbors detail" };
	static const char *const cfg[] = { "enable", "show running-config" };
	static const char *const ctr[] = { "show interfaces",
					   "show priority-flow-control counters detail",
					   "show priority-flow-control counters watchdog",
					   "show qos interfaces ecn counters queue" };
	static const struct {
		const char *const *cmds;
		size_t n;
		void (*decode)(json_t *r);
	} lists[] = { { inv, 3, inventory }, { one, 1, one_result }, { cfg, 2, config },
		      { ctr, 1, counters }, { ctr, 4, counters } };
	static const char url[] = "https://leaf1/command-api";

	for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
		char err[256] = "";
		json_t *r = (json_t *)1;
		int failed = 99;
		int rc = eos_rpc_decode((const char *)data, size, url, lists[l].cmds, lists[l].n, &r,
					&failed, err, sizeof(err));

		if (rc != 0 && rc != -EPROTO && rc != -EIO)
			fuzz_bug("eos_rpc_decode returned %d", rc);
		if (rc && (!err[0] || r))
			fuzz_bug("eos_rpc_decode failed (%d) with %s", rc,
				 r ? "a result" : "no message");
		if (failed < -1 || failed >= (int)lists[l].n || (rc != -EIO && failed != -1))
			fuzz_bug("eos_rpc_decode: failed %d of %zu commands (rc %d)", failed,
				 lists[l].n, rc);
		if (rc)
			continue;
		if (!json_is_array(r) || json_array_size(r) != lists[l].n)
			fuzz_bug("eos_rpc_decode: %zu results for %zu commands",
				 json_is_array(r) ? json_array_size(r) : 0, lists[l].n);
		lists[l].decode(r);
		json_decref(r);
	}
	return 0;
}
