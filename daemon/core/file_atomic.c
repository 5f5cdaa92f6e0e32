/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/file_atomic.c: see file_atomic.h. */
#include "autoconf.h"
#include "daemon/core/file_atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int file_write_atomic(const char *path, const char *text, char *err, size_t errlen)
{
	char tmp[PATH_MAX + 16];
	size_t len = strlen(text);
	ssize_t n;
	int fd, rc = 0;

	/* A temporary name of its own: two writers never share one. */
	snprintf(tmp, sizeof(tmp), "%s.loomtmp.XXXXXX", path);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%.900s: %s", tmp, strerror(-rc));
		return rc;
	}
	if (fchmod(fd, 0644) < 0)
		rc = -errno;
	else if ((n = write(fd, text, len)) < 0)
		rc = -errno;
	else if ((size_t)n != len)
		rc = -ENOSPC;  /* a short write of a regular file: the disk is full */
	else if (fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -errno;
	if (rc < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		unlink(tmp);
	}
	return rc;
}

char *file_read_text(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r"), *mem;
	char *text = NULL, buf[4096];
	size_t len = 0, n;
	int e = errno;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		errno = e;
		return NULL;
	}
	if (!(mem = open_memstream(&text, &len))) {
		fclose(f);
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, mem);
	fclose(f);
	fclose(mem);
	return text;
}
