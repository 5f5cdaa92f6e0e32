/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/store_backup.c: a copy of the database before a migration
 * changes it (issue 40, docs/upgrade.md): PATH.schema-N.bak, written with
 * SQLite's online backup API (a consistent copy, WAL included, without
 * stopping anyone), mode 0640 in the database file's group, the newest
 * STORE_BACKUPS_KEPT of them kept. store.c calls it once, before the first
 * migration step of an open; a copy that cannot be made refuses the
 * migration (the database stays as it was). */
#include "autoconf.h"
#include "daemon/core/store_backup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

/* The schema N of a file named BASE.schema-N.bak, or -1. */
static int backup_version(const char *name, const char *base)
{
	size_t n = strlen(base);
	char *end;
	long v;

	if (strncmp(name, base, n) != 0 || strncmp(name + n, ".schema-", 8) != 0)
		return -1;
	v = strtol(name + n + 8, &end, 10);
	if (end == name + n + 8 || strcmp(end, ".bak") != 0 || v < 0 || v > INT_MAX)
		return -1;
	return (int)v;
}

static int cmp_int_desc(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x < y) - (x > y);
}

/* Remove all but the newest `keep` copies of the database at path. */
static void prune(const char *path, int keep)
{
	char dir[PATH_MAX], file[PATH_MAX];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	int versions[256], n = 0;
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	if (!dir[0])
		snprintf(dir, sizeof(dir), "/");
	if (!(d = opendir(dir)))
		return;
	while ((e = readdir(d)) && n < (int)(sizeof(versions) / sizeof(versions[0]))) {
		int v = backup_version(e->d_name, base);

		if (v >= 0)
			versions[n++] = v;
	}
	closedir(d);
	qsort(versions, (size_t)n, sizeof(versions[0]), cmp_int_desc);
	for (int i = keep; i < n; i++) {
		snprintf(file, sizeof(file), "%s.schema-%d.bak", path, versions[i]);
		unlink(file);
	}
}

/* An empty file at dst, 0640 in the group of the database at path. */
static int make_file(const char *path, const char *dst)
{
	struct stat st;
	int fd;

	unlink(dst);  /* an older copy of the same schema: this one is newer */
	if ((fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0640)) < 0)
		return -errno;
	if (stat(path, &st) == 0) {
		int ignored = fchown(fd, (uid_t)-1, st.st_gid);

		(void)ignored;  /* not in that group: the mode alone keeps others out */
	}
	close(fd);
	return 0;
}

int store_backup(sqlite3 *db, const char *path, int version, char *out, size_t outlen,
		 char *err, size_t errlen)
{
	sqlite3 *copy = NULL;
	sqlite3_backup *b;
	int rc;

	snprintf(out, outlen, "%s.schema-%d.bak", path, version);
	if ((rc = make_file(path, out)) < 0) {
		snprintf(err, errlen, "%s: %s", out, strerror(-rc));
		return rc;
	}
	if (sqlite3_open_v2(out, &copy, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	    !(b = sqlite3_backup_init(copy, "main", db, "main"))) {
		snprintf(err, errlen, "%s: %s", out, copy ? sqlite3_errmsg(copy) : "out of memory");
		goto fail;
	}
	rc = sqlite3_backup_step(b, -1);
	sqlite3_backup_finish(b);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "%s: %s", out, sqlite3_errstr(rc));
		goto fail;
	}
	if (sqlite3_close(copy) != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot close the copy", out);
		copy = NULL;
		goto fail;
	}
	prune(path, STORE_BACKUPS_KEPT);
	return 0;
fail:
	sqlite3_close(copy);
	unlink(out);
	return -EIO;
}
