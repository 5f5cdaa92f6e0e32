/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/ctl.h: loomd's control socket. A unix stream socket speaking the
 * protocol of lib/util/proto.h. Modules hand in the handlers of the commands they own
 * (declared once, in lib/util/commands.c); the server
 * checks peer credentials (SO_PEERCRED) and maps the peer to a role of
 * daemon/core/authz.h (the one table, shared with the HTTP API): any local
 * user may run CTL_READ commands, CTL_WRITE commands only root or a member
 * of the admin group (admin), and CTL_TENANT commands (tenant changes,
 * which the scheduler makes) also the users and groups given to
 * ctl_set_tenant_writers() (tenant). What one client may
 * take (memory, connections, time, and role read its fabric reads: one per
 * uid per control.read_rate_s) is bounded: see ctl_limits.h. Every command
 * is declared in lib/util/commands.c with its access level and the
 * arguments it takes: anything else is refused before its handler runs. */
#ifndef LOOMD_CTL_H
#define LOOMD_CTL_H

#include <jansson.h>

#include "lib/util/commands.h"

struct event_base;
struct ctl;
struct ctl_req;

/* The declarations' access levels (lib/util/commands.h), as ctl names them. */
enum ctl_access {
	CTL_READ = CMDS_READ,
	CTL_WRITE = CMDS_WRITE,
	CTL_TENANT = CMDS_TENANT,
};

/* A command handler. It must answer the request exactly once, now or later,
 * with ctl_reply_ok() or ctl_reply_err(); a request may be answered after its
 * client went away (the answer is then dropped). */
typedef void (*ctl_handler_fn)(struct ctl_req *req, json_t *args, void *arg);

/* Listen on `path` (a stale socket file is replaced; the directory is
 * created). admin_group: "" = root only. NULL + err on failure. */
struct ctl *ctl_new(struct event_base *base, const char *path, const char *admin_group,
		    char *err, size_t errlen);
/* Stop listening, drop clients, unlink the socket. Pending requests are
 * answered with an error first. */
void ctl_free(struct ctl *ctl);
/* Change the admin group (at reload). */
int ctl_set_admin_group(struct ctl *ctl, const char *admin_group);

/* The bounds on clients (ctl_limits.h; ctl_new starts with the defaults of
 * ctl_limits_default()). 0, or -EINVAL with the reason in err and the
 * bounds unchanged. Open connections keep their place under new caps. */
struct ctl_limits;
int ctl_set_limits(struct ctl *ctl, const struct ctl_limits *limits, char *err, size_t errlen);

/* What the clients hold now (for status and tests). */
struct ctl_usage {
	unsigned clients;        /* connections open */
	size_t queued_max;       /* bytes queued for the client with the most */
};
void ctl_usage(const struct ctl *ctl, struct ctl_usage *u);

/* Who else may run CTL_TENANT commands: comma-separated user names and
 * group names ("" none), as loom.yaml's tenants.users / tenants.groups. */
int ctl_set_tenant_writers(struct ctl *ctl, const char *users, const char *groups);
/* Is `name` one of the comma-separated `list`? */
int ctl_list_has(const char *list, const char *name);

/* A module's handler of command `cmd`, which lib/util/commands.c declares
 * (CMDS_LOOMD): its access level and the arguments it takes (checked
 * before fn runs, anything else refused) are the declaration's. 0, -ENOENT
 * (not declared, or not loomd's), -EEXIST (handled already), -EINVAL
 * (no name or fn), -ENOMEM. */
int ctl_handle(struct ctl *ctl, const char *cmd, ctl_handler_fn fn, void *arg);
/* The declared loomd commands that have no handler yet: how many, their
 * names comma-separated into names (cut at len). loomd asks once every
 * module is registered, and does not start while any is left. */
size_t ctl_unhandled(const struct ctl *ctl, char *names, size_t len);
/* Another table of declarations than cmds_table() (tests' commands): the
 * ctl_handle calls after it look names up there. */
void ctl_set_declarations(struct ctl *ctl, const struct cmds_decl *table);

/* A gate on every command that is not CTL_READ, from the socket and from
 * ctl_call alike, asked once the caller's rights are checked: NULL lets it
 * run; a protocol error code (lib/util/proto.h) refuses it with the message
 * in why (audited). daemon/ha sets it: only the leader changes things. One
 * gate; fn NULL removes it. */
typedef const char *(*ctl_gate_fn)(void *arg, const char *cmd, char *why, size_t whylen);
void ctl_set_gate(struct ctl *ctl, ctl_gate_fn fn, void *arg);
/* The same gate for a change a module starts by itself (a periodic check
 * that rewrites a file, AR programmed after a reroute), `what` naming it:
 * 0 may go ahead (also: no gate), -EPERM with the reason in why. */
int ctl_gate_check(struct ctl *ctl, const char *what, char *why, size_t whylen);
/* Answers another transport may keep and hand out again (the HTTP API's
 * cache, daemon/http/api_cache.h): a CTL_READ command whose answer depends
 * only on its arguments and on data that fn(arg, &v) versions: v changes
 * whenever the answer may (e.g. dbq_data_version of the database it reads;
 * fn returns 0, or -errno when it cannot tell: nothing is kept then).
 * ctl_set_version: 0, -ENOENT (no such command), -EINVAL (not a read).
 * ctl_version: 1 with *version when `who` may run cmd and its answer may be
 * kept; 0 otherwise (ctl_call it: a refusal is answered there). */
typedef int (*ctl_version_fn)(void *arg, unsigned *version);
int ctl_set_version(struct ctl *ctl, const char *cmd, ctl_version_fn fn, void *arg);
struct authz_principal;
int ctl_version(struct ctl *ctl, const char *cmd, const struct authz_principal *who,
		unsigned *version);

/* Answer a request; both steal `result` and free the request. */
void ctl_reply_ok(struct ctl_req *req, json_t *result);
void ctl_reply_err(struct ctl_req *req, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Answer with a result (rc == 0, steals `result`) or the error of a -errno:
 * -ENOENT not-found, -EINVAL and -EEXIST (ambiguous name) bad-request,
 * anything else `other` (PROTO_ERR_INTERNAL, or PROTO_ERR_FAILED for a
 * change that could not be made); `err` is the message. */
void ctl_reply_errno(struct ctl_req *req, int rc, json_t *result, const char *other,
		     const char *err);
/* A command's arguments, checked one way for every module. Each answers
 * the request with bad-request and returns -EINVAL when the value is of the
 * wrong type or out of bounds.
 * ctl_arg_string: a string of less than len bytes copied into out: 1; absent
 *   or null: 0 (-EINVAL, answered "is required", when required).
 * ctl_arg_count: an integer 0..max into *out; absent or null: 0, *out left.
 * ctl_arg_bool: true or false into *out (absent: 0; null is refused). */
int ctl_arg_string(struct ctl_req *req, json_t *args, const char *key, char *out, size_t len,
		   int required);
int ctl_arg_count(struct ctl_req *req, json_t *args, const char *key, json_int_t max,
		  json_int_t *out);
int ctl_arg_bool(struct ctl_req *req, json_t *args, const char *key, int *out);
/* The command name and peer of a request (for logs): its uid (-1 when it
 * came from another transport than the socket) and principal (authz.h). */
const char *ctl_req_cmd(const struct ctl_req *req);
int ctl_req_uid(const struct ctl_req *req);
const struct authz_principal *ctl_req_principal(const struct ctl_req *req);

/* Requests from another transport (the HTTP API, daemon/http/api.c): run
 * command `cmd` with `args` (borrowed; NULL: none) as `who`, whose role
 * authz_allows() checks against the command's access, as for the socket.
 * fn(answer, arg) gets the answer exactly once, maybe before ctl_call
 * returns: the protocol's response object without "v" and "id"
 * ({"ok":true,"result":...} or {"ok":false,"error":{"code","message"}};
 * a new reference, NULL when out of memory). Every command that changes
 * loomd is written to the audit log with who->how. ctl_free answers calls
 * still pending ("busy"). */
typedef void (*ctl_answer_fn)(json_t *answer, void *arg);
void ctl_call(struct ctl *ctl, const char *cmd, json_t *args, const struct authz_principal *who,
	      ctl_answer_fn fn, void *arg);

#endif
