/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/routing/opensm_pid.c: see opensm_pid.h. */
#include "autoconf.h"
#include "daemon/routing/opensm_pid.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/routing/store_routing.h"

/* Is `pid` an OpenSM (not a process that reused the pid of one)? */
static int is_opensm(int pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (!(f = fopen(path, "r")))
		return 0;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strncmp(comm, "opensm", 6);
}

int opensm_pid_find(const char *pid_file, struct store *st, char *err, size_t errlen)
{
	int pid = 0;

	if (pid_file && pid_file[0]) {
		FILE *f = fopen(pid_file, "r");

		if (!f || fscanf(f, "%d", &pid) != 1 || pid <= 1) {
			snprintf(err, errlen, "OpenSM's pid file %s: %s", pid_file,
				 f ? "no pid in it" : strerror(errno));
			if (f)
				fclose(f);
			return -ESRCH;
		}
		fclose(f);
		if (!is_opensm(pid)) {
			snprintf(err, errlen, "OpenSM's pid file %s: pid %d is not a running opensm",
				 pid_file, pid);
			return -ESRCH;
		}
		return pid;
	}
	if (st && store_last_sm_pid(st, &pid) == 0 && pid > 1 && is_opensm(pid))
		return pid;
	snprintf(err, errlen, "no OpenSM to signal: set tenants.opensm_pid_file, or load "
		 "libloomosm.so into OpenSM (event_plugin_name loomosm)");
	return -ESRCH;
}
