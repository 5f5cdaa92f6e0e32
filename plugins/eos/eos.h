/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/eos/eos.h: what the files of the eos plugin share (not installed,
 * not seen by loomd): the switch handle (with the platform's queue
 * keyword), and the QoS state that eos_qos.c reads from EOS's
 * running-config and turns into config lines. */
#ifndef EOS_H
#define EOS_H

#include <stddef.h>
#include <stdint.h>

#include "loom/loom_plugin.h"
#include "eos_rpc.h"

/* The handle of one switch: all the plugin's state is here. */
struct lp_switch {
	struct eos_conn conn;
	char name[LP_NAME_LEN];
	const struct lp_host *host;
	unsigned session;          /* configure session counter */
	char model[64];            /* show version's modelName at open */
	uint8_t voq;               /* 1: "uc-tx-queue" platform (eos_platform_voq) */
	uint8_t counters_refused;  /* bit i: counters command i (eos.c) refused by
				    * this switch: not asked again on this handle */
};

/* ECN thresholds EOS takes, in any unit (AVD's schema, see eos_qos.c). */
#define EOS_ECN_MAX 256000000u

/* One tx-queue of one interface as the running-config states it. */
struct eos_txq {
	int8_t priority;           /* -1 no line (EOS default: strict), 1 "priority
				    * strict", 0 "no priority" (round-robin) */
	int bandwidth;             /* "bandwidth percent N", -1 none */
	uint8_t ecn;               /* a "random-detect ecn ..." line */
	uint32_t ecn_min, ecn_max; /* bytes (kbytes, mbytes: EOS_KBYTE assumed) */
	uint8_t ecn_prob;          /* max-mark-probability, percent */
	char ecn_text[128];        /* the line after "random-detect ecn " as EOS
				    * shows it: what loom compares and reports */
};

/* "qos trust" of an interface as its running-config section states it. */
enum eos_trust {
	EOS_TRUST_DEFAULT = -1,    /* no line: DSCP on a routed port, CoS on a
				    * switchport (eos_effective_trust) */
	EOS_TRUST_NONE = 0,        /* "no qos trust" */
	EOS_TRUST_COS = 1,         /* "qos trust cos" */
	EOS_TRUST_DSCP = 2,        /* "qos trust dscp" */
};

struct eos_intf {
	char name[LP_NAME_LEN];
	uint8_t found;             /* an "interface <name>" section exists */
	uint8_t routed;            /* "no switchport" */
	int8_t trust;              /* enum eos_trust */
	uint8_t pfc_on;            /* "priority-flow-control on" */
	uint8_t nodrop;            /* bit p: "priority-flow-control priority p no-drop" */
	struct eos_txq txq[LP_TCS];
};

/* The QoS lines loom manages, for the interfaces intf[0..n). */
struct eos_state {
	int dscp_tc[64];           /* -1: no "qos map dscp" line (EOS default) */
	int tc_txq[LP_TCS];        /* -1: no "qos map traffic-class" line */
	uint8_t voq;               /* the queue keyword loom writes: "uc-tx-queue"
				    * (1) or "tx-queue" (0); both are read */
	size_t n;
	struct eos_intf *intf;
};

/* eos_reply.c: the results of runCmds (eos_run's *result) decoded; 0, or
 * -EPROTO with err naming the command and the field that is missing or of
 * another JSON type than EOS gives it. No I/O. */
/* "show version" at result[i]: model, os_version, mac of inv (the rest
 * untouched). */
int eos_version_parse(json_t *result, size_t i, struct lp_inventory *inv, char *err,
		      size_t errlen);
/* "show version", "show hostname", "show interfaces status": inv, and each
 * Ethernet port through sink in natural order. */
int eos_inventory_parse(json_t *result, struct lp_inventory *inv,
			const struct lp_port_sink *sink, char *err, size_t errlen);
/* "show lldp neighbors detail": each neighbour through sink. */
int eos_lldp_parse(json_t *result, const struct lp_neighbor_sink *sink, char *err,
		   size_t errlen);
/* "show running-config" (format text) at result[i]: eos_state_parse of its
 * output (st zeroed first; eos_state_free it either way). */
int eos_config_parse(json_t *result, size_t i, const char *const *names, size_t n,
		     struct eos_state *st, char *err, size_t errlen);
/* "show interfaces <port> switchport" (cmd, for messages): the access VLAN
 * in effect, 0 for none or EOS's default VLAN 1. */
int eos_switchport_parse(json_t *result, const char *port, const char *cmd, uint16_t *vid,
			 char *err, size_t errlen);

/* eos_counters.c: the results (element 0 of each runCmds result) of "show
 * interfaces", "show priority-flow-control counters detail", "show
 * priority-flow-control counters watchdog" and "show qos interfaces ecn
 * counters queue" (the last three NULL when EOS refused them: left out),
 * as counters_read reports them through out. */
int eos_counters_decode(json_t *ifs, json_t *pfc, json_t *wd, json_t *ecn,
			const struct lp_counter_sink *out, char *err, size_t errlen);

/* eos_qos.c */
/* EOS's defaults where the running-config has no line. */
int eos_default_dscp_tc(unsigned dscp);
/* 1 when show version's modelName is of a family whose per-port queues are
 * "uc-tx-queue N" (VOQ: 7280, 75xx, 78xx), 0 for "tx-queue N". */
int eos_platform_voq(const char *model);
/* "uc-tx-queue" or "tx-queue". */
const char *eos_queue_word(const struct eos_state *st);
/* The trust in force on x: EOS_TRUST_NONE, _COS or _DSCP. */
int eos_effective_trust(const struct eos_intf *x);
/* Parse the text of "show running-config" into st for the interfaces
 * names[0..n) (st->intf allocated here; eos_state_free). */
int eos_state_parse(const char *config, const char *const *names, size_t n,
		    struct eos_state *st, char *err, size_t errlen);
void eos_state_free(struct eos_state *st);
/* st in loom's terms, for the ports of q (names kept). -ENOENT when no
 * port has a no-drop priority and no DSCP is mapped (no lossless config). */
int eos_state_to_qos(const struct eos_state *st, struct lp_qos *q, char *err, size_t errlen);

/* One differing setting: the change to report and the config lines that
 * make it (in their mode: global, interface or tx-queue). */
struct eos_edit {
	char key[96];              /* "qos map dscp", "interface Ethernet1",
				    * "interface Ethernet1/tx-queue 3" */
	char field[64];
	char before[160], after[160];
	char line[200];            /* the config line that sets `after` */
	int intf;                  /* index into st->intf, -1 global */
	int txq;                   /* tx-queue, -1 interface level */
};

struct eos_plan {
	struct eos_edit *e;
	size_t n, cap;
};

/* What makes st hold want: the edits, global first, then per interface in
 * st's order (interface level before its tx-queues). */
int eos_plan_qos(const struct lp_qos *want, const struct eos_state *st, struct eos_plan *p,
		 char *err, size_t errlen);
/* The runCmds list of the plan inside "configure session <session>":
 * "enable", "configure session <s>", the lines with "interface X" /
 * "tx-queue q" / "exit" around them, "commit". *cmds (n strings) is freed
 * with eos_cmds_free. */
int eos_plan_cmds(const struct eos_plan *p, const struct eos_state *st, const char *session,
		  char ***cmds, size_t *n);
void eos_cmds_free(char **cmds, size_t n);
void eos_plan_free(struct eos_plan *p);

#endif
