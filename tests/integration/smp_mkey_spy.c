/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/integration/smp_mkey_spy.c: an LD_PRELOAD library for
 * discovery_mkey.sh, loaded before umad2sim: it wraps libibumad's
 * umad_send() and appends, for every SMP sent (management class 0x01 or
 * 0x81), one line "MODE MKEY" to the file $LOOM_SMP_SPY, where MODE is the
 * process's first argument (loomd's child mode: --walk, --read-lfts, ...)
 * and MKEY the 16 hex digits of the SMP header's M_Key (bytes 24..31), then
 * sends it. ibsim neither stores nor checks M_Keys, so this is how the test
 * sees which key loom's SMPs carry. Test scaffolding: never installed. */
#include "autoconf.h"  /* _GNU_SOURCE: RTLD_NEXT */

#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/umad.h>

typedef int (*send_fn)(int, int, void *, int, int, int);

/* This process's first argument, from /proc/self/cmdline ("?" if none). */
static void mode_of(char *out, size_t n)
{
	char buf[512];
	ssize_t r;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	snprintf(out, n, "?");
	if (fd < 0)
		return;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return;
	buf[r] = '\0';
	{
		size_t first = strlen(buf) + 1;

		if ((ssize_t)first < r)
			snprintf(out, n, "%s", buf + first);
	}
}

int umad_send(int fd, int agentid, void *umad, int length, int timeout_ms, int retries)
{
	static send_fn real;
	const char *path = getenv("LOOM_SMP_SPY");
	const uint8_t *mad = umad_get_mad(umad);

	if (!real)
		real = (send_fn)dlsym(RTLD_NEXT, "umad_send");
	if (!real)
		return -1;
	if (path && (mad[1] == 0x01 || mad[1] == 0x81)) {
		char mode[128], line[256];
		int n, out = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);

		mode_of(mode, sizeof(mode));
		n = snprintf(line, sizeof(line), "%s %02x%02x%02x%02x%02x%02x%02x%02x\n", mode,
			     mad[24], mad[25], mad[26], mad[27], mad[28], mad[29], mad[30], mad[31]);
		if (out >= 0) {
			if (write(out, line, (size_t)n) != n)
				(void)0;
			close(out);
		}
	}
	return real(fd, agentid, umad, length, timeout_ms, retries);
}
