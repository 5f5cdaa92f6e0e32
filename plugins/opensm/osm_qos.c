/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/opensm/osm_qos.c: loom's ib_qos policy as OpenSM programs it when
 * a loom engine routes on VL layers (lib/qos/ib_qos.h has the scheme: SL =
 * layer * K + class SL, VL = layer * V + class VL, arbitration entries
 * repeated per layer).
 *
 * The policy is loomd's block in loom's options file (osm_options.c applies
 * it over OpenSM's) or, without that file, in OpenSM's own options file
 * (daemon/qos/qos_ib.c writes it and asks OpenSM to re-read it). Its presence is what says "the SLs carry
 * classes": without it the engines keep SL = VL = layer. The class map and
 * max_vls are taken from that block's own qos_sl2vl / qos_max_vls lines,
 * not from OpenSM's parsed options, which OpenSM frees and replaces on
 * SIGHUP while SA threads may be answering PathRecords here. The file is
 * read again at the start of every heavy sweep (loomd's request makes one)
 * and otherwise at most once a second: path_sl runs for every PathRecord. */
#include "autoconf.h"
#include "loomosm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/qos/ib_qos.h"

#define RECHECK_NS 1000000000LL

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* "qos_sl2vl 0,1,..." -> map (16 values 0..15); 0 or -1. */
static int parse_sl2vl(const char *v, uint8_t map[IBQOS_SLS])
{
	for (unsigned sl = 0; sl < IBQOS_SLS; sl++) {
		char *end;
		unsigned long x = strtoul(v, &end, 10);

		if (end == v || x > 15 || (sl < IBQOS_SLS - 1 && *end != ','))
			return -1;
		map[sl] = (uint8_t)x;
		v = end + 1;
	}
	return 0;
}

/* Read loom's block from OpenSM's options file into q. */
static void read_block(const char *path, struct losm_qos *q)
{
	FILE *f = path ? fopen(path, "re") : NULL;
	char line[512];
	int in = 0, have_map = 0;

	q->active = 0;
	q->max_vls = 15;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strcmp(line, IBQOS_BLOCK_BEGIN)) {
			in = 1;
			continue;
		}
		if (!in)
			continue;
		if (!strcmp(line, IBQOS_BLOCK_END))
			break;
		if (!strncmp(line, "qos_sl2vl ", 10))
			have_map = parse_sl2vl(line + 10, q->class_map) == 0;
		else if (!strncmp(line, "qos_max_vls ", 12))
			q->max_vls = (unsigned)strtoul(line + 12, NULL, 10);
	}
	fclose(f);
	q->active = in && have_map;
	if (q->max_vls == 0 || q->max_vls > 15)
		q->max_vls = 15;
}

void losm_qos_get(struct losm_plugin *p, struct losm_qos *out)
{
	long long t = now_ns();

	pthread_mutex_lock(&p->qos_lock);
	if (!p->qos_read_ns || t - p->qos_read_ns >= RECHECK_NS) {
		int was = p->qos.active;
		const char *file = losm_options_path(p->options);

		/* loom's own file first; else OpenSM's as named at its start
		 * (not opt.config_file: osm_options.c names a copy there for a
		 * moment). */
		if (file)
			read_block(file, &p->qos);
		if (!file || !p->qos.active) {
			file = p->options ? losm_options_own(p->options) :
			       p->osm->subn.opt.config_file;
			read_block(file, &p->qos);
		}
		p->qos_read_ns = t;
		if (p->qos.active != was)
			OSM_LOG(&p->osm->log, OSM_LOG_INFO, "loomosm: loom's ib_qos block %s %s\n",
				p->qos.active ? "found in" : "no longer in", file ? file : "(none)");
	}
	*out = p->qos;
	pthread_mutex_unlock(&p->qos_lock);
}

void losm_qos_invalidate(struct losm_plugin *p)
{
	pthread_mutex_lock(&p->qos_lock);
	p->qos_read_ns = 0;
	pthread_mutex_unlock(&p->qos_lock);
}

int losm_qos_layered(const struct losm_qos *q, unsigned n_layers)
{
	unsigned v;

	if (!q->active || n_layers <= 1)
		return 0;
	v = ibqos_class_vls(q->class_map, ibqos_layer_sls(n_layers));
	return v * n_layers <= q->max_vls;
}
