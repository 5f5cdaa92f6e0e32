/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ar/ar_sequences.c: many switches' AR programming sequences in
 * flight at once (see ar_sequences.h). The sequence itself, what is sent
 * and what an answer means, is lib/ar/ar_program.c's; here only the SMPs
 * are built and their answers handed back. */
#include "autoconf.h"
#include "daemon/ar/ar_sequences.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "daemon/ib/dr_route.h"

/* A switch under way: its sequence, the SMP out, that SMP's answer. */
struct flight {
	struct ar_program *prog;     /* NULL before it enters the window and once done */
	struct ar_program_smp smp;
	unsigned status;
	uint8_t data[AR_MAD_DATA_LEN];
};

struct engine {
	struct ar_sequences_switch *s;
	uint32_t max_lid;
	const struct ar_program_opts *o;
	struct flight *f;
	struct mad_window_req *req;
};

/* Try `tid` of switch i's SMP; the switch's sequence starts on its first. */
static int build(void *ctx, size_t i, uint32_t tid, uint8_t *buf, size_t blen, char *err,
		 size_t errlen)
{
	struct engine *e = ctx;
	struct flight *f = &e->f[i];
	int len;

	if (!f->prog) {
		if (!(f->prog = ar_program_new(e->s[i].sw, e->max_lid, e->o))) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		if (!ar_program_next(f->prog, &f->smp)) {  /* a sequence starts with GetCap */
			snprintf(err, errlen, "the AR sequence has no first SMP");
			return -EPROTO;
		}
	}
	len = dr_smp_build(buf, blen, f->smp.set ? IB_MAD_METHOD_SET : IB_MAD_METHOD_GET,
			   f->smp.attr, f->smp.am, &e->s[i].path, tid,
			   f->smp.set ? f->smp.data : NULL);
	if (len < 0)
		snprintf(err, errlen, "cannot build an AR SMP (attribute 0x%04x) for switch %zu",
			 f->smp.attr, i);
	return len;
}

/* A Get's and a Set's answer alike: a GetResp of the attribute. */
static int answer(void *ctx, size_t i, uint8_t *mad)
{
	struct engine *e = ctx;
	struct flight *f = &e->f[i];

	if (!mad_window_is_get_resp(mad, IB_SMI_DIRECT_CLASS, f->smp.attr))
		return 0;
	/* Bit 15 of a directed-route SMP's status is its D bit. */
	f->status = mad_get_field(mad, 0, IB_MAD_STATUS_F) & 0x7fff;
	memcpy(f->data, mad + IB_SMP_DATA_OFFS, AR_MAD_DATA_LEN);
	return 1;
}

/* Switch i's SMP is over: the sequence takes its answer and says what next. */
static int next(void *ctx, size_t i, int answered, char *err, size_t errlen)
{
	struct engine *e = ctx;
	struct flight *f = &e->f[i];

	(void)err;
	(void)errlen;
	ar_program_answer(f->prog, answered ? 0 : -ETIMEDOUT, f->status, f->data);
	memset(f->data, 0, sizeof(f->data));
	f->status = 0;
	if (ar_program_next(f->prog, &f->smp))
		return 1;
	e->s[i].res = *ar_program_result(f->prog);
	/* Packets, retries included, as the run's total counts them. */
	e->s[i].res.smps_sent = (unsigned)e->req[i].sent;
	e->s[i].local_timeouts = e->req[i].local_timeouts;
	ar_program_free(f->prog);
	f->prog = NULL;
	return 0;
}

int ar_sequences_run(const struct mad_window_params *wp, struct ar_sequences_switch *s, size_t n,
		     uint32_t max_lid, const struct ar_program_opts *o,
		     struct mad_window_stats *st, char *err, size_t errlen)
{
	struct engine e = { .s = s, .max_lid = max_lid, .o = o };
	int rc;

	if (st)
		memset(st, 0, sizeof(*st));
	if (!n)
		return 0;
	e.f = calloc(n, sizeof(*e.f));
	e.req = calloc(n, sizeof(*e.req));
	if (!e.f || !e.req) {
		free(e.f);
		free(e.req);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = mad_window_run_seq(wp, n, e.req, build, answer, next, &e, st, err, errlen);
	for (size_t i = 0; i < n; i++)
		ar_program_free(e.f[i].prog);  /* a run stopped by the port */
	free(e.f);
	free(e.req);
	return rc;
}
