/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/slurm/slurm_drain.h: a host drained in Slurm, and resumed, for loom
 * (issue 42: a host whose only cable is bad is not cut off the fabric; the
 * isolation module, on the HA leader only, asks for its node to be drained
 * and, after the probation, resumed). Called on the loop; scontrol runs on
 * the module's "slurm drain" work queue, one request at a time in the order
 * asked, each scontrol bounded by 30 s (slurm_scontrol.h): `scontrol show
 * node -o HOST` first (lib/slurm/slurm_node.h reads State= and Reason=),
 * then `scontrol update nodename=HOST state=drain reason="loom: WHY"` or
 * `state=undrain` (Slurm 20.11+: the drain flag cleared, a DOWN node stays
 * DOWN), then `show node` again to report what Slurm shows. Needs only
 * slurm.scontrol (and SLURM_CONF in loomd's environment when slurm.conf is
 * not where scontrol looks): slurm.topology_file may be off.
 *
 * loom never resumes a node someone else drained (a reason that does not
 * start "loom:", also when an operator rewrote loom's reason), never drains
 * a node that is already drained or down for another reason (its reason
 * would be overwritten), and never touches a DOWN node's base state. A
 * window stays between the check and the update: someone may drain the node
 * there; the state read after says so (-EPERM). At once, besides -ENOTSUP:
 * -EINVAL when host is not one Slurm node name (slurm_node_name_ok: no host
 * list, no '=') or done is NULL; -EBUSY when 256 requests wait or run. */
#ifndef LOOMD_SLURM_DRAIN_H
#define LOOMD_SLURM_DRAIN_H

struct slurm_mod;
/* What became of a drain or resume. */
struct slurm_node_result {
	int rc;              /* 0 done; -EPERM: drained/down by someone else (not resumed); -ENOENT: no such node in Slurm; -EIO/-ETIMEDOUT: scontrol failed, msg says */
	const char *state;   /* the node's state as scontrol shows it after the step ("DRAIN", "IDLE+DRAIN", "MIXED"...), "" unknown */
	const char *reason;  /* its Reason= ("" none) */
	const char *msg;     /* one line for an event or an answer */
};
typedef void (*slurm_node_done_fn)(void *arg, const struct slurm_node_result *res);
/* Drain host with reason "loom: WHY" (why: printable, cut to 200 bytes). A node already drained by someone else is left as it is: rc -EPERM, its reason in res. A node loom already drained: 0. */
int slurm_drain(struct slurm_mod *s, const char *host, const char *why, slurm_node_done_fn done, void *arg);
/* Resume host only if it is drained (DRAIN/DRAINING/DRAINED) with a reason that starts "loom:"; a node drained for another reason: -EPERM, untouched; a node not drained: 0 (nothing to do). */
int slurm_resume(struct slurm_mod *s, const char *host, slurm_node_done_fn done, void *arg);
/* Both return 0 when queued (done is called later on the loop, exactly once, also at shutdown with -ECANCELED) or -errno at once (-ENOTSUP when slurm is not configured to run scontrol). */

#endif
