/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/front.c: the core's side of the HTTP front end: the
 * listening sockets, the front end processes, a reload's hand-over (see
 * front.h).
 *
 * A front end process is a struct proc: STARTING until it says hello,
 * then SERVING (one at a time: f->cur), then DRAINING once another has
 * taken over (SIGTERM: it accepts no more and exits when its requests are
 * answered). Its channel is a front_peer (front_serve.c). Exited
 * processes are reaped from a timer (waitpid WNOHANG): loomd's own
 * children of other kinds are waited for by those who start them. */
#include "autoconf.h"
#include "daemon/http/front.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "daemon/http/config_http.h"
#include "daemon/http/front_proto.h"
#include "daemon/http/front_serve.h"
#include "daemon/http/http_impl.h"
#include "lib/util/log.h"

extern char **environ;

#define RESTART_MAX_S 30
#define MAX_PROCS 8           /* starting + serving + draining at once */
#define FD_HIGH 64            /* where the descriptors wait for the spawn */

enum proc_state { P_SERVING, P_DRAINING, P_GONE };

struct lsock {
	struct http_addr addr;
	char text[LOOM_ADDRESS_LEN];
	int fd;
};

struct proc {
	struct http_front *f;
	struct front_peer *peer;
	pid_t pid;
	enum proc_state state;
	struct lsock ls[LOOM_HTTP_MAX_LISTEN];
	int n_ls;
};

struct http_front {
	struct event_base *base;
	struct ctl *ctl;
	struct http_metrics *metrics;
	char db_path[PATH_MAX];           /* the front end checks it cannot open it */
	struct http_conf conf;            /* of the serving front end */
	struct proc *procs[MAX_PROCS];
	struct proc *cur;                 /* serving */
	struct event *restart;            /* cur died: start another */
	struct proc *dead;                /* ... it, holding the sockets till then */
	unsigned backoff_s;
	struct event *reap;               /* waitpid of the ended */
	pid_t ended[MAX_PROCS * 4];
	int n_ended;
};

/* ---- listening sockets -------------------------------------------------------------- */

/* Is fd used by a process other than `except`? */
static int fd_in_use(const struct http_front *f, int fd, const struct proc *except)
{
	for (int i = 0; i <= MAX_PROCS; i++) {
		const struct proc *p = i < MAX_PROCS ? f->procs[i] : f->dead;

		if (p && p != except && (p->state != P_GONE || p == f->dead))
			for (int j = 0; j < p->n_ls; j++)
				if (p->ls[j].fd == fd)
					return 1;
	}
	return 0;
}

/* conf's sockets into ls: those of `from` kept, the others bound now.
 * 0, or -1 with err (nothing bound is left open). */
static int listen_all(const struct http_conf *conf,
		      const struct proc *from, struct lsock *ls, int *n, char *err, size_t errlen)
{
	int fresh[LOOM_HTTP_MAX_LISTEN] = { 0 };

	*n = 0;
	for (int i = 0; i < conf->http_n_listen && i < LOOM_HTTP_MAX_LISTEN; i++) {
		struct lsock *l = &ls[*n];
		char why[160];
		int j;

		if (http_addr_parse(conf->http_listen[i], &l->addr, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "http.listen: %s", why);
			goto undo;
		}
		snprintf(l->text, sizeof(l->text), "%s", conf->http_listen[i]);
		for (j = 0; from && j < from->n_ls; j++)
			if (from->ls[j].addr.port == l->addr.port &&
			    !strcmp(from->ls[j].addr.host, l->addr.host))
				break;
		if (from && j < from->n_ls) {
			l->fd = from->ls[j].fd;
			(void)listen(l->fd, conf->http_listen_backlog);   /* a new backlog */
		} else if ((l->fd = http_listen_fd(&l->addr, conf->http_listen_backlog)) < 0) {
			snprintf(err, errlen, "http.listen: cannot listen on %s: %s", l->text,
				 strerror(-l->fd));
			goto undo;
		} else {
			fresh[*n] = 1;
			log_notice("http: listening on %s", l->text);
		}
		(*n)++;
	}
	return 0;
undo:
	for (int i = 0; i < *n; i++)
		if (fresh[i])
			close(ls[i].fd);
	*n = 0;
	return -1;
}

/* ---- processes ------------------------------------------------------------------------ */

static void proc_gone(void *arg, struct front_peer *peer, const char *why);
static void proc_serves(struct proc *p);

static void reap_later(struct http_front *f, pid_t pid)
{
	struct timeval tv = { 0, 200 * 1000 };

	if (pid > 0 && f->n_ended < (int)(sizeof(f->ended) / sizeof(f->ended[0])))
		f->ended[f->n_ended++] = pid;
	evtimer_add(f->reap, &tv);
}

static void on_reap(evutil_socket_t fd, short what, void *arg)
{
	struct http_front *f = arg;
	int n = 0;

	(void)fd;
	(void)what;
	for (int i = 0; i < f->n_ended; i++) {
		int status;
		pid_t r = waitpid(f->ended[i], &status, WNOHANG);

		if (r == 0) {
			f->ended[n++] = f->ended[i];
			continue;
		}
		if (r > 0 && WIFSIGNALED(status))
			log_warn("http: the front end (pid %d) was killed by signal %d", (int)r,
				 WTERMSIG(status));
		else if (r > 0 && WEXITSTATUS(status) != 0)
			log_info("http: the front end (pid %d) exited with status %d", (int)r,
				 WEXITSTATUS(status));
	}
	f->n_ended = n;
	if (n)
		reap_later(f, 0);
}

/* The listening sockets of p that no other process uses are closed. */
static void proc_free(struct proc *p)
{
	struct http_front *f = p->f;

	for (int i = 0; i < MAX_PROCS; i++)
		if (f->procs[i] == p)
			f->procs[i] = NULL;
	for (int i = 0; i < p->n_ls; i++)
		if (!fd_in_use(f, p->ls[i].fd, p)) {
			if (f->cur != p)
				log_notice("http: no longer listening on %s", p->ls[i].text);
			close(p->ls[i].fd);
		}
	front_peer_free(p->peer);
	if (p->pid > 0)
		reap_later(f, p->pid);
	free(p);
}

/* The front end's environment: loomd's without LD_PRELOAD (nothing of
 * the MAD stack, real or simulated as umad2sim's, is loaded into it). */
static char **front_env(void)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	if (!(env = calloc(n + 1, sizeof(*env))))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11))
			env[k++] = environ[i];
	return env;
}

/* The paths the front end must fail to open once sandboxed: the database
 * (and its journal files), the MAD devices. */
static json_t *probe_paths(const struct http_front *f)
{
	json_t *a = json_array();
	char p[PATH_MAX + 8];
	glob_t g;

	if (!a)
		return NULL;
	if (f->db_path[0]) {
		json_array_append_new(a, json_string(f->db_path));
		snprintf(p, sizeof(p), "%s-wal", f->db_path);
		json_array_append_new(a, json_string(p));
	}
	if (glob("/dev/infiniband/umad*", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc && i < 16; i++)
			json_array_append_new(a, json_string(g.gl_pathv[i]));
		globfree(&g);
	}
	if (glob("/dev/infiniband/issm*", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc && i < 16; i++)
			json_array_append_new(a, json_string(g.gl_pathv[i]));
		globfree(&g);
	}
	return a;
}

/* Start a front end on conf and ls (the proc's from now on). NULL with err. */
static struct proc *proc_start(struct http_front *f, const struct http_conf *conf,
			       const struct lsock *ls, int n_ls, char *err, size_t errlen)
{
	struct front_peer_hooks h = { proc_gone, NULL };
	char *argv[] = { (char *)"loomd", (char *)FRONT_MODE, NULL };
	int sp[2] = { -1, -1 }, high[LOOM_HTTP_MAX_LISTEN + 1], slot = -1, rc = 0, n = 0;
	posix_spawn_file_actions_t fa;
	struct proc *p;

	for (int i = 0; i < MAX_PROCS && slot < 0; i++)
		if (!f->procs[i])
			slot = i;
	if (slot < 0 || !(p = calloc(1, sizeof(*p)))) {
		snprintf(err, errlen, slot < 0 ? "too many front ends starting or stopping" :
			 "out of memory");
		return NULL;
	}
	p->f = f;
	memcpy(p->ls, ls, (size_t)n_ls * sizeof(*ls));
	p->n_ls = n_ls;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		free(p);
		return NULL;
	}
	/* Out of the way of the numbers they get in the front end. */
	for (n = 0; n <= n_ls; n++)
		if ((high[n] = fcntl(n ? ls[n - 1].fd : sp[1], F_DUPFD_CLOEXEC, FD_HIGH)) < 0)
			break;
	if (n <= n_ls || posix_spawn_file_actions_init(&fa) != 0) {
		rc = errno ? errno : ENOMEM;
	} else {
		for (int i = 0; i <= n_ls && !rc; i++)
			rc = posix_spawn_file_actions_adddup2(&fa, high[i], FRONT_FD_CHANNEL + i);
		if (!rc)
			rc = posix_spawn_file_actions_addclosefrom_np(&fa, FRONT_FD_LISTEN + n_ls);
		if (!rc) {
			char **env = front_env();

			rc = env ? posix_spawn(&p->pid, "/proc/self/exe", &fa, NULL, argv, env) : ENOMEM;
			free(env);
		}
		posix_spawn_file_actions_destroy(&fa);
	}
	for (int i = 0; i < n; i++)
		close(high[i]);
	close(sp[1]);
	if (rc) {
		snprintf(err, errlen, "cannot start the front end (/proc/self/exe %s): %s",
			 FRONT_MODE, strerror(rc));
		close(sp[0]);
		free(p);
		return NULL;
	}
	/* Blocking: the loop waits the milliseconds of its set-up, so that a
	 * start or reload knows at once whether it serves. */
	if (front_handshake(sp[0], conf, n_ls, (int)log_get_level(), (int)log_get_target(), conf->http_user,
			    probe_paths(f), err, errlen) < 0) {
		close(sp[0]);
		kill(p->pid, SIGKILL);
		reap_later(f, p->pid);
		free(p);
		return NULL;
	}
	h.arg = p;
	if (!(p->peer = front_peer_new(f->base, sp[0], p->pid, f->ctl, f->metrics, &h))) {
		snprintf(err, errlen, "out of memory");
		kill(p->pid, SIGKILL);
		reap_later(f, p->pid);
		free(p);
		return NULL;
	}
	f->procs[slot] = p;
	proc_serves(p);
	return p;
}

/* p serves: the one it replaces (if any) drains. */
static void proc_serves(struct proc *p)
{
	struct proc *old = p->f->cur;
	struct http_front *f = p->f;

	p->state = P_SERVING;
	f->cur = p;
	f->backoff_s = 0;
	log_notice("http: the front end (pid %d) serves", (int)p->pid);
	if (f->dead) {
		proc_free(f->dead);   /* its sockets are p's, or closed now */
		f->dead = NULL;
	}
	if (old && old != p) {   /* its own sockets are closed, and said, when it ends */
		old->state = P_DRAINING;
		kill(old->pid, SIGTERM);
	}
}

static void proc_gone(void *arg, struct front_peer *peer, const char *why)
{
	struct proc *p = arg;
	struct http_front *f = p->f;
	struct timeval tv = { 0, 0 };

	(void)peer;
	switch (p->state) {
	case P_SERVING:
		f->cur = NULL;
		if (f->dead)
			proc_free(f->dead);
		f->backoff_s = f->backoff_s ? f->backoff_s * 2 : 1;
		if (f->backoff_s > RESTART_MAX_S)
			f->backoff_s = RESTART_MAX_S;
		log_err("http: the front end (pid %d) stopped: %s; starting another in %u s",
			(int)p->pid, why, f->backoff_s);
		tv.tv_sec = f->backoff_s;
		evtimer_add(f->restart, &tv);
		/* Its sockets stay open for the next one. */
		for (int i = 0; i < MAX_PROCS; i++)
			if (f->procs[i] == p)
				f->procs[i] = NULL;
		front_peer_free(p->peer);
		reap_later(f, p->pid);
		p->peer = NULL;
		p->pid = -1;
		p->state = P_GONE;
		f->dead = p;   /* its sockets, for the next one */
		return;
	case P_DRAINING:
		log_info("http: the replaced front end (pid %d) has ended", (int)p->pid);
		break;
	case P_GONE:
		return;
	}
	p->state = P_GONE;
	proc_free(p);
}

/* The restart timer: a new front end on the sockets of the one that died
 * (f->dead keeps them until then). */
static void on_restart(evutil_socket_t fd, short what, void *arg)
{
	struct http_front *f = arg;
	struct lsock ls[LOOM_HTTP_MAX_LISTEN];
	struct timeval tv = { RESTART_MAX_S, 0 };
	char err[256];
	int n;

	(void)fd;
	(void)what;
	if (f->cur || !f->conf.http_n_listen)
		return;
	if (listen_all(&f->conf, f->dead, ls, &n, err, sizeof(err)) < 0 ||
	    !proc_start(f, &f->conf, ls, n, err, sizeof(err))) {
		log_err("http: cannot start the front end again: %s; trying again in %d s", err,
			RESTART_MAX_S);
		evtimer_add(f->restart, &tv);
	}
}

/* ---- the module ----------------------------------------------------------------------- */

struct http_front *http_front_new(struct event_base *base, struct ctl *ctl,
				  struct http_metrics *metrics, const struct http_conf *conf,
				  const char *db_path, char *err, size_t errlen)
{
	struct http_front *f = calloc(1, sizeof(*f));
	struct lsock ls[LOOM_HTTP_MAX_LISTEN];
	int n;

	if (!f || !(f->restart = evtimer_new(base, on_restart, f)) ||
	    !(f->reap = evtimer_new(base, on_reap, f))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	f->base = base;
	f->ctl = ctl;
	f->metrics = metrics;
	snprintf(f->db_path, sizeof(f->db_path), "%s", db_path ? db_path : "");
	f->conf = *conf;
	if (!conf->http_n_listen)
		return f;
	if (listen_all(conf, NULL, ls, &n, err, errlen) < 0)
		goto fail;
	if (!proc_start(f, conf, ls, n, err, errlen)) {
		for (int i = 0; i < n; i++)
			close(ls[i].fd);
		goto fail;
	}
	return f;
fail:
	http_front_free(f);
	return NULL;
}

int http_front_reconfigure(struct http_front *f, const struct http_conf *conf)
{
	struct lsock ls[LOOM_HTTP_MAX_LISTEN];
	char err[512];
	int n;

	if (!f)
		return 0;
	if (!conf->http_n_listen) {
		f->conf = *conf;
		if (f->cur) {
			f->cur->state = P_DRAINING;
			kill(f->cur->pid, SIGTERM);
			f->cur = NULL;
		}
		return 0;
	}
	if (listen_all(conf, f->cur ? f->cur : f->dead, ls, &n, err, sizeof(err)) < 0) {
		log_err("reload: %s; the front end and its listeners in force stay", err);
		return -1;
	}
	if (!proc_start(f, conf, ls, n, err, sizeof(err))) {
		for (int i = 0; i < n; i++)
			if (!fd_in_use(f, ls[i].fd, NULL))
				close(ls[i].fd);
		log_err("reload: %s; the front end and its listeners in force stay", err);
		return -1;
	}
	f->conf = *conf;   /* what a restart uses; the in-force one if it fails */
	return 0;
}

void http_front_free(struct http_front *f)
{
	if (!f)
		return;
	for (int i = 0; i < MAX_PROCS; i++)
		if (f->procs[i] && f->procs[i]->pid > 0)
			kill(f->procs[i]->pid, SIGTERM);
	/* A little while to end their requests; then they are killed. */
	for (int t = 0; t < 20; t++) {
		int alive = 0;

		for (int i = 0; i < MAX_PROCS; i++)
			if (f->procs[i] && f->procs[i]->pid > 0) {
				if (waitpid(f->procs[i]->pid, NULL, WNOHANG) == 0)
					alive = 1;
				else
					f->procs[i]->pid = -1;
			}
		if (!alive)
			break;
		usleep(100 * 1000);
	}
	for (int i = 0; i < MAX_PROCS; i++)
		if (f->procs[i]) {
			if (f->procs[i]->pid > 0) {
				kill(f->procs[i]->pid, SIGKILL);
				(void)waitpid(f->procs[i]->pid, NULL, 0);
				f->procs[i]->pid = -1;
			}
			f->procs[i]->state = P_GONE;
			proc_free(f->procs[i]);
		}
	if (f->dead)
		proc_free(f->dead);
	for (int i = 0; i < f->n_ended; i++)
		(void)waitpid(f->ended[i], NULL, WNOHANG);
	if (f->restart)
		event_free(f->restart);
	if (f->reap)
		event_free(f->reap);

	free(f);
}

pid_t http_front_pid(const struct http_front *f)
{
	return f && f->cur ? f->cur->pid : -1;
}
