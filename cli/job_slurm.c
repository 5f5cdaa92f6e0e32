/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/job_slurm.c: the nodes Slurm gives a job, for `loomctl job --slurm
 * JOBID`: `squeue -h -j JOBID -o %N` (found on PATH, as an operator runs
 * it), its answer a Slurm hostlist ("gpu[001-004]"). Run without a shell:
 * the job id is checked to be one first (digits, with Slurm's array "_" and
 * heterogeneous "+" parts). */
#include "autoconf.h"
#include "job_slurm.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int is_job_id(const char *s)
{
	if (!*s || strlen(s) > 64 || *s < '0' || *s > '9')
		return 0;
	for (; *s; s++)
		if ((*s < '0' || *s > '9') && *s != '_' && *s != '+')
			return 0;
	return 1;
}

int job_slurm_nodes(const char *jobid, char *out, size_t len, char *err, size_t errlen)
{
	char *argv[] = { "squeue", "-h", "-j", (char *)jobid, "-o", "%N", NULL };
	posix_spawn_file_actions_t fa;
	size_t n = 0;
	int fd[2], status, rc;
	pid_t pid;
	ssize_t r;

	if (!is_job_id(jobid)) {
		snprintf(err, errlen, "\"%s\" is not a Slurm job id", jobid);
		return -EINVAL;
	}
	if (len < 2 || pipe(fd) < 0) {
		snprintf(err, errlen, "cannot run squeue: %s", strerror(errno));
		return -EIO;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	posix_spawn_file_actions_addclose(&fa, fd[1]);
	rc = posix_spawnp(&pid, "squeue", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (rc != 0) {
		close(fd[0]);
		snprintf(err, errlen, "cannot run squeue: %s", strerror(rc));
		return -rc;
	}
	/* The whole answer, or as much as fits: one that does not fit is refused. */
	while ((r = read(fd[0], out + n, len - 1 - n)) > 0 && n + (size_t)r < len - 1)
		n += (size_t)r;
	if (r > 0)
		n = len;  /* filled up: more was coming */
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(err, errlen, "squeue -j %s failed (exit %d): is it a job Slurm knows?",
			 jobid, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return -ENOENT;
	}
	if (n >= len) {
		snprintf(err, errlen, "squeue's node list for job %s is over %zu bytes", jobid,
			 len - 1);
		return -E2BIG;
	}
	out[n] = '\0';
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = '\0';
	if (!n || strchr(out, '\n') || !strcmp(out, "(null)")) {
		snprintf(err, errlen, "Slurm gives job %s no one node list: it is not running, or "
			 "is an array (give one task, ID_N)", jobid);
		return -ENOENT;
	}
	return 0;
}
