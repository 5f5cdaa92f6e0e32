/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/job_slurm.h: the nodes Slurm gives a running job (squeue). */
#ifndef LOOMCTL_JOB_SLURM_H
#define LOOMCTL_JOB_SLURM_H

#include <stddef.h>

/* Job jobid's node list (a Slurm hostlist) into out (len bytes): 0, or
 * -errno with err saying why (not a job id, squeue missing or failing, a
 * job with no nodes, a list longer than len - 1). */
int job_slurm_nodes(const char *jobid, char *out, size_t len, char *err, size_t errlen);

#endif
