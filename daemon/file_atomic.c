/* daemon/file_atomic.c: see file_atomic.h. */
#include "autoconf.h"
#include "file_atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int file_write_atomic(const char *path, const char *text, char *err, size_t errlen)
{
	char tmp[PATH_MAX + 16];
	size_t len = strlen(text);
	int fd, rc = 0;

	snprintf(tmp, sizeof(tmp), "%s.loomtmp", path);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%.900s: %s", tmp, strerror(-rc));
		return rc;
	}
	if (write(fd, text, len) != (ssize_t)len || fsync(fd) < 0)
		rc = errno ? -errno : -EIO;
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
