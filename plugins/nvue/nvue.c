/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/nvue/nvue.c: the `nvue` switch plugin (nvue.so): NVIDIA Cumulus
 * Linux 5.x switches through the NVUE REST API (HTTPS, basic auth, JSON),
 * with libcurl and jansson. The ops table of include/loom/loom_plugin.h; this
 * file holds the handle, inventory, LLDP, the revision flow of QoS apply,
 * VLANs and health. The QoS translation is nvue_qos.c, HTTP nvue_http.c
 * (address forms, credentials, options, errors).
 *
 * loom.yaml:  switches: - { name: leaf1, plugin: nvue,
 *                           address: "https://leaf1:8765",
 *                           credentials: /etc/loom/leaf1.cred,   # user:password
 *                           options: "cacert=/etc/loom/ca.pem" } # or "insecure"
 *
 * The NVUE API, as this plugin uses it. Sources:
 *  - "NVUE API", Cumulus Linux 5.x user guide (docs.nvidia.com/networking-
 *    ethernet-software/cumulus-linux-5NN/System-Configuration/NVIDIA-User-
 *    Experience-NVUE/NVUE-API/): port 8765, basic auth, GET/POST/PATCH,
 *    revisions, targeted and root PATCH, ?rev=applied;
 *  - NVIDIA's Ansible collection nvidia.nvue (plugins/httpapi/httpapi.py):
 *    POST revision and its id as the answer's first key, the id's '/' sent
 *    as %2F, PATCH ?rev=<id> on the root, the apply body with auto-prompt
 *    ays_yes, polling GET revision/<id> for "applied"; its qos module for
 *    the JSON names: roce {enable, mode}, mapping <id> {trust, dscp <id>
 *    {switch-priority}}, egress-queue-mapping <id> switch-priority <id>
 *    {traffic-class}, pfc <id> {cable-length, xoff-threshold,
 *    xon-threshold, port-buffer, tx, rx, switch-priority <id>},
 *    pfc-watchdog {polling-interval, robustness};
 *  - "RDMA over Converged Ethernet - RoCE" (Cumulus Linux 5.x): qos roce
 *    mode lossless and its defaults (DSCP 26 -> 3, PFC 3, CNP 6 strict, ETS
 *    50/50, ECN 150 KB..1.5 MB), which loom's defaults mirror;
 *  - NVUE command reference, "Set and Unset Commands / QoS" (nvue-reference,
 *    Cumulus Linux 5.4+): qos congestion-control and egress-scheduler
 *    profiles, and interface <id> qos ... profile bindings (not used: loom
 *    writes the default-global profiles every port takes by default).
 * Calls:
 *   base          https://<switch>:8765/nvue_v1/, HTTP basic auth
 *   read          GET <path>?rev=applied  (what is applied; GET <path> alone
 *                 is the operational state)
 *   revision      POST revision -> {"<id>": {"state": "pending", ...}};
 *                 ids hold '/' ("changeset/cumulus/2024-...") and are sent
 *                 %2F-encoded, in ?rev= too
 *   change        PATCH ?rev=<id> on the root, one JSON body holding every
 *                 change (a "root patch"; nulls unset)
 *   apply         PATCH revision/<id> {"state": "apply",
 *                 "auto-prompt": {"ays": "ays_yes"}}
 *   wait          GET revision/<id> until "state" is "applied"; "apply_fail",
 *                 "ays_fail", "invalid" and the like are failures, with
 *                 "transition": {"issue": {...}} saying why
 *   inventory     GET system (hostname; build, or version.image, as the OS
 *                 version), GET platform (product-name; base-mac) when the
 *                 switch has it, GET interface (type swp: link speed, mtu,
 *                 state, oper-status)
 *   lldp          GET interface/<swp>/lldp/neighbor: per neighbour chassis
 *                 {chassis-id, system-name}, port {name, description}
 *   vlan          interface/<port>/bridge/domain/br_default access <vid>
 *                 (null to clear)
 *   vlan_get      GET interface/<port>/bridge/domain/br_default?rev=applied:
 *                 {"access": <vid>, ...}, the leaf of "nv set interface
 *                 <port> bridge domain br_default access <vid>" (NVUE
 *                 command reference, "Set and Unset Commands / Interface";
 *                 Cumulus Linux user guide, "Ethernet Bridging - VLANs /
 *                 Access Ports"), read from the applied revision as QoS is;
 *                 no "access" -> 0 (a trunk port or none); 404 (the port in no
 *                 bridge, or with no configuration at all) -> 0 when GET
 *                 interface/<port> (operational) finds the port, else
 *                 -ENOENT. Only br_default, the one domain vlan_set writes.
 *   health        GET system
 *   counters      GET interface (link stats), GET interface/<port>/counters/qos
 *                 (qos/counters up to 5.4), GET interface/<port>/qos/pfc-watchdog,
 *                 the operational tree: nvue_counters.c
 * The QoS objects and their fields are listed in nvue_qos.c.
 *
 * Not confirmed (no Cumulus Linux switch here; the test server
 * tests/servers/nvue_server.py implements what is above, as written down
 * here): the JSON shape of interface link state ({"up": {}} or "up"),
 * oper-status, of LLDP neighbours and of platform (product-name, base-mac);
 * that a PATCH null unsets (RFC 7386 merge semantics); the error body
 * (read as RFC 7807 title/detail, else quoted raw); the revision states
 * besides "applied" (anything not pending/applying is taken as failed);
 * congestion-control traffic-class {ecn, min-threshold, max-threshold,
 * probability} (names from the CLI, thresholds in bytes); egress-scheduler
 * traffic-class {mode dwrr|strict, bw-percent}; and the per-interface
 * qos pfc-watchdog "state" leaf; that GET of one interface's object with
 * ?rev=applied gives that interface's own leaves (not a range key such as
 * "swp1-4" that the CLI may show), access as a JSON integer; that NVUE
 * refuses the rules across fields (DWRR sum, watchdog without PFC, ECN min
 * above max) at apply time, as a failed revision (the stand-in says
 * "invalid"), and schema violations at PATCH time (400).
 *
 * QoS apply: read the applied qos and interface trees, diff loom's leaves
 * against them, report each differing leaf (key = NVUE path of its object,
 * field = the leaf); nothing differs -> no revision at all. Otherwise one
 * revision holds every change and applies atomically: all are reported
 * with done = 0 (dry run, or the apply failed: none landed) or, once the
 * revision is applied, done = 1. A revision still applying when
 * timeout_ms runs out is -ETIMEDOUT with done = 0: it may land later, and
 * the next apply's diff shows whether it did. A revision whose PATCH or
 * apply failed is left pending on the switch (NVUE keeps revisions; none
 * is applied without its own apply call). */
#include "autoconf.h"
#include "nvue.h"
#include "../lp_util.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *jstr(json_t *o, const char *field)
{
	json_t *v = json_is_object(o) ? json_object_get(o, field) : NULL;

	return json_is_string(v) ? json_string_value(v) : "";
}

static int oom(char *err, size_t errlen)
{
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

/* ---- open, close, health ------------------------------------------------ */

static int nvue_health(struct lp_switch *sw, char *err, size_t errlen)
{
	json_t *sys;
	int rc;

	if ((rc = nv_request(sw, "GET", "system", NULL, NULL, &sys, err, errlen)))
		return rc;
	if (!json_is_object(sys)) {
		json_decref(sys);
		snprintf(err, errlen, "GET %ssystem: not a JSON object: not NVUE?", sw->base);
		return -EPROTO;
	}
	json_decref(sys);
	return 0;
}

static void nvue_close(struct lp_switch *sw)
{
	if (!sw)
		return;
	nv_http_fini(sw);
	free(sw);
}

static int nvue_open(const struct lp_endpoint *ep, const struct lp_host *host,
		     struct lp_switch **out, char *err, size_t errlen)
{
	struct lp_switch *sw;
	int rc;

	*out = NULL;
	if (!(sw = calloc(1, sizeof(*sw))))
		return oom(err, errlen);
	lp_copy_str(sw->name, sizeof(sw->name), ep->name);
	sw->host = host;
	if ((rc = nv_http_init(sw, ep, err, errlen)) || (rc = nvue_health(sw, err, errlen))) {
		nvue_close(sw);
		return rc;
	}
	sw_log(sw, LP_LOG_INFO, "NVUE API answers at %s", sw->base);
	*out = sw;
	return 0;
}

/* ---- inventory ------------------------------------------------------------ */

static int nvue_inventory(struct lp_switch *sw, struct lp_inventory *inv,
			  const struct lp_port_sink *sink, char *err, size_t errlen)
{
	json_t *sys = NULL, *plat = NULL, *ifs = NULL;
	int rc;

	memset(inv, 0, sizeof(*inv));
	if ((rc = nv_request(sw, "GET", "system", NULL, NULL, &sys, err, errlen)))
		return rc;
	rc = nv_request(sw, "GET", "platform", NULL, NULL, &plat, err, errlen);
	if (rc && rc != -ENOENT)
		goto out;
	if ((rc = nv_system_parse(sys, plat, inv, err, errlen)) ||
	    (rc = nv_request(sw, "GET", "interface", NULL, NULL, &ifs, err, errlen)))
		goto out;
	rc = nv_ports_parse(ifs, sink, err, errlen);
out:
	json_decref(sys);
	json_decref(plat);
	json_decref(ifs);
	return rc;
}

static int nvue_lldp(struct lp_switch *sw, const struct lp_neighbor_sink *sink, char *err,
		     size_t errlen)
{
	json_t *ifs = NULL, *ifc;
	const char *name;
	int rc;

	if ((rc = nv_request(sw, "GET", "interface", NULL, NULL, &ifs, err, errlen)))
		return rc;
	json_object_foreach(ifs, name, ifc) {
		char path[NV_PATH_LEN];
		json_t *nbrs = NULL;

		if (!nv_is_port(name, ifc) || strchr(name, '/'))
			continue;
		snprintf(path, sizeof(path), "interface/%s/lldp/neighbor", name);
		rc = nv_request(sw, "GET", path, NULL, NULL, &nbrs, err, errlen);
		if (rc == -ENOENT) {          /* no LLDP on this port */
			rc = 0;
			continue;
		}
		if (!rc)
			rc = nv_neighbors_parse(name, nbrs, sink, err, errlen);
		json_decref(nbrs);
		if (rc)
			break;
	}
	json_decref(ifs);
	return rc;
}

/* ---- revisions -------------------------------------------------------------- */

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Why a revision failed, from its "transition": {"issue": {..: {"message"}}}. */
static void revision_issue(json_t *rev, char *buf, size_t len)
{
	json_t *issues = json_object_get(json_object_get(rev, "transition"), "issue"), *i;
	const char *k;
	size_t o = 0;

	buf[0] = '\0';
	json_object_foreach(issues, k, i) {
		const char *m = json_is_string(i) ? json_string_value(i) : jstr(i, "message");

		if (*m && o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? "; " : "", m);
	}
}

/* Make the switch hold `patch` (a root patch): a revision, the PATCH, its
 * apply, and the wait until it is applied. */
static int apply_patch(struct lp_switch *sw, json_t *patch, char *err, size_t errlen)
{
	json_t *r = NULL, *body = NULL;
	char id[NV_PATH_LEN], path[NV_PATH_LEN + 16];
	const char *k;
	json_t *v;
	long deadline;
	int rc;

	if ((rc = nv_request(sw, "POST", "revision", NULL, NULL, &r, err, errlen)))
		return rc;
	id[0] = '\0';
	json_object_foreach(r, k, v) {
		lp_copy_str(id, sizeof(id), k);
		break;
	}
	json_decref(r);
	if (!id[0]) {
		snprintf(err, errlen, "POST %srevision: no revision id in the answer", sw->base);
		return -EPROTO;
	}
	if ((rc = nv_request(sw, "PATCH", "", id, patch, NULL, err, errlen)))
		return rc;
	body = json_pack("{s:s, s:{s:s}}", "state", "apply", "auto-prompt", "ays", "ays_yes");
	if (!body)
		return oom(err, errlen);
	/* the id's '/' must stay encoded inside this one path component */
	{
		char enc[NV_PATH_LEN * 3] = "";
		size_t o = 0;

		for (const char *s = id; *s && o + 4 < sizeof(enc); s++) {
			if (*s == '/') {
				memcpy(enc + o, "%2F", 3);
				o += 3;
			} else {
				enc[o++] = *s;
			}
		}
		enc[o] = '\0';
		snprintf(path, sizeof(path), "revision/%s", enc);
	}
	rc = nv_request(sw, "PATCH", path, NULL, body, NULL, err, errlen);
	json_decref(body);
	if (rc)
		return rc;
	deadline = now_ms() + (sw->timeout_ms > 1000 ? sw->timeout_ms : 1000);
	for (long wait = 20;; wait = wait < 500 ? wait * 2 : 500) {
		char state[NV_STR_LEN];

		if ((rc = nv_request(sw, "GET", path, NULL, NULL, &r, err, errlen)))
			return rc;
		lp_copy_str(state, sizeof(state), jstr(r, "state"));
		if (!strcmp(state, "applied")) {
			json_decref(r);
			return 0;
		}
		if (strcmp(state, "pending") && strcmp(state, "apply") && strcmp(state, "applying") &&
		    strcmp(state, "ays") && strcmp(state, "checked") && strcmp(state, "checking") &&
		    strcmp(state, "")) {
			char why[256];

			revision_issue(r, why, sizeof(why));
			snprintf(err, errlen, "revision %s: %s%s%s", id, state, why[0] ? ": " : "", why);
			json_decref(r);
			return -EIO;
		}
		json_decref(r);
		if (now_ms() >= deadline) {
			snprintf(err, errlen, "revision %s: still %s after %d ms", id, state,
				 sw->timeout_ms);
			return -ETIMEDOUT;
		}
		sleep_ms(wait);
	}
}

/* ---- QoS ---------------------------------------------------------------------- */

static int read_applied(struct lp_switch *sw, json_t **root, char *err, size_t errlen)
{
	json_t *qos = NULL, *ifs = NULL;
	int rc;

	*root = NULL;
	rc = nv_request(sw, "GET", "qos", "applied", NULL, &qos, err, errlen);
	if (rc && rc != -ENOENT)
		return rc;
	if ((rc = nv_request(sw, "GET", "interface", "applied", NULL, &ifs, err, errlen))) {
		json_decref(qos);
		return rc;
	}
	*root = json_pack("{s:o, s:o}", "qos", qos ? qos : json_object(), "interface",
			  ifs ? ifs : json_object());
	return *root ? 0 : oom(err, errlen);
}

static int nvue_qos_read(struct lp_switch *sw, struct lp_qos *q, char *err, size_t errlen)
{
	json_t *root;
	int rc;

	if ((rc = read_applied(sw, &root, err, errlen)))
		return rc;
	rc = nv_qos_parse(json_object_get(root, "qos"), json_object_get(root, "interface"), q, err,
			  errlen);
	json_decref(root);
	return rc;
}

static int report(const struct lp_change_sink *sink, const struct nv_leaf *lf, const char *before,
		  int done)
{
	struct lp_change c = { lf->path, lf->field, before, lf->value, done };

	return sink && sink->change ? sink->change(sink->ctx, &c) : 0;
}

static int nvue_qos_apply(struct lp_switch *sw, const struct lp_qos *want, int dry_run,
			  const struct lp_change_sink *sink, char *err, size_t errlen)
{
	struct nv_leaves l;
	json_t *root = NULL, *patch = NULL;
	char (*before)[NV_STR_LEN] = NULL;
	size_t *diff = NULL, n = 0;
	int rc;

	if ((rc = nv_qos_leaves(sw->name, want, &l, err, errlen)))
		return rc;
	if ((rc = read_applied(sw, &root, err, errlen)))
		goto out;
	if (!(before = calloc(l.n + 1, sizeof(*before))) || !(diff = calloc(l.n + 1, sizeof(*diff))) ||
	    !(patch = json_object())) {
		rc = oom(err, errlen);
		goto out;
	}
	for (size_t i = 0; i < l.n; i++) {
		nv_leaf_value(root, &l.v[i], before[i], sizeof(before[i]));
		if (strcmp(before[i], l.v[i].value)) {
			diff[n++] = i;
			if (nv_patch_set(patch, &l.v[i])) {
				rc = oom(err, errlen);
				goto out;
			}
		}
	}
	if (!n)
		goto out;
	if (!dry_run) {
		rc = apply_patch(sw, patch, err, errlen);
		if (rc)
			sw_log(sw, LP_LOG_ERR, "QoS apply stopped: %s", err);
		else
			sw_log(sw, LP_LOG_NOTICE, "QoS: %zu NVUE leaves changed", n);
	}
	for (size_t i = 0; i < n; i++) {
		int r = report(sink, &l.v[diff[i]], before[diff[i]], !dry_run && !rc);

		if (r && !rc)
			rc = r;
	}
out:
	free(before);
	free(diff);
	json_decref(patch);
	json_decref(root);
	nv_leaves_free(&l);
	return rc;
}

/* ---- VLANs -------------------------------------------------------------------- */

static int check_port(struct lp_switch *sw, const char *port, char *err, size_t errlen)
{
	char path[NV_PATH_LEN];
	json_t *ifc = NULL;
	int rc;

	if (!port || !*port || strlen(port) >= LP_NAME_LEN || strchr(port, '/') ||
	    strchr(port, '?')) {
		snprintf(err, errlen, "\"%s\" is no Cumulus Linux port name", port ? port : "");
		return -EINVAL;
	}
	/* the operational tree: a port with no configuration yet is in it,
	 * not in rev=applied */
	snprintf(path, sizeof(path), "interface/%s", port);
	rc = nv_request(sw, "GET", path, NULL, NULL, &ifc, err, errlen);
	json_decref(ifc);
	if (rc == -ENOENT)
		snprintf(err, errlen, "no port %s (GET %s%s: 404)", port, sw->base, path);
	return rc;
}

static int set_access(struct lp_switch *sw, const char *port, json_t *vid, char *err,
		      size_t errlen)
{
	json_t *patch;
	int rc;

	if (!vid)
		return oom(err, errlen);
	patch = json_pack("{s:{s:{s:{s:{s:{s:o}}}}}}", "interface", port, "bridge", "domain",
			  "br_default", "access", vid);
	if (!patch)
		return oom(err, errlen);
	rc = apply_patch(sw, patch, err, errlen);
	json_decref(patch);
	return rc;
}

static int nvue_vlan_set(struct lp_switch *sw, const char *port, uint16_t vid, char *err,
			 size_t errlen)
{
	int rc;

	if (vid < 1 || vid > 4094) {
		snprintf(err, errlen, "VLAN %u: Cumulus Linux takes 1..4094", vid);
		return -EINVAL;
	}
	if ((rc = check_port(sw, port, err, errlen)) ||
	    (rc = set_access(sw, port, json_integer(vid), err, errlen)))
		return rc;
	sw_log(sw, LP_LOG_INFO, "%s: access VLAN %u", port, vid);
	return 0;
}

static int nvue_vlan_clear(struct lp_switch *sw, const char *port, char *err, size_t errlen)
{
	char path[NV_PATH_LEN];
	json_t *dom = NULL;
	int rc;

	if ((rc = check_port(sw, port, err, errlen)))
		return rc;
	snprintf(path, sizeof(path), "interface/%s/bridge/domain/br_default", port);
	rc = nv_request(sw, "GET", path, "applied", NULL, &dom, err, errlen);
	if (rc == -ENOENT)
		return 0;                /* in no bridge: nothing to clear */
	if (rc)
		return rc;
	if (!json_object_get(dom, "access")) {
		json_decref(dom);
		return 0;                /* idempotent: no revision */
	}
	json_decref(dom);
	return set_access(sw, port, json_null(), err, errlen);
}

/* The access VLAN of the port in br_default, as the applied revision holds
 * it (what vlan_set wrote, or an operator's "nv set ... access"). */
static int nvue_vlan_get(struct lp_switch *sw, const char *port, uint16_t *vid, char *err,
			 size_t errlen)
{
	char path[NV_PATH_LEN];
	json_t *dom = NULL;
	int rc;

	*vid = 0;
	if (!port || !*port || strlen(port) >= LP_NAME_LEN || strchr(port, '/') ||
	    strchr(port, '?')) {
		snprintf(err, errlen, "\"%s\" is no Cumulus Linux port name", port ? port : "");
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "interface/%s/bridge/domain/br_default", port);
	rc = nv_request(sw, "GET", path, "applied", NULL, &dom, err, errlen);
	if (rc == -ENOENT)               /* in no bridge (or an unknown port) */
		return check_port(sw, port, err, errlen);
	if (rc)
		return rc;
	{
		char what[NV_URL_LEN + NV_PATH_LEN + 32];

		snprintf(what, sizeof(what), "GET %s%s?rev=applied", sw->base, path);
		rc = nv_access_parse(dom, what, vid, err, errlen);
	}
	json_decref(dom);
	return rc;
}

/* ---- counters (ABI 2) ------------------------------------------------------- */

static int source_get(void *ctx, const char *path, json_t **out, char *err, size_t errlen)
{
	return nv_request(ctx, "GET", path, NULL, NULL, out, err, errlen);
}

/* nvue_counters.c decodes; the GETs are the operational tree's. */
static int nvue_counters_read(struct lp_switch *sw, const struct lp_counter_sink *out, char *err,
			      size_t errlen)
{
	struct nv_source src = { sw, source_get, sw->qos_counters_at };
	int rc = nv_counters_read(&src, out, err, errlen);

	sw->qos_counters_at = src.qos_at;
	return rc;
}

/* ---- the table ---------------------------------------------------------------- */

/* qos plan's objects: loom writes NVUE's default-global profiles and the
 * switch's qos/roce and qos/pfc-watchdog, which every port that names no
 * other profile uses: switch-wide; interface/<port>/... is the managed
 * port's own. */
static const char *nvue_shared(const char *key)
{
	return strncmp(key, "interface/", 10) ? "switch-wide" : "";
}

static int nvue_qos_objects(struct lp_switch *sw, const struct lp_qos *want,
			    const struct lp_object_sink *out, char *err, size_t errlen)
{
	return lp_objects_by_dry_run(sw, want, nvue_qos_apply, nvue_shared, 0, out, err, errlen);
}

extern const struct loom_plugin_v1 loom_plugin_v1;
const struct loom_plugin_v1 loom_plugin_v1 = {
	.abi = LOOM_PLUGIN_ABI,
	.size = sizeof(struct loom_plugin_v1),
	.name = "nvue",
	.version = PACKAGE_VERSION,
	.open = nvue_open,
	.close = nvue_close,
	.inventory = nvue_inventory,
	.lldp_neighbors = nvue_lldp,
	.qos_read = nvue_qos_read,
	.qos_apply = nvue_qos_apply,
	.qos_objects = nvue_qos_objects,
	.vlan_set = nvue_vlan_set,
	.vlan_clear = nvue_vlan_clear,
	.health = nvue_health,
	.vlan_get = nvue_vlan_get,
	.counters_read = nvue_counters_read,
};
