/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/config_writable.c: whether a user could write the paths the
 * configuration makes loomd write (config_writable.h). The kernel's rule
 * for each: every directory from / down must be searchable (x), the
 * nearest existing directory must take entries (w and x), a file written
 * in place must be writable (w), a file in a sticky directory can be
 * replaced only by its owner or the directory's, and nothing is written on
 * a read-only file system. Root passes the mode checks, not the last. */
#include "autoconf.h"
#include "daemon/core/config_writable.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "daemon/core/config_parse.h"

/* What loomd.service makes writable (its ReadWritePaths=, StateDirectory=
 * and RuntimeDirectory=, which systemd creates and chowns to User=, with
 * what they hold, at each start): everything else is read-only under it
 * (ProtectSystem=strict). */
static const char *const unit_writable[] = { "/var/lib/loom", "/run/loom" };

int cfg_user_lookup(const char *name, struct cfg_user *u, char *err, size_t errlen)
{
	struct passwd *pw;
	char *end;
	int n;

	memset(u, 0, sizeof(*u));
	if (!name) {
		u->uid = geteuid();
		u->gid = getegid();
		pw = getpwuid(u->uid);
		snprintf(u->name, sizeof(u->name), "%s", pw ? pw->pw_name : "");
		if (!pw)
			snprintf(u->name, sizeof(u->name), "%u", (unsigned)u->uid);
		u->groups[0] = u->gid;
		n = getgroups(CFG_USER_MAX_GROUPS - 1, u->groups + 1);
		if (n < 0) {
			snprintf(err, errlen, "cannot read this process's groups: %s", strerror(errno));
			return -errno;
		}
		u->n_groups = n + 1;
		return 0;
	}
	errno = 0;
	pw = getpwnam(name);
	if (!pw && name[0] >= '0' && name[0] <= '9') {
		unsigned long id = strtoul(name, &end, 10);

		if (!*end && id < (unsigned long)UINT_MAX)
			pw = getpwuid((uid_t)id);
	}
	if (!pw) {
		snprintf(err, errlen, "no user \"%s\"%s%s", name, errno ? ": " : "",
			 errno ? strerror(errno) : "");
		return -ENOENT;
	}
	snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	n = CFG_USER_MAX_GROUPS;
	if (getgrouplist(pw->pw_name, pw->pw_gid, u->groups, &n) < 0) {
		snprintf(err, errlen, "user %s is in more than %d groups", pw->pw_name,
			 CFG_USER_MAX_GROUPS);
		return -E2BIG;
	}
	u->n_groups = n;
	return 0;
}

static int in_group(const struct cfg_user *u, gid_t g)
{
	for (int i = 0; i < u->n_groups; i++)
		if (u->groups[i] == g)
			return 1;
	return u->gid == g;
}

/* The rwx bits (4, 2, 1) st grants u, as the kernel picks them: owner,
 * else group, else others; root has them all (x on a file only if some
 * class has it). */
static unsigned granted(const struct cfg_user *u, const struct stat *st)
{
	if (u->uid == 0)
		return S_ISDIR(st->st_mode) || (st->st_mode & 0111) ? 7 : 6;
	if (st->st_uid == u->uid)
		return (st->st_mode >> 6) & 7;
	if (in_group(u, st->st_gid))
		return (st->st_mode >> 3) & 7;
	return st->st_mode & 7;
}

static void owner_mode(const struct stat *st, char *buf, size_t len)
{
	struct passwd *pw = getpwuid(st->st_uid);
	struct group *gr = getgrgid(st->st_gid);
	char uid[16], gid[16];

	snprintf(uid, sizeof(uid), "%u", (unsigned)st->st_uid);
	snprintf(gid, sizeof(gid), "%u", (unsigned)st->st_gid);
	snprintf(buf, len, "%s:%s %04o", pw ? pw->pw_name : uid, gr ? gr->gr_name : gid,
		 (unsigned)(st->st_mode & 07777));
}

static int deny(const struct cfg_user *u, const char *what, const char *path,
		const struct stat *st, char *why, size_t whylen)
{
	char om[160];

	owner_mode(st, om, sizeof(om));
	snprintf(why, whylen, "user %s cannot %s %s (%s)", u->name, what, path, om);
	return -EACCES;
}

static void parent_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	snprintf(dir, len, "%.*s", n ? (int)n : 1, n ? path : "/");
}

/* Every directory from / down to dir (included) searchable by u. */
static int searchable(const struct cfg_user *u, const char *dir, char *why, size_t whylen)
{
	char prefix[PATH_MAX];
	struct stat st;
	size_t len = strlen(dir);

	for (size_t i = 1; i <= len; i++) {
		if (i < len && dir[i] != '/')
			continue;
		snprintf(prefix, sizeof(prefix), "%.*s", (int)i, dir);
		if (stat(prefix, &st) < 0)
			continue;  /* judged by the caller's own stat */
		if (!(granted(u, &st) & 1))
			return deny(u, "enter directory", prefix, &st, why, whylen);
	}
	return 0;
}

int cfg_user_may_write(const struct cfg_user *u, const char *path, int how, char *why,
		       size_t whylen)
{
	char dir[PATH_MAX], up[PATH_MAX];
	struct stat st, dst;
	struct statvfs vfs;
	int rc;

	parent_of(path, dir, sizeof(dir));
	while (stat(dir, &dst) < 0) {
		if ((errno != ENOENT && errno != ENOTDIR) || !strcmp(dir, "/")) {
			rc = -errno;
			snprintf(why, whylen, "directory %s: %s", dir, strerror(-rc));
			return rc;
		}
		snprintf(up, sizeof(up), "%s", dir);
		parent_of(up, dir, sizeof(dir));
	}
	if (!S_ISDIR(dst.st_mode)) {
		snprintf(why, whylen, "%s is not a directory", dir);
		return -ENOTDIR;
	}
	if ((rc = searchable(u, dir, why, whylen)) < 0)
		return rc;
	if ((granted(u, &dst) & 3) != 3)
		return deny(u, "create files in directory", dir, &dst, why, whylen);
	if (statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_RDONLY)) {
		snprintf(why, whylen, "%s is on a read-only file system", dir);
		return -EROFS;
	}
	if (lstat(path, &st) < 0)
		return 0;
	if (how == CFG_WRITE_IN_PLACE && S_ISREG(st.st_mode) && !(granted(u, &st) & 2))
		return deny(u, "write", path, &st, why, whylen);
	if ((dst.st_mode & S_ISVTX) && u->uid != 0 && st.st_uid != u->uid &&
	    dst.st_uid != u->uid)
		return deny(u, "replace (sticky directory, not its owner)", path, &st, why, whylen);
	return 0;
}

static int under_unit_writable(const char *path)
{
	for (size_t i = 0; i < sizeof(unit_writable) / sizeof(unit_writable[0]); i++) {
		size_t n = strlen(unit_writable[i]);

		if (!strncmp(path, unit_writable[i], n) && path[n] == '/')
			return 1;
	}
	return 0;
}

struct warn_ctx {
	const struct cfg_user *u;
	int unit;
	FILE *out;
	int n;
};

static void warn_path(void *arg, const char *key, const char *path, enum cfg_write how)
{
	struct warn_ctx *w = arg;
	char why[2 * PATH_MAX + 256];

	/* Under the unit, systemd makes its directories and gives them, and
	 * all they hold, to its User= at every start. */
	if (w->unit && under_unit_writable(path))
		return;
	if (cfg_user_may_write(w->u, path, how, why, sizeof(why)) < 0) {
		fprintf(w->out, "loomd: warning: %s: %s: %s\n", key, path, why);
		w->n++;
	}
	if (w->unit) {
		fprintf(w->out, "loomd: warning: %s: %s: loomd.service lets loomd write only under "
			"%s and %s (ProtectSystem=strict, ReadWritePaths=)\n", key, path,
			unit_writable[0], unit_writable[1]);
		w->n++;
	}
}

int config_warn_unwritable(const struct loom_config *c, const struct cfg_user *u, int unit,
			   FILE *out)
{
	struct warn_ctx w = { .u = u, .unit = unit, .out = out };

	config_written(c, warn_path, &w);
	return w.n;
}
