/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/nvue/nvue.h: what the files of the nvue plugin share (not
 * installed, not seen by loomd): the switch handle, the HTTP calls of
 * nvue_http.c, and the "leaves" that nvue_qos.c makes of a struct lp_qos
 * and that nvue.c diffs against the applied tree and PATCHes. */
#ifndef NVUE_H
#define NVUE_H

#include <stddef.h>

#include <curl/curl.h>
#include <jansson.h>

#include "loom/loom_plugin.h"

#define NV_URL_LEN 256
#define NV_PATH_LEN 192           /* "interface/swp1/qos/pfc-watchdog" and the like */
#define NV_STR_LEN 64

/* The handle of one switch: all the plugin's state is here (ops on
 * different handles run at once; loomd never runs two on one). */
struct lp_switch {
	char name[LP_NAME_LEN];
	const struct lp_host *host;
	char base[NV_URL_LEN];    /* "https://leaf1:8765/nvue_v1/" */
	char userpwd[256];        /* "user:password", "" for none */
	char cacert[256];         /* options cacert=, "" for the system's */
	int insecure;             /* options insecure: no TLS verification */
	int timeout_ms;           /* connect + transfer, per request */
	CURL *curl;               /* reused: keeps the connection */
	int qos_counters_at;      /* nv_source.qos_at, kept between reads */
};

/* ---- nvue_http.c ----------------------------------------------------------- */

/* Parse the endpoint (address, credentials, options) into sw: 0, or
 * -EINVAL with the reason in err. */
int nv_http_init(struct lp_switch *sw, const struct lp_endpoint *ep, char *err, size_t errlen);
void nv_http_fini(struct lp_switch *sw);

/* One request: METHOD base + path [?rev=REV] (path and rev URL-encoded
 * here, '/' kept in path, not in rev), body (may be NULL) sent as JSON, the
 * answer parsed into *out (may be NULL; NULL too when the body is empty
 * or not JSON). 0 on 2xx; else -errno with the server's own text in err:
 * -EACCES 401/403, -ENOENT 404, -EIO other HTTP errors, -ECONNREFUSED,
 * -ETIMEDOUT, -EHOSTUNREACH when nothing answered. */
int nv_request(struct lp_switch *sw, const char *method, const char *path, const char *rev,
	       json_t *body, json_t **out, char *err, size_t errlen);

/* ---- nvue_reply.c: answers decoded (no I/O) ---------------------------------
 * Each returns 0, or -EPROTO with err naming the GET and the member that is
 * of another JSON type than NVUE gives it. A NULL tree (an empty answer) is
 * read as an empty one. */

/* GET system and GET platform (plat NULL: the switch has none) into inv
 * (zeroed first). */
int nv_system_parse(json_t *sys, json_t *plat, struct lp_inventory *inv, char *err,
		    size_t errlen);
/* 1 when the member `name` of GET interface is a front-panel port loom
 * reports (type swp, or named swp* without a type) whose name is not empty
 * and fits LP_NAME_LEN. */
int nv_is_port(const char *name, json_t *ifc);
/* One such interface into p. */
int nv_port_parse(const char *name, json_t *ifc, struct lp_port *p, char *err, size_t errlen);
/* GET interface: each port (nv_is_port) through sink. */
int nv_ports_parse(json_t *ifs, const struct lp_port_sink *sink, char *err, size_t errlen);
/* GET interface/<port>/lldp/neighbor: each neighbour through sink. */
int nv_neighbors_parse(const char *port, json_t *nbrs, const struct lp_neighbor_sink *sink,
		       char *err, size_t errlen);
/* GET interface/<port>/bridge/domain/br_default?rev=applied (what: that
 * GET, for messages): *vid its access VLAN, 0 none. */
int nv_access_parse(json_t *dom, const char *what, uint16_t *vid, char *err, size_t errlen);

/* ---- nvue_counters.c: counters_read, decoded (no I/O) ---------------------- */

struct lp_port_counters;

/* How nv_counters_read GETs the operational tree: path relative to
 * nvue_v1/; 0 and *out (NULL for an empty or non-JSON answer), or -errno
 * with err as nv_request gives them (-ENOENT for a 404). */
struct nv_source {
	void *ctx;
	int (*get)(void *ctx, const char *path, json_t **out, char *err, size_t errlen);
	int qos_at;               /* in/out: which name of the QoS counters the
				   * switch answered last (0 counters/qos, 1
				   * qos/counters): tried first */
};

/* Every port's counters through out (loom_plugin.h's counters_read). */
int nv_counters_read(struct nv_source *src, const struct lp_counter_sink *out, char *err,
		     size_t errlen);
/* The pieces, each adding to pc or -EPROTO with reason naming the GET, the
 * port and the member: GET interface's member `port` (link stats), the
 * answer of GET `get` = interface/<port>/counters/qos, and of
 * interface/<port>/qos/pfc-watchdog. */
int nv_link_counters_parse(const char *port, json_t *ifc, struct lp_port_counters *pc,
			   char *reason, size_t len);
int nv_qos_counters_parse(const char *port, const char *get, json_t *qc,
			  struct lp_port_counters *pc, char *reason, size_t len);
int nv_pfcwd_counters_parse(const char *port, const char *get, json_t *wd,
			    struct lp_port_counters *pc, char *reason, size_t len);

/* ---- nvue_qos.c ------------------------------------------------------------ */

enum nv_kind {
	NV_INT,                   /* a JSON integer */
	NV_STR,                   /* a JSON string */
	NV_PRESENT,               /* an object that exists ({}), value "on" */
};

/* One leaf of the NVUE tree that loom manages: the object `path` (relative
 * to nvue_v1/, '/'-separated), its member `field`, the value loom wants as
 * a string ("" = the member must not exist). */
struct nv_leaf {
	char path[NV_PATH_LEN];
	char field[NV_STR_LEN];
	char value[NV_STR_LEN];
	enum nv_kind kind;
};

struct nv_leaves {
	struct nv_leaf *v;
	size_t n, cap;
	int failed;               /* -ENOMEM while building */
};

void nv_leaves_free(struct nv_leaves *l);
void nv_leaf_add(struct nv_leaves *l, enum nv_kind kind, const char *field, const char *value,
		 const char *pathfmt, ...) __attribute__((format(printf, 5, 6)));

/* The leaves that make switch `sw` (its name, for err) hold `want`; -EINVAL
 * for what NVUE would refuse. */
int nv_qos_leaves(const char *sw, const struct lp_qos *want, struct nv_leaves *out, char *err,
		  size_t errlen);

/* The value of a leaf in `root` (the tree under nvue_v1/, with the top
 * objects that leaves name: "qos", "interface"), as a string into
 * buf ("" when absent). */
void nv_leaf_value(json_t *root, const struct nv_leaf *leaf, char *buf, size_t len);

/* Set a leaf in a PATCH body rooted at `patch` (creating the objects on its
 * path); "" becomes null (unset). 0 or -ENOMEM. */
int nv_patch_set(json_t *patch, const struct nv_leaf *leaf);

/* loom's QoS from the applied qos tree (`qos`) and interface tree
 * (`ifaces`, may be NULL), for the ports named in q->ports. -ENOENT when the
 * switch holds no lossless configuration. */
int nv_qos_parse(json_t *qos, json_t *ifaces, struct lp_qos *q, char *err, size_t errlen);

/* "100G", "25G", "400G", "100000" (Mb/s) -> Mb/s; 0 unknown. */
uint32_t nv_speed_mbps(const char *s);

/* The profile loom writes: NVUE's global one, applied to every port. */
#define NV_PROFILE "default-global"

#endif
