/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/nvue/nvue_reply.c: what NVUE answers, decoded (no I/O): the
 * system, platform and interface trees of inventory, an interface's LLDP
 * neighbours, its bridge domain's access VLAN, into loom's structures
 * (nvue.c GETs them and calls these; the qos tree is nvue_qos.c's
 * nv_qos_parse). Field names and their sources are listed in nvue.c.
 *
 * A member that is there with another JSON type than NVUE gives it (a
 * number where a string is, an array where an object is) is refused with
 * -EPROTO naming the path and the member; an absent one keeps its old
 * meaning (empty, unknown). */
#include "autoconf.h"
#include "nvue.h"
#include "../lp_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* o[field] as a string: 0 and *out ("" when o is no object or field is
 * absent or null), or -EPROTO naming what and field. */
static int get_str(json_t *o, const char *field, const char **out, const char *what, char *err,
		   size_t errlen)
{
	json_t *v = json_is_object(o) ? json_object_get(o, field) : NULL;

	*out = "";
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v)) {
		snprintf(err, errlen, "%s: %s is not a string", what, field);
		return -EPROTO;
	}
	*out = json_string_value(v);
	return 0;
}

/* o[field], which must be an object when present: 0 and *out (NULL when
 * absent or null), or -EPROTO. */
static int get_obj(json_t *o, const char *field, json_t **out, const char *what, char *err,
		   size_t errlen)
{
	json_t *v = json_is_object(o) ? json_object_get(o, field) : NULL;

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v)) {
		snprintf(err, errlen, "%s: %s is not a JSON object", what, field);
		return -EPROTO;
	}
	*out = v;
	return 0;
}

static int not_object(json_t *o, const char *what, char *err, size_t errlen)
{
	(void)o;
	snprintf(err, errlen, "%s: not a JSON object", what);
	return -EPROTO;
}

int nv_system_parse(json_t *sys, json_t *plat, struct lp_inventory *inv, char *err,
		    size_t errlen)
{
	const char *host, *build, *image, *model, *mac;
	json_t *ver;
	int rc;

	memset(inv, 0, sizeof(*inv));
	if (sys && !json_is_object(sys))
		return not_object(sys, "GET system", err, errlen);
	if (plat && !json_is_object(plat))
		return not_object(plat, "GET platform", err, errlen);
	if ((rc = get_str(sys, "hostname", &host, "GET system", err, errlen)) ||
	    (rc = get_str(sys, "build", &build, "GET system", err, errlen)) ||
	    (rc = get_obj(sys, "version", &ver, "GET system", err, errlen)) ||
	    (rc = get_str(ver, "image", &image, "GET system version", err, errlen)) ||
	    (rc = get_str(plat, "product-name", &model, "GET platform", err, errlen)) ||
	    (rc = get_str(plat, "base-mac", &mac, "GET platform", err, errlen)))
		return rc;
	lp_copy_str(inv->hostname, sizeof(inv->hostname), host);
	lp_copy_str(inv->os_version, sizeof(inv->os_version), *build ? build : image);
	lp_copy_str(inv->model, sizeof(inv->model), model);
	lp_copy_str(inv->mac, sizeof(inv->mac), mac);
	return 0;
}

int nv_is_port(const char *name, json_t *ifc)
{
	json_t *t = json_is_object(ifc) ? json_object_get(ifc, "type") : NULL;
	const char *type = json_is_string(t) ? json_string_value(t) : "";

	if (!*name || strlen(name) >= LP_NAME_LEN)
		return 0;        /* "": no port loom could name (JSON allows the key) */
	return *type ? !strcmp(type, "swp") : !strncmp(name, "swp", 3);
}

int nv_port_parse(const char *name, json_t *ifc, struct lp_port *p, char *err, size_t errlen)
{
	char what[LP_NAME_LEN + 32];
	const char *desc, *speed, *oper;
	json_t *link, *st, *mtu;
	int rc;

	memset(p, 0, sizeof(*p));
	snprintf(what, sizeof(what), "GET interface: %s", name);
	if (!json_is_object(ifc))
		return not_object(ifc, what, err, errlen);
	if ((rc = get_str(ifc, "description", &desc, what, err, errlen)) ||
	    (rc = get_obj(ifc, "link", &link, what, err, errlen)))
		return rc;
	snprintf(what, sizeof(what), "GET interface: %s link", name);
	if ((rc = get_str(link, "speed", &speed, what, err, errlen)) ||
	    (rc = get_str(link, "oper-status", &oper, what, err, errlen)))
		return rc;
	mtu = json_object_get(link, "mtu");
	if (mtu && !json_is_null(mtu) &&
	    (!json_is_integer(mtu) || json_integer_value(mtu) < 0 ||
	     json_integer_value(mtu) > UINT32_MAX)) {
		snprintf(err, errlen, "%s: mtu is not an integer 0..%u", what, UINT32_MAX);
		return -EPROTO;
	}
	st = json_object_get(link, "state");
	if (st && !json_is_null(st) && !json_is_object(st) && !json_is_string(st)) {
		snprintf(err, errlen, "%s: state is neither an object nor a string", what);
		return -EPROTO;
	}
	lp_copy_str(p->name, sizeof(p->name), name);
	lp_copy_str(p->alias, sizeof(p->alias), desc);
	p->speed_mbps = nv_speed_mbps(speed);
	p->mtu = json_is_integer(mtu) ? (uint32_t)json_integer_value(mtu) : 0;
	p->admin_up = json_is_object(st) ? json_object_get(st, "up") != NULL
					 : json_is_string(st) && !strcmp(json_string_value(st), "up");
	p->oper_up = !strcmp(oper, "up");
	return 0;
}

int nv_ports_parse(json_t *ifs, const struct lp_port_sink *sink, char *err, size_t errlen)
{
	const char *name;
	json_t *ifc;
	int rc;

	if (ifs && !json_is_object(ifs))
		return not_object(ifs, "GET interface", err, errlen);
	json_object_foreach(ifs, name, ifc) {
		struct lp_port p;

		if (!nv_is_port(name, ifc))
			continue;
		if ((rc = nv_port_parse(name, ifc, &p, err, errlen)))
			return rc;
		if (sink && sink->port && (rc = sink->port(sink->ctx, &p)))
			return rc;
	}
	return 0;
}

int nv_neighbors_parse(const char *port, json_t *nbrs, const struct lp_neighbor_sink *sink,
		       char *err, size_t errlen)
{
	char what[LP_NAME_LEN + 96];
	const char *id;
	json_t *nb;
	int rc;

	snprintf(what, sizeof(what), "GET interface/%s/lldp/neighbor", port);
	if (nbrs && !json_is_object(nbrs))
		return not_object(nbrs, what, err, errlen);
	json_object_foreach(nbrs, id, nb) {
		const char *cid, *sys, *pid, *desc;
		json_t *ch, *pt;
		struct lp_neighbor n = { 0 };

		snprintf(what, sizeof(what), "GET interface/%s/lldp/neighbor: %.40s", port, id);
		if (!json_is_object(nb))
			return not_object(nb, what, err, errlen);
		if ((rc = get_obj(nb, "chassis", &ch, what, err, errlen)) ||
		    (rc = get_obj(nb, "port", &pt, what, err, errlen)) ||
		    (rc = get_str(ch, "chassis-id", &cid, what, err, errlen)) ||
		    (rc = get_str(ch, "system-name", &sys, what, err, errlen)) ||
		    (rc = get_str(pt, "name", &pid, what, err, errlen)) ||
		    (rc = get_str(pt, "description", &desc, what, err, errlen)))
			return rc;
		lp_copy_str(n.local_port, sizeof(n.local_port), port);
		lp_copy_str(n.chassis_id, sizeof(n.chassis_id), cid);
		lp_copy_str(n.sys_name, sizeof(n.sys_name), sys);
		lp_copy_str(n.port_id, sizeof(n.port_id), pid);
		lp_copy_str(n.port_desc, sizeof(n.port_desc), desc);
		if (sink && sink->neighbor && (rc = sink->neighbor(sink->ctx, &n)))
			return rc;
	}
	return 0;
}

int nv_access_parse(json_t *dom, const char *what, uint16_t *vid, char *err, size_t errlen)
{
	json_t *acc = json_is_object(dom) ? json_object_get(dom, "access") : NULL;

	*vid = 0;
	if (dom && !json_is_object(dom))
		return not_object(dom, what, err, errlen);
	if (json_is_integer(acc) && json_integer_value(acc) >= 1 &&
	    json_integer_value(acc) <= 4094) {
		*vid = (uint16_t)json_integer_value(acc);
	} else if (acc && !json_is_null(acc)) {
		char *s = json_dumps(acc, JSON_ENCODE_ANY | JSON_COMPACT);

		snprintf(err, errlen, "%s: access %s is no VLAN 1..4094", what, s ? s : "?");
		free(s);
		return -EPROTO;
	}
	return 0;
}
