/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/opensm/request.c: loomd's requests to the plugin, the other way of
 * the report socket (daemon/routing/osm_report.h). The reports' socket is
 * bound to an abstract name of its own (report.c), so loomd learns where
 * the plugin is from any report; a thread of the plugin waits on that
 * socket for requests:
 *   {"v":1,"type":"heavy_sweep","why":"..."}  OpenSM does what its SIGHUP
 *       does (opensm/main.c): force_heavy_sweep, then a sweep, which
 *       re-reads the options file and the partitions file first. loomd
 *       asks so when it changed one of them; it need not be root, nor
 *       OpenSM's user, to be heard.
 *   {"v":1,"type":"reroute","why":"..."}  OpenSM does what its console's
 *       `reroute` does: force_reroute, then a sweep: routing again without
 *       a heavy sweep's discovery. loomd asks so when it changed the
 *       isolated links file (osm_isolated.c), which every routing run
 *       reads.
 * Only loomd may ask: a request counts only when it comes from the socket
 * the plugin reports to (the sender's bound path is that very socket file:
 * same device and inode), which only the process that bound it can send
 * from. Anything else is dropped and logged once. Nothing here waits on
 * OpenSM: osm_opensm_sweep() only wakes OpenSM's state manager, as the
 * console's `resweep heavy` does. */
#include "autoconf.h"
#include "loomosm.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define REQUEST_MAX 512

struct losm_request {
	osm_opensm_t *osm;
	int fd;                  /* the report socket (report.c owns it) */
	struct sockaddr_un loomd;/* the socket loomd reports are sent to */
	int stop[2];             /* a byte written: the thread ends */
	pthread_t thread;
	int warned;              /* a foreign sender was logged */
	unsigned long sweeps, reroutes;
};

/* Is `from` loomd's report socket itself? */
static int from_loomd(const struct losm_request *q, const struct sockaddr_un *from,
		      socklen_t len)
{
	struct stat a, b;
	char path[sizeof(from->sun_path) + 1];
	size_t n;

	if (len <= offsetof(struct sockaddr_un, sun_path) || from->sun_path[0] == '\0')
		return 0;  /* unbound, or an abstract name: anyone's */
	n = len - offsetof(struct sockaddr_un, sun_path);
	memcpy(path, from->sun_path, n);
	path[n] = '\0';
	return stat(path, &a) == 0 && stat(q->loomd.sun_path, &b) == 0 && S_ISSOCK(a.st_mode) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The "why" of a request, printable and short, into buf. */
static void request_why(const char *msg, char *buf, size_t len)
{
	const char *w = strstr(msg, "\"why\":\"");
	size_t n = 0;

	buf[0] = '\0';
	if (!w)
		return;
	for (w += 7; *w && *w != '"' && n + 1 < len; w++)
		buf[n++] = (*w >= ' ' && *w <= '~' && *w != '\\') ? *w : '?';
	buf[n] = '\0';
}

static void handle(struct losm_request *q, const char *msg, const struct sockaddr_un *from,
		   socklen_t from_len)
{
	char why[64];

	if (!from_loomd(q, from, from_len)) {
		if (!q->warned) {
			q->warned = 1;
			OSM_LOG(&q->osm->log, OSM_LOG_ERROR, "ERR LOOM09: loomosm: a request not "
				"from loomd's socket %s was dropped (and any later one: logged "
				"once)\n", q->loomd.sun_path);
		}
		return;
	}
	request_why(msg, why, sizeof(why));
	if (strstr(msg, "\"type\":\"heavy_sweep\"")) {
		q->sweeps++;
		OSM_LOG(&q->osm->log, OSM_LOG_INFO, "loomosm: heavy sweep asked by loomd (%s): "
			"the options and partitions files are read again\n",
			why[0] ? why : "no reason given");
		q->osm->subn.force_heavy_sweep = TRUE;
	} else if (strstr(msg, "\"type\":\"reroute\"")) {
		q->reroutes++;
		OSM_LOG(&q->osm->log, OSM_LOG_INFO, "loomosm: reroute asked by loomd (%s): the "
			"isolated links are read again\n", why[0] ? why : "no reason given");
		q->osm->subn.force_reroute = TRUE;
	} else {
		OSM_LOG(&q->osm->log, OSM_LOG_INFO, "loomosm: a request of loomd not known to "
			"this plugin was ignored: %.80s\n", msg);
		return;
	}
	osm_opensm_sweep(q->osm);
}

static void *request_thread(void *arg)
{
	struct losm_request *q = arg;
	char buf[REQUEST_MAX + 1];

	for (;;) {
		struct pollfd p[2] = { { .fd = q->fd, .events = POLLIN },
				       { .fd = q->stop[0], .events = POLLIN } };

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		for (;;) {
			struct sockaddr_un from;
			socklen_t from_len = sizeof(from);
			ssize_t n = recvfrom(q->fd, buf, REQUEST_MAX, MSG_DONTWAIT,
					     (struct sockaddr *)&from, &from_len);

			if (n < 0)
				break;
			buf[n] = '\0';
			handle(q, buf, &from, from_len);
		}
	}
	return NULL;
}

struct losm_request *losm_request_new(osm_opensm_t *osm, int fd, const struct sockaddr_un *loomd)
{
	struct losm_request *q;

	if (fd < 0 || !(q = calloc(1, sizeof(*q))))
		return NULL;
	q->osm = osm;
	q->fd = fd;
	q->loomd = *loomd;
	if (pipe(q->stop) < 0) {
		free(q);
		return NULL;
	}
	if (pthread_create(&q->thread, NULL, request_thread, q) != 0) {
		close(q->stop[0]);
		close(q->stop[1]);
		free(q);
		return NULL;
	}
	return q;
}

void losm_request_free(struct losm_request *q)
{
	char c = 0;

	if (!q)
		return;
	if (write(q->stop[1], &c, 1) != 1)
		OSM_LOG(&q->osm->log, OSM_LOG_ERROR, "ERR LOOM09: loomosm: cannot stop the "
			"request thread: %s\n", strerror(errno));
	else
		pthread_join(q->thread, NULL);
	close(q->stop[0]);
	close(q->stop[1]);
	free(q);
}
