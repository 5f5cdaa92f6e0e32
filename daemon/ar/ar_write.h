/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ar/ar_write.h: program NVIDIA adaptive routing on every switch of a
 * live subnet, in a short-lived child like the AR probe (daemon/ar/ar_read.h;
 * daemon/ib/walker.h says why a process): `loomd --program-ar ...` walks the
 * subnet, reads every switch's static LFT (daemon/ib/lft_read.h), builds the
 * routing graph and the AR groups from them (lib/ar/route_ar.h), then runs
 * lib/ar/ar_program.h's sequence on every switch, up to MAX_SMPS switches
 * at once (daemon/ar/ar_sequences.h: each switch's SMPs in order, one out
 * at a time), over directed-route SMPs (class 0x81) on its own umad agent,
 * and writes one JSON line per switch (ar_program_json) in the fabric's
 * directed-route order and a last "done" line. */
#ifndef LOOMD_AR_WRITE_H
#define LOOMD_AR_WRITE_H

#include <stddef.h>

#include <jansson.h>

#include "daemon/ib/discovery_ib.h"

struct ar_write_opts {
	int mode;            /* enum rt_ar_mode */
	unsigned sl_mask;    /* AR_PLAN_ALL_SLS or the SLs */
	int shield;
	int dry_run;
};

/* Program the subnet of p in a child. 0 with *switches (an array of
 * ar_program_json objects, the fabric's directed-route order) and *done
 * ({"started","finished","switches","smps","timeout_ms","retries",
 * "dry_run","programmed","unsupported","refused","failed","dry_runs","mode",
 * "sl_mask","shield","in_flight": the most switches under way at once,
 * "programming_ms": the SMP exchanges alone, after the walk and the LFT
 * read});
 * -errno with
 * err. Blocking: call it from a worker thread. */
int ar_write_run(const struct disc_ib_params *p, const struct ar_write_opts *o, json_t **done,
		 json_t **switches, char *err, size_t errlen);

/* The child: `loomd --program-ar SUBNET CA PORT TIMEOUT_MS RETRIES MAX_SMPS
 * MODE SLMASK SHIELD DRY_RUN` (argv[0] is "--program-ar"; MODE tree|lag,
 * SLMASK hex, SHIELD and DRY_RUN 0|1). Exit status as walker_main's. */
int ar_write_main(int argc, char **argv);

#endif
