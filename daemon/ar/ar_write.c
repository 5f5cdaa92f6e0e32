/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ar/ar_write.c: programming adaptive routing on a live subnet, in a
 * `loomd --program-ar` child (see ar_write.h).
 *
 * The groups come from the tables the switches hold now, read in this
 * child right after its walk (lft_read_tables): AR must spread a LID's
 * packets over ports that lead where the static port leads, so the groups
 * are made from the static LFT that is really there, not from a routing
 * loom computed offline; and the modifier self-check compares the switch's
 * AR LFT with that same table.
 *
 * The switches are programmed in parallel (daemon/ar/ar_sequences.c over
 * daemon/ib/mad_window.c, like the probe, ar_read.c): up to
 * discovery.max_smps switches are under way at once, each with one SMP out
 * at a time and in its order, with discovery's timeout and retries per SMP.
 * A switch that never answers costs (retries + 1) x timeout for its GetCap
 * in its own slot and nothing more, because its sequence stops there
 * ("unsupported"); ibsim hands every vendor SMP back at once with a timeout
 * status, which ends a try at once. The results are written when every
 * switch is done, in the fabric's directed-route order, whatever order the
 * switches finished in. */
#include "autoconf.h"
#include "daemon/ar/ar_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "lib/ar/ar_plan.h"
#include "lib/ar/ar_program.h"
#include "daemon/ar/ar_read.h"
#include "daemon/ar/ar_sequences.h"
#include "lib/util/clock.h"
#include "daemon/ib/dr_route.h"
#include "daemon/ib/mad_window.h"
#include "daemon/ib/lft_read.h"
#include "lib/util/log.h"
#include "lib/ar/route_ar.h"
#include "lib/route/route_graph.h"
#include "lib/route/route_live.h"
#include "daemon/ib/walker.h"


/* ---- the child ------------------------------------------------------------------ */

/* The child's own arguments (argv[7..]); a child process does one run. */
static struct ar_write_opts child_opts;

static long graph_switch(const struct rt_graph *g, uint64_t guid)
{
	size_t lo = 0, hi = g->n_sw;

	while (lo < hi) {  /* g->sw is in node GUID order */
		size_t mid = lo + (hi - lo) / 2;

		if (g->sw[mid].guid == guid)
			return (long)mid;
		if (g->sw[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The groups of the tables the switches hold now. */
static struct rt_ar *live_groups(const struct disc_ib_params *p, const struct fab *fab,
				 struct rt_graph **gp, char *err, size_t errlen)
{
	struct rl_read *read = NULL;
	struct rt_lfts *l = NULL;
	struct rt_ar *ar = NULL;
	struct rt_graph *g;
	size_t missing;

	*gp = NULL;
	if (lft_read_tables(p, fab, 0, &read, err, errlen) < 0)  /* no SL-to-VL: not AR's */
		return NULL;
	if (!(g = rt_graph_new(fab, err, errlen)))
		goto out;
	if (g->lids_assigned) {
		snprintf(err, errlen, "the subnet has switches or CA ports without a LID: no "
			 "subnet manager has brought it up, so there is no static routing to add "
			 "AR to");
		goto out;
	}
	if (!(l = rl_lfts(g, read, &missing))) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	ar = rt_ar_new(g, l, (enum rt_ar_mode)child_opts.mode, RT_AR_DEFAULT_CAPACITY, err,
		       errlen);
out:
	rt_lfts_free(l);
	rl_read_free(read);
	if (ar)
		*gp = g;
	else
		rt_graph_free(g);
	return ar;
}

static int program_and_write(const struct disc_ib_params *p, const struct fab *fab, FILE *out,
			     char *err, size_t errlen)
{
	struct ar_program_opts o = { .sl_mask = (uint16_t)child_opts.sl_mask,
				     .shield = child_opts.shield,
				     .dry_run = child_opts.dry_run };
	size_t count[AR_PROG_DRY_RUN + 1] = { 0 };
	struct mad_window_params wp = { .fd = -1, .agent = -1 };
	struct mad_window_stats st = { 0 };
	struct ar_sequences_switch *sw = NULL;
	struct dr_routes d = { 0 };
	struct rt_graph *g = NULL;
	struct rt_ar *ar;
	double started = clock_wall(), t0 = 0, t1 = 0;
	int rc;

	if (!(ar = live_groups(p, fab, &g, err, errlen)))
		return -EIO;
	if ((rc = dr_routes_build(p, fab, &d, err, errlen)) < 0)
		goto out;
	if (!(sw = calloc(d.n + 1, sizeof(*sw)))) {
		rc = err_fmt(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < d.n; i++) {
		long s = graph_switch(g, d.r[i].n->guid);

		if (s < 0) {  /* the graph is made of this same fabric */
			rc = err_fmt(err, errlen, -EPROTO, "switch 0x%016llx is not in the routing "
				     "graph", (unsigned long long)d.r[i].n->guid);
			goto out;
		}
		sw[i].path = d.r[i].path;
		sw[i].sw = &ar->sw[s];
	}
	dr_window_params(p, &wp);
	if ((rc = dr_umad_open(p, &wp.fd, &wp.agent, err, errlen)) < 0)
		goto out;
	t0 = clock_mono();
	if ((rc = ar_sequences_run(&wp, sw, d.n, ar->max_lid, &o, &st, err, errlen)) < 0)
		goto out;
	t1 = clock_mono();
	for (size_t i = 0; rc == 0 && i < d.n; i++) {
		const struct fab_node *n = d.r[i].n;
		json_t *line = ar_program_json(n->guid, n->desc, n->ports[0].lid, &sw[i].res);

		count[sw[i].res.outcome]++;
		if ((rc = line ? walker_put_line("switch", line, out) : -ENOMEM) < 0)
			snprintf(err, errlen, "cannot write the results: %s", strerror(-rc));
	}
	if (rc == 0 &&
	    (rc = walker_put_line("done", json_pack("{s:f, s:f, s:I, s:I, s:I, s:I, s:b, s:I, s:I, s:I, "
					     "s:I, s:I, s:s, s:I, s:b, s:I, s:I}",
					     "started", started, "finished", clock_wall(),
					     "switches", (json_int_t)d.n,
					     "smps", (json_int_t)st.sent,
					     "timeout_ms", (json_int_t)wp.timeout_ms,
					     "retries", (json_int_t)wp.retries,
					     "dry_run", child_opts.dry_run,
					     "programmed", (json_int_t)count[AR_PROG_PROGRAMMED],
					     "unsupported", (json_int_t)count[AR_PROG_UNSUPPORTED],
					     "refused", (json_int_t)count[AR_PROG_REFUSED],
					     "failed", (json_int_t)count[AR_PROG_FAILED],
					     "dry_runs", (json_int_t)count[AR_PROG_DRY_RUN],
					     "mode", rt_ar_mode_name((enum rt_ar_mode)child_opts.mode),
					     "sl_mask", (json_int_t)child_opts.sl_mask,
					     "shield", child_opts.shield,
					     "in_flight", (json_int_t)st.peak,
					     "programming_ms", (json_int_t)((t1 - t0) * 1000.0 + 0.5)),
					     out)) < 0)
		snprintf(err, errlen, "cannot write the results: %s", strerror(-rc));
out:
	dr_umad_close(wp.fd, wp.agent);
	free(sw);
	dr_routes_clear(&d);
	rt_ar_free(ar);
	rt_graph_free(g);
	return rc;
}

static int is_flag(const char *s)
{
	return !strcmp(s, "0") || !strcmp(s, "1");
}

int ar_write_main(int argc, char **argv)
{
	enum rt_ar_mode mode;
	char *end;
	unsigned long mask;

	if (argc != 11 || rt_ar_mode_parse(argv[7], &mode) < 0 ||
	    (errno = 0, mask = strtoul(argv[8], &end, 16), errno || *end || !mask ||
	     mask > AR_PLAN_ALL_SLS) ||
	    !is_flag(argv[9]) || !is_flag(argv[10])) {
		fprintf(stderr, "loomd %s: bad arguments (this mode is for loomd itself)\n",
			argc > 0 ? argv[0] : "--program-ar");
		return 2;
	}
	child_opts.mode = (int)mode;
	child_opts.sl_mask = (unsigned)mask;
	child_opts.shield = argv[9][0] == '1';
	child_opts.dry_run = argv[10][0] == '1';
	return walker_child_main(7, argv, "loomd-program-ar", program_and_write);
}

/* ---- the parent ------------------------------------------------------------------ */

int ar_write_run(const struct disc_ib_params *p, const struct ar_write_opts *o, json_t **done,
		 json_t **switches, char *err, size_t errlen)
{
	char mode[8], mask[8], shield[2], dry[2];
	const char *extra[] = { mode, mask, shield, dry };
	char *out = NULL;
	size_t len = 0;
	int rc;

	*done = *switches = NULL;
	snprintf(mode, sizeof(mode), "%s", rt_ar_mode_name((enum rt_ar_mode)o->mode));
	snprintf(mask, sizeof(mask), "%x", o->sl_mask & 0xFFFF);
	snprintf(shield, sizeof(shield), "%d", o->shield ? 1 : 0);
	snprintf(dry, sizeof(dry), "%d", o->dry_run ? 1 : 0);
	if ((rc = walker_run_extra("--program-ar", p, extra, 4, &out, &len, NULL, err,
				   errlen)) == 0)
		rc = ar_read_parse_stream(out, len, "the AR programmer's answer", done, switches,
					  err, errlen);
	free(out);
	return rc;
}
