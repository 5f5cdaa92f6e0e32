/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/ar/ar_program.c: programming one switch's adaptive routing, one SMP
 * after the other (see ar_program.h for the sequence and why). No I/O of
 * its own: the sequence is a state machine that hands out the next SMP and
 * takes its answer, so that a caller may keep many switches' sequences
 * going at once (loomd's `--program-ar` child, daemon/ar/ar_sequences.c,
 * through daemon/ib/mad_window.c); ar_program_switch drives one switch
 * through a transport of calls (the unit tests' in-memory switch). */
#include "autoconf.h"
#include "lib/ar/ar_program.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ar/ar_plan.h"
#include "lib/util/log.h"

/* Up to this many AR LFT blocks are read for the self-check. */
#define CHECK_BLOCKS 3

/* Where a switch's sequence is: the SMP it waits for the answer of. */
enum step {
	STEP_CAP,          /* a: ARInfo GetCap */
	STEP_CHECK,        /* b: AR LFT block blocks[k] read */
	STEP_SET,          /* c: plan MAD k Set (k < last) */
	STEP_READ,         /* c: plan MAD k read back (1 <= k < last) */
	STEP_ENABLE,       /* c: the enabling Set (plan MAD last) */
	STEP_READ_ENABLE,  /* c: ARInfo read back after it */
	STEP_OFF,          /* d: the Set that turns AR off, after why */
	STEP_DONE,
};

struct ar_program {
	const struct rt_ar_switch *sw;
	uint32_t max_lid;
	struct ar_program_opts o;
	struct ar_program_result res;
	enum step step;
	size_t k;
	unsigned blocks[CHECK_BLOCKS], nb;
	uint32_t check_am;                /* STEP_CHECK: blocks[k]'s modifier */
	struct ar_mad_info cap;           /* GetCap's answer */
	struct ar_plan *plan;
	struct ar_plan copy;              /* the plan as read back (own mad array) */
	uint8_t off[AR_MAD_DATA_LEN];     /* STEP_OFF's data */
	char why[320];                    /* STEP_OFF: what failed */
	struct ar_program_smp cur;        /* the SMP handed out last */
};

static void say(struct ar_program_result *res, enum ar_program_outcome outcome,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void say(struct ar_program_result *res, enum ar_program_outcome outcome,
		const char *fmt, ...)
{
	va_list ap;

	res->outcome = outcome;
	va_start(ap, fmt);
	vsnprintf(res->reason, sizeof(res->reason), fmt, ap);
	va_end(ap);
}

/* The sequence ends with the outcome say() gave. */
static void done(struct ar_program *p)
{
	if ((p->res.outcome == AR_PROG_PROGRAMMED || p->res.outcome == AR_PROG_DRY_RUN) &&
	    p->plan && p->plan->fr_enabled)
		p->res.shield = AR_PROG_SHIELD_ON;
	p->step = STEP_DONE;
}

/* a: the capabilities; 0 with *cap, or 1 when the switch has no AR. */
static int take_cap(struct ar_program *p, int rc, unsigned status,
		    const uint8_t data[AR_MAD_DATA_LEN], struct ar_mad_info *cap)
{
	char err[128];

	if (rc < 0) {
		say(&p->res, AR_PROG_UNSUPPORTED, "no answer to ARInfo GetCap (vendor attribute "
		    "0xFF20: %s): left on static routing", strerror(-rc));
		return 1;
	}
	if (status != 0) {
		say(&p->res, AR_PROG_UNSUPPORTED, "ARInfo GetCap answered with status 0x%04x%s: "
		    "left on static routing", status,
		    (status & 0x1c) == 0x0c ? " (unsupported method/attribute)" : "");
		return 1;
	}
	if (ar_mad_info_decode(data, AR_MAD_DATA_LEN, cap, err, sizeof(err)) < 0) {
		say(&p->res, AR_PROG_UNSUPPORTED, "ARInfo GetCap: %s: left on static routing", err);
		return 1;
	}
	if (cap->group_cap == 0) {
		say(&p->res, AR_PROG_UNSUPPORTED, "ARInfo group_cap is 0 (no adaptive routing): "
		    "left on static routing");
		return 1;
	}
	return 0;
}

/* The AR LFT blocks to read for the self-check: those of the lowest, the
 * median and the highest routed LID, distinct, ascending. 0 when no LID
 * is routed at all. */
static unsigned check_blocks(const struct rt_ar_switch *sw, uint32_t max_lid,
			     unsigned blocks[CHECK_BLOCKS])
{
	uint32_t lo = 0, hi = 0, n = 0, mid, k = 0;
	unsigned nb = 0;

	for (uint32_t lid = 0; lid <= max_lid; lid++)
		if (sw->port[lid] != RT_NO_PORT) {
			if (!n++)
				lo = lid;
			hi = lid;
		}
	if (!n)
		return 0;
	mid = lo;
	for (uint32_t lid = lo; lid <= hi; lid++)
		if (sw->port[lid] != RT_NO_PORT && k++ == n / 2) {
			mid = lid;
			break;
		}
	blocks[nb++] = lo / AR_MAD_LFT_SX_ENTRIES;
	if (mid / AR_MAD_LFT_SX_ENTRIES != blocks[nb - 1])
		blocks[nb++] = mid / AR_MAD_LFT_SX_ENTRIES;
	if (hi / AR_MAD_LFT_SX_ENTRIES != blocks[nb - 1])
		blocks[nb++] = hi / AR_MAD_LFT_SX_ENTRIES;
	return nb;
}

/* b: the answer for block blocks[k]: 0 when it mirrors the static LFT,
 * else 1 (refused). */
static int take_check(struct ar_program *p, int rc, unsigned status,
		      const uint8_t data[AR_MAD_DATA_LEN])
{
	unsigned b = p->blocks[p->k];
	struct ar_mad_lft_sx_block blk;
	char err[160];

	if (rc < 0 || status != 0) {
		char how[64];

		if (rc < 0)
			snprintf(how, sizeof(how), "no answer (%s)", strerror(-rc));
		else
			snprintf(how, sizeof(how), "status 0x%04x", status);
		say(&p->res, AR_PROG_REFUSED, "refused: AR LFT block %u (modifier 0x%08x) "
		    "could not be read: %s: the attribute modifier layout is not "
		    "confirmed on this switch", b, p->cur.am, how);
		return 1;
	}
	if (ar_mad_lft_sx_decode(data, AR_MAD_DATA_LEN, &blk, err, sizeof(err)) < 0) {
		say(&p->res, AR_PROG_REFUSED, "refused: AR LFT block %u: %s", b, err);
		return 1;
	}
	for (unsigned e = 0; e < AR_MAD_LFT_SX_ENTRIES; e++) {
		uint32_t lid = b * AR_MAD_LFT_SX_ENTRIES + e;
		uint8_t want = lid <= p->max_lid ? p->sw->port[lid] : RT_NO_PORT;

		/* Only routed LIDs: what a switch keeps for the others is not
		 * the static LFT's business. */
		if (want == RT_NO_PORT || blk.e[e].default_port == want)
			continue;
		say(&p->res, AR_PROG_REFUSED, "refused: AR LFT block %u does not mirror the "
		    "static LFT (LID %u: %u vs %u): the attribute modifier layout is not "
		    "confirmed on this switch", b, lid, blk.e[e].default_port, want);
		return 1;
	}
	return 0;
}

static const char *mad_what(const struct ar_plan *p, size_t i, char *buf, size_t len)
{
	if (i == 0)
		snprintf(buf, len, "ARInfo (AR off)");
	else if (i == p->n - 1)
		snprintf(buf, len, "ARInfo (AR %s)", p->n_groups ? "on" : "off, no groups");
	else if (i <= p->n_group_blocks)
		snprintf(buf, len, "group table block %zu", i - 1);
	else
		snprintf(buf, len, "AR LFT block %zu", i - 1 - p->n_group_blocks);
	return buf;
}

/* The answer to the Set p->cur of `what`: 0 when confirmed, or -EIO with
 * what went wrong in why. */
static int set_confirmed(const struct ar_program *p, int rc, unsigned status,
			 const uint8_t reply[AR_MAD_DATA_LEN], const char *what, char *why,
			 size_t whylen)
{
	if (rc < 0)
		return err_fmt(why, whylen, -EIO, "no answer to the Set of %s (%s)", what,
			       strerror(-rc));
	if (status != 0)
		return err_fmt(why, whylen, -EIO, "the Set of %s was answered with status "
			       "0x%04x", what, status);
	/* A GetResp to a Set carries the attribute as the switch now holds it:
	 * anything else means it did not take what was sent. */
	if (memcmp(reply, p->cur.data, AR_MAD_DATA_LEN) != 0)
		return err_fmt(why, whylen, -EIO, "the Set of %s was not echoed (the switch "
			       "holds something else)", what);
	return 0;
}

/* The answer to the read-back of plan MAD k into the copy: 0, or -EIO. */
static int read_back(struct ar_program *p, int rc, unsigned status,
		     const uint8_t data[AR_MAD_DATA_LEN], char *why, size_t whylen)
{
	char what[64];

	if (rc < 0)
		return err_fmt(why, whylen, -EIO, "no answer reading back %s (%s)",
			       mad_what(p->plan, p->k, what, sizeof(what)), strerror(-rc));
	if (status != 0)
		return err_fmt(why, whylen, -EIO, "reading back %s: status 0x%04x",
			       mad_what(p->plan, p->k, what, sizeof(what)), status);
	memcpy(p->copy.mad[p->k].data, data, AR_MAD_DATA_LEN);
	return 0;
}

/* d: a failure once a Set was sent: the Set that turns AR off (the static
 * LFT forwarding) comes next, or, when even its data cannot be made, the
 * sequence ends with AR's state unknown. */
static void failed(struct ar_program *p, const char *what)
{
	struct ar_mad_info off;
	char err[128];

	snprintf(p->why, sizeof(p->why), "%s", what);
	if (ar_mad_info_decode(p->plan->mad[0].data, AR_MAD_DATA_LEN, &off, err,
			       sizeof(err)) == 0) {
		off.e = 0;
		/* Fault recovery steers by the AR groups, which did not verify. */
		off.fr_enabled = 0;
		if (ar_mad_info_encode(&off, p->off, sizeof(p->off), err, sizeof(err)) == 0) {
			p->step = STEP_OFF;
			return;
		}
	}
	p->res.ar_state_unknown = 1;
	say(&p->res, AR_PROG_FAILED, "failed: %s; turning AR off failed too (%s): AR STATE "
	    "UNKNOWN on this switch, check it before trusting its forwarding", p->why, err);
	log_err("AR programming failed and AR could not be turned off: %s", p->res.reason);
	done(p);
}

static void take_off(struct ar_program *p, int rc, unsigned status,
		     const uint8_t reply[AR_MAD_DATA_LEN])
{
	char why[256];

	if (set_confirmed(p, rc, status, reply, "ARInfo (AR off)", why, sizeof(why)) == 0) {
		say(&p->res, AR_PROG_FAILED, "failed: %s, AR left off", p->why);
	} else {
		p->res.ar_state_unknown = 1;
		say(&p->res, AR_PROG_FAILED, "failed: %s; turning AR off failed too (%s): AR "
		    "STATE UNKNOWN on this switch, check it before trusting its forwarding",
		    p->why, why);
		log_err("AR programming failed and AR could not be turned off: %s",
			p->res.reason);
	}
	done(p);
}

/* b: block blocks[k] is read next; 1 when its modifier cannot be made
 * (refused, done). */
static int start_check(struct ar_program *p)
{
	char err[160];

	if (ar_mad_lft_am(p->blocks[p->k], 0, &p->check_am, err, sizeof(err)) < 0) {
		say(&p->res, AR_PROG_REFUSED, "refused: %s", err);
		done(p);
		return 1;
	}
	p->step = STEP_CHECK;
	return 0;
}

/* The checks over and a plan made: dry-run ends here, else the Sets. */
static void make_plan(struct ar_program *p, const struct ar_mad_info *cap)
{
	struct ar_plan *plan;
	char err[256];

	if (!(plan = ar_plan_new(p->sw, p->max_lid, cap, p->o.sl_mask,
				 p->o.shield ? AR_PLAN_SHIELD : 0, err, sizeof(err)))) {
		say(&p->res, AR_PROG_REFUSED, "refused: %s", err);
		done(p);
		return;
	}
	p->plan = plan;
	if (p->o.dry_run) {
		p->res.sets = (unsigned)plan->n;
		p->res.groups = plan->n_groups;
		say(&p->res, AR_PROG_DRY_RUN, "would send %zu SubnSets (ARInfo off, %u group-table "
		    "blocks, %u AR LFT blocks, ARInfo %s) and read %zu back", plan->n,
		    plan->n_group_blocks, plan->n_lft_blocks, plan->n_groups ? "on" : "off",
		    plan->n - 1);
		done(p);
		return;
	}
	p->copy = *plan;
	if (!(p->copy.mad = malloc(plan->n * sizeof(*plan->mad)))) {
		say(&p->res, AR_PROG_REFUSED, "refused: out of memory for the read-back");
		done(p);
		return;
	}
	memcpy(p->copy.mad, plan->mad, plan->n * sizeof(*plan->mad));
	p->step = STEP_SET;
	p->k = 0;
}

/* Every Set but the enabling one and every table read back: the check of
 * what the switch holds, while AR is still off. */
static void tables_read(struct ar_program *p)
{
	char err[256], why[320];

	if (ar_plan_check(&p->copy, p->sw, p->max_lid, err, sizeof(err)) < 0) {
		snprintf(why, sizeof(why), "the tables read back differ: %s", err);
		failed(p, why);
		return;
	}
	p->step = STEP_ENABLE;
}

static void programmed(struct ar_program *p)
{
	const struct ar_plan *plan = p->plan;

	say(&p->res, AR_PROG_PROGRAMMED, "%u AR groups on %s, %u AR LFT blocks verified by "
	    "read-back", plan->n_groups, plan->sl_mask == AR_PLAN_ALL_SLS ? "every SL" :
	    "some SLs", plan->n_lft_blocks);
	if (plan->sl_mask != AR_PLAN_ALL_SLS) {
		size_t n = strlen(p->res.reason);

		snprintf(p->res.reason + n, sizeof(p->res.reason) - n, " (SL mask 0x%04x)",
			 plan->sl_mask);
	}
	p->res.groups = plan->n_groups;
	done(p);
}

struct ar_program *ar_program_new(const struct rt_ar_switch *sw, uint32_t max_lid,
				  const struct ar_program_opts *o)
{
	struct ar_program *p;

	if (!sw || !o || !(p = calloc(1, sizeof(*p))))
		return NULL;
	p->sw = sw;
	p->max_lid = max_lid;
	p->o = *o;
	p->res.shield = o->shield ? AR_PROG_SHIELD_UNSUPPORTED : AR_PROG_SHIELD_OFF;
	p->step = STEP_CAP;
	return p;
}

void ar_program_free(struct ar_program *p)
{
	if (!p)
		return;
	free(p->copy.mad);
	ar_plan_free(p->plan);
	free(p);
}

const struct ar_program_result *ar_program_result(const struct ar_program *p)
{
	return &p->res;
}

int ar_program_next(struct ar_program *p, struct ar_program_smp *smp)
{
	const struct ar_plan *plan = p->plan;
	size_t last = plan ? plan->n - 1 : 0;
	int set = 1;

	memset(&p->cur, 0, sizeof(p->cur));
	switch (p->step) {
	case STEP_CAP:
		set = 0;
		p->cur.attr = AR_MAD_ATTR_INFO;
		p->cur.am = ar_mad_info_am(1);
		break;
	case STEP_CHECK:
		set = 0;
		p->cur.attr = AR_MAD_ATTR_LFT_SX;
		p->cur.am = p->check_am;
		break;
	case STEP_SET:
	case STEP_ENABLE:
		p->cur.attr = plan->mad[p->step == STEP_SET ? p->k : last].attr;
		p->cur.am = plan->mad[p->step == STEP_SET ? p->k : last].am;
		memcpy(p->cur.data, plan->mad[p->step == STEP_SET ? p->k : last].data,
		       AR_MAD_DATA_LEN);
		break;
	case STEP_READ:
	case STEP_READ_ENABLE:
		set = 0;
		p->cur.attr = plan->mad[p->step == STEP_READ ? p->k : last].attr;
		p->cur.am = plan->mad[p->step == STEP_READ ? p->k : last].am;
		break;
	case STEP_OFF:
		p->cur.attr = AR_MAD_ATTR_INFO;
		p->cur.am = ar_mad_info_am(0);
		memcpy(p->cur.data, p->off, AR_MAD_DATA_LEN);
		break;
	case STEP_DONE:
		return 0;
	}
	p->cur.set = set;
	p->res.smps_sent++;
	p->res.sets += (unsigned)set;
	*smp = p->cur;
	return 1;
}
void ar_program_answer(struct ar_program *p, int rc, unsigned status,
			const uint8_t data[AR_MAD_DATA_LEN])
{
	char why[320], what[64];
	struct ar_mad_info cap;
	size_t last = p->plan ? p->plan->n - 1 : 0;

	switch (p->step) {
	case STEP_CAP:
		if (take_cap(p, rc, status, data, &cap) != 0) {
			done(p);
			return;
		}
		p->cap = cap;
		if (p->o.shield && cap.is_fr_sup)
			p->res.shield = AR_PROG_SHIELD_OFF;  /* until it is on */
		if (!(p->nb = check_blocks(p->sw, p->max_lid, p->blocks))) {
			say(&p->res, AR_PROG_REFUSED, "refused: no LID is routed on this switch, "
			    "so nothing confirms the AR LFT's attribute modifier");
			done(p);
			return;
		}
		p->k = 0;
		start_check(p);
		return;
	case STEP_CHECK:
		if (take_check(p, rc, status, data) != 0) {
			done(p);
			return;
		}
		if (++p->k < p->nb)
			start_check(p);
		else
			make_plan(p, &p->cap);
		return;
	case STEP_SET:
		if (set_confirmed(p, rc, status, data, mad_what(p->plan, p->k, what, sizeof(what)),
				  why, sizeof(why)) < 0) {
			failed(p, why);
			return;
		}
		/* Everything but the enabling Set, then the tables read back
		 * and checked while AR is still off. */
		if (++p->k < last)
			return;
		p->step = STEP_READ;
		p->k = 1;
		if (p->k >= last)
			tables_read(p);
		return;
	case STEP_READ:
		if (read_back(p, rc, status, data, why, sizeof(why)) < 0) {
			failed(p, why);
			return;
		}
		if (++p->k >= last)
			tables_read(p);
		return;
	case STEP_ENABLE:
		if (set_confirmed(p, rc, status, data, mad_what(p->plan, last, what, sizeof(what)),
				  why, sizeof(why)) < 0) {
			failed(p, why);
			return;
		}
		p->step = STEP_READ_ENABLE;
		p->k = last;
		return;
	case STEP_READ_ENABLE: {
		char err[256];

		if (read_back(p, rc, status, data, why, sizeof(why)) < 0) {
			failed(p, why);
			return;
		}
		if (ar_plan_check(&p->copy, p->sw, p->max_lid, err, sizeof(err)) < 0) {
			snprintf(why, sizeof(why), "ARInfo read back differs: %s", err);
			failed(p, why);
			return;
		}
		programmed(p);
		return;
	}
	case STEP_OFF:
		take_off(p, rc, status, data);
		return;
	case STEP_DONE:
		return;
	}
}

int ar_program_switch(const struct ar_xport *x, const struct rt_ar_switch *sw, uint32_t max_lid,
		      const struct ar_program_opts *o, struct ar_program_result *res)
{
	struct ar_program_smp smp;
	struct ar_program *p;

	if (!x || !x->get || !x->set || !sw || !o || !res)
		return -EINVAL;
	if (!(p = ar_program_new(sw, max_lid, o)))
		return -ENOMEM;
	while (ar_program_next(p, &smp)) {
		uint8_t in[AR_MAD_DATA_LEN];
		unsigned status = 0;
		int rc;

		memset(in, 0, sizeof(in));
		rc = smp.set ? x->set(x->ctx, smp.attr, smp.am, smp.data, in, &status)
			     : x->get(x->ctx, smp.attr, smp.am, in, &status);
		ar_program_answer(p, rc, status, in);
	}
	*res = p->res;
	ar_program_free(p);
	return 0;
}

const char *ar_program_outcome_name(enum ar_program_outcome o)
{
	switch (o) {
	case AR_PROG_PROGRAMMED:
		return "programmed";
	case AR_PROG_UNSUPPORTED:
		return "unsupported";
	case AR_PROG_REFUSED:
		return "refused";
	case AR_PROG_FAILED:
		return "failed";
	case AR_PROG_DRY_RUN:
		return "dry-run";
	}
	return "?";
}

const char *ar_program_shield_name(enum ar_program_shield s)
{
	return s == AR_PROG_SHIELD_ON ? "on" : s == AR_PROG_SHIELD_UNSUPPORTED ? "unsupported" :
	       "off";
}

json_t *ar_program_json(uint64_t guid, const char *desc, unsigned lid,
			const struct ar_program_result *res)
{
	char g[24];

	snprintf(g, sizeof(g), "0x%016llx", (unsigned long long)guid);
	return json_pack("{s:s, s:s, s:I, s:s, s:s, s:I, s:I, s:I, s:s, s:b}", "guid", g,
			 "desc", desc ? desc : "", "lid", (json_int_t)lid,
			 "result", ar_program_outcome_name(res->outcome), "reason", res->reason,
			 "groups", (json_int_t)res->groups, "smps_sent", (json_int_t)res->smps_sent,
			 "sets", (json_int_t)res->sets,
			 "shield", ar_program_shield_name(res->shield),
			 "ar_state_unknown", res->ar_state_unknown);
}
