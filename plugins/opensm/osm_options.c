/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/opensm/osm_options.c: loom's options file applied over OpenSM's own
 * options, so that loomd writes its ib_qos and ib_cc blocks without writing
 * OpenSM's options file: whoever writes that file chooses what OpenSM, which
 * runs as root, loads and opens at its start (event_plugin_name, log_file,
 * routing files...), and loomd need not be trusted that far.
 *
 * The file: $LOOMOSM_OPTIONS, default LOSM_OPTIONS_FILE (the ib_qos and
 * ib_cc opensm_config loomd writes, /var/lib/loom/opensm.conf). While it
 * does not exist nothing is done: loom's blocks may then be in OpenSM's own
 * file, as before.
 *
 * When: at the end of every heavy sweep's discovery (HEAVY_SWEEP_DONE),
 * after OpenSM re-read its own file (opensm/osm_state_mgr.c do_sweep, at a
 * forced heavy sweep and again after discovery) and before it programs
 * partitions, QoS and congestion control. How: OpenSM's own parser
 * (osm_subn_rescan_conf_files) reads a copy of OpenSM's own file followed by
 * loom's lines (a memfd, named to OpenSM for the call's duration): exactly
 * what OpenSM would do with loom's block at the end of its own file (later
 * lines win; OpenSM resets its qos_* options before a re-read, so its own
 * file must be read again with them). Only the options OpenSM takes while
 * running are applied, and of loom's file only these lines: qos, qos_*
 * (not qos_policy_file), congestion_control, cc_* (not cc_key nor
 * cc_max_outstanding_mads, which OpenSM reads at its start only: they
 * belong in OpenSM's own file). Any other line is ignored and said once
 * (ERR LOOM10). Everything here runs on OpenSM's state manager thread. */
#include "autoconf.h"
#include "loomosm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct losm_options {
	osm_opensm_t *osm;
	const char *own;             /* OpenSM's own options file (NULL: none) */
	char path[256];
	struct timespec seen_mtime;  /* the file as last said in the log */
	off_t seen_size;
	int seen;
};

struct losm_options *losm_options_new(osm_opensm_t *osm)
{
	struct losm_options *o = calloc(1, sizeof(*o));
	const char *path = getenv("LOOMOSM_OPTIONS");

	if (!o)
		return NULL;
	o->osm = osm;
	/* Parsed before plugins are created; osm_options_apply names a copy
	 * in config_file for a moment, never this. */
	o->own = osm->subn.opt.config_file;
	if (!path || !*path)
		path = LOSM_OPTIONS_FILE;
	if (path[0] != '/' || strlen(path) >= sizeof(o->path)) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR LOOM10: loomosm: LOOMOSM_OPTIONS \"%s\" is "
			"not an absolute path of at most %zu bytes: loom's options are not "
			"applied\n", path, sizeof(o->path) - 1);
		return o;
	}
	snprintf(o->path, sizeof(o->path), "%s", path);
	return o;
}

const char *losm_options_own(const struct losm_options *o)
{
	return o ? o->own : NULL;
}

void losm_options_free(struct losm_options *o)
{
	free(o);
}

const char *losm_options_path(const struct losm_options *o)
{
	struct stat st;

	return o && o->path[0] && stat(o->path, &st) == 0 ? o->path : NULL;
}

/* May loom's file set option `key`? 1 yes, 0 a start-only option of
 * loom's (OpenSM would skip it anyway: passed over quietly), -1 no. */
static int allowed(const char *key)
{
	if (!strcmp(key, "cc_key") || !strcmp(key, "cc_max_outstanding_mads"))
		return 0;
	if (!strcmp(key, "qos") || !strcmp(key, "congestion_control") ||
	    !strncmp(key, "cc_", 3))
		return 1;
	if (!strncmp(key, "qos_", 4))
		return strcmp(key, "qos_policy_file") != 0 ? 1 : -1;
	return -1;
}

/* Copy a whole file into fd (a missing file copies nothing). */
static int copy_file(const char *path, int fd)
{
	FILE *f = path ? fopen(path, "re") : NULL;
	char buf[4096];
	size_t n;
	int rc = 0;

	if (!f)
		return 0;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (write(fd, buf, n) != (ssize_t)n) {
			rc = -1;
			break;
		}
	fclose(f);
	return rc;
}

/* loom's allowed lines into fd: how many, or -1 (write failed). say: log
 * what is ignored. */
static int copy_allowed(const struct losm_options *o, FILE *f, int fd, int say)
{
	char line[1024], key[64];
	int n = 0, lineno = 0, ok;

	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (sscanf(line, " %63[^ \t\n#]", key) != 1)
			continue;  /* blank, or a comment */
		if ((ok = allowed(key)) == 0)
			continue;
		if (ok < 0) {
			if (say)
				OSM_LOG(&o->osm->log, OSM_LOG_ERROR, "ERR LOOM10: loomosm: %s:%d: "
					"%s is not an option loom may set (qos, qos_*, "
					"congestion_control, cc_*): ignored\n", o->path, lineno, key);
			continue;
		}
		if (write(fd, line, strlen(line)) != (ssize_t)strlen(line) ||
		    (line[strlen(line) - 1] != '\n' && write(fd, "\n", 1) != 1))
			return -1;
		n++;
	}
	return n;
}

void losm_options_apply(struct losm_options *o)
{
	osm_subn_opt_t *opt = &o->osm->subn.opt;
	const char *own = opt->config_file;
	char merged[64];
	struct stat st;
	FILE *f;
	int fd, n, say, rc;

	if (!o || !o->path[0] || !(f = fopen(o->path, "re")))
		return;  /* no file of loom's: nothing to apply */
	/* Said once per version of the file, not at every sweep. */
	say = fstat(fileno(f), &st) == 0 &&
	      (!o->seen || st.st_size != o->seen_size ||
	       st.st_mtim.tv_sec != o->seen_mtime.tv_sec ||
	       st.st_mtim.tv_nsec != o->seen_mtime.tv_nsec);
	if (say) {
		o->seen = 1;
		o->seen_size = st.st_size;
		o->seen_mtime = st.st_mtim;
	}
	if ((fd = memfd_create("loomosm-options", MFD_CLOEXEC)) < 0) {
		OSM_LOG(&o->osm->log, OSM_LOG_ERROR, "ERR LOOM10: loomosm: no memory file to "
			"apply %s: %s\n", o->path, strerror(errno));
		fclose(f);
		return;
	}
	if (copy_file(own, fd) < 0 || write(fd, "\n", 1) != 1 ||
	    (n = copy_allowed(o, f, fd, say)) < 0) {
		OSM_LOG(&o->osm->log, OSM_LOG_ERROR, "ERR LOOM10: loomosm: cannot copy the "
			"options to apply %s: %s\n", o->path, strerror(errno));
		fclose(f);
		close(fd);
		return;
	}
	fclose(f);
	if (n == 0) {  /* nothing of loom's: OpenSM's own re-read stands */
		close(fd);
		return;
	}
	snprintf(merged, sizeof(merged), "/proc/self/fd/%d", fd);
	opt->config_file = merged;
	rc = osm_subn_rescan_conf_files(&o->osm->subn);
	opt->config_file = own;
	close(fd);
	if (rc < 0)
		OSM_LOG(&o->osm->log, OSM_LOG_ERROR, "ERR LOOM10: loomosm: OpenSM could not read "
			"the options of %s over %s\n", o->path, own ? own : "its defaults");
	else if (say)
		OSM_LOG(&o->osm->log, OSM_LOG_INFO, "loomosm: %d option line(s) of %s applied "
			"over %s\n", n, o->path, own ? own : "OpenSM's defaults");
}
