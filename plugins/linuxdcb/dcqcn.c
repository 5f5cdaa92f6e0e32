/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/linuxdcb/dcqcn.c: DCQCN through mlx5's ecn sysfs files (dcqcn.h). */
#include "autoconf.h"
#include "dcqcn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int dcqcn_present(const char *root, const char *dev)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s/ecn", root, dev);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ROOT/DEV/ecn/REL into path; -ENAMETOOLONG when it does not fit. */
static int mkpath(char *path, size_t len, const char *root, const char *dev, const char *rel)
{
	return (size_t)snprintf(path, len, "%s/%s/ecn/%s", root, dev, rel) < len ? 0
										: -ENAMETOOLONG;
}

static int read_int(const char *path, int *out, char *err, size_t errlen)
{
	char buf[32], *end;
	ssize_t n;
	long v;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: %s%s", path, strerror(e), e == ENOENT ?
			 " (the NIC has no such DCQCN control: mlx5 under MLNX_OFED has it)" : "");
		return -e;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	buf[n] = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	while (*end == '\n' || *end == ' ')
		end++;
	if (end == buf || *end || errno || v < INT_MIN || v > INT_MAX) {
		snprintf(err, errlen, "%s: \"%.20s\" is not a number", path, buf);
		return -EIO;
	}
	*out = (int)v;
	return 0;
}

/* Never O_CREAT: a file the NIC does not have must not appear. */
static int write_int(const char *path, int v, char *err, size_t errlen)
{
	char buf[16];
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), n = snprintf(buf, sizeof(buf), "%d\n", v);

	if (fd < 0 || write(fd, buf, (size_t)n) != n) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "%s: writing %d: %s", path, v, strerror(e));
		return -e;
	}
	if (close(fd) < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: writing %d: %s", path, v, strerror(e));
		return -e;
	}
	return 0;
}

/* One knob: its path relative to ecn/, and its field name in changes. */
struct knob {
	char rel[40];
	char field[40];
	int want;
	int have;
};

static size_t knobs_of(const struct lp_qos *want, struct knob *k)
{
	size_t n = 0;

	for (unsigned side = 0; side < 2; side++) {
		const char *s = side ? "roce_rp" : "roce_np";

		for (unsigned p = 0; p < LP_TCS; p++, n++) {
			snprintf(k[n].rel, sizeof(k[n].rel), "%s/enable/%u", s, p);
			snprintf(k[n].field, sizeof(k[n].field), "%s enable %u", s, p);
			k[n].want = want->ecn[p].enabled ? 1 : 0;
		}
	}
	if (want->cnp_set) {
		snprintf(k[n].rel, sizeof(k[n].rel), "roce_np/cnp_dscp");
		snprintf(k[n].field, sizeof(k[n].field), "roce_np cnp_dscp");
		k[n++].want = want->cnp_dscp;
		snprintf(k[n].rel, sizeof(k[n].rel), "roce_np/cnp_802p_prio");
		snprintf(k[n].field, sizeof(k[n].field), "roce_np cnp_802p_prio");
		k[n++].want = want->cnp_priority;
	}
	return n;
}

int dcqcn_read(const char *root, const char *dev, int with_cnp, struct dcqcn_state *st,
	       char *err, size_t errlen)
{
	struct lp_qos q = { .cnp_set = (uint8_t)(with_cnp ? 1 : 0) };
	struct knob k[2 * LP_TCS + 2];
	size_t n = knobs_of(&q, k);
	char path[PATH_MAX];
	int rc;

	memset(st, 0, sizeof(*st));
	st->cnp_dscp = st->cnp_prio = -1;
	for (size_t i = 0; i < n; i++) {
		int v;

		if ((rc = mkpath(path, sizeof(path), root, dev, k[i].rel)) < 0 ||
		    (rc = read_int(path, &v, err, errlen)) < 0)
			return rc;
		if (i < 2 * LP_TCS) {
			if (v)
				*(i < LP_TCS ? &st->np_enable : &st->rp_enable) |=
					(uint8_t)(1u << (i % LP_TCS));
		} else {
			*(i == 2 * LP_TCS ? &st->cnp_dscp : &st->cnp_prio) = v;
		}
	}
	return 0;
}

int dcqcn_apply_dev(const char *root, const char *dev, const struct lp_qos *want, int write,
		    const struct lp_change_sink *sink, char *err, size_t errlen)
{
	struct knob k[2 * LP_TCS + 2];
	size_t n = knobs_of(want, k);
	char path[PATH_MAX], key[64], before[16], after[16];
	int rc;

	snprintf(key, sizeof(key), "dcqcn %s", dev);
	for (size_t i = 0; i < n; i++)  /* everything is read before anything is written */
		if ((rc = mkpath(path, sizeof(path), root, dev, k[i].rel)) < 0 ||
		    (rc = read_int(path, &k[i].have, err, errlen)) < 0)
			return rc;
	for (size_t i = 0; i < n; i++) {
		struct lp_change c = { key, k[i].field, before, after, 0 };

		if (k[i].have == k[i].want)
			continue;
		snprintf(before, sizeof(before), "%d", k[i].have);
		snprintf(after, sizeof(after), "%d", k[i].want);
		if (write) {
			int got;

			mkpath(path, sizeof(path), root, dev, k[i].rel);
			if ((rc = write_int(path, k[i].want, err, errlen)) < 0)
				return rc;
			if ((rc = read_int(path, &got, err, errlen)) < 0)
				return rc;
			if (got != k[i].want) {
				snprintf(err, errlen, "%s reads %d after writing %d", path, got,
					 k[i].want);
				return -EIO;
			}
			c.done = 1;
		}
		if (sink && sink->change && (rc = sink->change(sink->ctx, &c)))
			return rc;
	}
	return 0;
}
