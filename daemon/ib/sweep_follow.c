/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/sweep_follow.c: discovery that follows the fabric (issue 23).
 *
 * OpenSM's plugin reports what it learns (daemon/routing/osm_report.c hands
 * it here): a trap 128 from a switch (a port changed state: the switch's
 * LID), and SUBNET UP after each of its heavy sweeps (its node count).
 *   - A trap marks the switch. After a short wait that gathers the burst one
 *     cut makes (both ends trap), one incremental run walks the marked
 *     switches and their neighbours again (daemon/ib/discovery_part.h) and
 *     records the result as any sweep is recorded: the diff against the
 *     stored fabric, and its events.
 *   - SUBNET UP, once the marked switches are walked: a node count other
 *     than loom's means a change no trap named, and the whole subnet is
 *     swept. With the same count, the switches of the last followed run
 *     (within FOLLOW_RECENT_S) are walked again, for what OpenSM did to
 *     them in its sweep: a port that came back goes from Init to Active when
 *     OpenSM configures it.
 *   - The counters read (daemon/telemetry) saw a port's LinkDownedCounter
 *     move: the link went down and trained again between two reads, maybe
 *     narrower or slower, and OpenSM may have seen nothing (a flap shorter
 *     than its sweep). The port's switch is walked again, a CA's peer.
 *   - A burst of more than SWEEP_FOLLOW_MAX switches, a LID loom does not
 *     know, or anything the incremental walk cannot settle alone: the whole
 *     subnet.
 * Reports that come while a run goes on wait for its end. The periodic full
 * sweep stays the safety net. */
#include "autoconf.h"
#include "daemon/ib/sweep_impl.h"

#include <string.h>

#include <event2/event.h>

#include "lib/util/clock.h"
#include "lib/util/log.h"

/* A trap burst: both ends of a cable, and the neighbours OpenSM's own
 * sweep makes trap, come within milliseconds. */
#define FOLLOW_GATHER_MS 50
/* OpenSM's sweep this soon after a followed run may have changed its
 * switches' ports. */
#define FOLLOW_RECENT_S 30.0

static struct job *find_job(struct sweeper *sw, const char *subnet)
{
	for (int i = 0; i < sw->n_jobs; i++)
		if (strcmp(sw->jobs[i]->name, subnet) == 0)
			return sw->jobs[i];
	return NULL;
}

static void add_lid(struct job *job, unsigned lid)
{
	size_t i;

	if (lid == 0 || lid >= 0xC000) {
		job->pend_full = 1;
		return;
	}
	for (i = 0; i < job->n_pend && job->pend_lid[i] != lid; i++)
		;
	if (i < job->n_pend)
		return;
	if (job->n_pend == SWEEP_FOLLOW_MAX)
		job->pend_full = 1;
	else
		job->pend_lid[job->n_pend++] = (uint16_t)lid;
}

/* The switches of the ports whose counters saw a flap, from the last
 * fabric (the loop's between runs). A port loom does not know: the whole
 * subnet. */
static void add_flaps(struct job *job)
{
	for (size_t i = 0; i < job->n_pend_flap && !job->pend_full; i++) {
		const struct fab_node *nd = fab_find(job->base, job->pend_flap[i].guid);
		unsigned p = job->pend_flap[i].port;

		if (nd && nd->type != IBT_NODE_SWITCH && p <= nd->nports &&
		    nd->ports[p].has_peer)
			nd = fab_find(job->base, nd->ports[p].peer_guid);
		if (!nd || nd->type != IBT_NODE_SWITCH) {
			log_info("subnet %s: the counters saw port %u of 0x%016llx flap, a port "
				 "loom does not know: a full sweep", job->name, p,
				 (unsigned long long)job->pend_flap[i].guid);
			job->pend_full = 1;
			break;
		}
		log_info("subnet %s: the counters saw port %u of 0x%016llx flap: walking switch "
			 "%s again", job->name, p, (unsigned long long)job->pend_flap[i].guid,
			 nd->desc);
		add_lid(job, nd->ports[0].lid);
	}
	job->n_pend_flap = 0;
}

/* What the reports asked for, now that no run goes on. The switches
 * trapped first: OpenSM's count is compared only once loom has walked what
 * it was told about (SUBNET UP may come before loom's walk of the trap that
 * caused OpenSM's sweep has even started). */
static void follow_start(struct sweeper *sw, struct job *job)
{
	if (job->running || job->retired)
		return;  /* sweep_follow_after_run() comes back */
	if (job->n_pend_flap && job->base)
		add_flaps(job);
	else if (job->n_pend_flap)
		job->pend_full = 1;
	if (job->pend_full || ((job->n_pend || job->osm_nodes) && !job->base)) {
		job->osm_nodes = 0;
		sweep_job_start(sw, job, 0);
		return;
	}
	if (!job->n_pend && job->osm_nodes) {
		unsigned osm = job->osm_nodes;

		job->osm_nodes = 0;
		if (osm != job->base->n_nodes) {
			log_info("subnet %s: OpenSM sees %u nodes, loom %zu: a full sweep", job->name,
				 osm, job->base->n_nodes);
			sweep_job_start(sw, job, 0);
			return;
		}
		if (clock_mono() - job->recent_at < FOLLOW_RECENT_S)
			for (size_t i = 0; i < job->n_recent; i++)
				add_lid(job, job->recent_lid[i]);
	}
	if (job->n_pend) {
		memcpy(job->run_lid, job->pend_lid, job->n_pend * sizeof(job->pend_lid[0]));
		memcpy(job->recent_lid, job->pend_lid, job->n_pend * sizeof(job->pend_lid[0]));
		job->run_n_lid = job->n_recent = job->n_pend;
		job->recent_at = clock_mono();
		job->n_pend = 0;
		sweep_job_start(sw, job, 1);
	}
}

static void follow_cb(evutil_socket_t fd, short what, void *arg)
{
	struct job *job = arg;

	(void)fd;
	(void)what;
	follow_start(job->sw, job);
}

static void follow_arm(struct sweeper *sw, struct job *job)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = FOLLOW_GATHER_MS * 1000 };

	if (!job->follow_ev && !(job->follow_ev = evtimer_new(sw->base, follow_cb, job))) {
		log_err("subnet %s: cannot follow OpenSM's reports: out of memory", job->name);
		return;
	}
	if (!evtimer_pending(job->follow_ev, NULL))
		evtimer_add(job->follow_ev, &tv);
}

void sweeper_changed(struct sweeper *sw, const char *subnet, unsigned lid)
{
	struct job *job = find_job(sw, subnet);

	if (!job || !sw->follow)
		return;
	add_lid(job, lid);
	follow_arm(sw, job);
}

void sweeper_osm_swept(struct sweeper *sw, const char *subnet, unsigned nodes)
{
	struct job *job = find_job(sw, subnet);

	if (!job || !sw->follow || !nodes)
		return;
	job->osm_nodes = nodes;
	follow_arm(sw, job);
}

void sweeper_port_flapped(struct sweeper *sw, const char *subnet, uint64_t guid,
			  unsigned port)
{
	struct job *job = find_job(sw, subnet);

	if (!job || !sw->follow)
		return;
	if (!guid || job->n_pend_flap == SWEEP_FOLLOW_MAX) {
		job->pend_full = 1;
	} else {
		job->pend_flap[job->n_pend_flap].guid = guid;
		job->pend_flap[job->n_pend_flap++].port = port;
	}
	follow_arm(sw, job);
}

void sweep_follow_after_run(struct sweeper *sw, struct job *job)
{
	if (job->n_pend || job->pend_full || job->osm_nodes || job->n_pend_flap)
		follow_start(sw, job);
}

void sweep_follow_job_free(struct job *job)
{
	if (job->follow_ev)
		event_free(job->follow_ev);
	job->follow_ev = NULL;
}
