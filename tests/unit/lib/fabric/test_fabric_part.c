/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/fabric/test_fabric_part.c: a fabric kept up to date by partial walks
 * (lib/fabric/fabric_part.c). The walks are emulated from the true fabric
 * as libibnetdisc answers a walk of one hop from a switch: that switch whole,
 * its neighbours' ports without the peers the walk did not cross. After any
 * sequence of cuts and restores, walking the switches at the ends of each
 * changed cable (and whatever the merge says went stale) must give exactly
 * the fabric a full walk gives. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/fixtures/fixture_fabric.h"
#include "lib/fabric/fabric.h"
#include "lib/fabric/fabric_part.h"
#include "tests/unit/fixtures/check_run.h"

/* A 2-level tree: LEAVES leaves of HOSTS hosts each (host port 1 on leaf
 * port 1..HOSTS), SPINES spines (leaf port HOSTS + 1 + s to spine s port
 * 1 + leaf). The local port is host 0's. */
#define LEAVES 4
#define HOSTS 3
#define SPINES 3
#define LEAF(i) (0x2000ULL + 0x100ULL * (i))
#define SPINE(i) (0x3000ULL + 0x100ULL * (i))
#define HOST(i) (0x100000ULL + 0x100ULL * (i))
#define LOCAL HOST(0)

struct cable { uint64_t a; unsigned ap; uint64_t b; unsigned bp; int up; };

static struct cable cables[LEAVES * (HOSTS + SPINES)];
static size_t n_cables;

static struct fab *tree(void)
{
	struct fab *f = fab_new("ib0");
	char d[32];

	n_cables = 0;
	for (int l = 0; l < LEAVES; l++) {
		snprintf(d, sizeof(d), "leaf-%d", l);
		fixture_node(f, IBT_NODE_SWITCH, LEAF(l), HOSTS + SPINES, d, (uint16_t)(1 + l));
	}
	for (int s = 0; s < SPINES; s++) {
		snprintf(d, sizeof(d), "spine-%d", s);
		fixture_node(f, IBT_NODE_SWITCH, SPINE(s), LEAVES, d, (uint16_t)(20 + s));
	}
	for (int l = 0; l < LEAVES; l++) {
		for (int h = 0; h < HOSTS; h++) {
			int i = l * HOSTS + h;

			snprintf(d, sizeof(d), "host-%d", i);
			fixture_node(f, IBT_NODE_CA, HOST(i), 1, d, (uint16_t)(40 + i));
			cables[n_cables++] = (struct cable){ LEAF(l), 1 + h, HOST(i), 1, 1 };
		}
		for (int s = 0; s < SPINES; s++)
			cables[n_cables++] = (struct cable){ LEAF(l), HOSTS + 1 + s, SPINE(s), 1 + l, 1 };
	}
	for (size_t c = 0; c < n_cables; c++)
		fixture_link(f, cables[c].a, cables[c].ap, cables[c].b, cables[c].bp);
	fab_sort(f);
	return f;
}

/* What libibnetdisc's walk from `from`, one hop, finds in the true fabric
 * (its reachable part). */
static struct fab *walk(const struct fab *view, uint64_t from)
{
	struct fab *part = fab_new("ib0");
	const struct fab_node *fn = fab_find(view, from);

	ck_assert_ptr_nonnull(part);
	ck_assert_ptr_nonnull(fab_copy_node(part, fn));
	for (unsigned q = 1; q <= fn->nports; q++) {
		const struct fab_node *nb;
		struct fab_node *c;

		if (!fab_peer(view, &fn->ports[q], &nb) || fab_find(part, nb->guid))
			continue;
		ck_assert_ptr_nonnull(c = fab_copy_node(part, nb));
		for (unsigned r = 0; r <= c->nports; r++)
			if (c->ports[r].has_peer && c->ports[r].peer_guid != from) {
				c->ports[r].has_peer = 0;
				c->ports[r].peer_guid = 0;
				c->ports[r].peer_port = 0;
			}
	}
	return part;
}

/* Field by field: the same nodes, the same ports. */
static void assert_same(const struct fab *got, const struct fab *want, const char *when)
{
	ck_assert_msg(got->n_nodes == want->n_nodes, "%s: %zu nodes, a full walk finds %zu",
		      when, got->n_nodes, want->n_nodes);
	for (size_t i = 0; i < want->n_nodes; i++) {
		const struct fab_node *w = want->nodes[i], *g = fab_find(got, w->guid);

		ck_assert_msg(g != NULL, "%s: %s is missing", when, w->desc);
		for (unsigned q = 0; q <= w->nports; q++) {
			const struct fab_port *a = &g->ports[q], *b = &w->ports[q];

			ck_assert_msg(a->present == b->present && a->state == b->state &&
				      a->phys_state == b->phys_state &&
				      a->width_active == b->width_active &&
				      a->speed_active == b->speed_active && a->lid == b->lid &&
				      a->has_peer == b->has_peer && a->peer_guid == b->peer_guid &&
				      a->peer_port == b->peer_port,
				      "%s: %s port %u: state %u/%u peer %d 0x%" PRIx64 "[%u], a full "
				      "walk finds %u/%u peer %d 0x%" PRIx64 "[%u]", when, w->desc, q,
				      a->state, a->phys_state, a->has_peer, a->peer_guid, a->peer_port,
				      b->state, b->phys_state, b->has_peer, b->peer_guid, b->peer_port);
		}
	}
}

/* Walk `guids` (and what goes stale) over *work from the true fabric. */
static int follow(struct fab **work, const struct fab *view, const uint64_t *guids, size_t n,
		  char *err, size_t errlen)
{
	uint64_t todo[FAB_PART_MAX_STALE + 8];
	struct fab_part_stale st;

	memcpy(todo, guids, n * sizeof(*todo));
	for (int round = 0; n && round < 4; round++) {
		st.n = 0;
		st.overflow = 0;
		for (size_t i = 0; i < n; i++) {
			struct fab *part, *kept;
			int rc;

			if (!fab_find(*work, todo[i]) || !fab_find(view, todo[i]))
				continue;  /* cut off: a walk cannot reach it */
			part = walk(view, todo[i]);
			rc = fab_part_merge(*work, part, todo[i], &st, err, errlen);
			fab_free(part);
			if (rc < 0)
				return rc;
			ck_assert_ptr_nonnull(kept = fab_part_reachable(*work, LOCAL));
			fab_free(*work);
			fab_sort(kept);
			*work = kept;
		}
		ck_assert(!st.overflow);
		memcpy(todo, st.guid, st.n * sizeof(*todo));
		n = st.n;
	}
	ck_assert_msg(n == 0, "the walks did not settle");
	return 0;
}

START_TEST(random_cuts_and_restores_end_as_a_full_walk_finds)
{
	struct fab *truth = tree(), *work = fab_dup(truth);
	uint64_t seed = 23;
	char err[256] = "", when[128];
	int rc, fulls = 0, steps = 0;

	ck_assert_ptr_nonnull(work);
	for (int step = 0; step < 200; step++) {
		struct cable *c;
		struct fab *view;
		uint64_t ends[2];
		size_t n = 0;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		c = &cables[(seed >> 33) % n_cables];
		if (c->a == LEAF(0) && c->ap == 1)
			continue;  /* the local host's own cable: no walk from there */
		if (c->up)
			fixture_unlink(truth, c->a, c->ap);
		else
			fixture_link(truth, c->a, c->ap, c->b, c->bp);
		c->up = !c->up;
		ck_assert_ptr_nonnull(view = fab_part_reachable(truth, LOCAL));
		fab_sort(view);
		/* The switches at its ends trap (hosts do not). */
		ends[n++] = c->a;
		if ((c->b >> 12) == (SPINE(0) >> 12))
			ends[n++] = c->b;
		snprintf(when, sizeof(when), "step %d: %s leaf 0x%" PRIx64 "[%u]", step,
			 c->up ? "restore" : "cut", c->a, c->ap);
		rc = follow(&work, view, ends, n, err, sizeof(err));
		if (rc == -EAGAIN) {
			/* Only a switch that comes back from being cut off
			 * entirely hides what a walk of one hop cannot know:
			 * the daemon walks the whole subnet then. */
			ck_assert_msg(strstr(err, "a new switch") != NULL, "%s: %s", when, err);
			fulls++;
			fab_free(work);
			ck_assert_ptr_nonnull(work = fab_dup(view));
		}
		ck_assert_msg(rc == 0 || rc == -EAGAIN, "%s: %s", when, err);
		assert_same(work, view, when);
		ck_assert_msg(!fab_part_dangling(work, err, sizeof(err)), "%s: %s", when, err);
		ck_assert_msg(fab_check(work, err, sizeof(err)) == 0, "%s: %s", when, err);
		fab_free(view);
		steps++;
	}
	/* Nearly every change is settled by the partial walks alone. */
	ck_assert_msg(fulls * 10 < steps, "%d of %d changes needed a full walk", fulls, steps);
	fab_free(work);
	fab_free(truth);
}
END_TEST

START_TEST(a_walk_that_finds_a_new_switch_asks_for_a_full_one)
{
	struct fab *truth = tree(), *work = fab_dup(truth), *part;
	struct fab_part_stale st = { 0 };
	struct fab_node *sw;
	char err[256] = "";

	/* A fourth spine, cabled to leaf 1's free... port: take spine 2's. */
	fixture_unlink(truth, LEAF(1), HOSTS + 3);
	sw = fixture_node(truth, IBT_NODE_SWITCH, 0x9000, LEAVES, "spine-new", 99);
	(void)sw;
	fixture_link(truth, LEAF(1), HOSTS + 3, 0x9000, 2);
	fab_sort(truth);
	part = walk(truth, LEAF(1));
	ck_assert_int_eq(fab_part_merge(work, part, LEAF(1), &st, err, sizeof(err)), -EAGAIN);
	ck_assert_msg(strstr(err, "spine-new") != NULL, "%s", err);
	fab_free(part);
	fab_free(work);
	fab_free(truth);
}
END_TEST

START_TEST(a_port_up_toward_an_unread_device_is_dangling)
{
	struct fab *f = tree();
	char err[256] = "";

	ck_assert(!fab_part_dangling(f, err, sizeof(err)));
	f->nodes[0]->ports[1].has_peer = 0;  /* up, and nobody there */
	ck_assert(fab_part_dangling(f, err, sizeof(err)));
	ck_assert_msg(strstr(err, "port 1") != NULL, "%s", err);
	fab_free(f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fabric_part");
	TCase *tc = tcase_create("fabric_part");

	tcase_add_test(tc, random_cuts_and_restores_end_as_a_full_walk_finds);
	tcase_add_test(tc, a_walk_that_finds_a_new_switch_asks_for_a_full_one);
	tcase_add_test(tc, a_port_up_toward_an_unread_device_is_dangling);
	suite_add_tcase(s, tc);
	return check_run(s);
}
