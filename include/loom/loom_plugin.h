/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* include/loom/loom_plugin.h (installed as <loom/loom_plugin.h>): the one
 * interface between loomd and a switch plugin (a shared object in loomd's
 * plugin directory); lib/qos/qos_policy.h resolves policies into its types. A plugin sees this
 * header and nothing else of loom; loomd sees a plugin only through the
 * ops table it exports.
 *
 * A plugin exports one symbol, `loom_plugin_v1` (LOOM_PLUGIN_SYMBOL), a
 * const struct loom_plugin_v1 whose `abi` is the version it was built for.
 * Versions only ever append ops: ABI 1's table is a prefix of ABI 2's
 * (ABI 2 appended counters_read), so the symbol keeps its name and loomd
 * loads any version from LOOM_PLUGIN_ABI_MIN to LOOM_PLUGIN_ABI, checks
 * that `size` covers that version's table, and never touches an op past
 * it (an ABI-1 plugin is never asked for counters). loomd refuses a plugin
 * without the symbol or with a version outside that range, naming the file
 * and the versions. Changing or removing an op would need a new symbol.
 *
 * Threads: every op may block on the network; loomd calls them from worker
 * threads, never from its event loop, and never two at once on one switch
 * handle. Ops on different handles may run at once, so a plugin keeps its
 * state in the handle (or guards what it shares).
 *
 * Memory: nothing allocated on one side is freed on the other. Ops that
 * return lists report them item by item through a sink of callbacks that
 * copy what they keep; strings passed in are the caller's and live for the
 * call only (the endpoint's, for the handle's life).
 *
 * Errors: ops return 0 or a negative errno and, on error, one line of text
 * in err (at most errlen bytes, NUL included) saying what failed, in the
 * switch's own terms ("HSET QUEUE|Ethernet0|3: READONLY ...").
 */
#ifndef LOOM_PLUGIN_H
#define LOOM_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#define LOOM_PLUGIN_ABI 2        /* the version this header describes */
#define LOOM_PLUGIN_ABI_MIN 1    /* the oldest one loomd still loads */
#define LOOM_PLUGIN_SYMBOL "loom_plugin_v1"

/* Log levels of host->log, as syslog's. */
enum lp_log_level {
	LP_LOG_ERR = 3,
	LP_LOG_WARNING = 4,
	LP_LOG_NOTICE = 5,
	LP_LOG_INFO = 6,
	LP_LOG_DEBUG = 7,
};

/* What loomd gives a plugin at open(): its logger. */
struct lp_host {
	void (*log)(enum lp_log_level level, const char *switch_name, const char *fmt, ...)
		__attribute__((format(printf, 3, 4)));
};

/* How to reach one switch, from loom.yaml's `switches:` entry. */
struct lp_endpoint {
	const char *name;         /* loom's name for the switch */
	const char *address;      /* in the plugin's own form: host, host:port, URL,
				   * unix socket path, netdev name */
	const char *credentials;  /* the credentials file's content, or NULL */
	const char *options;      /* plugin options "key=value,key=value", or NULL */
	int timeout_ms;           /* per network operation */
};

/* Opaque: a plugin's connection to one switch. */
struct lp_switch;

#define LP_NAME_LEN 64

/* One front-panel port. */
struct lp_port {
	char name[LP_NAME_LEN];   /* the switch's port name: "Ethernet0", "swp1" */
	char alias[LP_NAME_LEN];  /* front-panel or vendor alias, "" if none */
	uint32_t speed_mbps;      /* configured speed, 0 unknown */
	uint32_t mtu;             /* 0 unknown */
	uint8_t admin_up, oper_up;
};

struct lp_inventory {
	char hostname[LP_NAME_LEN];
	char model[LP_NAME_LEN];      /* hardware SKU / model */
	char os_version[LP_NAME_LEN];
	char mac[24];                 /* base MAC, "aa:bb:cc:dd:ee:ff", "" unknown */
};

/* One LLDP neighbour seen on a local port. */
struct lp_neighbor {
	char local_port[LP_NAME_LEN];
	char chassis_id[LP_NAME_LEN]; /* usually a MAC */
	char sys_name[LP_NAME_LEN];
	char port_id[LP_NAME_LEN];
	char port_desc[LP_NAME_LEN];
};

/* The lossless RoCE QoS state of one switch, in loom's platform-neutral
 * terms (what loom.yaml's `roce:` policy resolves to for a switch, and what
 * qos_read finds on it). Traffic classes, priorities, priority groups and
 * queues are 0..7. */
#define LP_TCS 8
#define LP_MAX_PORTS 512

enum lp_pfcwd_action {
	LP_PFCWD_DROP = 0,
	LP_PFCWD_FORWARD,
	LP_PFCWD_ALERT,
};

struct lp_ecn {
	uint8_t enabled;          /* ECN marking (WRED in mark mode) on the queue */
	uint32_t min_bytes;       /* queue depth where marking starts */
	uint32_t max_bytes;       /* ... where it reaches mark_percent */
	uint8_t mark_percent;     /* 1..100 */
};

/* Per-port lossless headroom, computed by loom from speed and cable. */
struct lp_port_buffer {
	char port[LP_NAME_LEN];
	uint32_t speed_mbps;
	uint32_t cable_m;
	uint32_t size_bytes;      /* reserved per lossless priority group */
	uint32_t xon_bytes;       /* resume threshold */
	uint32_t xoff_bytes;      /* headroom above the pause point */
};

struct lp_qos {
	uint8_t dscp_to_tc[64];
	uint8_t tc_to_queue[LP_TCS];
	uint8_t tc_to_pg[LP_TCS];
	uint8_t pfc_mask;         /* bit p: PFC on priority p (its TC, queue, PG) */
	uint8_t strict_mask;      /* bit q: queue q is scheduled strict priority */
	uint8_t ets_weight[LP_TCS];   /* DWRR weight per queue (0 for strict ones) */
	struct lp_ecn ecn[LP_TCS];    /* per queue */
	struct {
		uint8_t enabled;
		enum lp_pfcwd_action action;
		uint32_t detection_ms;
		uint32_t restoration_ms;
	} pfcwd;
	/* The ports the policy applies to, each with its headroom. */
	size_t n_ports;
	struct lp_port_buffer ports[LP_MAX_PORTS];
	/* The CNPs (congestion notification packets) the NICs send for ECN-marked
	 * RoCE traffic: their DSCP and 802.1p priority (loom.yaml roce.cnp). A
	 * host plugin writes them to the NIC (linuxdcb: DCQCN's notification
	 * point); a switch plugin may ignore them (the switch only carries CNPs
	 * on their class). cnp_set = 0: not known (an older loomd, or qos_read
	 * found no NIC setting). Added at the end of the struct for issue 19. */
	uint8_t cnp_set;
	uint8_t cnp_dscp;         /* 0..63 */
	uint8_t cnp_priority;     /* 0..7 */
};

/* Item sinks: the plugin calls them once per item, in any order; `ctx` is
 * the caller's. A callback returning non-zero asks the plugin to stop and
 * return that value. */
struct lp_port_sink {
	void *ctx;
	int (*port)(void *ctx, const struct lp_port *p);
};

struct lp_neighbor_sink {
	void *ctx;
	int (*neighbor)(void *ctx, const struct lp_neighbor *n);
};

/* One key of the switch's own configuration that apply changed (or, in a
 * dry run, would change): "DSCP_TO_TC_MAP|AZURE" field "26", "1" -> "3".
 * `before` is "" for a key or field that did not exist; `after` is "" for
 * one removed. `done` is 1 once the switch accepted it, 0 if it was not
 * written (dry run, or the apply stopped before it). */
struct lp_change {
	const char *key;
	const char *field;
	const char *before;
	const char *after;
	int done;
};

struct lp_change_sink {
	void *ctx;
	int (*change)(void *ctx, const struct lp_change *c);
};

/* One object (a key of the switch's own configuration) that qos_apply
 * would touch, for `loomctl qos plan`: what it does to it, and who else
 * uses it. shared_with: "" when only the ports of `want` use it; else the
 * ports loom does not manage that use it too ("Ethernet8,Ethernet12"), or
 * "switch-wide" for an object of the whole switch (a table every port's
 * settings live in, a global setting). */
enum lp_object_action { LP_OBJECT_CREATE, LP_OBJECT_CHANGE, LP_OBJECT_DELETE };

struct lp_object {
	const char *key;
	enum lp_object_action action;
	const char *shared_with;
};

struct lp_object_sink {
	void *ctx;
	int (*object)(void *ctx, const struct lp_object *o);
};

/* Switch counters (ABI 2): one value of one port, with loom's name for it.
 * Names are stable (loomd stores, compares and exports them); a plugin
 * reports those its switch has, each at most once per (port, scope, index),
 * and leaves out those it does not (never a 0 for a counter it lacks):
 *   port scope:     in_octets, out_octets, in_errors, out_errors,
 *                   in_discards, out_discards
 *   priority 0..7:  pfc_rx_pause, pfc_tx_pause (PFC frames received/sent),
 *                   pfc_rx_pause_duration_us, pfc_tx_pause_duration_us
 *   queue 0..7:     queue_packets, queue_drops, ecn_marked (packets WRED
 *                   marked CE), pfcwd_storm_detected, pfcwd_storm_restored
 *                   (the PFC watchdog's detections and restorations)
 *   port scope:     pause_storm_warning, pause_storm_error (NIC-side storm
 *                   prevention events, Linux mlx5)
 * Gauges (gauge = 1) are levels, not counts, and get no delta:
 *   queue 0..7:     pfcwd_stormed (1 while the watchdog holds the queue
 *                   in a storm, else 0) */
enum lp_counter_scope {
	LP_COUNTER_PORT,          /* index unused (0) */
	LP_COUNTER_PRIORITY,      /* index: the 802.1p priority 0..7 */
	LP_COUNTER_QUEUE,         /* index: the egress queue 0..7 */
};

struct lp_counter {
	const char *port;         /* the switch's port name, as inventory reports it */
	const char *name;         /* loom's name, from the list above */
	enum lp_counter_scope scope;
	uint8_t index;            /* priority or queue, 0..7 */
	uint8_t bits;             /* the counter's width: 64 for SAI stats, 1..64 */
	uint8_t gauge;            /* 1: a level, not a count */
	uint64_t value;
};

/* counters_read's sink. port_error (may be NULL): a port whose counters
 * could not be read while the others were, with the reason naming what
 * was wrong in the switch's terms ("COUNTERS:oid:0x1000000000002 field
 * SAI_PORT_STAT_IF_IN_OCTETS: 12a is no number"); none of that port's
 * counters are reported then. */
struct lp_counter_sink {
	void *ctx;
	int (*counter)(void *ctx, const struct lp_counter *c);
	int (*port_error)(void *ctx, const char *port, const char *reason);
};

struct loom_plugin_v1 {
	uint32_t abi;             /* the version built for: LOOM_PLUGIN_ABI */
	uint32_t size;            /* sizeof(struct loom_plugin_v1) it was built with */
	const char *name;         /* "sonic", "nvue", "eos", "linuxdcb" */
	const char *version;      /* the plugin's own version */

	/* Connect (or check that the switch answers): 0 and *out, or -errno. */
	int (*open)(const struct lp_endpoint *ep, const struct lp_host *host,
		    struct lp_switch **out, char *err, size_t errlen);
	void (*close)(struct lp_switch *sw);

	/* Model, OS, MAC; then every front-panel port through `ports`. */
	int (*inventory)(struct lp_switch *sw, struct lp_inventory *inv,
			 const struct lp_port_sink *ports, char *err, size_t errlen);
	int (*lldp_neighbors)(struct lp_switch *sw, const struct lp_neighbor_sink *out,
			      char *err, size_t errlen);

	/* The QoS the switch holds now, for the ports in q->ports (filled by
	 * the caller: names only; the plugin fills the rest). -ENOENT when the
	 * switch holds no lossless configuration at all. */
	int (*qos_read)(struct lp_switch *sw, struct lp_qos *q, char *err, size_t errlen);
	/* Make the switch hold `want`, changing only what differs; each key
	 * changed is reported (before the next is written). dry_run: change
	 * nothing, report what would change. Idempotent: a second apply reports
	 * nothing. On error, the changes reported with done = 1 landed and the
	 * others did not. */
	int (*qos_apply)(struct lp_switch *sw, const struct lp_qos *want, int dry_run,
			 const struct lp_change_sink *changes, char *err, size_t errlen);

	/* Access VLAN on a port (tenant isolation): set replaces any other
	 * loom-set VLAN on it; clear returns it to the switch's default. */
	int (*vlan_set)(struct lp_switch *sw, const char *port, uint16_t vid,
			char *err, size_t errlen);
	int (*vlan_clear)(struct lp_switch *sw, const char *port, char *err, size_t errlen);

	/* Cheap liveness probe: 0 when the switch's management plane answers. */
	int (*health)(struct lp_switch *sw, char *err, size_t errlen);

	/* The access VLAN `port` holds now, as the switch's own configuration
	 * says (what vlan_set wrote, or an operator's), for reading a tenant's
	 * VLAN back: *vid = 0 when the port has none (the switch's default).
	 * -ENOENT with err for a port the switch does not have. */
	int (*vlan_get)(struct lp_switch *sw, const char *port, uint16_t *vid,
			char *err, size_t errlen);

	/* Optional (NULL: `loomctl qos plan` shows only the dry run's keys):
	 * every object qos_apply(want) would create, change or delete, once
	 * each, in the order it would write them, through out. Changes
	 * nothing. */
	int (*qos_objects)(struct lp_switch *sw, const struct lp_qos *want,
			   const struct lp_object_sink *out, char *err, size_t errlen);

	/* ---- ABI 2 ---- */

	/* Optional (NULL: the switch's counters are not read): every port's
	 * counters now, through out (see struct lp_counter). -errno with err
	 * when none could be read (the switch, or a table every port needs);
	 * a port alone that cannot be read goes to out->port_error. */
	int (*counters_read)(struct lp_switch *sw, const struct lp_counter_sink *out,
			     char *err, size_t errlen);
};

#endif
