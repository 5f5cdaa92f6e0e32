/* daemon/core/queries.c: read-only fabric commands on the control socket. */
#include "autoconf.h"
#include "daemon/core/queries.h"

#include <errno.h>
#include <string.h>

#include "daemon/core/ctl.h"
#include "lib/db/db_query.h"
#include "lib/util/proto.h"

/* Fetch an optional string argument; -EINVAL (answered) if of another type. */
static int arg_string(struct ctl_req *req, json_t *args, const char *key, const char **out)
{
	json_t *v = json_object_get(args, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v)) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "\"%s\" must be a string", key);
		return -EINVAL;
	}
	*out = json_string_value(v);
	return 0;
}

static void reply(struct ctl_req *req, int rc, json_t *out, const char *err)
{
	ctl_reply_errno(req, rc, out, PROTO_ERR_INTERNAL, err);
}

static void cmd_nodes(struct ctl_req *req, json_t *args, void *arg)
{
	const char *type;
	char err[512] = "";
	json_t *out = NULL;

	if (arg_string(req, args, "type", &type) < 0)
		return;
	if (type && strcmp(type, "switch") && strcmp(type, "ca") && strcmp(type, "router") &&
	    strcmp(type, "host")) {
		ctl_reply_err(req, PROTO_ERR_BADREQ,
			      "unknown node type \"%s\": use switch, ca, router or host", type);
		return;
	}
	int rc = dbq_nodes(arg, type, &out, err, sizeof(err));
	reply(req, rc, out, err);
}

static void cmd_node(struct ctl_req *req, json_t *args, void *arg)
{
	const char *id;
	char err[512] = "";
	json_t *out = NULL;

	if (arg_string(req, args, "id", &id) < 0)
		return;
	if (!id) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "\"id\" (a node GUID or description) is required");
		return;
	}
	int rc = dbq_node(arg, id, &out, err, sizeof(err));
	reply(req, rc, out, err);
}

static void cmd_ports(struct ctl_req *req, json_t *args, void *arg)
{
	const char *node;
	char err[512] = "";
	json_t *out = NULL;

	if (arg_string(req, args, "node", &node) < 0)
		return;
	int rc = dbq_ports(arg, node, &out, err, sizeof(err));
	reply(req, rc, out, err);
}

static void cmd_links(struct ctl_req *req, json_t *args, void *arg)
{
	char err[512] = "";
	json_t *out = NULL;
	int rc = dbq_links(arg, &out, err, sizeof(err));

	reply(req, rc, out, err);
}

static void cmd_events(struct ctl_req *req, json_t *args, void *arg)
{
	json_t *since = json_object_get(args, "since");
	json_t *limit = json_object_get(args, "limit");
	char err[512] = "";
	json_t *out = NULL;

	if ((since && !json_is_number(since)) || (limit && !json_is_integer(limit))) {
		ctl_reply_err(req, PROTO_ERR_BADREQ,
			      "\"since\" must be unix seconds and \"limit\" an integer");
		return;
	}
	int rc = dbq_events(arg, since ? json_number_value(since) : 0,
			    limit ? (long)json_integer_value(limit) : 0, &out, err, sizeof(err));
	reply(req, rc, out, err);
}

static void cmd_switches(struct ctl_req *req, json_t *args, void *arg)
{
	const char *name;
	char err[512] = "";
	json_t *out = NULL;

	if (arg_string(req, args, "name", &name) < 0)
		return;
	int rc = dbq_switches(arg, name, &out, err, sizeof(err));
	reply(req, rc, out, err);
}

int queries_register(struct ctl *ctl, sqlite3 *db)
{
	static const struct {
		const char *name;
		ctl_handler_fn fn;
	} cmds[] = {
		{ "nodes", cmd_nodes }, { "node", cmd_node }, { "ports", cmd_ports },
		{ "links", cmd_links }, { "events", cmd_events }, { "switches", cmd_switches },
	};

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		int rc = ctl_register(ctl, cmds[i].name, CTL_READ, cmds[i].fn, db);

		if (rc < 0)
			return rc;
	}
	return 0;
}
