/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* bench/ar_sequences_bench.c: `ar program`'s window (daemon/ar/ar_sequences.c
 * over daemon/ib/mad_window.c) on switches that answer as real ones may,
 * which ibsim cannot show: ibsim hands every vendor SMP back at once with a
 * timeout status, so there a switch without AR costs one round trip per
 * try. A real switch whose SMA ignores the vendor attribute answers
 * nothing: each try costs discovery.timeout_ms, (retries + 1) x timeout_ms
 * a switch. This drives the same code as the `--program-ar` child behind a
 * fake umad port (struct mad_window_io) whose switches either never answer
 * (--silent) or answer every SMP with "unsupported method/attribute"
 * (status 0x0c) after a round trip of --rtt-us, and prints the wall time,
 * the SMPs sent and the most switches under way at once.
 *
 * With --topology NET (an ibsim net file, loom-fabgen's) the switches have
 * AR: the fabric is routed offline by ftree, its TREE groups made
 * (lib/ar/route_ar.h), and each switch answers like NVIDIA's after --rtt-us
 * (GetCap with group_cap 2048, an SX AR LFT that mirrors its static LFT,
 * every Set echoed and kept for the read-back): every switch goes through
 * its whole sequence and ends programmed. What that costs in SMPs and time,
 * window by window, is what a fabric of real AR switches would see.
 *
 *   bench/ar_sequences_bench --switches N --window W [--timeout-ms T]
 *                            [--retries R] (--silent | --rtt-us U)
 *   bench/ar_sequences_bench --topology NET --window W --rtt-us U
 *
 * Used by bench/ar_program.sh --silent. */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "daemon/ar/ar_sequences.h"
#include "lib/ar/ar_mad.h"
#include "lib/ar/ar_plan.h"
#include "lib/ar/route_ar.h"
#include "lib/fabric/topo_file.h"
#include "lib/route/route.h"
#include "lib/route/route_graph.h"
#include "lib/util/clock.h"

struct pending {
	uint8_t *buf;
	double due;
};

/* A switch with AR, while its sequence is under way: the blocks it was
 * Set, by (attribute, modifier), in an open hash. */
#define STORE_SLOTS 4096
struct slot {
	uint64_t key;   /* attr << 32 | am, + 1: 0 is empty */
	uint8_t data[AR_MAD_DATA_LEN];
};

struct model {
	const struct rt_ar *ar;
	uint8_t cap[AR_MAD_DATA_LEN];     /* the GetCap answer */
	uint32_t *lft_am;                 /* SX LFT block b's modifier */
	size_t n_lft;
	struct slot **store;              /* per switch, NULL until touched */
	unsigned *info_sets;              /* ARInfo Sets taken, per switch */
	uint64_t programmed;              /* switches whose last read-back was answered */
};

struct fake {
	struct model *m;                  /* NULL: no switch has AR */
	int silent;
	double rtt;             /* seconds */
	size_t blen;
	struct pending *q;      /* answers not handed back yet, in due order */
	size_t n_q, cap;
};

static struct slot *slot_of(struct slot *st, uint16_t attr, uint32_t am, int add)
{
	uint64_t key = ((uint64_t)attr << 32 | am) + 1;
	size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 52) & (STORE_SLOTS - 1);

	for (;; h = (h + 1) & (STORE_SLOTS - 1)) {
		if (st[h].key == key)
			return &st[h];
		if (!st[h].key) {
			if (!add)
				return NULL;
			st[h].key = key;
			return &st[h];
		}
	}
}

/* Switch k's answer to an SMP: *status and data (in place). */
static void model_answer(struct model *m, size_t k, int set, uint16_t attr, uint32_t am,
			 uint8_t *data, unsigned *status)
{
	struct slot *st, *sl;

	*status = 0;
	if (!m->store[k] && !(m->store[k] = calloc(STORE_SLOTS, sizeof(struct slot)))) {
		*status = 0x1c;
		return;
	}
	st = m->store[k];
	if (set) {
		memcpy(slot_of(st, attr, am, 1)->data, data, AR_MAD_DATA_LEN);
		m->info_sets[k] += attr == AR_MAD_ATTR_INFO;
		return;  /* echoed */
	}
	if (attr == AR_MAD_ATTR_INFO && am == ar_mad_info_am(1)) {
		memcpy(data, m->cap, AR_MAD_DATA_LEN);
		return;
	}
	if ((sl = slot_of(st, attr, am, 0))) {
		memcpy(data, sl->data, AR_MAD_DATA_LEN);
		/* The ARInfo read back after the enabling Set: the sequence is over. */
		if (attr == AR_MAD_ATTR_INFO && m->info_sets[k] == 2) {
			free(m->store[k]);
			m->store[k] = NULL;
			m->programmed++;
		}
		return;
	}
	memset(data, 0, AR_MAD_DATA_LEN);
	if (attr == AR_MAD_ATTR_LFT_SX) {
		const struct rt_ar_switch *sw = &m->ar->sw[k];
		struct ar_mad_lft_sx_block blk;
		char err[128];
		size_t b = 0;

		while (b < m->n_lft && m->lft_am[b] != am)
			b++;
		if (b == m->n_lft) {
			*status = 0x1c;
			return;
		}
		memset(&blk, 0, sizeof(blk));
		for (unsigned e = 0; e < AR_MAD_LFT_SX_ENTRIES; e++) {
			uint32_t lid = (uint32_t)b * AR_MAD_LFT_SX_ENTRIES + e;
			uint8_t port = lid <= m->ar->max_lid ? sw->port[lid] : RT_NO_PORT;

			blk.e[e].lid_state = AR_MAD_LID_STATIC;
			blk.e[e].group_number = port;
			blk.e[e].default_port = port;
		}
		if (ar_mad_lft_sx_encode(&blk, data, AR_MAD_DATA_LEN, err, sizeof(err)) < 0)
			*status = 0x1c;
	}
	/* A fresh group table reads as zeros. */
}

static int fake_send(void *ctx, void *umad, int len, int timeout_ms)
{
	struct fake *f = ctx;
	struct pending *p;
	unsigned status = 0x0c;
	uint8_t *mad;

	(void)len;
	(void)timeout_ms;
	if (f->silent)
		return 0;
	if (f->n_q == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 64;
		struct pending *q = realloc(f->q, cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		f->q = q;
		f->cap = cap;
	}
	p = &f->q[f->n_q];
	if (!(p->buf = malloc(f->blen)))
		return -ENOMEM;
	f->n_q++;
	memcpy(p->buf, umad, f->blen);
	p->due = clock_mono() + f->rtt;
	mad = umad_get_mad(p->buf);
	if (f->m) {
		/* The switch: its number in the initial path (see main). */
		size_t k = (size_t)(mad[128 + 1] - 1) * 250 + (size_t)(mad[128 + 2] - 1);

		model_answer(f->m, k, mad_get_field(mad, 0, IB_MAD_METHOD_F) == IB_MAD_METHOD_SET,
			     (uint16_t)mad_get_field(mad, 0, IB_MAD_ATTRID_F),
			     mad_get_field(mad, 0, IB_MAD_ATTRMOD_F), mad + IB_SMP_DATA_OFFS, &status);
	}
	mad[3] = 0x81;  /* GetResp */
	mad_set_field(mad, 0, IB_MAD_STATUS_F, 0x8000 | status);  /* the D bit */
	return 0;
}

static void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

static int fake_recv(void *ctx, void *umad, int *len, int timeout_ms)
{
	struct fake *f = ctx;
	double now = clock_mono(), until = now + timeout_ms / 1000.0;

	if (!f->n_q || f->q[0].due > until) {
		sleep_s(until - now);
		return -ETIMEDOUT;
	}
	sleep_s(f->q[0].due - now);
	memcpy(umad, f->q[0].buf, f->blen);
	free(f->q[0].buf);
	memmove(&f->q[0], &f->q[1], (f->n_q - 1) * sizeof(f->q[0]));
	f->n_q--;
	*len = IB_MAD_SIZE;
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: ar_sequences_bench --switches N --window W [--timeout-ms T] "
		"[--retries R] (--silent | --rtt-us U)\n"
		"       ar_sequences_bench --topology NET --window W --rtt-us U\n");
	exit(2);
}

/* The switches of the net file, routed by ftree, with their TREE groups. */
static struct rt_ar *routed_ar(const char *net, double *route_s)
{
	char err[512] = "";
	struct rt_graph *g;
	struct rt_lfts *l;
	struct rt_ar *ar = NULL;
	struct fab *fab = topo_file_read(net, "bench", err, sizeof(err));
	double t0 = clock_mono();

	if (!fab || !(g = rt_graph_new(fab, err, sizeof(err)))) {
		fprintf(stderr, "ar_sequences_bench: %s\n", err);
		exit(1);
	}
	if (!(l = rt_lfts_new(g)) || rt_route_ftree(g, l, err, sizeof(err)) < 0 ||
	    !(ar = rt_ar_new(g, l, RT_AR_TREE, RT_AR_DEFAULT_CAPACITY, err, sizeof(err)))) {
		fprintf(stderr, "ar_sequences_bench: %s\n", err[0] ? err : "out of memory");
		exit(1);
	}
	*route_s = clock_mono() - t0;
	/* ar holds its own copy of the ports and groups. */
	rt_lfts_free(l);
	rt_graph_free(g);
	fab_free(fab);
	return ar;
}

int main(int argc, char **argv)
{
	struct fake f = { .blen = umad_size() + IB_MAD_SIZE };
	struct mad_window_io io = { .send = fake_send, .recv = fake_recv, .ctx = &f };
	struct mad_window_params wp = { .fd = -1, .agent = -1, .timeout_ms = 200, .retries = 3,
					.io = &io };
	struct ar_program_opts o = { .sl_mask = AR_PLAN_ALL_SLS };
	struct mad_window_stats st;
	struct ar_sequences_switch *s;
	struct rt_ar_switch sw;
	struct model m;
	struct rt_ar *ar = NULL;
	const char *net = NULL;
	size_t n = 0, outcome[AR_PROG_DRY_RUN + 1] = { 0 };
	uint64_t sets = 0;
	char err[256] = "";
	double t0, t1, route_s = 0;
	int mode = 0, rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--silent")) {
			f.silent = 1;
			mode = 1;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--switches"))
			n = strtoul(v, NULL, 10);
		else if (!strcmp(a, "--topology"))
			net = v;
		else if (!strcmp(a, "--window"))
			wp.max_flight = strtoul(v, NULL, 10);
		else if (!strcmp(a, "--timeout-ms"))
			wp.timeout_ms = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(a, "--retries"))
			wp.retries = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(a, "--rtt-us")) {
			f.rtt = strtod(v, NULL) / 1e6;
			mode = 2;
		} else
			usage();
	}
	if (net && mode == 2) {
		struct ar_mad_info cap;

		ar = routed_ar(net, &route_s);
		n = ar->n_sw;
		memset(&m, 0, sizeof(m));
		m.ar = ar;
		memset(&cap, 0, sizeof(cap));
		cap.group_cap = RT_AR_DEFAULT_CAPACITY;
		cap.group_table_cap = 1;
		cap.by_sl_cap = 1;
		m.n_lft = (size_t)ar->max_lid / AR_MAD_LFT_SX_ENTRIES + 1;
		m.lft_am = calloc(m.n_lft, sizeof(*m.lft_am));
		m.store = calloc(n, sizeof(*m.store));
		m.info_sets = calloc(n, sizeof(*m.info_sets));
		if (!m.lft_am || !m.store || !m.info_sets ||
		    ar_mad_info_encode(&cap, m.cap, sizeof(m.cap), err, sizeof(err)) < 0)
			return 1;
		for (size_t b = 0; b < m.n_lft; b++)
			if (ar_mad_lft_am((unsigned)b, 0, &m.lft_am[b], err, sizeof(err)) < 0)
				return 1;
		f.m = &m;
	}
	if (!n || !wp.max_flight || !mode || (net && !ar) || n > 250 * 250)
		usage();
	/* A switch that never gets past GetCap: its tables are never read. */
	memset(&sw, 0, sizeof(sw));
	if (!(s = calloc(n, sizeof(*s))))
		return 1;
	for (size_t i = 0; i < n; i++) {
		/* A path that names the switch: initial path bytes 1 and 2. */
		s[i].path.cnt = 2;
		s[i].path.p[1] = (uint8_t)(i / 250 + 1);
		s[i].path.p[2] = (uint8_t)(i % 250 + 1);
		s[i].sw = ar ? &ar->sw[i] : &sw;
	}
	t0 = clock_mono();
	rc = ar_sequences_run(&wp, s, n, ar ? ar->max_lid : 0, &o, &st, err, sizeof(err));
	t1 = clock_mono();
	if (rc < 0) {
		fprintf(stderr, "ar_sequences_bench: %s\n", err);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		outcome[s[i].res.outcome]++;
		sets += s[i].res.sets;
	}
	if (ar)
		printf("switches %zu (AR, max LID %u; routed in %.1f s) window %zu rtt %.0f us: "
		       "%.2f s, %llu SMPs (%llu Sets), %zu in flight, %zu programmed, "
		       "%zu refused, %zu failed, %zu unsupported\n", n, ar->max_lid, route_s,
		       wp.max_flight, f.rtt * 1e6, t1 - t0, (unsigned long long)st.sent,
		       (unsigned long long)sets, st.peak, outcome[AR_PROG_PROGRAMMED],
		       outcome[AR_PROG_REFUSED], outcome[AR_PROG_FAILED],
		       outcome[AR_PROG_UNSUPPORTED]);
	else
		printf("switches %zu window %zu timeout_ms %u retries %u %s: %.2f s, %llu SMPs, "
		       "%zu in flight, %zu unsupported\n", n, wp.max_flight, wp.timeout_ms,
		       wp.retries, f.silent ? "silent" : "rtt", t1 - t0,
		       (unsigned long long)st.sent, st.peak, outcome[AR_PROG_UNSUPPORTED]);
	if (ar && outcome[AR_PROG_PROGRAMMED] != n)
		for (size_t i = 0; i < n; i++)
			if (s[i].res.outcome != AR_PROG_PROGRAMMED) {
				fprintf(stderr, "switch %zu: %s\n", i, s[i].res.reason);
				break;
			}
	rt_ar_free(ar);
	free(s);
	free(f.q);
	return 0;
}
