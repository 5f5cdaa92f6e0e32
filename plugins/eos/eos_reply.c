/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/eos/eos_reply.c: what eAPI answers, decoded (no I/O): the
 * JSON-RPC envelope of a runCmds answer (eos_rpc_decode, which eos_run
 * hands the HTTP body of a 200 answer), and the results of the show
 * commands the plugin runs, into loom's structures (eos.c sends the
 * commands and calls these). Fields and their sources are listed in eos.c
 * and eos_rpc.c.
 *
 * A field that is there with another JSON type than EOS gives it (a number
 * where a string is, an array where an object is) is refused with -EPROTO
 * naming the command and the field: nothing is made of half an answer. A
 * field that is absent keeps its old meaning (empty, unknown). */
#include "autoconf.h"
#include "eos.h"
#include "../lp_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The eAPI error object as one line, and the failing command's index. */
static int eapi_error(json_t *e, const char *const *cmds, size_t n, int *failed, char *err,
		      size_t errlen)
{
	json_t *data = json_object_get(e, "data"), *errs = NULL;
	const char *msg = json_string_value(json_object_get(e, "message"));
	json_int_t code = json_integer_value(json_object_get(e, "code"));
	long idx = -1;
	size_t o = 0;

	if (json_is_array(data) && json_array_size(data)) {
		idx = (long)json_array_size(data) - 1;
		errs = json_object_get(json_array_get(data, (size_t)idx), "errors");
	}
	if (idx < 0 && msg && sscanf(msg, "CLI command %ld of", &idx) == 1)
		idx--;
	/* "CLI command -3 of 3" or past the list names no command of ours. */
	if (idx < 0 || idx >= (long)n)
		idx = -1;
	if (failed)
		*failed = (int)idx;
	if (idx >= 0)
		o = (size_t)snprintf(err, errlen, "command %ld of %zu '%s': ", idx + 1, n,
				     cmds[idx]);
	if (o >= errlen)
		return -EIO;
	if (json_is_array(errs) && json_array_size(errs)) {
		for (size_t i = 0; i < json_array_size(errs) && o < errlen; i++)
			o += (size_t)snprintf(err + o, errlen - o, "%s%s", i ? "; " : "",
					      json_string_value(json_array_get(errs, i)) ?
					      json_string_value(json_array_get(errs, i)) : "?");
		if (o < errlen && msg)
			snprintf(err + o, errlen - o, " (eAPI error %lld: %s)", (long long)code, msg);
	} else {
		snprintf(err + o, errlen - o, "eAPI error %lld: %s", (long long)code,
			 msg ? msg : "(no message)");
	}
	return -EIO;
}

int eos_rpc_decode(const char *body, size_t len, const char *url, const char *const *cmds,
		   size_t n, json_t **result, int *failed, char *err, size_t errlen)
{
	json_t *resp, *res;
	json_error_t je;
	int rc;

	*result = NULL;
	if (failed)
		*failed = -1;
	if (!(resp = json_loadb(body ? body : "", body ? len : 0, 0, &je)) ||
	    !json_is_object(resp)) {
		snprintf(err, errlen, "POST %s: not a JSON-RPC answer: %s", url,
			 resp ? "not an object" : je.text);
		json_decref(resp);
		return -EPROTO;
	}
	if (json_object_get(resp, "error")) {
		rc = eapi_error(json_object_get(resp, "error"), cmds, n, failed, err, errlen);
		json_decref(resp);
		return rc;
	}
	res = json_object_get(resp, "result");
	if (!json_is_array(res) || json_array_size(res) != n) {
		snprintf(err, errlen, "POST %s: runCmds answered %zu results for %zu commands", url,
			 json_is_array(res) ? json_array_size(res) : 0, n);
		json_decref(resp);
		return -EPROTO;
	}
	*result = json_incref(res);
	json_decref(resp);
	return 0;
}

/* result[i], which must be an object (one command's answer). */
static json_t *answer(json_t *result, size_t i, const char *cmd, char *err, size_t errlen)
{
	json_t *a = json_array_get(result, i);

	if (!json_is_object(a))
		snprintf(err, errlen, "%s: the answer is not a JSON object", cmd);
	return json_is_object(a) ? a : NULL;
}

/* o[key] as a string: 0 and *out (NULL when absent or null), or -EPROTO
 * naming cmd, where (may be "") and key. */
static int get_str(json_t *o, const char *key, const char **out, const char *cmd,
		   const char *where, char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v)) {
		snprintf(err, errlen, "%s: %s%s%s is not a string", cmd, where, *where ? " " : "",
			 key);
		return -EPROTO;
	}
	*out = json_string_value(v);
	return 0;
}

/* o[key] of JSON type `type` (JSON_OBJECT, JSON_ARRAY): 0 and *out (NULL
 * when absent), or -EPROTO. */
static int get_typed(json_t *o, const char *key, json_type type, json_t **out, const char *cmd,
		     const char *where, char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v)
		return 0;
	if (json_typeof(v) != type) {
		snprintf(err, errlen, "%s: %s%s%s is not a JSON %s", cmd, where, *where ? " " : "",
			 key, type == JSON_OBJECT ? "object" : "array");
		return -EPROTO;
	}
	*out = v;
	return 0;
}

int eos_version_parse(json_t *result, size_t i, struct lp_inventory *inv, char *err,
		      size_t errlen)
{
	static const char cmd[] = "show version";
	const char *model, *version, *mac;
	json_t *ver;
	int rc;

	if (!(ver = answer(result, i, cmd, err, errlen)))
		return -EPROTO;
	if ((rc = get_str(ver, "modelName", &model, cmd, "", err, errlen)) ||
	    (rc = get_str(ver, "version", &version, cmd, "", err, errlen)) ||
	    (rc = get_str(ver, "systemMacAddress", &mac, cmd, "", err, errlen)))
		return rc;
	lp_copy_str(inv->model, sizeof(inv->model), model);
	lp_copy_str(inv->os_version, sizeof(inv->os_version), version);
	lp_copy_str(inv->mac, sizeof(inv->mac), mac);
	return 0;
}

struct pname {
	char name[LP_NAME_LEN];
	json_t *st;
};

static int pname_cmp(const void *a, const void *b)
{
	return strverscmp(((const struct pname *)a)->name, ((const struct pname *)b)->name);
}

int eos_inventory_parse(json_t *result, struct lp_inventory *inv,
			const struct lp_port_sink *sink, char *err, size_t errlen)
{
	static const char status[] = "show interfaces status";
	json_t *host, *ifs, *st;
	struct pname *v = NULL;
	const char *name, *hostname;
	size_t n = 0;
	int rc;

	memset(inv, 0, sizeof(*inv));
	if ((rc = eos_version_parse(result, 0, inv, err, errlen)))
		return rc;
	if (!(host = answer(result, 1, "show hostname", err, errlen)))
		return -EPROTO;
	if ((rc = get_str(host, "hostname", &hostname, "show hostname", "", err, errlen)))
		return rc;
	lp_copy_str(inv->hostname, sizeof(inv->hostname), hostname);
	if (!(st = answer(result, 2, status, err, errlen)))
		return -EPROTO;
	if ((rc = get_typed(st, "interfaceStatuses", JSON_OBJECT, &ifs, status, "", err, errlen)))
		return rc;
	if (!ifs) {
		snprintf(err, errlen, "%s: no interfaceStatuses in the answer", status);
		return -EPROTO;
	}
	if (!(v = calloc(json_object_size(ifs) + 1, sizeof(*v)))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	json_object_foreach(ifs, name, st) {
		if (strncmp(name, "Ethernet", 8) || strlen(name) >= LP_NAME_LEN)
			continue;       /* Management, Port-Channel, Vlan, ... */
		if (!json_is_object(st)) {
			snprintf(err, errlen, "%s: interfaceStatuses %s is not a JSON object", status,
				 name);
			rc = -EPROTO;
			goto out;
		}
		lp_copy_str(v[n].name, LP_NAME_LEN, name);
		v[n++].st = st;
	}
	qsort(v, n, sizeof(*v), pname_cmp);
	for (size_t i = 0; i < n && !rc; i++) {
		struct lp_port p = { 0 };
		const char *link;
		json_t *bw = json_object_get(v[i].st, "bandwidth");
		double bps;

		if ((rc = get_str(v[i].st, "linkStatus", &link, status, v[i].name, err, errlen)))
			break;
		if (bw && !json_is_number(bw)) {
			snprintf(err, errlen, "%s: %s bandwidth is not a number", status, v[i].name);
			rc = -EPROTO;
			break;
		}
		bps = json_number_value(bw);
		lp_copy_str(p.name, sizeof(p.name), v[i].name);
		p.speed_mbps = bps > 0 && bps / 1e6 < 4294967295.0 ? (uint32_t)(bps / 1e6) : 0;
		p.admin_up = !link || (strcmp(link, "disabled") != 0);
		p.oper_up = link && !strcmp(link, "connected");
		if (sink && sink->port)
			rc = sink->port(sink->ctx, &p);
	}
out:
	free(v);
	return rc;
}

/* EOS shows MAC chassis IDs as "001c.7300.1000" (chassisIdType
 * "macAddress"); loom (and SONiC) write "00:1c:73:00:10:00". */
static void chassis_id(char *out, size_t len, const char *id, const char *type)
{
	unsigned v[3];
	char end;

	if (id && type && !strcmp(type, "macAddress") &&
	    sscanf(id, "%4x.%4x.%4x%c", &v[0], &v[1], &v[2], &end) == 3 && strlen(id) == 14)
		snprintf(out, len, "%02x:%02x:%02x:%02x:%02x:%02x", v[0] >> 8, v[0] & 0xff,
			 v[1] >> 8, v[1] & 0xff, v[2] >> 8, v[2] & 0xff);
	else
		lp_copy_str(out, len, id);
}

/* One entry of a port's lldpNeighborInfo into n (local_port set). */
static int neighbor(json_t *x, const char *port, struct lp_neighbor *n, char *err, size_t errlen)
{
	static const char cmd[] = "show lldp neighbors detail";
	const char *cid, *ctype, *sys, *pid, *pid1, *desc;
	json_t *ni;
	int rc;

	if (!json_is_object(x)) {
		snprintf(err, errlen, "%s: %s lldpNeighborInfo: an entry is not a JSON object", cmd,
			 port);
		return -EPROTO;
	}
	if ((rc = get_str(x, "chassisId", &cid, cmd, port, err, errlen)) ||
	    (rc = get_str(x, "chassisIdType", &ctype, cmd, port, err, errlen)) ||
	    (rc = get_str(x, "systemName", &sys, cmd, port, err, errlen)) ||
	    (rc = get_typed(x, "neighborInterfaceInfo", JSON_OBJECT, &ni, cmd, port, err,
			    errlen)) ||
	    (rc = get_str(ni, "interfaceId_v2", &pid, cmd, port, err, errlen)) ||
	    (rc = get_str(ni, "interfaceId", &pid1, cmd, port, err, errlen)) ||
	    (rc = get_str(ni, "interfaceDescription", &desc, cmd, port, err, errlen)))
		return rc;
	chassis_id(n->chassis_id, sizeof(n->chassis_id), cid, ctype);
	lp_copy_str(n->sys_name, sizeof(n->sys_name), sys);
	if (!pid && (pid = pid1)) {
		/* older releases quote it: "\"Ethernet1\"" */
		size_t l = strlen(pid);

		if (l >= 2 && pid[0] == '"' && pid[l - 1] == '"')
			snprintf(n->port_id, sizeof(n->port_id), "%.*s", (int)(l - 2), pid + 1);
		else
			lp_copy_str(n->port_id, sizeof(n->port_id), pid);
	} else {
		lp_copy_str(n->port_id, sizeof(n->port_id), pid);
	}
	lp_copy_str(n->port_desc, sizeof(n->port_desc), desc);
	return 0;
}

int eos_lldp_parse(json_t *result, const struct lp_neighbor_sink *sink, char *err,
		   size_t errlen)
{
	static const char cmd[] = "show lldp neighbors detail";
	json_t *a, *nb, *e;
	const char *port;
	int rc;

	if (!(a = answer(result, 0, cmd, err, errlen)))
		return -EPROTO;
	if ((rc = get_typed(a, "lldpNeighbors", JSON_OBJECT, &nb, cmd, "", err, errlen)))
		return rc;
	json_object_foreach(nb, port, e) {
		json_t *info, *x;
		size_t i;

		if (!json_is_object(e)) {
			snprintf(err, errlen, "%s: lldpNeighbors %s is not a JSON object", cmd, port);
			return -EPROTO;
		}
		if ((rc = get_typed(e, "lldpNeighborInfo", JSON_ARRAY, &info, cmd, port, err,
				    errlen)))
			return rc;
		json_array_foreach(info, i, x) {
			struct lp_neighbor n = { 0 };

			lp_copy_str(n.local_port, sizeof(n.local_port), port);
			if ((rc = neighbor(x, port, &n, err, errlen)))
				return rc;
			if (sink && sink->neighbor && (rc = sink->neighbor(sink->ctx, &n)))
				return rc;
		}
	}
	return 0;
}

int eos_config_parse(json_t *result, size_t i, const char *const *names, size_t n,
		     struct eos_state *st, char *err, size_t errlen)
{
	static const char cmd[] = "show running-config";
	const char *out;
	json_t *a;
	int rc;

	memset(st, 0, sizeof(*st));
	if (!(a = answer(result, i, cmd, err, errlen)))
		return -EPROTO;
	if ((rc = get_str(a, "output", &out, cmd, "", err, errlen)))
		return rc;
	if (!out) {
		snprintf(err, errlen, "%s: no output in the answer", cmd);
		return -EPROTO;
	}
	return eos_state_parse(out, names, n, st, err, errlen);
}

int eos_switchport_parse(json_t *result, const char *port, const char *cmd, uint16_t *vid,
			 char *err, size_t errlen)
{
	json_t *a, *sps, *e, *info, *acc, *en;
	const char *mode;
	int rc;

	*vid = 0;
	if (!(a = answer(result, 0, cmd, err, errlen)))
		return -EPROTO;
	if ((rc = get_typed(a, "switchports", JSON_OBJECT, &sps, cmd, "", err, errlen)))
		return rc;
	if (!sps) {
		snprintf(err, errlen, "%s: no switchports in the answer", cmd);
		return -EPROTO;
	}
	e = json_object_get(sps, port);
	if (!e && json_object_size(sps) == 1)   /* one port asked: its entry, whatever the
						 * name form ("Et1") */
		e = json_object_iter_value(json_object_iter(sps));
	if (!e)
		return 0;
	if (!json_is_object(e)) {
		snprintf(err, errlen, "%s: switchports %s is not a JSON object", cmd, port);
		return -EPROTO;
	}
	en = json_object_get(e, "enabled");
	if (en && !json_is_boolean(en)) {
		snprintf(err, errlen, "%s: enabled is not true or false", cmd);
		return -EPROTO;
	}
	if (json_is_false(en))
		return 0;                /* a routed port: no switchport */
	if ((rc = get_typed(e, "switchportInfo", JSON_OBJECT, &info, cmd, "", err, errlen)) ||
	    (rc = get_str(info, "mode", &mode, cmd, "switchportInfo", err, errlen)))
		return rc;
	if (mode && strcmp(mode, "access"))
		return 0;                /* trunk and the like: no access VLAN */
	acc = json_object_get(info, "accessVlanId");
	if (!json_is_integer(acc) || json_integer_value(acc) < 1 ||
	    json_integer_value(acc) > 4094) {
		snprintf(err, errlen, "%s: no accessVlanId 1..4094 in the answer", cmd);
		return -EPROTO;
	}
	if (json_integer_value(acc) != 1)        /* 1: EOS's default */
		*vid = (uint16_t)json_integer_value(acc);
	return 0;
}
