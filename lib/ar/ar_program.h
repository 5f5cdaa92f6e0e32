/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/ar/ar_program.h: program one switch's NVIDIA adaptive routing (issue 7)
 * through any SMP transport, safely. The sequence, for a switch whose AR
 * groups and static LFT are sw (lib/ar/route_ar.h):
 *
 *   a. ARInfo GetCap (0xFF20, ar_mad_info_am(1)). No answer, an error
 *      status or group_cap 0: "unsupported", nothing else is sent (the
 *      switch stays on its static LFT).
 *   b. The modifier self-check, before any Set: Get the SX AR LFT (0xFF23)
 *      blocks holding the lowest, the median and the highest LID with a
 *      routed static port (2 or 3 distinct blocks when the LIDs span more
 *      than one) with ar_mad_lft_am, and compare every routed LID's
 *      default_port with sw->port. NVIDIA's SX AR LFT keeps each LID's
 *      static ("legacy") port, so a match confirms that the block modifier
 *      addresses the block loom means on this switch; a mismatch, an error
 *      status or no answer: "refused", nothing sent
 *      (docs/ar-mad-notes.md, "The modifier self-check").
 *   c. ar_plan_new, then the Sets in order, each GetResp with status 0
 *      echoing the data. Every group and AR LFT block is read back (Get,
 *      same attribute and modifier) BEFORE the last Set enables AR, and
 *      ar_plan_check run on a copy of the plan holding what was read; then
 *      the enabling Set, and ARInfo read back and checked again.
 *   d. Any failure once a Set was sent: ARInfo with e = 0 and fr_enabled 0
 *      (the switch then forwards by its static LFT, which loom never
 *      touches): "failed: <what>, AR left off"; when even that Set is not
 *      confirmed the reason says AR's state is unknown. AR is never left on
 *      with tables that did not verify: they are verified before it is
 *      turned on, and it is turned off again if the enabling Set does not
 *      read back.
 * dry_run does a and b and builds the plan, sending no Set.
 *
 * The sequence is a state machine (struct ar_program): ar_program_next
 * hands out the next SMP, ar_program_answer takes its answer, until next
 * says it is over; the SMPs of one switch are strictly in order, one out at
 * a time, and nothing else is shared, so a caller may keep many switches'
 * sequences going at once (daemon/ar/ar_sequences.c). ar_program_switch
 * runs it through a transport of blocking calls (struct ar_xport). */
#ifndef LOOM_AR_PROGRAM_H
#define LOOM_AR_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/ar/ar_mad.h"
#include "lib/ar/route_ar.h"

/* An SMP exchange with one switch. get / set return 0 when a GetResp came
 * back (*status: its MAD status, a directed-route SMP's D bit cleared;
 * data / reply: its 64-byte data field), or -errno when none did (after
 * the transport's own retries): -ETIMEDOUT, -EIO. */
struct ar_xport {
	int (*get)(void *ctx, uint16_t attr, uint32_t am, uint8_t data[AR_MAD_DATA_LEN],
		   unsigned *status);
	int (*set)(void *ctx, uint16_t attr, uint32_t am, const uint8_t data[AR_MAD_DATA_LEN],
		   uint8_t reply[AR_MAD_DATA_LEN], unsigned *status);
	void *ctx;
};

struct ar_program;

enum ar_program_outcome {
	AR_PROG_PROGRAMMED,
	AR_PROG_UNSUPPORTED,
	AR_PROG_REFUSED,
	AR_PROG_FAILED,
	AR_PROG_DRY_RUN,
};

enum ar_program_shield {
	AR_PROG_SHIELD_OFF,          /* not asked for, or asked for and not left on */
	AR_PROG_SHIELD_ON,
	AR_PROG_SHIELD_UNSUPPORTED,  /* asked for; the switch reports no is_fr_sup (or no AR) */
};

struct ar_program_opts {
	uint16_t sl_mask;   /* AR_PLAN_ALL_SLS or the SLs AR applies to */
	int shield;         /* fast link fault recovery where the switch has it */
	int dry_run;        /* a, b and the plan; no Set */
};

struct ar_program_result {
	enum ar_program_outcome outcome;
	enum ar_program_shield shield;
	char reason[512];
	unsigned groups;        /* groups programmed (dry-run: planned) */
	unsigned smps_sent;     /* SMP exchanges, Gets and Sets (a transport that
				 * retries may put its packet count here) */
	unsigned sets;          /* SubnSets sent (dry-run: the plan's, not sent) */
	int ar_state_unknown;   /* failed, and AR could not be turned off either */
};

/* One SMP of a sequence: a SubnGet (set 0, data zeros) or a SubnSet of
 * attribute attr, modifier am, data. */
struct ar_program_smp {
	int set;
	uint16_t attr;
	uint32_t am;
	uint8_t data[AR_MAD_DATA_LEN];
};

/* One switch's sequence, a-d, not started. sw must outlive it. NULL when
 * out of memory or an argument is missing. */
struct ar_program *ar_program_new(const struct rt_ar_switch *sw, uint32_t max_lid,
				  const struct ar_program_opts *o);
/* The next SMP to send: 1 with *smp (its answer goes to
 * ar_program_answer before next is asked again), or 0 when the sequence is
 * over (ar_program_result). Counts smps_sent and sets. */
int ar_program_next(struct ar_program *p, struct ar_program_smp *smp);
/* The answer to the SMP next handed out last, as struct ar_xport's get /
 * set give it: rc 0 with the GetResp's status and 64-byte data field (a
 * directed-route SMP's D bit cleared), or -errno (-ETIMEDOUT) when no try
 * was answered. */
void ar_program_answer(struct ar_program *p, int rc, unsigned status,
		       const uint8_t data[AR_MAD_DATA_LEN]);
/* The outcome so far; final once ar_program_next said 0. */
const struct ar_program_result *ar_program_result(const struct ar_program *p);
void ar_program_free(struct ar_program *p);

/* Run a-d on one switch through x, one blocking exchange after the other.
 * 0 with *res filled (whatever the outcome), -EINVAL when an argument is
 * missing, -ENOMEM. */
int ar_program_switch(const struct ar_xport *x, const struct rt_ar_switch *sw, uint32_t max_lid,
		      const struct ar_program_opts *o, struct ar_program_result *res);

/* "programmed" ... and "on" / "off" / "unsupported". */
const char *ar_program_outcome_name(enum ar_program_outcome o);
const char *ar_program_shield_name(enum ar_program_shield s);

/* {"guid":"0x...","desc":"...","lid":N,"result":"...","reason":"...",
 *  "groups":N,"smps_sent":N,"sets":N,"shield":"on|off|unsupported",
 *  "ar_state_unknown":bool}; NULL when out of memory. */
json_t *ar_program_json(uint64_t guid, const char *desc, unsigned lid,
			const struct ar_program_result *res);

#endif
