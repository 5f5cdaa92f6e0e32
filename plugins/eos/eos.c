/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/eos/eos.c: the `eos` switch plugin (eos.so): Arista EOS switches
 * through eAPI, the JSON-RPC 2.0 "Command API" over HTTP(S) (libcurl,
 * jansson). The ops table of include/loom/loom_plugin.h; this file holds the
 * handle, inventory, LLDP, VLANs and health. The QoS translation is
 * eos_qos.c, eAPI access (runCmds, errors, TLS options) eos_rpc.c.
 *
 * loom.yaml:  switches: - { name: leaf1, plugin: eos,
 *                           address: "https://leaf1.mgmt:443",
 *                           credentials: /etc/loom/leaf1.cred,
 *                           options: "cacert=/etc/loom/ca.pem" }
 * credentials: one line "user:password" (HTTP basic auth, as eAPI wants);
 * options: "insecure" (no certificate checks), "cacert=/path".
 *
 * eAPI commands and the JSON fields used. Sources: Arista's Command API
 * overview and "eAPI 101" (eos.arista.com) for the request, runCmds and
 * "show version"'s systemMacAddress; NAPALM's eos driver (napalm/eos/eos.py:
 * "show lldp neighbors detail" fields, the quoted interfaceId, text format
 * {"output"} and eAPI's "CLI command 2 of 2 '...' failed: ..." message);
 * ANTA's LLDP test (interfaceId_v2); public eAPI scripts found through the
 * code search (show version, show hostname, show interfaces status fields).
 * Not checked against a real switch here.
 *   show version (json):         modelName, version, systemMacAddress
 *   show hostname (json):        hostname
 *   show interfaces status (json): interfaceStatuses{<name>: {bandwidth
 *                                (bit/s), linkStatus ("connected",
 *                                "notconnect", "disabled", "errdisabled")}}
 *                                Ethernet ports only. admin_up = linkStatus
 *                                not "disabled"; oper_up = "connected". MTU
 *                                is not in this output: 0 (unknown).
 *   show lldp neighbors detail (json): lldpNeighbors{<local port>:
 *                                {lldpNeighborInfo: [{chassisId (with
 *                                chassisIdType "macAddress": "001c.7300.1000",
 *                                reported as 00:1c:73:00:10:00), systemName,
 *                                neighborInterfaceInfo: {interfaceId_v2 (else
 *                                interfaceId, quoted), interfaceDescription}}]}}
 *   show running-config (text):  {"output": ...}: the QoS lines, see
 *                                eos_qos.c (no json show command's fields
 *                                could be confirmed for QoS), "qos trust"
 *                                and "no switchport" among them.
 *   show version's modelName, read at open, picks the queue keyword loom
 *                                writes: "uc-tx-queue" on the VOQ families
 *                                (7280, 75xx, 78xx), else "tx-queue"
 *                                (eos_platform_voq; EOS refuses the other).
 *   enable / configure session <name> / commit / abort, configure,
 *   interface <port>, switchport access vlan <vid>, no switchport access vlan.
 *   show interfaces <port> switchport (json): switchports{<port>: {enabled
 *                                (false: a routed port, "no switchport"),
 *                                switchportInfo: {mode ("access", "trunk",
 *                                ...), accessVlanId}}}: the text form's
 *                                "Switchport: Enabled/Disabled", "Access
 *                                Mode VLAN: 1 (default)" lines, with the
 *                                JSON names as eAPI clients read them
 *                                (internap/fake-switches' Arista eAPI model
 *                                and its transcripts, netbox importers; no
 *                                Arista page with the JSON was found). A
 *                                port EOS does not have fails with
 *                                "Interface does not exist" (what Ansible's
 *                                eos_l2_interface looks for in the answer
 *                                of this command).
 * Unconfirmed: whether every EOS release accepts "enable" as a plain
 * string when an enable secret is set (it then needs {"cmd":"enable",
 * "input":...}; not supported), the size of EOS's kbyte (loom writes
 * bytes; eos_qos.c), QoS defaults and default trust (eos_qos.c).
 *
 * qos_read: the same running-config lines, for the ports the caller names
 * (the first of them with PFC stands for all: loom sets them alike).
 *
 * qos_apply: check want against EOS's ranges (ECN thresholds; -EINVAL
 * naming the switch and queue, nothing sent), read the running-config,
 * compute the lines that differ (with "qos trust dscp" on every port),
 * report each (key = config context, "interface Ethernet1/tx-queue 3";
 * field = the setting; before / after), and unless dry_run send all of
 * them in ONE runCmds: ["enable", "configure session loom-<pid>-<n>",
 * lines (with "interface X", "tx-queue q", "exit" around them), "commit"],
 * so they land together or not at all; then report them done = 1. Nothing
 * differs: no configure at all. When eAPI refuses a command, the session
 * is aborted (a second runCmds: "enable", "configure session <s>",
 * "abort"), every change is reported done = 0, and the op returns -EIO
 * naming the failing command (1-based, as eAPI counts) and eAPI's error
 * text. When the answer is lost (timeout, connection reset, HTTP error),
 * the session is aborted if still pending and the running-config read
 * again: each change is reported done = 1 if the switch holds it now, else 0
 * (all or nothing, as a session commits). Everything landed:
 * 0; else the transport's error. vlan_set / vlan_clear: plain "configure"
 * (one line each). health: "show version".
 *
 * counters_read: "show interfaces", "show priority-flow-control counters
 * detail", "show priority-flow-control counters watchdog", "show qos
 * interfaces ecn counters queue" (json), each in its own runCmds; decoded
 * by eos_counters.c, which lists the fields. One of the last three that
 * eAPI refuses (a platform without it) is left out, logged once, and not
 * asked again on this handle.
 *
 * vlan_get: "show interfaces <port> switchport". mode "access" ->
 * accessVlanId, except VLAN 1: EOS's default, what "no switchport access
 * vlan" (vlan_clear) leaves, and which the running-config does not even
 * show when set: 0. Not enabled (routed), absent from switchports, or
 * another mode (trunk, dot1q-tunnel, ...: no access VLAN in effect) -> 0.
 * The command refused -> -ENOENT when the error says "Interface does not
 * exist" or the port is missing from "show interfaces status" (whatever
 * the words of this EOS release), else -EIO as eAPI said it.
 * Unconfirmed: whether a routed port is listed with enabled false or left
 * out (both read as 0), and eAPI's error code for an unknown port (not
 * used). */
#include "autoconf.h"
#include "eos.h"
#include "../lp_util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* runCmds with the commands given (NULL-terminated, at most 8). */
static int eapi_run(struct lp_switch *sw, const char *format, json_t **res, char *err, size_t errlen,
		    ...) __attribute__((sentinel));
static int eapi_run(struct lp_switch *sw, const char *format, json_t **res, char *err, size_t errlen,
		    ...)
{
	const char *cmds[8];
	size_t n = 0;
	va_list ap;

	va_start(ap, errlen);
	while (n < sizeof(cmds) / sizeof(cmds[0]) && (cmds[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	return eos_run(&sw->conn, cmds, n, format, res, NULL, err, errlen);
}

/* ---- open, close, health ------------------------------------------------ */

static int eos_health(struct lp_switch *sw, char *err, size_t errlen)
{
	json_t *r;
	int rc = eapi_run(sw, "json", &r, err, errlen, "show version", NULL);

	json_decref(r);
	return rc;
}

/* show version's modelName: the platform, and with it the queue keyword. */
static int read_model(struct lp_switch *sw, char *err, size_t errlen)
{
	struct lp_inventory inv = { 0 };
	json_t *r;
	int rc = eapi_run(sw, "json", &r, err, errlen, "show version", NULL);

	if (rc)
		return rc;
	rc = eos_version_parse(r, 0, &inv, err, errlen);
	json_decref(r);
	if (rc)
		return rc;
	lp_copy_str(sw->model, sizeof(sw->model), inv.model);
	sw->voq = (uint8_t)eos_platform_voq(sw->model);
	if (!sw->model[0])
		sw_log(sw, LP_LOG_WARNING, "show version has no modelName: assuming tx-queue "
		       "(not a VOQ platform)");
	return 0;
}

static int eos_open(const struct lp_endpoint *ep, const struct lp_host *host,
		    struct lp_switch **out, char *err, size_t errlen)
{
	struct lp_switch *sw;
	int rc;

	*out = NULL;
	if (!(sw = calloc(1, sizeof(*sw)))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	lp_copy_str(sw->name, sizeof(sw->name), ep->name);
	sw->host = host;
	if ((rc = eos_conn_init(&sw->conn, ep, err, errlen)) ||
	    (rc = read_model(sw, err, errlen))) {
		eos_conn_fini(&sw->conn);
		free(sw);
		return rc;
	}
	sw_log(sw, LP_LOG_INFO, "eAPI answers at %s (%s: %s)", sw->conn.url,
	       sw->model[0] ? sw->model : "model unknown", sw->voq ? "uc-tx-queue" : "tx-queue");
	*out = sw;
	return 0;
}

static void eos_close(struct lp_switch *sw)
{
	if (!sw)
		return;
	eos_conn_fini(&sw->conn);
	free(sw);
}

/* ---- inventory, LLDP -------------------------------------------------------- */

static int eos_inventory(struct lp_switch *sw, struct lp_inventory *inv,
			 const struct lp_port_sink *sink, char *err, size_t errlen)
{
	json_t *r;
	int rc;

	memset(inv, 0, sizeof(*inv));
	if ((rc = eapi_run(sw, "json", &r, err, errlen, "show version", "show hostname",
			   "show interfaces status", NULL)))
		return rc;
	rc = eos_inventory_parse(r, inv, sink, err, errlen);
	json_decref(r);
	return rc;
}

static int eos_lldp(struct lp_switch *sw, const struct lp_neighbor_sink *sink, char *err,
		    size_t errlen)
{
	json_t *r;
	int rc;

	if ((rc = eapi_run(sw, "json", &r, err, errlen, "show lldp neighbors detail", NULL)))
		return rc;
	rc = eos_lldp_parse(r, sink, err, errlen);
	json_decref(r);
	return rc;
}

/* ---- QoS -------------------------------------------------------------------- */

static int read_state(struct lp_switch *sw, const struct lp_port_buffer *ports, size_t n,
		      struct eos_state *st, char *err, size_t errlen)
{
	const char **names = calloc(n + 1, sizeof(*names));
	json_t *r = NULL;
	int rc;

	memset(st, 0, sizeof(*st));
	if (!names) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		names[i] = ports[i].port;
	if (!(rc = eapi_run(sw, "text", &r, err, errlen, "enable", "show running-config", NULL))) {
		rc = eos_config_parse(r, 1, names, n, st, err, errlen);
		st->voq = sw->voq;
	}
	json_decref(r);
	free(names);
	return rc;
}

static int eos_qos_read(struct lp_switch *sw, struct lp_qos *q, char *err, size_t errlen)
{
	struct eos_state st;
	int rc;

	if (q->n_ports > LP_MAX_PORTS) {
		snprintf(err, errlen, "%zu ports: loom takes at most %d", q->n_ports, LP_MAX_PORTS);
		return -E2BIG;
	}
	if ((rc = read_state(sw, q->ports, q->n_ports, &st, err, errlen)))
		return rc;
	rc = eos_state_to_qos(&st, q, err, errlen);
	eos_state_free(&st);
	return rc;
}

static int report(const struct eos_plan *p, int done, const struct lp_change_sink *sink)
{
	int rc = 0;

	for (size_t i = 0; i < p->n && !rc; i++) {
		struct lp_change c = { p->e[i].key, p->e[i].field, p->e[i].before, p->e[i].after,
				       done };

		if (sink && sink->change)
			rc = sink->change(sink->ctx, &c);
	}
	return rc;
}

/* Drop a configure session that holds part of a plan (an error in it). */
static void abort_session(struct lp_switch *sw, const char *session)
{
	char cs[96], aerr[256];
	const char *cmds[] = { "enable", cs, "abort" };
	json_t *r = NULL;

	snprintf(cs, sizeof(cs), "configure session %s", session);
	if (eos_run(&sw->conn, cmds, 3, "json", &r, NULL, aerr, sizeof(aerr)))
		sw_log(sw, LP_LOG_WARNING, "abort of session %s: %s", session, aerr);
	json_decref(r);
}

/* The runCmds of a plan got no answer (timeout, connection lost, HTTP
 * error): find out whether the session was committed. Abort it (eAPI
 * refuses that when it was committed, and nothing else is lost), read the
 * running-config again and report each change done = 1 when the switch now
 * holds it, else 0. 0 when everything landed; else `rc` with err as it
 * was (the reason the answer was lost). */
static int settle(struct lp_switch *sw, const struct lp_qos *want, const struct eos_plan *plan,
		  const char *session, const struct lp_change_sink *sink, int rc, char *err,
		  size_t errlen)
{
	struct eos_state st;
	struct eos_plan left = { 0 };
	char rerr[256];
	size_t landed = 0;
	int rc2 = 0, unknown;

	abort_session(sw, session);
	if (read_state(sw, want->ports, want->n_ports, &st, rerr, sizeof(rerr))) {
		report(plan, 0, sink);
		sw_log(sw, LP_LOG_ERR, "QoS apply: no answer (%s), and reading back failed (%s): "
		       "reported as not done", err, rerr);
		return rc;
	}
	unknown = eos_plan_qos(want, &st, &left, rerr, sizeof(rerr)) != 0;
	for (size_t i = 0; i < plan->n && !rc2; i++) {
		const struct eos_edit *e = &plan->e[i];
		struct lp_change c = { e->key, e->field, e->before, e->after, !unknown };

		for (size_t k = 0; k < left.n; k++)
			if (!strcmp(left.e[k].key, e->key) && !strcmp(left.e[k].field, e->field))
				c.done = 0;
		landed += (size_t)c.done;
		if (sink && sink->change)
			rc2 = sink->change(sink->ctx, &c);
	}
	eos_plan_free(&left);
	eos_state_free(&st);
	if (landed == plan->n) {
		sw_log(sw, LP_LOG_WARNING, "QoS apply: the answer was lost (%s) but the switch "
		       "holds all %zu settings (session %s committed)", err, plan->n, session);
		return rc2;
	}
	sw_log(sw, LP_LOG_ERR, "QoS apply: no answer (%s); %zu of %zu settings landed", err,
	       landed, plan->n);
	return rc;
}

static int eos_qos_apply(struct lp_switch *sw, const struct lp_qos *want, int dry_run,
			 const struct lp_change_sink *changes, char *err, size_t errlen)
{
	struct eos_state st;
	struct eos_plan plan = { 0 };
	char **cmds = NULL, session[64];
	size_t n = 0;
	json_t *r = NULL;
	int rc, failed;

	if (want->n_ports > LP_MAX_PORTS) {
		snprintf(err, errlen, "%zu ports: loom takes at most %d", want->n_ports, LP_MAX_PORTS);
		return -E2BIG;
	}
	if ((rc = read_state(sw, want->ports, want->n_ports, &st, err, errlen)))
		return rc;
	for (size_t i = 0; i < st.n; i++)
		if (!st.intf[i].found) {
			/* EOS lists every physical interface in running-config */
			snprintf(err, errlen, "no interface %s in the running-config", st.intf[i].name);
			rc = -ENOENT;
			goto out;
		}
	if ((rc = eos_plan_qos(want, &st, &plan, err, errlen))) {
		char why[384];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "switch %s: %s", sw->name, why);
		goto out;
	}
	if (dry_run || !plan.n) {
		rc = report(&plan, 0, changes);
		goto out;
	}
	snprintf(session, sizeof(session), "loom-%ld-%u", (long)getpid(), ++sw->session);
	if ((rc = eos_plan_cmds(&plan, &st, session, &cmds, &n))) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	rc = eos_run(&sw->conn, (const char *const *)cmds, n, "json", &r, &failed, err, errlen);
	json_decref(r);
	r = NULL;
	if (rc && rc != -EIO) {
		/* no answer: the session may or may not have been committed */
		rc = settle(sw, want, &plan, session, changes, rc, err, errlen);
		goto out;
	}
	if (rc) {
		if (failed >= 2)
			abort_session(sw, session);
		report(&plan, 0, changes);
		sw_log(sw, LP_LOG_ERR, "QoS apply failed, nothing of it committed: %s", err);
		goto out;
	}
	sw_log(sw, LP_LOG_INFO, "QoS: %zu settings committed in session %s", plan.n, session);
	rc = report(&plan, 1, changes);
out:
	eos_cmds_free(cmds, n);
	eos_plan_free(&plan);
	eos_state_free(&st);
	return rc;
}

/* ---- VLANs ------------------------------------------------------------------ */

static int port_ok(const char *port, char *err, size_t errlen)
{
	if (!port || !*port || strlen(port) >= LP_NAME_LEN ||
	    port[strspn(port, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/.")]) {
		snprintf(err, errlen, "\"%s\" is no EOS interface name", port ? port : "");
		return -EINVAL;
	}
	return 0;
}

static int vlan_cmds(struct lp_switch *sw, const char *port, const char *line, char *err,
		     size_t errlen)
{
	char intf[96];
	const char *cmds[] = { "enable", "configure", intf, line, "end" };
	json_t *r = NULL;
	int rc;

	snprintf(intf, sizeof(intf), "interface %s", port);
	rc = eos_run(&sw->conn, cmds, 5, "json", &r, NULL, err, errlen);
	json_decref(r);
	return rc;
}

static int eos_vlan_set(struct lp_switch *sw, const char *port, uint16_t vid, char *err,
			size_t errlen)
{
	char line[64];
	int rc;

	if (vid < 1 || vid > 4094) {
		snprintf(err, errlen, "VLAN %u: EOS takes 1..4094", vid);
		return -EINVAL;
	}
	if ((rc = port_ok(port, err, errlen)))
		return rc;
	snprintf(line, sizeof(line), "switchport access vlan %u", vid);
	if ((rc = vlan_cmds(sw, port, line, err, errlen)))
		return rc;
	sw_log(sw, LP_LOG_INFO, "%s: access VLAN %u", port, vid);
	return 0;
}

static int eos_vlan_clear(struct lp_switch *sw, const char *port, char *err, size_t errlen)
{
	int rc;

	if ((rc = port_ok(port, err, errlen)))
		return rc;
	return vlan_cmds(sw, port, "no switchport access vlan", err, errlen);
}

/* After "show interfaces <port> switchport" was refused: -ENOENT if the
 * switch has no such port, else `rc` with err as it was. */
static int no_such_port(struct lp_switch *sw, const char *port, int rc, char *err,
			size_t errlen)
{
	char why[256];
	json_t *r = NULL, *st;

	if (strstr(err, "Interface does not exist")) {
		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "no interface %s (%s)", port, why);
		return -ENOENT;
	}
	if (eapi_run(sw, "json", &r, why, sizeof(why), "show interfaces status", NULL))
		return rc;
	st = json_object_get(json_array_get(r, 0), "interfaceStatuses");
	if (json_is_object(st) && !json_object_get(st, port)) {
		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "no interface %s on the switch (%s)", port, why);
		rc = -ENOENT;
	}
	json_decref(r);
	return rc;
}

static int eos_vlan_get(struct lp_switch *sw, const char *port, uint16_t *vid, char *err,
			size_t errlen)
{
	char cmd[96];
	const char *cmds[] = { cmd };
	json_t *r = NULL;
	int rc, failed;

	*vid = 0;
	if ((rc = port_ok(port, err, errlen)))
		return rc;
	snprintf(cmd, sizeof(cmd), "show interfaces %s switchport", port);
	rc = eos_run(&sw->conn, cmds, 1, "json", &r, &failed, err, errlen);
	if (rc == -EIO && failed == 0)
		return no_such_port(sw, port, rc, err, errlen);
	if (rc)
		return rc;
	rc = eos_switchport_parse(r, port, cmd, vid, err, errlen);
	json_decref(r);
	return rc;
}

/* qos plan's objects: the configuration contexts loom's lines go into.
 * The global QoS maps ("qos map dscp", "qos map traffic-class") serve every
 * port: switch-wide; "interface <port>..." is the managed port's own. */
static const char *eos_shared(const char *key)
{
	return strncmp(key, "interface ", 10) ? "switch-wide" : "";
}

static int eos_qos_objects(struct lp_switch *sw, const struct lp_qos *want,
			   const struct lp_object_sink *out, char *err, size_t errlen)
{
	return lp_objects_by_dry_run(sw, want, eos_qos_apply, eos_shared, 1, out, err, errlen);
}

/* ---- counters (ABI 2) ------------------------------------------------------- */

/* The counters commands besides "show interfaces", each optional. */
static const char *const counter_cmds[3] = {
	"show priority-flow-control counters detail",
	"show priority-flow-control counters watchdog",
	"show qos interfaces ecn counters queue",
};

/* Command i of counter_cmds' answer, or *res NULL when EOS refused it (this
 * platform or release lacks it: its counters are left out, and it is not
 * asked again on this handle; logged once). Transport errors and answers
 * that are no JSON-RPC fail. */
static int optional(struct lp_switch *sw, int i, json_t **res, char *err, size_t errlen)
{
	char e[512];
	json_t *r = NULL;
	int rc;

	*res = NULL;
	if (sw->counters_refused & (1u << i))
		return 0;
	rc = eapi_run(sw, "json", &r, e, sizeof(e), counter_cmds[i], NULL);
	if (rc == -EIO) {
		sw->counters_refused |= (uint8_t)(1u << i);
		sw_log(sw, LP_LOG_INFO, "counters: %s: those counters are not read from this "
		       "switch", e);
		return 0;
	}
	if (rc) {
		snprintf(err, errlen, "%s", e);
		return rc;
	}
	*res = r;
	return 0;
}

/* eos_counters.c decodes; each command in its own runCmds, so that one a
 * platform refuses leaves only its counters out. */
static int eos_counters_read(struct lp_switch *sw, const struct lp_counter_sink *out, char *err,
			     size_t errlen)
{
	json_t *r[4] = { NULL, NULL, NULL, NULL };
	int rc;

	if (!(rc = eapi_run(sw, "json", &r[0], err, errlen, "show interfaces", NULL)) &&
	    !(rc = optional(sw, 0, &r[1], err, errlen)) &&
	    !(rc = optional(sw, 1, &r[2], err, errlen)) &&
	    !(rc = optional(sw, 2, &r[3], err, errlen)))
		rc = eos_counters_decode(json_array_get(r[0], 0), json_array_get(r[1], 0),
					 json_array_get(r[2], 0), json_array_get(r[3], 0), out,
					 err, errlen);
	for (int i = 0; i < 4; i++)
		json_decref(r[i]);
	return rc;
}

extern const struct loom_plugin_v1 loom_plugin_v1;
const struct loom_plugin_v1 loom_plugin_v1 = {
	.abi = LOOM_PLUGIN_ABI,
	.size = sizeof(struct loom_plugin_v1),
	.name = "eos",
	.version = PACKAGE_VERSION,
	.open = eos_open,
	.close = eos_close,
	.inventory = eos_inventory,
	.lldp_neighbors = eos_lldp,
	.qos_read = eos_qos_read,
	.qos_apply = eos_qos_apply,
	.qos_objects = eos_qos_objects,
	.vlan_set = eos_vlan_set,
	.vlan_clear = eos_vlan_clear,
	.health = eos_health,
	.vlan_get = eos_vlan_get,
	.counters_read = eos_counters_read,
};
