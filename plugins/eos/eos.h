/* plugins/eos/eos.h: what the files of the eos plugin share (not installed,
 * not seen by loomd): the switch handle, and the QoS state that
 * eos_qos.c reads from EOS's running-config and turns into config lines. */
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
};

/* One tx-queue of one interface as the running-config states it. */
struct eos_txq {
	int8_t priority;           /* -1 no line (EOS default: strict), 1 "priority
				    * strict", 0 "no priority" (round-robin) */
	int bandwidth;             /* "bandwidth percent N", -1 none */
	uint8_t ecn;               /* a "random-detect ecn ..." line */
	uint32_t ecn_min, ecn_max; /* bytes */
	uint8_t ecn_prob;          /* max-mark-probability, percent */
};

struct eos_intf {
	char name[LP_NAME_LEN];
	uint8_t found;             /* an "interface <name>" section exists */
	uint8_t pfc_on;            /* "priority-flow-control on" */
	uint8_t nodrop;            /* bit p: "priority-flow-control priority p no-drop" */
	struct eos_txq txq[LP_TCS];
};

/* The QoS lines loom manages, for the interfaces intf[0..n). */
struct eos_state {
	int dscp_tc[64];           /* -1: no "qos map dscp" line (EOS default) */
	int tc_txq[LP_TCS];        /* -1: no "qos map traffic-class" line */
	size_t n;
	struct eos_intf *intf;
};

/* eos_qos.c */
/* EOS's defaults where the running-config has no line. */
int eos_default_dscp_tc(unsigned dscp);
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
