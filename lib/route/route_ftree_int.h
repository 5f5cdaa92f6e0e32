/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_ftree_int.h: the fat-tree engine's state, shared by its two
 * files only (route_ftree.c: levels, columns, main paths, the run;
 * route_ftree_dest.c: routing one destination); test_route_threads reads
 * ftree_batch_min_ca. */
#ifndef LOOM_ROUTE_FTREE_INT_H
#define LOOM_ROUTE_FTREE_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/route/route.h"
#include "lib/util/par.h"

#define NO_LEVEL RT_NO_LEVEL
#define FAR 0xFF          /* up-hop count meaning "cannot reach" */
#define NO_LINK (-1)
#define SELF (-2)         /* pend[]: the destination's own switch */
#define PEND 64           /* destinations whose table entries wait together */
#define FTREE_BATCH_MAX 16 /* destinations chosen at once from the same loads */
/* Fabrics with fewer CA ports route one destination at a time (each sees
 * every earlier one's load); larger ones FTREE_BATCH_MAX at a time, which
 * the threads share: the same tables for any number of threads. */
#define FTREE_BATCH_MIN_CA 4096
/* FTREE_BATCH_MIN_CA, as the engine reads it: tests lower it to see batches
 * on small trees. */
extern size_t ftree_batch_min_ca;
/* Tests set ftree_check_shortcuts: every switch that takes a shortcut up
 * (its one best parent, or the batch's choice uni) also compares all its
 * parents (pick_up), and the run adds how often each shortcut was taken
 * and how often the two disagreed to these counts. */
extern int ftree_check_shortcuts;
extern size_t ftree_shortcut_best, ftree_shortcut_uni, ftree_shortcut_wrong;
#define FTREE_PATH_MAX 32  /* main and backup path switches of a destination */

/* One worker's arrays, for one destination at a time. */
struct ftw {
	uint8_t *in_a;         /* ancestor of the destination's switch */
	uint8_t *dist;         /* up hops to reach an ancestor, FAR if none */
	uint8_t *on_path;      /* ON_MAIN, ON_BACKUP or 0 */
	uint8_t *meets;        /* the best path a switch's route joins */
	int32_t *next;         /* chosen link per switch, NO_LINK if none: the
				* destination's column of pend */
	int32_t *npeer;        /* the switch next leads to */
	uint8_t *pm;           /* the meets of that switch */
	uint64_t *flows;       /* one destination's flows per switch (dest_flows) */
	int32_t *queue;
	uint16_t *hops;        /* for the shortest-path fallback */
	/* An ancestor's down links to ancestors (the only ones its pick can
	 * take), at its down_first offset, in link order; cand_n per switch,
	 * valid for ancestors. */
	uint32_t *cand, *cand_n;
	int32_t *cand_peer;
	/* Per switch, for its pick up: how many parents are one hop nearer an
	 * ancestor (elig, with dist); of those whose route meets a path, the
	 * best meets (best_m), how many have it (best_n) and the first one's
	 * place among the switch's up links (best_i). A switch with one best
	 * takes it; one with none and every parent eligible takes its batch
	 * choice (uni). */
	uint8_t *elig, *best_m, *best_n;
	uint8_t *best_i;
	size_t anc_of;         /* the switch in_a and dist are for (SIZE_MAX: none) */
	size_t hops_of;        /* the switch hops are for (SIZE_MAX: none) */
};

/* A destination of the batch under way: its paths (phase 1), its result
 * (phase 2). */
struct ftree_slot {
	size_t d;
	uint32_t dest_no;      /* 1 + its ordinal among the CA LIDs; 0: a switch LID */
	int count_load;
	int32_t path[FTREE_PATH_MAX];
	uint8_t mark[FTREE_PATH_MAX];
	size_t n_path, n_main;
	int rc;
	int32_t bad;           /* the switch that would need a down-up turn */
};

/* A LID to route: held at switch d, out of `port` (0 for the switch). */
struct ftree_dest {
	size_t d;
	unsigned lid;
	uint8_t port;
	const int32_t *mpath;  /* a CA LID's main path; NULL for a switch LID */
	size_t rot;            /* where its backup path starts its search */
	uint32_t dest_no;
};
#define ON_MAIN 2
#define ON_BACKUP 1
/* What a switch's route toward the destination joins, best first: the main
 * path, the backup path, the main path after a detour down from a switch on
 * neither (a top the main path does not cross: its down link then carries
 * this destination besides its own), the backup after such a detour. */
#define JOINS_MAIN 4
#define JOINS_BACKUP 3
#define DETOUR_MAIN 2
#define DETOUR_BACKUP 1

struct ftree {
	const struct rt_graph *g;
	size_t n_sw;
	uint16_t *level;       /* per switch, NO_LEVEL when no CA is reachable */
	uint16_t height;       /* highest level + 1 */
	int32_t *comp;         /* connected component of each switch */
	uint32_t *n_cas;       /* CA ports hanging on each switch */
	/* Up and down links of each switch, as indices into g->links. */
	uint32_t *up_first, *up_n, *down_first, *down_n;
	uint32_t *up, *down;
	int32_t *up_peer, *down_peer;  /* the switch at the other end of each */
	uint8_t *down_upi;     /* a down link's place among its child's up links */
	uint32_t *rev;         /* the same cable seen from the other end */
	uint64_t *load;        /* flows routed so far over each directed link that
				* is no up link (down links; a fallback's others) */
	/* Up links' state, by their place in up[] (up_slot: a link's place):
	 * the flows routed up each so far, and alt_last below. A switch's
	 * candidates up are then one run of memory that its pick reads in
	 * order. */
	uint32_t *up_slot;     /* UINT32_MAX: not an up link */
	uint64_t *up_load;
	uint32_t *backups;     /* destinations whose backup path takes each link */
	uint32_t *main_down;   /* destinations whose main path takes each link (down) */
	/* Columns: the parents a switch would have in the full tree (the parents
	 * of every switch that shares a parent with it), in switch order, and
	 * how many destinations have had it as their column so far (the next
	 * one takes the next column up from it). */
	uint32_t *col_first, *col_n;
	int32_t *col;
	uint32_t *mains;
	uint32_t *into;        /* main paths that have come up into each switch */
	/* Main paths, computed before any route (ftree_main_paths): for the
	 * i-th destination in routing order, the up links it takes, steps
	 * [i * height .. i * height + height - 1], NO_LINK after the top; and
	 * how many earlier main paths end at the same top (the rotation of its
	 * backup path). */
	int32_t *mpath;
	uint32_t *mrot;
	int32_t *vpath;        /* the columns it would take on the full tree */
	/* Shift windows: a source switch that cannot join a destination's
	 * main path takes another parent; alt_last is the last destination
	 * (1 + its ordinal) that made a switch take each up link so, and a
	 * switch avoids links taken so for any of the `sub` destinations
	 * before (the CAs below it: the sources a shift sends at once). */
	uint32_t *alt_last;    /* by up slot */
	uint32_t *sub;
	/* Per top: the last destination whose main path ended there (1 + its
	 * ordinal) and the top its backup path took: two destinations of one
	 * shift window sharing a main top get different backup tops. */
	uint32_t *top_last;
	int32_t *top_backup;
	/* Per switch, for the batch under way: the up slot it takes when its
	 * parents do not differ in meets or distance (they do for few
	 * switches), from its loads and recent detours alone; -1 when
	 * that changes within the batch. uni_ok: the batch has them. */
	int32_t *uni;
	int uni_ok;
	int uni_valid;         /* uni is for dest_no uni_lo..uni_hi (0: switch LIDs) */
	uint32_t uni_lo, uni_hi;
	int32_t *by_level;     /* switches in ascending level order */
	size_t n_ranked;
	/* [k * n_sw + s]: the flows the k-th waiting destination adds to the
	 * link s chose (phase 2 finds them, phase 3 adds them). */
	uint32_t *pflow;
#define PFLOW_DETOUR 0x80000000u  /* and s went up on a detour (alt_last) */
	/* Table entries not yet written, PEND destinations at a time, then one
	 * switch row at a time (a run of entries per row instead of a cache
	 * miss per switch per destination): the k-th waiting destination's
	 * next[] is pend[k * n_sw ..], SELF at its own switch. */
	int32_t *pend;
	uint16_t pend_lid[PEND];
	uint8_t pend_port[PEND];
	struct ftree_slot slot[PEND];
	struct ftw *w;         /* one per worker of g->pool (w[0]'s also serve the
				* levels' searches before routing starts) */
	unsigned n_w;
	size_t n_pend;
	struct rt_lfts *out;
	size_t routed[PAR_MAX_THREADS], unreachable[PAR_MAX_THREADS];  /* per worker */
	size_t sc_best[PAR_MAX_THREADS], sc_uni[PAR_MAX_THREADS],
	       sc_wrong[PAR_MAX_THREADS];  /* ftree_check_shortcuts, per worker */
};

/* Lexicographic order of two 4-part keys. */
static inline int ftree_key_less(const uint64_t *a, const uint64_t *b)
{
	for (int i = 0; i < 4; i++)
		if (a[i] != b[i])
			return a[i] < b[i];
	return 0;
}

/* The up link of switch s for a main path whose column here is `column`
 * (-1: none): the link to the column if s has one, else the parent whose
 * down link toward s carries the fewest main paths, then the one the
 * fewest main paths go through. NO_LINK at a top. */
static inline int32_t ftree_main_up(const struct ftree *t, size_t s, int32_t column)
{
	const struct rt_graph *g = t->g;
	int32_t best = NO_LINK;
	uint64_t best_key[4] = { 0 };

	for (uint32_t i = 0; i < t->up_n[s]; i++) {
		uint32_t li = t->up[t->up_first[s] + i];
		uint64_t key[4];

		key[0] = g->links[li].peer != column;
		key[1] = t->main_down[t->rev[li]];
		key[2] = t->into[g->links[li].peer];
		key[3] = t->load[t->rev[li]];
		if (best == NO_LINK || ftree_key_less(key, best_key)) {
			best = (int32_t)li;
			memcpy(best_key, key, sizeof(key));
		}
	}
	return best;
}


/* route_ftree_dest.c */
void ftree_ancestors(struct ftree *t, struct ftw *w, size_t d);
/* Write the entries of the destinations routed so far into t->out. */
void ftree_flush(struct ftree *t);
/* Route ds[0..n) (n <= FTREE_BATCH_MAX), in three phases: their paths in
 * order, every switch's choice for each (over the pool's threads, each
 * from the loads before the batch), their flows pushed in order. -EINVAL
 * with err when a switch with CAs reaches one only through a down-up
 * turn. */
int ftree_route_batch(struct ftree *t, const struct ftree_dest *ds, size_t n, char *err,
		      size_t errlen);

#endif
