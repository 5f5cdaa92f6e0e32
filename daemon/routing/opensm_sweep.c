/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/routing/opensm_sweep.c: see opensm_sweep.h. */
#include "autoconf.h"
#include "daemon/routing/opensm_sweep.h"

#include <errno.h>
#include <signal.h>
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

/* The pid to signal, or -ESRCH with err saying why there is none. */
static int find_pid(const char *pid_file, struct store *st, char *err, size_t errlen)
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
	snprintf(err, errlen, "no OpenSM to ask: load libloomosm.so into OpenSM "
		 "(event_plugin_name loomosm), or set tenants.opensm_pid_file");
	return -ESRCH;
}

void opensm_sweep_find(struct osm_report *rep, const char *pid_file, struct store *st,
		       struct opensm_sweep *s)
{
	int pid;

	memset(s, 0, sizeof(*s));
	s->has_peer = osm_report_peer(rep, &s->peer) == 0;
	pid = find_pid(pid_file, st, s->why, sizeof(s->why));
	s->pid = pid > 0 ? pid : 0;
	if (s->has_peer)
		s->why[0] = '\0';
}

/* Ask the plugin with `plugin_ask`, else signal OpenSM (a heavy sweep, which
 * also re-reads the files and routes again). */
static int ask(const struct opensm_sweep *s,
	       int (*plugin_ask)(const struct osm_report_peer *p, const char *why),
	       const char *why, int *pid, char *how, size_t howlen)
{
	char plugin[256] = "";
	int rc;

	*pid = 0;
	if (s->has_peer) {
		if ((rc = plugin_ask(&s->peer, why)) == 0) {
			*pid = s->peer.pid;
			snprintf(how, howlen, "asked libloomosm.so in OpenSM pid %d", s->peer.pid);
			return 0;
		}
		snprintf(plugin, sizeof(plugin), "libloomosm.so of OpenSM pid %d: %s; ",
			 s->peer.pid, strerror(-rc));
	}
	if (s->pid > 0) {
		if (kill(s->pid, SIGHUP) == 0) {
			*pid = s->pid;
			snprintf(how, howlen, "signalled OpenSM pid %d", s->pid);
			return 0;
		}
		rc = -errno;
		snprintf(how, howlen, "%scannot signal OpenSM pid %d: %s%s", plugin, s->pid,
			 strerror(-rc), rc == -EPERM ? " (load libloomosm.so into OpenSM: loomd "
			 "asks it without a signal)" : "");
		return rc;
	}
	snprintf(how, howlen, "%s%s", plugin, s->why[0] ? s->why : "no OpenSM to ask");
	return -ESRCH;
}

int opensm_sweep_ask(const struct opensm_sweep *s, const char *why, int *pid, char *how,
		     size_t howlen)
{
	return ask(s, osm_report_ask_heavy_sweep, why, pid, how, howlen);
}

int opensm_sweep_reroute(const struct opensm_sweep *s, const char *why, int *pid, char *how,
			 size_t howlen)
{
	return ask(s, osm_report_ask_reroute, why, pid, how, howlen);
}
