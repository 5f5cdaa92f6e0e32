/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_osm_report.c: arbitrary datagrams into loomd's reader of
 * the OpenSM plugin's reports (daemon/routing/osm_report.c,
 * osm_report_handle, what read_cb calls for each datagram of the report
 * socket): JSON parsed, checked, stored. Linked with daemon/libloomd.a like
 * tests/unit/daemon/routing/test_osm_report.
 *
 * One osm_report and one store (SQLite, in a temporary directory removed at
 * exit) serve every input; each input runs in a transaction that is rolled
 * back, so the database stays empty and every input sees the same state.
 *
 * Invariants: 0 (stored) or -EINVAL (refused), -ENOMEM or -ENOSPC; any
 * other error of the store, on a database that is empty, means the checks
 * let through a report the store cannot take. Nothing read out of bounds
 * (the sanitizers).
 * Datagrams longer than the socket's buffer (16 KiB) never reach the
 * decoder and are skipped.
 *
 * By hand: needs all of libloomd, so build it with `make fuzz` (which
 * compiles the libraries with the sanitizers into tests/fuzz/bin/obj/) and
 * run tests/fuzz/bin/fuzz_osm_report CORPUS_COPY. */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "tests/fuzz/fuzz.h"
#include "daemon/core/store.h"
#include "daemon/routing/osm_report.h"
#include "daemon/routing/store_routing.h"
#include "lib/util/log.h"

const char fuzz_name[] = "fuzz_osm_report";

#define REPORT_MAX 16384 /* OSM_REPORT_MAX in osm_report.c */

static char dir[64];
static struct event_base *base;
static struct store *st;
static struct osm_report *rep;

static void cleanup(void)
{
	char path[128];
	static const char *const files[] = { "osm.sock", "loom.db", "loom.db-wal", "loom.db-shm" };

	osm_report_free(rep);
	store_close(st);
	if (base)
		event_base_free(base);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

static void setup(void)
{
	char path[128], err[512] = "";

	log_init(fuzz_name, getenv("FUZZ_VERBOSE") ? LOG_LVL_DEBUG : LOG_LVL_ERR,
		 LOG_TARGET_STDERR);
	snprintf(dir, sizeof(dir), "/tmp/loom-fuzz-osm.XXXXXX");
	if (!mkdtemp(dir) || !(base = event_base_new())) {
		perror(fuzz_name);
		exit(99);
	}
	atexit(cleanup);
	snprintf(path, sizeof(path), "%s/loom.db", dir);
	if (!(st = store_open(path, err, sizeof(err)))) {
		fprintf(stderr, "%s: store_open: %s\n", fuzz_name, err);
		exit(99);
	}
	snprintf(path, sizeof(path), "%s/osm.sock", dir);
	if (!(rep = osm_report_new(base, path, st, err, sizeof(err)))) {
		fprintf(stderr, "%s: osm_report_new: %s\n", fuzz_name, err);
		exit(99);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf;
	int rc;

	if (size > REPORT_MAX)
		return 0;
	if (!rep)
		setup();
	/* The datagram in a buffer of its own size, as recv() would leave it
	 * (not terminated). */
	if (!(buf = malloc(size ? size : 1)))
		return 0;
	if (size)
		memcpy(buf, data, size);
	if (store_routing_begin(st) < 0)
		fuzz_bug("cannot begin a transaction");
	rc = osm_report_handle(rep, buf, size, 1700000000.0);
	store_routing_end(st, -1); /* roll back whatever it stored */
	/* Refused (-EINVAL) or stored; the store failing otherwise on an
	 * empty database means the checks let through what it cannot take. */
	if (rc != 0 && rc != -EINVAL && rc != -ENOMEM && rc != -ENOSPC)
		fuzz_bug("returned %d (%s)", rc, strerror(-rc));
	free(buf);
	return 0;
}
