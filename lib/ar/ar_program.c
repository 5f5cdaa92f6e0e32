/* lib/ar/ar_program.c: programming one switch's adaptive routing through an
 * SMP transport (see ar_program.h for the sequence and why). No I/O of its
 * own: loomd's `--program-ar` child gives it a umad transport
 * (daemon/ar/ar_write.c), the unit tests an in-memory switch. */
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

struct run {
	const struct ar_xport *x;
	const struct rt_ar_switch *sw;
	uint32_t max_lid;
	const struct ar_program_opts *o;
	struct ar_program_result *res;
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

static int get(struct run *r, uint16_t attr, uint32_t am, uint8_t data[AR_MAD_DATA_LEN],
	       unsigned *status)
{
	memset(data, 0, AR_MAD_DATA_LEN);
	*status = 0;
	r->res->smps_sent++;
	return r->x->get(r->x->ctx, attr, am, data, status);
}

/* One Set, confirmed: 0, or -EIO with what went wrong in why. */
static int set_confirmed(struct run *r, uint16_t attr, uint32_t am,
			 const uint8_t data[AR_MAD_DATA_LEN], const char *what, char *why,
			 size_t whylen)
{
	uint8_t reply[AR_MAD_DATA_LEN];
	unsigned status = 0;
	int rc;

	memset(reply, 0, sizeof(reply));
	r->res->smps_sent++;
	r->res->sets++;
	rc = r->x->set(r->x->ctx, attr, am, data, reply, &status);
	if (rc < 0)
		return err_fmt(why, whylen, -EIO, "no answer to the Set of %s (%s)", what,
			       strerror(-rc));
	if (status != 0)
		return err_fmt(why, whylen, -EIO, "the Set of %s was answered with status "
			       "0x%04x", what, status);
	/* A GetResp to a Set carries the attribute as the switch now holds it:
	 * anything else means it did not take what was sent. */
	if (memcmp(reply, data, AR_MAD_DATA_LEN) != 0)
		return err_fmt(why, whylen, -EIO, "the Set of %s was not echoed (the switch "
			       "holds something else)", what);
	return 0;
}

/* a: the capabilities; 0 with *cap, or 1 when the switch has no AR. */
static int get_cap(struct run *r, struct ar_mad_info *cap)
{
	uint8_t data[AR_MAD_DATA_LEN];
	unsigned status;
	char err[128];
	int rc = get(r, AR_MAD_ATTR_INFO, ar_mad_info_am(1), data, &status);

	if (rc < 0) {
		say(r->res, AR_PROG_UNSUPPORTED, "no answer to ARInfo GetCap (vendor attribute "
		    "0xFF20: %s): left on static routing", strerror(-rc));
		return 1;
	}
	if (status != 0) {
		say(r->res, AR_PROG_UNSUPPORTED, "ARInfo GetCap answered with status 0x%04x%s: "
		    "left on static routing", status,
		    (status & 0x1c) == 0x0c ? " (unsupported method/attribute)" : "");
		return 1;
	}
	if (ar_mad_info_decode(data, sizeof(data), cap, err, sizeof(err)) < 0) {
		say(r->res, AR_PROG_UNSUPPORTED, "ARInfo GetCap: %s: left on static routing", err);
		return 1;
	}
	if (cap->group_cap == 0) {
		say(r->res, AR_PROG_UNSUPPORTED, "ARInfo group_cap is 0 (no adaptive routing): "
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

/* b: 0 when every block read mirrors the static LFT, else 1 (refused). */
static int self_check(struct run *r)
{
	unsigned blocks[CHECK_BLOCKS], nb = check_blocks(r->sw, r->max_lid, blocks);

	if (nb == 0) {
		say(r->res, AR_PROG_REFUSED, "refused: no LID is routed on this switch, so "
		    "nothing confirms the AR LFT's attribute modifier");
		return 1;
	}
	for (unsigned i = 0; i < nb; i++) {
		uint8_t data[AR_MAD_DATA_LEN];
		struct ar_mad_lft_sx_block blk;
		unsigned status;
		uint32_t am;
		char err[160];
		int rc;

		if (ar_mad_lft_am(blocks[i], 0, &am, err, sizeof(err)) < 0) {
			say(r->res, AR_PROG_REFUSED, "refused: %s", err);
			return 1;
		}
		if ((rc = get(r, AR_MAD_ATTR_LFT_SX, am, data, &status)) < 0 || status != 0) {
			char how[64];

			if (rc < 0)
				snprintf(how, sizeof(how), "no answer (%s)", strerror(-rc));
			else
				snprintf(how, sizeof(how), "status 0x%04x", status);
			say(r->res, AR_PROG_REFUSED, "refused: AR LFT block %u (modifier 0x%08x) "
			    "could not be read: %s: the attribute modifier layout is not "
			    "confirmed on this switch", blocks[i], am, how);
			return 1;
		}
		if (ar_mad_lft_sx_decode(data, sizeof(data), &blk, err, sizeof(err)) < 0) {
			say(r->res, AR_PROG_REFUSED, "refused: AR LFT block %u: %s", blocks[i], err);
			return 1;
		}
		for (unsigned e = 0; e < AR_MAD_LFT_SX_ENTRIES; e++) {
			uint32_t lid = blocks[i] * AR_MAD_LFT_SX_ENTRIES + e;
			uint8_t want = lid <= r->max_lid ? r->sw->port[lid] : RT_NO_PORT;

			/* Only routed LIDs: what a switch keeps for the others is
			 * not the static LFT's business. */
			if (want == RT_NO_PORT || blk.e[e].default_port == want)
				continue;
			say(r->res, AR_PROG_REFUSED, "refused: AR LFT block %u does not mirror the "
			    "static LFT (LID %u: %u vs %u): the attribute modifier layout is not "
			    "confirmed on this switch", blocks[i], lid, blk.e[e].default_port,
			    want);
			return 1;
		}
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

/* Read MADs from..to-1 of p back into the same places of copy. */
static int read_back(struct run *r, const struct ar_plan *p, struct ar_plan *copy, size_t from,
		     size_t to, char *why, size_t whylen)
{
	for (size_t i = from; i < to; i++) {
		char what[64];
		unsigned status;
		int rc = get(r, p->mad[i].attr, p->mad[i].am, copy->mad[i].data, &status);

		if (rc < 0)
			return err_fmt(why, whylen, -EIO, "no answer reading back %s (%s)",
				       mad_what(p, i, what, sizeof(what)), strerror(-rc));
		if (status != 0)
			return err_fmt(why, whylen, -EIO, "reading back %s: status 0x%04x",
				       mad_what(p, i, what, sizeof(what)), status);
	}
	return 0;
}

/* d: AR off, the static LFT forwarding. 0, or -EIO with why. */
static int ar_off(struct run *r, const struct ar_plan *p, char *why, size_t whylen)
{
	struct ar_mad_info off;
	uint8_t data[AR_MAD_DATA_LEN];
	char err[128];

	if (ar_mad_info_decode(p->mad[0].data, AR_MAD_DATA_LEN, &off, err, sizeof(err)) < 0)
		return err_fmt(why, whylen, -EIO, "%s", err);
	off.e = 0;
	/* Fault recovery steers by the AR groups, which did not verify. */
	off.fr_enabled = 0;
	if (ar_mad_info_encode(&off, data, sizeof(data), err, sizeof(err)) < 0)
		return err_fmt(why, whylen, -EIO, "%s", err);
	return set_confirmed(r, AR_MAD_ATTR_INFO, ar_mad_info_am(0), data, "ARInfo (AR off)",
			     why, whylen);
}

static void failed(struct run *r, const struct ar_plan *p, const char *what)
{
	char why[256];

	if (ar_off(r, p, why, sizeof(why)) == 0) {
		say(r->res, AR_PROG_FAILED, "failed: %s, AR left off", what);
		return;
	}
	r->res->ar_state_unknown = 1;
	say(r->res, AR_PROG_FAILED, "failed: %s; turning AR off failed too (%s): AR STATE "
	    "UNKNOWN on this switch, check it before trusting its forwarding", what, why);
	log_err("AR programming failed and AR could not be turned off: %s", r->res->reason);
}

/* c: send p, verify it, enable. */
static void send_plan(struct run *r, const struct ar_plan *p)
{
	struct ar_plan copy = *p;
	char why[320], what[64], err[256];
	size_t last = p->n - 1;

	if (!(copy.mad = malloc(p->n * sizeof(*p->mad)))) {
		say(r->res, AR_PROG_REFUSED, "refused: out of memory for the read-back");
		return;
	}
	memcpy(copy.mad, p->mad, p->n * sizeof(*p->mad));
	/* Everything but the enabling Set, then the tables read back and
	 * checked while AR is still off. */
	for (size_t i = 0; i < last; i++)
		if (set_confirmed(r, p->mad[i].attr, p->mad[i].am, p->mad[i].data,
				  mad_what(p, i, what, sizeof(what)), why, sizeof(why)) < 0)
			goto fail;
	if (read_back(r, p, &copy, 1, last, why, sizeof(why)) < 0)
		goto fail;
	if (ar_plan_check(&copy, r->sw, r->max_lid, err, sizeof(err)) < 0) {
		snprintf(why, sizeof(why), "the tables read back differ: %s", err);
		goto fail;
	}
	if (set_confirmed(r, p->mad[last].attr, p->mad[last].am, p->mad[last].data,
			  mad_what(p, last, what, sizeof(what)), why, sizeof(why)) < 0 ||
	    read_back(r, p, &copy, last, last + 1, why, sizeof(why)) < 0)
		goto fail;
	if (ar_plan_check(&copy, r->sw, r->max_lid, err, sizeof(err)) < 0) {
		snprintf(why, sizeof(why), "ARInfo read back differs: %s", err);
		goto fail;
	}
	say(r->res, AR_PROG_PROGRAMMED, "%u AR groups on %s, %u AR LFT blocks verified by "
	    "read-back", p->n_groups, p->sl_mask == AR_PLAN_ALL_SLS ? "every SL" : "some SLs",
	    p->n_lft_blocks);
	if (p->sl_mask != AR_PLAN_ALL_SLS) {
		size_t n = strlen(r->res->reason);

		snprintf(r->res->reason + n, sizeof(r->res->reason) - n, " (SL mask 0x%04x)",
			 p->sl_mask);
	}
	r->res->groups = p->n_groups;
	free(copy.mad);
	return;
fail:
	free(copy.mad);
	failed(r, p, why);
}

int ar_program_switch(const struct ar_xport *x, const struct rt_ar_switch *sw, uint32_t max_lid,
		      const struct ar_program_opts *o, struct ar_program_result *res)
{
	struct run r = { .x = x, .sw = sw, .max_lid = max_lid, .o = o, .res = res };
	struct ar_mad_info cap;
	struct ar_plan *p;
	char err[256];

	if (!x || !x->get || !x->set || !sw || !o || !res)
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	res->shield = o->shield ? AR_PROG_SHIELD_UNSUPPORTED : AR_PROG_SHIELD_OFF;
	if (get_cap(&r, &cap) != 0)
		return 0;
	if (o->shield && cap.is_fr_sup)
		res->shield = AR_PROG_SHIELD_OFF;  /* until it is on */
	if (self_check(&r) != 0)
		return 0;
	if (!(p = ar_plan_new(sw, max_lid, &cap, o->sl_mask, o->shield ? AR_PLAN_SHIELD : 0,
			      err, sizeof(err)))) {
		say(res, AR_PROG_REFUSED, "refused: %s", err);
		return 0;
	}
	if (o->dry_run) {
		res->sets = (unsigned)p->n;
		res->groups = p->n_groups;
		say(res, AR_PROG_DRY_RUN, "would send %zu SubnSets (ARInfo off, %u group-table "
		    "blocks, %u AR LFT blocks, ARInfo %s) and read %zu back", p->n,
		    p->n_group_blocks, p->n_lft_blocks, p->n_groups ? "on" : "off",
		    p->n - 1);
	} else {
		send_plan(&r, p);
	}
	if ((res->outcome == AR_PROG_PROGRAMMED || res->outcome == AR_PROG_DRY_RUN) &&
	    p->fr_enabled)
		res->shield = AR_PROG_SHIELD_ON;
	ar_plan_free(p);
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
