/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/slurm/slurm_scontrol.c: see slurm_scontrol.h. */
#include "autoconf.h"
#include "daemon/slurm/slurm_scontrol.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/util/clock.h"

extern char **environ;

#define SLURM_SCONTROL_ARGS 8
#define CANCEL_POLL_MS 200

/* "PROG ARG ARG" for messages. */
static void command_of(const char *prog, const char *const *args, char *cmd, size_t len)
{
	size_t n = (size_t)snprintf(cmd, len, "%.200s", prog);

	for (size_t i = 0; args[i] && n < len; i++)
		n += (size_t)snprintf(cmd + n, len - n, " %.100s", args[i]);
}

static void one_line(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

int slurm_scontrol_run(const char *prog, const char *const *args, int timeout_ms,
		       const atomic_int *cancel, char *out, size_t outlen, char *why,
		       size_t whylen)
{
	char *argv[SLURM_SCONTROL_ARGS + 2];
	char cmd[512], flat[512];
	posix_spawn_file_actions_t fa;
	size_t n = 0, na;
	int fds[2], rc, status = 0, timed_out = 0, canceled = 0;
	double deadline = clock_mono() + timeout_ms / 1000.0;
	pid_t pid;

	out[0] = '\0';
	command_of(prog, args, cmd, sizeof(cmd));
	argv[0] = (char *)prog;
	for (na = 0; args[na]; na++) {
		if (na == SLURM_SCONTROL_ARGS) {
			snprintf(why, whylen, "%s: too many arguments", cmd);
			return -EINVAL;
		}
		argv[na + 1] = (char *)args[na];
	}
	argv[na + 1] = NULL;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(why, whylen, "cannot run %.200s: %s", prog, strerror(errno));
		return -EIO;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDERR_FILENO);
	rc = posix_spawn(&pid, prog, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		snprintf(why, whylen, "cannot run %.200s: %s", prog, strerror(rc));
		return -EIO;
	}
	for (;;) {
		struct pollfd p = { .fd = fds[0], .events = POLLIN };
		int left = (int)((deadline - clock_mono()) * 1000.0);
		ssize_t r;
		char sink[256];

		if (cancel && atomic_load(cancel)) {
			canceled = 1;
			kill(pid, SIGKILL);
			break;
		}
		if (left <= 0) {
			timed_out = 1;
			kill(pid, SIGKILL);
			break;
		}
		if (poll(&p, 1, left < CANCEL_POLL_MS ? left : CANCEL_POLL_MS) <= 0)
			continue;
		if (n + 1 < outlen)
			r = read(fds[0], out + n, outlen - 1 - n);
		else
			r = read(fds[0], sink, sizeof(sink));
		if (r <= 0)
			break;
		if (n + 1 < outlen)
			n += (size_t)r;
	}
	close(fds[0]);
	out[n] = '\0';
	while (n && (out[n - 1] == ' ' || out[n - 1] == '\n' || out[n - 1] == '\r'))
		out[--n] = '\0';
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (canceled) {
		snprintf(why, whylen, "%s: canceled (loomd is shutting down)", cmd);
		return -ECANCELED;
	}
	if (timed_out) {
		snprintf(why, whylen, "%s did not end in %d s", cmd, timeout_ms / 1000);
		return -ETIMEDOUT;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	snprintf(flat, sizeof(flat), "%s", n ? out : "(no output)");
	one_line(flat);
	if (WIFEXITED(status))
		snprintf(why, whylen, "%s exited %d: %s", cmd, WEXITSTATUS(status), flat);
	else
		snprintf(why, whylen, "%s was killed by signal %d", cmd, WTERMSIG(status));
	return -EIO;
}
