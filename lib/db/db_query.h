/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/db_query.h: read-only queries on loom's database, shared by loomd (its
 * control socket) and loomctl --db (a stopped daemon). Each returns 0 and a
 * new JSON value in *out, or -errno and a message in err; -ENOENT means "no
 * such object". The JSON shapes are loom's public CLI/protocol format:
 *
 * node:  {"guid":"0x<16 hex>","type":"switch|ca|router","desc":"...","ports":N,
 *         "subnet":"...","sysimg_guid":"0x...","vendor_id":"0x...",
 *         "device_id":"0x...","revision":"0x...","lid":N|null,
 *         "first_seen":"<ISO 8601 UTC>","last_seen":"..."}
 * port:  {"subnet":"...","node_guid":"0x...","node_desc":"...","port":N,
 *         "guid":"0x...","lid":N,"lmc":N,"state":"active","phys_state":"linkup",
 *         "width":"4x","speed":"HDR","width_enabled":"1x,4x","width_supported":"...",
 *         "speed_enabled":"...","speed_supported":"...","mtu":4096,"vls":N,
 *         "peer":{"guid":"0x...","port":N}|null}
 * link:  {"subnet":"...","a":{"guid":"0x...","port":N,"desc":"..."},
 *         "b":{"guid":"0x...","port":N,"desc":"..."},"width":"4x","speed":"HDR",
 *         "degraded":false}
 * event: {"id":N,"time":"<ISO 8601 UTC>","ts":<unix seconds>,"subnet":"...",
 *         "sweep":N,"severity":"warning","kind":"link_down","subject":"...",
 *         "old":"...","new":"..."}
 * subnet:{"name":"...","ca":"...","port":N,"nodes":N,"switches":N,"cas":N,
 *         "ports":N,"links":N,"last_sweep":{"id":N,"status":"ok|failed",
 *         "started":"...","duration_ms":N,"error":"..."}|null}
 * Node, port and link objects also carry "fabric": "ib"; those of the
 * Ethernet fabric ("fabric": "eth", subnet "ethernet") follow, in the shapes
 * lib/db/db_query_eth.c describes, and a subnet object has "kind": "ib"|"eth".
 * run:   {"id":N,"time":"<ISO 8601 UTC>","ts":<unix seconds>,"subnet":"..."|null,
 *         "sm_guid":"0x...","sm_pid":N,"engine":"loom","routed_by":"ftree"|null,
 *         "note":"...","result":"ok|failed","reason":"..."|null,"duration_ms":R,
 *         "vls":N,"switches":N,"ca_ports":N,"entries_routed":N,
 *         "entries_unreachable":N,"metrics":{...lib/route/route_live.h's metrics...}|null}
 */
#ifndef LOOM_DB_QUERY_H
#define LOOM_DB_QUERY_H

#include <stddef.h>
#include <sqlite3.h>
#include <jansson.h>

/* Open an existing database read-only (no migration). NULL + err on failure. */
sqlite3 *dbq_open_readonly(const char *path, char *err, size_t errlen);

/* The main database's data version: a number that changes whenever any
 * connection, this one included, commits a change to it (SQLite's
 * SQLITE_FCNTL_DATA_VERSION). What the queries below answer can only
 * differ between two equal values if nothing was written in between.
 * 0, or -EIO when SQLite cannot tell (an in-memory database). */
int dbq_data_version(sqlite3 *db, unsigned *out);

/* type: NULL for all, else "switch", "ca", "router" or "host" (Ethernet). */
int dbq_nodes(sqlite3 *db, const char *type, json_t **out, char *err, size_t errlen);
/* One node by node GUID or exact node description (else an Ethernet node by
 * name or MAC), with "port_list": [port...]. A description matching several
 * nodes is -EEXIST (err lists them). */
int dbq_node(sqlite3 *db, const char *guid_or_desc, json_t **out, char *err, size_t errlen);
/* node: NULL for all ports, else a node GUID or description. */
int dbq_ports(sqlite3 *db, const char *node, json_t **out, char *err, size_t errlen);
int dbq_links(sqlite3 *db, json_t **out, char *err, size_t errlen);
/* Newest first. since: unix seconds, 0 for no bound; kinds: NULL for all,
 * else a comma-separated list ("qos_applied,link_down") of kinds
 * dbq_event_kinds_check knows (-EINVAL otherwise); limit <= 0: no limit
 * (the limit counts the events that match). */
int dbq_events(sqlite3 *db, double since, const char *kinds, long limit, json_t **out,
	       char *err, size_t errlen);
/* Is every kind of the comma-separated `kinds` one loom records? 0 (also
 * for NULL or ""), or -EINVAL with err naming the first unknown one and
 * the known ones (give err 2048 bytes to hold them all). */
int dbq_event_kinds_check(const char *kinds, char *err, size_t errlen);
int dbq_subnets(sqlite3 *db, json_t **out, char *err, size_t errlen);
/* OpenSM's routing runs with loom's engines (libloomosm.so's reports),
 * newest first; limit <= 0: no limit. */
int dbq_routing_runs(sqlite3 *db, long limit, json_t **out, char *err, size_t errlen);

/* The Ethernet switches as loomd last read them (name NULL: all of them, an
 * array; else that one, with its "port_list" and their LLDP neighbours).
 * -ENOENT: no such switch, or a database older than schema 4. */
int dbq_switches(sqlite3 *db, const char *name, json_t **out, char *err, size_t errlen);

/* "2026-11-22T15:52:24Z" from unix seconds. buf needs 32 bytes. */
char *dbq_time_str(double t, char *buf, size_t len);
/* Parse a time for --since: unix seconds ("1700000000"), ISO 8601
 * ("2026-11-22T15:00:00Z", "2026-11-22 15:00:00", "2026-11-22"; UTC), or an
 * age ("90s", "15m", "2h", "7d") counted back from now. 0 or -EINVAL. */
int dbq_time_parse(const char *s, double now, double *out);

#endif
