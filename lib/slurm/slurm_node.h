/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/slurm/slurm_node.h: one Slurm node's state as `scontrol show node -o
 * NAME` prints it (issue 42: loom drains a host whose only cable is bad and
 * resumes it after the probation). Pure: text in, fields out.
 *
 * The line is `Key=value` pairs, but a value may hold spaces (OS=Linux 6.1
 * #1 SMP ..., Reason=...), so a key is only taken where a space (or the
 * line's start) comes before it. State= is one word: the base state and its
 * flags joined by '+' (IDLE, IDLE+DRAIN, MIXED+DRAIN, DOWN+DRAIN+NOT_RESPONDING).
 * Reason= is printed by Slurm as `Reason=TEXT [USER@TIME]`, near the end of
 * the line (Comment=, Extra= may follow): TEXT runs to the first ` [USER@TIME]`
 * (no space inside, TIME starting with a digit) that ends the line or is
 * followed by ` Key=`; without such a mark, to the end of the line. A reason
 * that forges such a mark is cut there: only what it starts with ("loom:")
 * decides anything. */
#ifndef LOOM_SLURM_NODE_H
#define LOOM_SLURM_NODE_H

#include <stddef.h>

#define SLURM_NODE_NAME_LEN 128
#define SLURM_NODE_STATE_LEN 128
#define SLURM_NODE_REASON_LEN 512

struct slurm_node {
	char name[SLURM_NODE_NAME_LEN];     /* NodeName= */
	char state[SLURM_NODE_STATE_LEN];   /* State=, as printed ("IDLE+DRAIN") */
	char reason[SLURM_NODE_REASON_LEN]; /* Reason='s text without [user@time], "" none */
	char reason_by[SLURM_NODE_NAME_LEN];/* the USER@TIME of the mark, "" none */
	int drained;   /* a DRAIN, DRAINING or DRAINED part in State= */
	int down;      /* a DOWN, FAIL or FAILING part in State= (out of service) */
};

/* Parse the output of `scontrol show node -o NAME`: the line whose
 * NodeName= is `name` (other lines, such as warnings, are skipped).
 * 0; -ENOENT when scontrol said the node is not found (err: its words);
 * -EINVAL when no such line can be read (err says why). */
int slurm_node_parse(const char *text, const char *name, struct slurm_node *out, char *err,
		     size_t errlen);

/* 1 when `name` is a single Slurm node name loom may pass to scontrol
 * (1..63 bytes of [A-Za-z0-9._-], not starting with '-'): no host list,
 * no `=`, no space. */
int slurm_node_name_ok(const char *name);

/* 1 when the reason is loom's: it starts with "loom:". */
int slurm_node_reason_is_loom(const char *reason);

#endif
