/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_live.h: the routes programmed in a live fabric. Forwarding
 * tables read back from the switches (daemon/ib/lft_read.c) are judged with the
 * routing metrics (`route check`) and followed hop by hop (`route trace`),
 * on the fabric as swept. The database half (lib/db/route_live_db.h)
 * answers from loom's database, so loomd and loomctl --db give the same
 * answers.
 *
 * JSON shapes (loom's public CLI/protocol format):
 *
 * read:  {"id":N,"time":"<ISO 8601 UTC>","ts":<unix s>,"duration_ms":N,
 *         "switches":N,"smps":N,"sweep":N|null,"stale":bool}
 *         (stale: the subnet was swept again, successfully, after the read)
 * check: {"subnet":"...","read":read,"switches":N,"ca_ports":N,
 *         "missing_tables":N,"routed_entries":N,"unroutable_entries":N,
 *         "metrics":{as route compute's},"broken_pairs":N,
 *         "vls":{"sl2vl":"read"|"not read","sl2vl_pairs":N,"sls":"file"|"unknown",
 *                "sls_file":"path"|null,"sls_switches":N,"vl_changes":N,
 *                "vl_loop":bool,"credit_loop":{"vl":N,"channels":N,
 *                "cycle":"sw-3[5] -> sw-4[2] -> ... -> sw-3[5]"}|null},
 *         "broken":[{"src":"desc","src_name":"name","src_guid":"0x..",
 *                    "dst":"desc","dst_name":"name","dst_guid":"0x..",
 *                    "dlid":N,"reason":"..."}] (first 20)}
 * trace: {"subnet":"...","read":read,"src":end,"dst":end,"dlid":N,
 *         "delivered":bool,"hops":[{"guid":"0x..","desc":"...","name":"...",
 *         "lid":N,"in_port":N,"out_port":N|null}],"reason":"..."|null}
 *         end: {"type":"ca|switch","guid":"0x.. (node)","port_guid":"0x..",
 *               "port":N,"lid":N,"desc":"...","name":"..."}
 * "desc" is the NodeDescription, "name" the node's name in the site's
 * node-name-map (names, lib/fabric/nodename.h), else its description; the
 * reasons name nodes by "name".
 */
#ifndef LOOM_ROUTE_LIVE_H
#define LOOM_ROUTE_LIVE_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/nodename.h"
#include "lib/route/route_graph.h"
#include "lib/route/route_lft.h"
#include "lib/route/route_metrics.h"

/* One switch's linear forwarding table as read: entries 0..top. */
struct rl_table {
	uint64_t guid;         /* node GUID */
	uint16_t lid;          /* the switch's LID at the read */
	uint16_t top;          /* SwitchInfo:LinearFDBTop */
	uint8_t *port;         /* top + 1 entries; RT_NO_PORT = not programmed */
};

/* One switch port pair's SL-to-VL table as read (SMP SLtoVLMappingTable,
 * attribute modifier in << 8 | out): vl[s] is the VL of SL s on the link
 * out of port `out` for packets that entered by port `in`. */
struct rl_sl2vl {
	uint64_t guid;         /* the switch's node GUID */
	uint8_t in, out;
	uint8_t vl[16];
};

/* One read of a subnet's tables. */
struct rl_read {
	size_t n;
	struct rl_table *t;    /* sorted by GUID after rl_read_sort() */
	/* The SL-to-VL tables of every pair (in, out) of linked ports of every
	 * switch, out to a switch, in != out: what a path can use (route_live_vl.c).
	 * Live reads only: the database keeps none. */
	size_t n_sl2vl, cap_sl2vl;
	struct rl_sl2vl *sl2vl;
	double started, finished;
	size_t smps;
	/* The forwarding tables' part of it (before the SL-to-VL reads): when
	 * they were whole and their SMPs. Live reads only. */
	double tables_finished;
	size_t tables_smps;
	/* From the database (0 when not stored): */
	int64_t id, sweep_id;
};

struct rl_read *rl_read_new(void);
/* Append a table of top + 1 entries (copied). 0 or -ENOMEM. */
int rl_read_add(struct rl_read *r, uint64_t guid, uint16_t lid, uint16_t top,
		const uint8_t *entries);
void rl_read_sort(struct rl_read *r);
const struct rl_table *rl_read_find(const struct rl_read *r, uint64_t guid);
void rl_read_free(struct rl_read *r);
/* Append one pair's SL-to-VL table. 0 or -ENOMEM. */
int rl_read_add_sl2vl(struct rl_read *r, uint64_t guid, unsigned in, unsigned out,
		      const uint8_t vl[16]);

/* Where route check takes the VLs of paths from (route_live_vl.c). */
struct rl_vl_input {
	const struct rl_read *sl2vl;  /* a read with SL-to-VL tables (the live
				       * one), or NULL: VL = SL */
	const char *sls_file;         /* the SL file loom's OpenSM plugin writes
				       * (route_sl2vl.h), or NULL: SLs unknown,
				       * every path on SL 0 */
};

/* The tables of r laid out for g (entries beyond a table's top, and ports
 * the switch lacks, are RT_NO_PORT); n_routed / n_unreachable count the
 * entries of LIDs held by someone. *n_missing: switches of g without a
 * table. NULL (errno ENOMEM) on failure. r must be sorted. */
struct rt_lfts *rl_lfts(const struct rt_graph *g, const struct rl_read *r, size_t *n_missing);

/* The metrics of route compute as JSON (the "metrics" object). */
json_t *rl_metrics_json(const struct rt_metrics *m);

/* Judge the tables of r on fab: the check object without "subnet" and
 * "read". opts as rt_metrics_compute's; vl (NULL: none) where the VLs come
 * from. An SL file that cannot be read or does not fit the fabric is said
 * in "vls" and the SLs are unknown. 0, or -errno with err. */
int rl_check(const struct fab *fab, const struct rl_read *r, const struct nodename_map *names,
	     const struct rt_metrics_opts *opts, const struct rl_vl_input *vl, json_t **out,
	     char *err, size_t errlen);

/* Follow the tables of r from src to dst: the trace object without
 * "subnet" and "read". src and dst: a host name (first word of the node
 * description), a full node description or name in names (NULL: none), a
 * node or port GUID (0x...) or a LID (decimal). -ENOENT (no such
 * endpoint), -EEXIST (ambiguous name) or -EINVAL with err. A broken path
 * is not an error: "delivered" says. */
int rl_trace(const struct fab *fab, const struct rl_read *r, const struct nodename_map *names,
	     const char *src, const char *dst, json_t **out, char *err, size_t errlen);

#endif
