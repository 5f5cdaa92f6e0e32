/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/metrics_self.c: see metrics_self.h. */
#include "autoconf.h"
#include "daemon/http/metrics_self.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static void gauge(struct mt_buf *out, const char *name, const char *help, double v)
{
	char line[96];

	mt_puts(out, "# HELP ");
	mt_puts(out, name);
	mt_puts(out, " ");
	mt_puts(out, help);
	mt_puts(out, "\n# TYPE ");
	mt_puts(out, name);
	mt_puts(out, " gauge\n");
	snprintf(line, sizeof(line), "%s %.15g\n", name, v);
	mt_puts(out, line);
}

/* VmRSS of /proc/self/status in bytes; -1 when unreadable. */
static double rss_bytes(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	double kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %lf kB", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb * 1024;
}

static double open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	double n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;   /* the directory's own descriptor */
}

/* The process' start (Unix time): field 22 of /proc/self/stat, in clock
 * ticks after boot, plus the boot time of /proc/stat. -1 when unknown. */
static double start_time(void)
{
	char buf[1024], *p;
	unsigned long long ticks = 0, btime = 0;
	FILE *f = fopen("/proc/self/stat", "re");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (!(p = strrchr(buf, ')')) ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
		   "%*d %*d %llu", &ticks) != 1)
		return -1;
	if (!(f = fopen("/proc/stat", "re")))
		return -1;
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "btime %llu", &btime) == 1)
			break;
	fclose(f);
	return btime ? (double)btime + (double)ticks / (double)sysconf(_SC_CLK_TCK) : -1;
}

void metrics_self_render(struct mt_buf *out)
{
	struct rlimit rl;
	double v;

	mt_puts(out, "# HELP loom_build_info loomd's version (1).\n"
		"# TYPE loom_build_info gauge\nloom_build_info{version=\"");
	mt_put_label_value(out, PACKAGE_VERSION);
	mt_puts(out, "\"} 1\n");
	if ((v = rss_bytes()) >= 0)
		gauge(out, "process_resident_memory_bytes", "loomd's resident memory (VmRSS).",
		      v);
	if ((v = open_fds()) >= 0)
		gauge(out, "process_open_fds", "loomd's open file descriptors.", v);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		gauge(out, "process_max_fds", "loomd's limit of open file descriptors.",
		      (double)rl.rlim_cur);
	if ((v = start_time()) >= 0)
		gauge(out, "process_start_time_seconds", "When loomd started (Unix time).", v);
}
