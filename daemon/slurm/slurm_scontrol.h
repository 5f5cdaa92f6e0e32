/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/slurm/slurm_scontrol.h: scontrol run from a worker thread of the
 * slurm module (topology's `scontrol reconfigure`, slurm_drain.c's `show
 * node` and `update`), the one runner of the folder: posix_spawn of
 * slurm.scontrol with loomd's environment (SLURM_CONF, if set, tells it
 * which slurm.conf), its stdout and stderr read together, bounded in time.
 * Never on the loop. */
#ifndef LOOMD_SLURM_SCONTROL_H
#define LOOMD_SLURM_SCONTROL_H

#include <stdatomic.h>
#include <stddef.h>

#define SLURM_SCONTROL_TIMEOUT_MS 30000

/* Run `prog args...` (args ends with NULL, without the program) for at most
 * timeout_ms; `cancel` (NULL: none), once set, kills it too. out (outlen > 0)
 * gets the output as it was, cut to outlen - 1 bytes, trailing white space
 * removed. 0: it exited 0. -EIO: it could not run, exited non-zero or was
 * killed (why: "PROG ARGS exited N: OUTPUT" on one line); -ETIMEDOUT: "PROG
 * ARGS did not end in N s"; -ECANCELED: cancel was set. */
int slurm_scontrol_run(const char *prog, const char *const *args, int timeout_ms,
		       const atomic_int *cancel, char *out, size_t outlen, char *why,
		       size_t whylen);

#endif
