/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/events/events.c: the events module (events.h): the log line of a
 * warning or error event, the bounded queue of each forwarding sink and the
 * job that empties it off the loop.
 *
 * Threads: events_on_event runs on whichever thread wrote the event (the
 * loop, a sweep's worker...). It takes m->lock (the list of sinks, which a
 * reload swaps on the loop) and each sink's mu (its queue) for a copy and a
 * push, and wakes the loop; the loop then submits the sink's drain job
 * when none runs (`running` is the loop's alone). The job pops one event
 * at a time under mu and sends it without any lock; between tries it waits
 * on the sink's cond, so that stopping the sink (reload, shutdown) ends the
 * wait at once and a send under way within its timeout. A full queue drops
 * its oldest event: the newest say how the fabric is now. */
#include "autoconf.h"
#include "daemon/events/events.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "daemon/core/loop_wake.h"
#include "daemon/core/store.h"
#include "daemon/core/work.h"
#include "daemon/events/events_impl.h"
#include "lib/util/log.h"

struct sink {
	struct events_sink_conf conf;
	char token[512];            /* bearer token, read at configuration */
	struct events_mod *m;
	struct work_queue *q;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct fwd_event **ring;    /* conf.queue slots */
	size_t head, n;
	int stopping;               /* under mu */
	int running;                /* loop thread only */
	_Atomic uint64_t sent, dropped, failed;
	struct sink_conn conn;      /* the sending thread's */
	struct event *retire_ev;    /* a retired sink's release, on the loop */
	struct sink *next_retired;
};

struct events_mod {
	struct event_base *base;
	pthread_mutex_t lock;       /* sinks[] against a reload */
	struct sink *sinks[EVENTS_MAX_SINKS];
	size_t n_sinks;
	struct loop_wake *wake;
	struct events_prune *prune;
	struct sink *retired;       /* stopped by a reload, their job still running */
	int closing;
	char host[256];
};

/* ---- the log ---------------------------------------------------------------- */

static void log_event(const struct store_event *ev)
{
	int sev = events_severity_rank(ev->severity);
	const char *o = ev->old_value ? ev->old_value : "", *n = ev->new_value ? ev->new_value : "";

	if (sev < 2)
		return;
	log_msg(sev == 3 ? LOG_LVL_ERR : LOG_LVL_WARNING, "event %s: %s%s%s%s%s", ev->kind,
		ev->subject, *o || *n ? ": " : "", o, *o || *n ? " -> " : "", n);
}

/* ---- queues --------------------------------------------------------------------- */

static int wants(const struct events_sink_conf *c, const struct store_event *ev, int sev)
{
	size_t len = strlen(ev->kind);

	if (sev < c->min_sev)
		return 0;
	if (!c->kinds[0])
		return 1;
	for (const char *p = c->kinds; *p;) {
		size_t n = strcspn(p, ",");

		if (n == len && strncmp(p, ev->kind, n) == 0)
			return 1;
		p += n + (p[n] == ',');
	}
	return 0;
}

static struct fwd_event *fwd_copy(const struct store_event *ev, int sev)
{
	const char *s[5] = { ev->severity, ev->kind, ev->subject,
			     ev->old_value ? ev->old_value : "", ev->new_value ? ev->new_value : "" };
	size_t len[5], total = 0;
	struct fwd_event *f;
	char *at;

	for (int i = 0; i < 5; i++)
		total += (len[i] = strlen(s[i])) + 1;
	if (!(f = malloc(sizeof(*f) + total)))
		return NULL;
	f->time = ev->time;
	f->subnet_id = ev->subnet_id;
	f->sev = sev;
	at = f->buf;
	const char **dst[5] = { &f->severity, &f->kind, &f->subject, &f->old_value, &f->new_value };
	for (int i = 0; i < 5; i++) {
		memcpy(at, s[i], len[i] + 1);
		*dst[i] = at;
		at += len[i] + 1;
	}
	return f;
}

/* Push under mu; a full ring loses its oldest. 1 pushed, 0 not. */
static int sink_push(struct sink *s, struct fwd_event *f)
{
	size_t cap = (size_t)s->conf.queue;
	int ok = 1;

	pthread_mutex_lock(&s->mu);
	if (s->stopping) {
		ok = 0;
	} else {
		if (s->n == cap) {
			free(s->ring[s->head]);
			s->head = (s->head + 1) % cap;
			s->n--;
			atomic_fetch_add(&s->dropped, 1);
		}
		s->ring[(s->head + s->n) % cap] = f;
		s->n++;
	}
	pthread_mutex_unlock(&s->mu);
	if (!ok)
		free(f);
	return ok;
}

static struct fwd_event *sink_pop(struct sink *s)
{
	struct fwd_event *f = NULL;

	pthread_mutex_lock(&s->mu);
	if (!s->stopping && s->n) {
		f = s->ring[s->head];
		s->head = (s->head + 1) % (size_t)s->conf.queue;
		s->n--;
	}
	pthread_mutex_unlock(&s->mu);
	return f;
}

void events_on_event(const struct store_event *ev, void *arg)
{
	struct events_mod *m = arg;
	int sev = events_severity_rank(ev->severity), pushed = 0;

	log_event(ev);
	if (!m || sev < 0)
		return;
	pthread_mutex_lock(&m->lock);
	for (size_t i = 0; i < m->n_sinks; i++) {
		struct fwd_event *f;

		if (!wants(&m->sinks[i]->conf, ev, sev))
			continue;
		if (!(f = fwd_copy(ev, sev))) {
			atomic_fetch_add(&m->sinks[i]->dropped, 1);
			continue;
		}
		pushed |= sink_push(m->sinks[i], f);
	}
	pthread_mutex_unlock(&m->lock);
	if (pushed)
		(void)loop_wake_signal(m->wake);
}

/* ---- sending, on the sink's worker ------------------------------------------ */

/* Wait ms unless the sink stops first: 1 stopped. */
static int sink_wait(struct sink *s, long ms)
{
	struct timespec until;
	int stop;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&s->mu);
	while (!s->stopping && pthread_cond_timedwait(&s->cv, &s->mu, &until) == 0)
		;
	stop = s->stopping;
	pthread_mutex_unlock(&s->mu);
	return stop;
}

/* One event, tried 1 + retries times, 1 s, 2 s, 4 s ... (at most 60 s) apart. */
static void send_one(struct sink *s, const struct fwd_event *f)
{
	char err[256] = "";
	long backoff = 1000;

	for (int try = 0;; try++) {
		int rc = events_send(&s->conf, s->token, s->m->host, &s->conn, f, err, sizeof(err));

		if (rc == 0) {
			atomic_fetch_add(&s->sent, 1);
			return;
		}
		if (rc != -EAGAIN || try >= s->conf.retries || sink_wait(s, backoff)) {
			atomic_fetch_add(&s->failed, 1);
			log_debug("events.forward %s: %s %s not sent: %s", s->conf.name, f->kind,
				  f->subject, err);
			return;
		}
		log_debug("events.forward %s: %s; again in %ld ms", s->conf.name, err, backoff);
		if ((backoff *= 2) > 60000)
			backoff = 60000;
	}
}

static int drain_run(void *job, char *err, size_t errlen)
{
	struct sink *s = job;
	struct fwd_event *f;

	(void)err;
	(void)errlen;
	while ((f = sink_pop(s))) {
		send_one(s, f);
		free(f);
	}
	return 0;
}

static void sink_free(struct sink *s);
static void kick(struct sink *s);

static void retire_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sink *s = arg;

	(void)fd;
	(void)what;
	for (struct sink **pp = &s->m->retired; *pp; pp = &(*pp)->next_retired)
		if (*pp == s) {
			*pp = s->next_retired;
			break;
		}
	sink_free(s);
}

static void drain_done(void *job, int rc, const char *err)
{
	struct sink *s = job;
	int stopping;

	(void)rc;
	(void)err;
	s->running = 0;
	pthread_mutex_lock(&s->mu);
	stopping = s->stopping;
	pthread_mutex_unlock(&s->mu);
	if (!stopping) {
		kick(s);
		return;
	}
	/* A retired sink: freed once out of its own queue's callback
	 * (events_free frees them itself). */
	if (!s->m->closing)
		event_active(s->retire_ev, EV_TIMEOUT, 1);
}

static const struct work_ops drain_ops = { drain_run, drain_done, NULL };

static void kick(struct sink *s)
{
	size_t n;
	int rc;

	if (s->running)
		return;
	pthread_mutex_lock(&s->mu);
	n = s->stopping ? 0 : s->n;
	pthread_mutex_unlock(&s->mu);
	if (!n)
		return;
	if ((rc = work_submit(s->q, &drain_ops, s)) < 0) {
		log_warn("events.forward %s: cannot start sending: %s", s->conf.name,
			 strerror(-rc));
		return;
	}
	s->running = 1;
}

static void wake_cb(void *arg)
{
	struct events_mod *m = arg;

	/* Only the loop changes sinks[]: no lock needed to read it here. */
	for (size_t i = 0; i < m->n_sinks; i++)
		kick(m->sinks[i]);
}

/* ---- sinks ------------------------------------------------------------------ */

static int read_token(const char *path, char *buf, size_t len, char *err, size_t errlen)
{
	FILE *f;
	size_t n;

	buf[0] = '\0';
	if (!path[0])
		return 0;
	if (!(f = fopen(path, "re")))
		return err_fmt(err, errlen, -errno, "%s: %s", path, strerror(errno));
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	return 0;
}

static struct sink *sink_new(struct events_mod *m, const struct events_sink_conf *c, char *err,
			     size_t errlen)
{
	struct sink *s = calloc(1, sizeof(*s));
	char what[96];

	if (!s || !(s->ring = calloc((size_t)c->queue, sizeof(*s->ring)))) {
		free(s);
		err_fmt(err, errlen, -ENOMEM, "out of memory");
		return NULL;
	}
	s->conf = *c;
	s->m = m;
	s->conn.fd = -1;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	snprintf(what, sizeof(what), "events.forward %s", c->name);
	if (read_token(c->token_file, s->token, sizeof(s->token), err, errlen) < 0 ||
	    !(s->retire_ev = evtimer_new(m->base, retire_cb, s)) ||
	    !(s->q = work_queue_new(m->base, what, 1, WORK_REFUSE, err, errlen))) {
		sink_free(s);
		return NULL;
	}
	return s;
}

static void sink_stop(struct sink *s)
{
	pthread_mutex_lock(&s->mu);
	s->stopping = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

static void sink_free(struct sink *s)
{
	if (!s)
		return;
	sink_stop(s);
	work_queue_free(s->q);
	if (s->retire_ev)
		event_free(s->retire_ev);
	events_send_close(&s->conn);
	for (size_t i = 0; i < s->n; i++)
		free(s->ring[(s->head + i) % (size_t)s->conf.queue]);
	free(s->ring);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s);
}

/* Stop s; freed now when idle, else when its job ends (drain_done). */
static void sink_retire(struct sink *s)
{
	sink_stop(s);
	if (!s->running) {
		sink_free(s);
		return;
	}
	s->next_retired = s->m->retired;
	s->m->retired = s;
}

static void set_sinks(struct events_mod *m, const struct events_conf *conf)
{
	struct sink *next[EVENTS_MAX_SINKS] = { NULL }, *old[EVENTS_MAX_SINKS];
	size_t n = 0, n_old;
	char err[512];

	for (int i = 0; i < conf->n_sinks && i < EVENTS_MAX_SINKS; i++) {
		const struct events_sink_conf *c = &conf->sinks[i];

		for (size_t j = 0; j < m->n_sinks; j++)
			if (m->sinks[j] && memcmp(&m->sinks[j]->conf, c, sizeof(*c)) == 0) {
				next[n] = m->sinks[j];  /* unchanged: keeps its queue */
				m->sinks[j] = NULL;
				break;
			}
		if (!next[n] && !(next[n] = sink_new(m, c, err, sizeof(err)))) {
			log_err("events.forward %s: %s; not forwarding there", c->name, err);
			continue;
		}
		n++;
	}
	pthread_mutex_lock(&m->lock);
	memcpy(old, m->sinks, sizeof(old));
	n_old = m->n_sinks;
	memcpy(m->sinks, next, sizeof(next));
	m->n_sinks = n;
	pthread_mutex_unlock(&m->lock);
	for (size_t j = 0; j < n_old; j++)
		if (old[j])
			sink_retire(old[j]);
}

struct events_mod *events_new(struct event_base *base, const struct events_conf *conf,
			      const char *db_path, char *err, size_t errlen)
{
	struct events_mod *m = calloc(1, sizeof(*m));

	if (!m) {
		err_fmt(err, errlen, -ENOMEM, "out of memory");
		return NULL;
	}
	m->base = base;
	pthread_mutex_init(&m->lock, NULL);
	if (gethostname(m->host, sizeof(m->host) - 1) < 0 || !m->host[0])
		snprintf(m->host, sizeof(m->host), "-");
	if (!(m->wake = loop_wake_new(base, wake_cb, m, "event forwarding", err, errlen)) ||
	    !(m->prune = events_prune_new(base, db_path, err, errlen))) {
		events_free(m);
		return NULL;
	}
	events_reconfigure(m, conf);
	return m;
}

void events_reconfigure(struct events_mod *m, const struct events_conf *conf)
{
	set_sinks(m, conf);
	events_prune_set(m->prune, conf->keep_days, conf->max_rows);
}

void events_free(struct events_mod *m)
{
	if (!m)
		return;
	m->closing = 1;
	events_prune_free(m->prune);
	for (size_t i = 0; i < m->n_sinks; i++)
		sink_free(m->sinks[i]);
	while (m->retired) {
		struct sink *s = m->retired;

		m->retired = s->next_retired;
		sink_free(s);
	}
	loop_wake_free(m->wake);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

size_t events_forward_stats(struct events_mod *m, struct events_sink_stats *out, size_t max)
{
	size_t n;

	if (!m)
		return 0;
	pthread_mutex_lock(&m->lock);
	n = m->n_sinks;
	for (size_t i = 0; i < n && i < max; i++) {
		struct sink *s = m->sinks[i];

		memset(&out[i], 0, sizeof(out[i]));
		snprintf(out[i].name, sizeof(out[i].name), "%s", s->conf.name);
		snprintf(out[i].type, sizeof(out[i].type), "%s", s->conf.type);
		out[i].sent = atomic_load(&s->sent);
		out[i].dropped = atomic_load(&s->dropped);
		out[i].failed = atomic_load(&s->failed);
		pthread_mutex_lock(&s->mu);
		out[i].queued = (unsigned)s->n;
		pthread_mutex_unlock(&s->mu);
	}
	pthread_mutex_unlock(&m->lock);
	return n;
}

json_t *events_status(struct events_mod *m)
{
	struct events_sink_stats st[EVENTS_MAX_SINKS];
	size_t n = events_forward_stats(m, st, EVENTS_MAX_SINKS);
	json_t *a = json_array();

	for (size_t i = 0; a && i < n && i < EVENTS_MAX_SINKS; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:I, s:I, s:I, s:i}", "name",
						   st[i].name, "type", st[i].type, "sent",
						   (json_int_t)st[i].sent, "dropped",
						   (json_int_t)st[i].dropped, "failed",
						   (json_int_t)st[i].failed, "queued",
						   (int)st[i].queued));
	return a;
}
