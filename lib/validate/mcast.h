/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/mcast.h: the multicast rules (issue 43). Over the groups the
 * SA knows (MGID, MLID, member port GUIDs with their JoinState) and the
 * multicast forwarding tables read from the switches (per switch, the port
 * mask of each MLID), each group's tree as the tables make it over the
 * fabric's links is judged:
 *   mcast-unreached (error): a member that the others' packets do not reach,
 *     or whose packets do not reach them: its switch does not forward the
 *     group to it, or its switch is cut off from the rest of the tree (a
 *     switch forwards a packet out of every port its mask has but the one
 *     it came in on);
 *   mcast-loop (error): a cycle over switch links both ends of which forward
 *     the group (the link that closes it is named);
 *   mcast-not-updown (warning, fat trees: fattree.h's levels): a switch that
 *     takes the group from a switch above it and sends it up to another;
 *   mcast-leak (warning): a switch forwarding the group to a CA port that is
 *     not a member.
 * Subjects: "MGID switch[port]" (the MGID as an IPv6 address), nodes by the
 * site's names. At most MCAST_PER_GROUP findings of one code per group, then
 * one "MGID" finding saying how many more. Pure: no process, no MADs. Cost
 * per group O(switch ports + members log members). */
#ifndef LOOM_VALIDATE_MCAST_H
#define LOOM_VALIDATE_MCAST_H

#include <stddef.h>
#include <stdint.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/nodename.h"
#include "lib/validate/report.h"

#define MCAST_PORTS 256        /* MFT port masks: 16 positions of 16 ports */
#define MCAST_PER_GROUP 8
#define MCAST_MLID_FIRST 0xc000
#define MCAST_MLID_LAST 0xfffe

struct mc_mask {
	uint64_t w[MCAST_PORTS / 64];  /* bit p: the switch forwards the MLID out of port p */
};

/* MCMemberRecord:JoinState bits */
#define MC_JOIN_FULL 1
#define MC_JOIN_NON 2
#define MC_JOIN_SEND_ONLY 4

struct mc_member {
	uint64_t port_guid;
	uint8_t join_state;    /* 0 counts as full */
};

struct mc_group {
	uint8_t mgid[16];
	uint16_t mlid;
	size_t n;
	struct mc_member *m;
};

struct mc_entry {
	uint16_t mlid;
	struct mc_mask mask;   /* never all zeros: such an MLID is left out */
};

/* One switch's MFT: its non-empty MLIDs, sorted by mlid. */
struct mc_table {
	uint64_t guid;         /* node GUID */
	size_t n;
	struct mc_entry *e;
};

struct mc_data {
	size_t n_groups;
	struct mc_group *g;
	size_t n_tables;
	struct mc_table *t;
	uint64_t mads;         /* what the reader spent (SMPs + SA MADs) */
};

/* Free what d holds (each group's members, each table's entries, the
 * arrays) and zero it. */
void mc_data_clear(struct mc_data *d);
/* The port mask of mlid in t, or NULL (bsearch). */
const struct mc_mask *mc_table_mask(const struct mc_table *t, uint16_t mlid);
static inline int mc_mask_has(const struct mc_mask *m, unsigned port)
{
	return m && port < MCAST_PORTS && (m->w[port / 64] >> (port % 64) & 1);
}
static inline void mc_mask_set(struct mc_mask *m, unsigned port)
{
	if (port < MCAST_PORTS)
		m->w[port / 64] |= 1ULL << (port % 64);
}
/* The MGID as an IPv6 address ("ff12:401b:ffff::1"), in buf (>= 46). */
const char *mc_mgid_str(const uint8_t mgid[16], char *buf, size_t len);

struct mcast_opts {
	int fat_tree;          /* as health_opts: -1 auto, 0 no, 1 yes */
	const struct nodename_map *names;
};

/* The findings of every group of d over fab into r. 0 or -ENOMEM. */
int mcast_check(const struct fab *fab, const struct mc_data *d, const struct mcast_opts *o,
		struct val_report *r);

#endif
