/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/integration/latency_model.c: the test bed's latency model (issue
 * 44), an LD_PRELOAD library loaded before umad2sim
 * (LD_PRELOAD="latency_model.so libumad2sim.so"). umad2sim hands a client
 * fake umad descriptors (1024..2047) and serves write/read/poll on them;
 * this library wraps those three calls for those descriptors only, so
 * every libibumad client (loomd and its children, OpenSM, ibnetdiscover,
 * ibqueryerrors, perfquery, smpquery) runs under it unchanged.
 *
 * A request written (a MAD without the response bit) gets a due time, and
 * is passed on to ibsim at once: MADs in flight are never serialized. Its
 * answer, when umad2sim has it, is held in a per-descriptor heap until
 * that due time; answers leave in due-time order. The due time is
 *   start = max(now + hops * HOP, busy_until[target])
 *   busy_until[target] = start + service(target)
 *   due = start + service(target) + hops * HOP
 * with hops the DR hop count of an SMP (header byte 7) or, for a
 * LID-routed MAD, the hop count of the last DR PortInfo answer that named
 * that LID (LOOM_LAT_LID_HOPS when none did); target the DR path or the
 * DLID; service LOOM_LAT_SWITCH_US or LOOM_LAT_HCA_US after the node type
 * a NodeInfo answer named for that target (unknown: a switch, except the
 * local port). A share LOOM_LAT_DROP of requests is not passed on at all
 * (its answer never comes; the client's timeout and retry handle it),
 * drawn from a generator seeded with LOOM_LAT_SEED: the same run of MADs
 * drops the same ones; a send's tries and timeout are played as the
 * kernel does (umad2sim has none). Each lost try is one line "drop PID MODE
 * class=.. attr=.. hops=N try=T" appended to the file LOOM_LAT_LOG (when
 * set). The queue of a
 * target is per client process (a real switch's is shared by every
 * requester). docs/testbed-latency.md has the defaults and their sources.
 * Test scaffolding: never installed. */
#include "autoconf.h"  /* _GNU_SOURCE: RTLD_NEXT */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <sys/syscall.h>

#include <infiniband/umad.h>

#include "lib/util/hash.h"

#define FD_LO 1024             /* umad2sim's fake descriptors */
#define FD_HI 2048
#define BUF_MAX 4096           /* a umad header and its MAD (ibsim: 256 bytes) */
#define WAKE_MS 10             /* nothing held: look for queued timeouts this often */
#define STEP_NS 50000          /* while an answer waits: look for earlier ones this often */
#define PEND_BUCKETS 16384
#define NODE_SLOTS (1u << 18)  /* targets: DR paths and LIDs */
#define NODE_PROBE 64
#define PURGE_EVERY 4096
#define PURGE_AGE_NS 30000000000LL

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*read_fn)(int, void *, size_t);
typedef int (*poll_fn)(struct pollfd *, nfds_t, int);
typedef int (*close_fn)(int);

struct conf {
	int64_t hop_ns, switch_ns, hca_ns;
	unsigned lid_hops;
	double drop;
	uint64_t rng;
	int log_fd;
	char mode[64];
};

struct pending {               /* a request out: its answer's due time */
	uint64_t key;
	int64_t due, sent;
	int64_t deadline;      /* the kernel's timeout of the send; 0: none */
	uint64_t target;
	unsigned hops;
	struct pending *next;
};

struct node {                  /* a target: its queue and what answers taught */
	uint64_t key;          /* 0: free */
	int64_t busy;
	uint8_t kind;          /* NodeInfo NodeType: 1 CA, 2 switch; 0 unknown */
};

struct held {                  /* an answer (or a send's timeout) waiting for its due time */
	int64_t due;
	uint64_t seq;
	uint64_t key;          /* a timeout: the request it ends */
	int timeout;           /* 1: the send's timeout, void once the answer came in time */
	size_t len;
	uint8_t *buf;
};

struct heap {
	struct held *v;
	size_t n, cap;
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static write_fn next_write;
static read_fn next_read;
static poll_fn next_poll;
static close_fn next_close;
static struct conf C;
static struct pending *pend[PEND_BUCKETS];
static unsigned long n_sent_since_purge;
static struct node *nodes;
static uint8_t lid_hops[65536];
static uint8_t lid_kind[65536];
static struct heap heaps[FD_HI - FD_LO];
static uint64_t seq;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static double env_num(const char *name, double dflt)
{
	const char *s = getenv(name);
	char *end;
	double v;

	if (!s || !*s)
		return dflt;
	v = strtod(s, &end);
	if (*end || v < 0) {  /* inside init: the raw system call, not write() */
		char msg[256];
		int n = snprintf(msg, sizeof(msg), "latency_model: %s=%s: not a number >= 0; %g used\n",
				 name, s, dflt);

		if (n > 0 && syscall(SYS_write, 2, msg, (size_t)n) < 0)
			(void)0;
		return dflt;
	}
	return v;
}

/* argv[1] of this process (loomd's child mode), else its name. */
static void mode_of(char *out, size_t n)
{
	char buf[512];
	ssize_t r;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	snprintf(out, n, "?");
	if (fd < 0)
		return;
	r = next_read(fd, buf, sizeof(buf) - 1);
	next_close(fd);  /* inside init: not this library's close() */
	if (r <= 0)
		return;
	buf[r] = '\0';
	size_t first = strlen(buf) + 1;
	const char *base = strrchr(buf, '/');

	if ((ssize_t)first < r && buf[first] == '-')
		snprintf(out, n, "%.63s", buf + first);
	else
		snprintf(out, n, "%.63s", base ? base + 1 : buf);
}

static void init(void)
{
	const char *log = getenv("LOOM_LAT_LOG");

	next_write = (write_fn)dlsym(RTLD_NEXT, "write");
	next_read = (read_fn)dlsym(RTLD_NEXT, "read");
	next_poll = (poll_fn)dlsym(RTLD_NEXT, "poll");
	next_close = (close_fn)dlsym(RTLD_NEXT, "close");
	C.hop_ns = (int64_t)env_num("LOOM_LAT_HOP_NS", 200);
	C.switch_ns = (int64_t)(env_num("LOOM_LAT_SWITCH_US", 100) * 1000);
	C.hca_ns = (int64_t)(env_num("LOOM_LAT_HCA_US", 20) * 1000);
	C.lid_hops = (unsigned)env_num("LOOM_LAT_LID_HOPS", 4);
	C.drop = env_num("LOOM_LAT_DROP", 0);
	C.rng = (uint64_t)env_num("LOOM_LAT_SEED", 1) * 0x9e3779b97f4a7c15ULL + 1;
	C.log_fd = log && *log ? open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) : -1;
	nodes = calloc(NODE_SLOTS, sizeof(*nodes));
	mode_of(C.mode, sizeof(C.mode));
}

static int umad_fd(int fd) { return fd >= FD_LO && fd < FD_HI; }

static uint64_t rng_next(void)  /* xorshift64* */
{
	C.rng ^= C.rng >> 12;
	C.rng ^= C.rng << 25;
	C.rng ^= C.rng >> 27;
	return C.rng * 0x2545f4914f6cdd1dULL;
}

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static uint64_t mix(uint64_t h)
{
	h = hash_mix64(h);
	return h ? h : 1;
}

/* The slot of target `key` (created), NULL when the table is too full. */
static struct node *node_of(uint64_t key)
{
	uint64_t h = mix(key);

	if (!nodes)
		return NULL;
	for (unsigned i = 0; i < NODE_PROBE; i++) {
		struct node *n = &nodes[(h + i) & (NODE_SLOTS - 1)];

		if (n->key == key)
			return n;
		if (!n->key) {
			n->key = key;
			return n;
		}
	}
	return NULL;
}

/* A request's key: its TID with umad2sim's agent bits (32..47), as the
 * answer carries it. */
static uint64_t tid_key(uint64_t tid, uint32_t agent)
{
	return (tid & 0xffff0000ffffffffULL) | ((uint64_t)(agent & 0xffff) << 32);
}

static void purge_old(int64_t now)
{
	for (size_t b = 0; b < PEND_BUCKETS; b++) {
		struct pending **pp = &pend[b];

		while (*pp) {
			if (now - (*pp)->sent > PURGE_AGE_NS) {
				struct pending *dead = *pp;

				*pp = dead->next;
				free(dead);
			} else {
				pp = &(*pp)->next;
			}
		}
	}
}

static void heap_push(struct heap *h, struct held x)
{
	size_t i;

	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64;
		struct held *v = realloc(h->v, cap * sizeof(*v));

		if (!v) {
			free(x.buf);
			return;
		}
		h->v = v;
		h->cap = cap;
	}
	for (i = h->n++; i > 0; i = (i - 1) / 2) {
		struct held *up = &h->v[(i - 1) / 2];

		if (up->due < x.due || (up->due == x.due && up->seq < x.seq))
			break;
		h->v[i] = *up;
	}
	h->v[i] = x;
}

static struct held heap_pop(struct heap *h)
{
	struct held top = h->v[0], last = h->v[--h->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && (h->v[c + 1].due < h->v[c].due ||
				     (h->v[c + 1].due == h->v[c].due && h->v[c + 1].seq < h->v[c].seq)))
			c++;
		if (last.due < h->v[c].due || (last.due == h->v[c].due && last.seq < h->v[c].seq))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = last;
	return top;
}

static struct pending **pend_find(uint64_t key)
{
	struct pending **pp = &pend[key % PEND_BUCKETS];

	while (*pp && (*pp)->key != key)
		pp = &(*pp)->next;
	return pp;
}

static void log_drop(const uint8_t *mad, unsigned hops, unsigned try)
{
	char line[160];
	int n;

	if (C.log_fd < 0)
		return;
	n = snprintf(line, sizeof(line), "drop %ld %s class=0x%02x attr=0x%02x%02x hops=%u try=%u\n",
		     (long)getpid(), C.mode, mad[1], mad[16], mad[17], hops, try);
	if (n > 0 && next_write(C.log_fd, line, (size_t)n) != n)
		(void)0;
}

/* Whether the model loses this try (LOOM_LAT_DROP, seeded). */
static int lost(void)
{
	return C.drop > 0 && (double)(rng_next() >> 11) / 9007199254740992.0 < C.drop;
}

/* fd's send timeout of the request in buf, due at `due`: what the kernel
 * hands back (the send buffer, status ETIMEDOUT). Under mu. */
static void push_timeout(int fd, const void *buf, size_t count, uint64_t key, int64_t due)
{
	uint8_t *copy = malloc(count);

	if (!copy)
		return;
	memcpy(copy, buf, count);
	((ib_user_mad_t *)copy)->status = ETIMEDOUT;
	heap_push(&heaps[fd - FD_LO], (struct held){ .due = due, .seq = seq++, .key = key,
						     .timeout = 1, .len = count, .buf = copy });
}

/* A request leaves on fd: 1 when the model loses every try of it (not
 * sent), 0 when it is to be sent (its answer's due time noted). Under mu.
 * As the kernel: a send with a timeout and r retries is tried r + 1 times,
 * each lost try costs one timeout, and when all are lost the send's
 * timeout comes back after (r + 1) timeouts (umad2sim has no timeouts). */
static int on_request(int fd, const void *buf, size_t count)
{
	const ib_user_mad_t *u = buf;
	const uint8_t *mad = (const uint8_t *)buf + umad_size();
	size_t madlen = count - umad_size();
	int64_t now = now_ns(), start, service, tmo = (int64_t)u->timeout_ms * 1000000;
	uint64_t target, key = tid_key(be64(mad + 8), u->agent_id);
	unsigned hops, tries = 0;
	struct node *n;
	struct pending *p;

	if (mad[1] == 0x81 && madlen >= 192) {  /* directed route: path bytes 1..hops */
		hops = mad[7];
		target = 0xd5;
		for (unsigned i = 1; i <= hops && i < 64; i++)
			target = mix(target ^ ((uint64_t)mad[128 + i] << 8 | i));
	} else {
		uint16_t dlid = ntohs(u->addr.lid);

		hops = lid_hops[dlid] ? lid_hops[dlid] : C.lid_hops;
		target = 0x1000000ULL | dlid;
		if ((n = node_of(target)) && !n->kind)
			n->kind = lid_kind[dlid];
	}
	while (tries <= u->retries && lost())
		log_drop(mad, hops, ++tries);
	n = node_of(target);
	if (n && n->kind)
		service = n->kind == 1 ? C.hca_ns : C.switch_ns;
	else  /* unknown: a switch, but for the local port (DR, no hop) */
		service = hops == 0 && mad[1] == 0x81 ? C.hca_ns : C.switch_ns;
	start = now + tmo * tries + (int64_t)hops * C.hop_ns;
	if (tries <= u->retries && n && n->busy > start)
		start = n->busy;
	if (tries <= u->retries && n)  /* a lost request keeps no switch busy */
		n->busy = start + service;
	if (!(p = calloc(1, sizeof(*p))))
		return tries > u->retries;
	p->key = key;
	p->due = start + service + (int64_t)hops * C.hop_ns;
	p->sent = now;
	p->deadline = tmo > 0 ? now + tmo * (u->retries + 1) : 0;
	p->target = target;
	p->hops = hops;
	p->next = pend[key % PEND_BUCKETS];
	pend[key % PEND_BUCKETS] = p;
	if (p->deadline)
		push_timeout(fd, buf, count, key, p->deadline);
	if (++n_sent_since_purge >= PURGE_EVERY) {
		n_sent_since_purge = 0;
		purge_old(now);
	}
	return tries > u->retries;
}

/* An answer came: its due time (now when it answers nothing we sent), and
 * what it teaches (a NodeInfo: the target's kind; a DR PortInfo: its LID's
 * hop count). An answer due after its send's timeout leaves the request
 * pending: the timeout is delivered first, then this late answer. Under mu. */
static int64_t on_answer(const uint8_t *mad, size_t madlen)
{
	uint64_t key = be64(mad + 8);  /* the agent bits are in the echoed TID */
	struct pending **pp = pend_find(key), *p;
	uint16_t attr = (uint16_t)(mad[16] << 8 | mad[17]);
	int64_t due;
	struct node *n;

	if (!(p = *pp))
		return now_ns();
	due = p->due;
	if ((mad[1] == 0x81 || mad[1] == 0x01) && (mad[3] & 0x80) && madlen >= 128) {
		n = node_of(p->target);
		if (attr == 0x0011 && n)
			n->kind = mad[64 + 2];
		if (attr == 0x0015 && mad[1] == 0x81) {
			uint16_t lid = (uint16_t)(mad[64 + 16] << 8 | mad[64 + 17]);

			if (lid && lid < 0xc000) {
				lid_hops[lid] = (uint8_t)(p->hops ? p->hops : 1);
				if (n && n->kind)
					lid_kind[lid] = n->kind;
			}
		}
	}
	if (p->deadline && due > p->deadline)
		return due;
	*pp = p->next;
	free(p);
	return due;
}

/* Move every answer umad2sim holds for fd into fd's heap. Under mu. */
static void drain(int fd)
{
	struct heap *h = &heaps[fd - FD_LO];

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint8_t *buf;
		ssize_t r;

		if (next_poll(&p, 1, 0) != 1)
			return;
		if (!(buf = malloc(BUF_MAX)))
			return;
		r = next_read(fd, buf, BUF_MAX);
		if (r <= 0 || (size_t)r < umad_size()) {
			free(buf);
			return;
		}
		const uint8_t *mad = buf + umad_size();
		size_t madlen = (size_t)r - umad_size();
		/* ibsim bounces what no node handles (vendor attributes) at
		 * once, status ETIMEDOUT (docs/testbed-notes.md): a real
		 * switch answers those, so the bounce is the answer, due when
		 * an answer would be. */
		int answer = madlen >= 24 && ((mad[3] & 0x80) || ((ib_user_mad_t *)buf)->status);
		int64_t due = answer ? on_answer(mad, madlen) : now_ns();

		heap_push(h, (struct held){ .due = due, .seq = seq++, .len = (size_t)r, .buf = buf });
	}
}

/* fd's earliest held answer's due time, or -1; a send's timeout whose
 * answer came in time is dropped on the way. Under mu. */
static int64_t head_due(int fd)
{
	struct heap *h = &heaps[fd - FD_LO];

	while (h->n && h->v[0].timeout && !*pend_find(h->v[0].key))
		free(heap_pop(h).buf);
	return h->n ? h->v[0].due : -1;
}

ssize_t write(int fd, const void *buf, size_t count)
{
	pthread_once(&once, init);
	if (umad_fd(fd) && count >= umad_size() + 24 &&
	    !(((const uint8_t *)buf)[umad_size() + 3] & 0x80)) {
		int dropped;

		pthread_mutex_lock(&mu);
		dropped = on_request(fd, buf, count);
		pthread_mutex_unlock(&mu);
		if (dropped)
			return (ssize_t)count;
	}
	return next_write(fd, buf, count);
}

ssize_t read(int fd, void *buf, size_t count)
{
	pthread_once(&once, init);
	if (!umad_fd(fd))
		return next_read(fd, buf, count);
	pthread_mutex_lock(&mu);
	drain(fd);
	int64_t d = head_due(fd);

	if (d < 0 || d > now_ns()) {
		pthread_mutex_unlock(&mu);
		return -EWOULDBLOCK;  /* umad2sim's answer to an empty queue */
	}
	struct held x = heap_pop(&heaps[fd - FD_LO]);

	if (x.timeout) {  /* the request ends here: a later answer is late */
		struct pending **pp = pend_find(x.key), *p = *pp;

		*pp = p->next;
		free(p);
	}
	pthread_mutex_unlock(&mu);
	if (x.len > count)
		x.len = count;
	memcpy(buf, x.buf, x.len);
	free(x.buf);
	return (ssize_t)x.len;
}

/* As umad2sim: of a set holding a umad descriptor, only that one is
 * watched; it is readable when an answer is due. */
int poll(struct pollfd *pfds, nfds_t nfds, int timeout)
{
	nfds_t i;
	int64_t end;

	pthread_once(&once, init);
	for (i = 0; i < nfds && !umad_fd(pfds[i].fd); i++)
		;
	if (i == nfds)
		return next_poll(pfds, nfds, timeout);
	int fd = pfds[i].fd;

	end = timeout < 0 ? INT64_MAX : now_ns() + (int64_t)timeout * 1000000;
	pfds[i].revents = 0;
	for (;;) {
		pthread_mutex_lock(&mu);
		drain(fd);
		int64_t d = head_due(fd), now = now_ns();

		pthread_mutex_unlock(&mu);
		if (d >= 0 && d <= now) {
			pfds[i].revents = POLLIN;
			return 1;
		}
		if (now >= end)
			return 0;
		if (d < 0) {  /* nothing held: wait for umad2sim, and look again
			       * every WAKE_MS for a send's timeout another
			       * thread's write() has queued (OpenSM) */
			struct pollfd p = { .fd = fd, .events = POLLIN };
			int64_t left_ms = (end - now + 999999) / 1000000;
			int ms = left_ms > WAKE_MS ? WAKE_MS : (int)left_ms;

			if (next_poll(&p, 1, ms) < 0)
				return -1;
			continue;
		}
		int64_t nap = d - now;

		if (nap > STEP_NS)
			nap = STEP_NS;
		if (nap > end - now)
			nap = end - now;
		struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)nap };

		nanosleep(&ts, NULL);
	}
}

int close(int fd)
{
	pthread_once(&once, init);
	if (umad_fd(fd)) {
		struct heap *h = &heaps[fd - FD_LO];

		pthread_mutex_lock(&mu);
		while (h->n)
			free(heap_pop(h).buf);
		pthread_mutex_unlock(&mu);
	}
	return next_close(fd);
}
