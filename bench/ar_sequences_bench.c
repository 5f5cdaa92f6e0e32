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
 *   bench/ar_sequences_bench --switches N --window W [--timeout-ms T]
 *                            [--retries R] (--silent | --rtt-us U)
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
#include "lib/ar/ar_plan.h"
#include "lib/util/clock.h"

struct pending {
	uint8_t *buf;
	double due;
};

struct fake {
	int silent;
	double rtt;             /* seconds */
	size_t blen;
	struct pending *q;      /* answers not handed back yet, in due order */
	size_t n_q, cap;
};

static int fake_send(void *ctx, void *umad, int len, int timeout_ms)
{
	struct fake *f = ctx;
	struct pending *p;
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
	mad[3] = 0x81;  /* GetResp */
	mad_set_field(mad, 0, IB_MAD_STATUS_F, 0x800c);  /* D bit, unsupported */
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
		"[--retries R] (--silent | --rtt-us U)\n");
	exit(2);
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
	size_t n = 0, unsupported = 0;
	char err[256] = "";
	double t0, t1;
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
	if (!n || !wp.max_flight || !mode)
		usage();
	/* A switch that never gets past GetCap: its tables are never read. */
	memset(&sw, 0, sizeof(sw));
	if (!(s = calloc(n, sizeof(*s))))
		return 1;
	for (size_t i = 0; i < n; i++) {
		s[i].path.cnt = 1;
		s[i].path.p[1] = 1;
		s[i].sw = &sw;
	}
	t0 = clock_mono();
	rc = ar_sequences_run(&wp, s, n, 0, &o, &st, err, sizeof(err));
	t1 = clock_mono();
	if (rc < 0) {
		fprintf(stderr, "ar_sequences_bench: %s\n", err);
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		unsupported += s[i].res.outcome == AR_PROG_UNSUPPORTED;
	printf("switches %zu window %zu timeout_ms %u retries %u %s: %.2f s, %llu SMPs, "
	       "%zu in flight, %zu unsupported\n", n, wp.max_flight, wp.timeout_ms, wp.retries,
	       f.silent ? "silent" : "rtt", t1 - t0, (unsigned long long)st.sent, st.peak,
	       unsupported);
	free(s);
	free(f.q);
	return 0;
}
