/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/opensm/osm_isolated.c: loomd's isolated set inside OpenSM (issue 42).
 * loomd writes the links it takes out of the routes to a file
 * ($LOOMOSM_ISOLATED, default ISO_SET_PATH; format in
 * lib/fabric/isolated_set.h); at the start of each routing run of any of
 * loom's engines (osm_engine.c build_fwd_tables) the file is read again when
 * its inode, size or mtime changed (one stat otherwise), and its links are
 * removed from the fabric graph before the engine sees it, as if their
 * cables were absent: the links stay up, nothing is routed over them.
 *
 * No file: the empty set (version 0). A file that cannot be read or parsed:
 * ERR LOOM11 naming the file and the line, once per bad content, and the
 * previous set stays in force: a typo must never put back on the routes a
 * link loomd meant to keep out. Runs only under OpenSM's lock, one routing
 * run at a time: no locking here. */
#include "autoconf.h"
#include "loomosm.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/isolated_set.h"

/* Larger than any set loomd writes (65536 entries with their comments). */
#define ISOLATED_MAX_BYTES (16u << 20)

struct losm_isolated {
	osm_opensm_t *osm;
	char path[512];
	/* What the file was when last read (have_stat 0: never read, or absent). */
	int have_stat;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	uint64_t bad_hash;         /* the bad content last logged (0: none) */
	struct iso_set set;        /* in force */
	unsigned last_removed;     /* links the last run left out */
};

struct losm_isolated *losm_isolated_new(osm_opensm_t *osm)
{
	struct losm_isolated *iso = calloc(1, sizeof(*iso));
	const char *path = getenv("LOOMOSM_ISOLATED");

	if (!iso)
		return NULL;
	iso->osm = osm;
	snprintf(iso->path, sizeof(iso->path), "%s", path && *path ? path : ISO_SET_PATH);
	return iso;
}

void losm_isolated_free(struct losm_isolated *iso)
{
	if (!iso)
		return;
	iso_set_free(&iso->set);
	free(iso);
}

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h ? h : 1;
}

/* The bad content `what` (hashed by h) said once; the set in force stays. */
static void refuse(struct losm_isolated *iso, uint64_t h, const char *what)
{
	if (iso->bad_hash == h)
		return;
	iso->bad_hash = h;
	OSM_LOG(&iso->osm->log, OSM_LOG_ERROR, "ERR LOOM11: loomosm: isolated links file %s: "
		"%s; the previous set (version %" PRIu64 ", %zu entr%s) stays in force\n",
		iso->path, what, iso->set.version, iso->set.n, iso->set.n == 1 ? "y" : "ies");
}

static void keep_stat(struct losm_isolated *iso, const struct stat *st)
{
	iso->have_stat = 1;
	iso->dev = st->st_dev;
	iso->ino = st->st_ino;
	iso->size = st->st_size;
	iso->mtime = st->st_mtim;
}

/* The whole file into a malloc'd buffer (*len bytes): 0 or -errno. */
static int read_all(int fd, size_t size, char **out, size_t *len)
{
	char *buf = malloc(size + 1);
	size_t n = 0;

	if (!buf)
		return -ENOMEM;
	while (n <= size) {
		ssize_t r = read(fd, buf + n, size + 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = -errno;

			free(buf);
			return e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > size) {   /* grew while read: its writer is not loomd's rename */
		free(buf);
		return -EAGAIN;
	}
	*out = buf;
	*len = n;
	return 0;
}

/* Read the file again if it changed since the last read. */
static void refresh(struct losm_isolated *iso)
{
	struct stat st;
	struct iso_set next;
	char err[200], what[320], *text = NULL;
	size_t len = 0;
	int fd, rc;

	if (stat(iso->path, &st) < 0) {
		if (errno != ENOENT) {
			snprintf(what, sizeof(what), "%s", strerror(errno));
			refuse(iso, fnv1a(what, strlen(what)), what);
			return;
		}
		/* Absent: no link is isolated. */
		if (iso->have_stat || iso->set.n || iso->set.version)
			OSM_LOG(&iso->osm->log, OSM_LOG_INFO, "loomosm: isolated links file %s is "
				"gone: no link is left out of the routes\n", iso->path);
		iso_set_free(&iso->set);
		iso->have_stat = 0;
		iso->bad_hash = 0;
		return;
	}
	if (iso->have_stat && st.st_dev == iso->dev && st.st_ino == iso->ino &&
	    st.st_size == iso->size && st.st_mtim.tv_sec == iso->mtime.tv_sec &&
	    st.st_mtim.tv_nsec == iso->mtime.tv_nsec)
		return;
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size > ISOLATED_MAX_BYTES) {
		snprintf(what, sizeof(what), S_ISREG(st.st_mode) ? "larger than %u bytes" :
			 "not a regular file", ISOLATED_MAX_BYTES);
		refuse(iso, fnv1a(what, strlen(what)) ^ (uint64_t)st.st_ino, what);
		return;
	}
	fd = open(iso->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || (rc = read_all(fd, (size_t)st.st_size, &text, &len)) < 0) {
		rc = fd < 0 ? -errno : rc;
		if (fd >= 0)
			close(fd);
		snprintf(what, sizeof(what), "cannot read it: %s", strerror(-rc));
		refuse(iso, fnv1a(what, strlen(what)), what);
		return;
	}
	close(fd);
	rc = iso_set_parse(text, len, &next, err, sizeof(err));
	if (rc < 0) {
		snprintf(what, sizeof(what), "%s", err);
		refuse(iso, fnv1a(text, len), what);
		free(text);
		/* The stat is not kept: a rewrite with the same size and
		 * time would otherwise never be read. */
		return;
	}
	free(text);
	keep_stat(iso, &st);
	iso->bad_hash = 0;
	if (next.version != iso->set.version || next.n != iso->set.n)
		OSM_LOG(&iso->osm->log, OSM_LOG_INFO, "loomosm: isolated links file %s: version %"
			PRIu64 ", %zu entr%s (was version %" PRIu64 ", %zu)\n", iso->path,
			next.version, next.n, next.n == 1 ? "y" : "ies", iso->set.version,
			iso->set.n);
	iso_set_free(&iso->set);
	iso->set = next;
}

unsigned losm_isolated_apply(struct losm_isolated *iso, struct fab *fab, const char *engine)
{
	size_t removed;

	if (!iso)
		return 0;
	refresh(iso);
	removed = iso_set_apply(&iso->set, fab);
	if (removed || iso->last_removed)
		OSM_LOG(&iso->osm->log, OSM_LOG_INFO, "loom engine %s: %zu isolated link%s left "
			"out of the routes (set version %" PRIu64 ", %zu entr%s)\n", engine, removed,
			removed == 1 ? "" : "s", iso->set.version, iso->set.n,
			iso->set.n == 1 ? "y" : "ies");
	iso->last_removed = (unsigned)removed;
	return (unsigned)removed;
}

uint64_t losm_isolated_version(const struct losm_isolated *iso)
{
	return iso ? iso->set.version : 0;
}
