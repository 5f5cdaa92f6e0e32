/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/ctl_impl.h: the inside of the control socket, shared by
 * daemon/core/ctl*.c only: the server's structs (ctl.c) and who may run
 * what (ctl_access.c). */
#ifndef LOOMD_CTL_IMPL_H
#define LOOMD_CTL_IMPL_H

#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include <jansson.h>

#include "daemon/core/authz.h"
#include "daemon/core/ctl.h"
#include "daemon/core/ctl_limits.h"

struct ctl_ident;
struct ctl_idents;

#define CTL_GROUP_LEN 64
#define CTL_LIST_LEN 256

struct ctl_cmd {
	struct ctl_cmd *next;
	enum ctl_access access;
	ctl_handler_fn fn;
	void *arg;
	ctl_version_fn version;       /* ctl_set_version: its answers may be kept */
	void *version_arg;
	const struct cmds_arg *args;  /* the declaration's: the keys it takes */
	char name[];
};

struct ctl_client {
	struct ctl *ctl;
	struct ctl_client *prev, *next;
	struct bufferevent *bev;
	struct event *resume;     /* deferred: look at the input again */
	struct ctl_req *current;  /* the request being handled, or NULL */
	struct event *timer;      /* the stall or idle timeout (`timing`) */
	uid_t uid;
	gid_t gid;
	pid_t pid;
	int closing;              /* flush the output, then close */
	int stalled;              /* output above the mark: not read */
	int vetting;              /* in the reserve until its identity is known */
	enum { TIMING_NONE, TIMING_IDLE, TIMING_STALL } timing;
};

struct ctl_req {
	struct ctl *ctl;
	struct ctl_req *prev, *next;  /* in ctl->pending */
	struct ctl_client *client;    /* NULL once orphaned */
	const struct ctl_cmd *cmd;
	json_int_t id;
	uid_t uid;
	gid_t gid;
	json_t *held;                 /* its arguments while it waits for the
				       * client's identity (ctl_ident.h) */
	struct authz_principal who;   /* who runs it (audit, ctl_req_principal) */
	ctl_answer_fn answer;         /* ctl_call's: the answer goes there, not
				       * to a client */
	void *answer_arg;
};

/* The last large result encoded, shared by the frames that send it
 * (ctl_frame.c). */
struct ctl_text;
struct ctl_frames {
	json_t *result;               /* a reference: the value it came from */
	struct ctl_text *text;
};

struct ctl {
	struct event_base *base;
	struct ctl_frames frames;
	struct evconnlistener *listener;
	struct event *accept_pause;
	struct ctl_cmd *cmds;
	const struct cmds_decl *decls;     /* the declarations (cmds_table()) */
	struct ctl_client *clients;
	struct ctl_req *pending;
	struct ctl_idents *idents;
	struct ctl_limits limits;
	struct ctl_refusals refusals;
	struct ctl_rate rate;              /* role read's fabric reads, per uid */
	unsigned n_clients;
	ctl_gate_fn gate;                  /* ctl_set_gate: NULL none */
	void *gate_arg;
	int warned_admin;                  /* the admin group is unknown: said */
	char admin_group[CTL_GROUP_LEN];
	char tenant_users[CTL_LIST_LEN];   /* CTL_TENANT: "slurm,..." */
	char tenant_groups[CTL_LIST_LEN];
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

/* Queue resp (borrowed) on out as one frame of at most max bytes; a large
 * result sent again (the same JSON value) is encoded once and referenced.
 * 0, -EMSGSIZE (over max: nothing queued), -ENOMEM (the frame may be cut:
 * close the connection). ctl_frames_release: at ctl_free. */
struct evbuffer;
int ctl_frame_queue(struct ctl_frames *f, struct evbuffer *out, json_t *resp, size_t max);
void ctl_frames_release(struct ctl_frames *f);

/* May uid/gid, whose identity is id, run `cmd` (not a read, not root)? 0
 * with its principal in *who, or -EPERM with the refusal in why, saying
 * who may, so that the operator knows which key of loom.yaml to change;
 * -EIO when the user and group databases failed to say (a refusal too,
 * but "try again", not "denied"). The decision is authz_allows()'s. */
int ctl_access_check(struct ctl *ctl, uid_t uid, gid_t gid, const struct ctl_cmd *cmd,
		     const struct ctl_ident *id, struct authz_principal *who, char *why,
		     size_t whylen);
/* A fabric read (ctl_limits_spends) of a socket peer of role read, at
 * most one per uid per control.read_rate_s: 0 may run now (counted), or
 * -EBUSY with the refusal in why, saying when to try again. Root, the
 * admin group, the tenant writers and other transports (ctl_call: the
 * API has its own rate, api_rate.h) are not limited here. */
int ctl_rate_check(struct ctl *ctl, const struct ctl_req *req, const json_t *args, char *why,
		   size_t whylen);
/* The audit log line of a command that changes loomd (none for reads). */
void ctl_audit(const struct ctl_cmd *cmd, const struct authz_principal *who,
	       const char *refused);
/* The identity of a write request's client: 1 with *id, 0 while it is
 * looked up, -errno. */
int ctl_identity(struct ctl *ctl, uid_t uid, const struct ctl_ident **id);

/* ctl_cmds.c: the command called name, or NULL; the answer to an unknown
 * one, naming them all (a new reference). */
const struct ctl_cmd *ctl_cmd_find(const struct ctl *ctl, const char *name);
json_t *ctl_cmd_unknown_new(const struct ctl *ctl, json_int_t id, const char *name);

#endif
