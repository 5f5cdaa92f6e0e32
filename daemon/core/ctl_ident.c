/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/ctl_ident.c: control clients' identities, looked up off the loop
 * (see ctl_ident.h).
 *
 * A lookup is a detached thread owning its struct lookup. When it ends it
 * puts the lookup on the hub's done list and wakes the loop, which moves
 * the identity into the cache. The hub is shared by the loop and every
 * thread and freed by the last of them, so ctl_idents_free never waits for
 * a thread stuck in NSS: the thread finds the hub without a wake-up, frees
 * its own work and leaves. */
#include "autoconf.h"
#include "daemon/core/ctl_ident.h"

#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/clock.h"
#include "lib/util/log.h"
#include "daemon/core/loop_wake.h"

#define GROUPS_LEN 512       /* the names a lookup resolves, comma-separated */
#define MAX_NAMED 128       /* group names: two lists of CTL_LIST_LEN bytes */
#define ERROR_TTL_S 5        /* an identity NSS failed to give is retried soon */
#define NAME_LEN 64
#define MAX_LOOKUPS 16       /* threads at once: more distinct uids wait */

struct named_group {
	char name[NAME_LEN];
	gid_t gid;
	int found;
};

struct ctl_ident {
	struct ctl_ident *next;
	uid_t uid;
	double made;               /* clock_mono() when its lookup ended */
	char groups[GROUPS_LEN];   /* the names it was made with */
	char user[NAME_LEN];       /* "" when the uid has no passwd entry */
	size_t n_gids;
	gid_t *gids;               /* the user's groups, primary included */
	size_t n_named;
	struct named_group named[MAX_NAMED];
	int nss_err;               /* an error (not "no such entry") of a lookup */
};

struct hub {
	pthread_mutex_t lock;
	int refs;                  /* the loop's, and one per thread */
	struct loop_wake *wake;    /* NULL once the loop side is gone */
	struct lookup *done;
};

struct lookup {
	struct lookup *next;
	struct hub *hub;
	struct ctl_ident *id;      /* the result (made by the thread) */
};

struct in_flight {
	uid_t uid;
	char groups[GROUPS_LEN];
};

struct ctl_idents {
	struct hub *hub;
	struct ctl_ident *cache;
	struct in_flight flight[MAX_LOOKUPS];
	size_t n_flight;
	void (*ready)(void *arg);
	void *arg;
};

static void ident_free(struct ctl_ident *id)
{
	if (id) {
		free(id->gids);
		free(id);
	}
}

static void hub_unref(struct hub *h)
{
	int last;

	pthread_mutex_lock(&h->lock);
	last = --h->refs == 0;
	pthread_mutex_unlock(&h->lock);
	if (!last)
		return;
	while (h->done) {
		struct lookup *l = h->done;

		h->done = l->next;
		ident_free(l->id);
		free(l);
	}
	pthread_mutex_destroy(&h->lock);
	free(h);
}

/* ---- the thread: NSS ------------------------------------------------------- */

/* getpwuid_r/getgrnam_r want a buffer of unknown size: grow until it fits. */
static char *nss_buf_grow(char *buf, size_t *len)
{
	char *n;

	*len = *len ? *len * 2 : 4096;
	if (*len > 1024 * 1024 || !(n = realloc(buf, *len))) {
		free(buf);
		return NULL;
	}
	return n;
}

/* Fill id (uid and groups set) from the databases. Whatever cannot be
 * found stays empty: no user name, no supplementary group, group not
 * found. Those deny, which is safe. */
static void resolve(struct ctl_ident *id)
{
	struct passwd pw, *pwp = NULL;
	char *buf = NULL;
	size_t len = 0;
	int rc;

	do {
		if (!(buf = nss_buf_grow(buf, &len)))
			return;
		rc = getpwuid_r(id->uid, &pw, buf, len, &pwp);
	} while (rc == ERANGE);
	if (rc != 0)
		id->nss_err = rc;
	if (rc == 0 && pwp && strlen(pwp->pw_name) < sizeof(id->user)) {
		int n = 32;

		snprintf(id->user, sizeof(id->user), "%s", pwp->pw_name);
		for (;;) {
			gid_t *g = realloc(id->gids, sizeof(*g) * (size_t)n);
			int want = n;

			if (!g)
				break;
			id->gids = g;
			if (getgrouplist(pwp->pw_name, pwp->pw_gid, g, &want) >= 0) {
				id->n_gids = (size_t)want;
				break;
			}
			/* -1: too small; `want` now says how many there are */
			if (want <= n || want > 65536)
				break;
			n = want;
		}
	}
	for (const char *p = id->groups; *p && id->n_named < MAX_NAMED;) {
		size_t n = strcspn(p, ",");
		struct named_group *ng = &id->named[id->n_named];
		struct group gr, *grp = NULL;

		if (n && n < sizeof(ng->name)) {
			memcpy(ng->name, p, n);
			ng->name[n] = '\0';
			do {
				if (!(buf = nss_buf_grow(buf, &len)))
					return;
				rc = getgrnam_r(ng->name, &gr, buf, len, &grp);
			} while (rc == ERANGE);
			if (rc != 0)
				id->nss_err = rc;
			ng->found = rc == 0 && grp;
			ng->gid = ng->found ? grp->gr_gid : 0;
			id->n_named++;
		}
		p += n + (p[n] == ',');
	}
	free(buf);
}

static void *lookup_thread(void *arg)
{
	struct lookup *l = arg;
	struct hub *h = l->hub;

	resolve(l->id);
	pthread_mutex_lock(&h->lock);
	if (h->wake) {
		l->next = h->done;
		h->done = l;
		if (loop_wake_signal(h->wake) < 0)
			log_err("control: cannot wake the loop after an identity lookup");
		l = NULL;
	}
	pthread_mutex_unlock(&h->lock);
	if (l) {  /* the loop side is gone */
		ident_free(l->id);
		free(l);
	}
	hub_unref(h);
	return NULL;
}

/* ---- the loop ------------------------------------------------------------------ */

static void wake_cb(void *arg)
{
	struct ctl_idents *c = arg;
	struct lookup *done;

	pthread_mutex_lock(&c->hub->lock);
	done = c->hub->done;
	c->hub->done = NULL;
	pthread_mutex_unlock(&c->hub->lock);
	while (done) {
		struct lookup *l = done;
		struct ctl_ident **pp = &c->cache;

		done = l->next;
		for (size_t i = 0; i < c->n_flight; i++)
			if (c->flight[i].uid == l->id->uid &&
			    !strcmp(c->flight[i].groups, l->id->groups)) {
				c->flight[i] = c->flight[--c->n_flight];
				break;
			}
		/* The newest replaces what the cache had for the uid. */
		while (*pp && (*pp)->uid != l->id->uid)
			pp = &(*pp)->next;
		if (*pp) {
			struct ctl_ident *old = *pp;

			*pp = old->next;
			ident_free(old);
		}
		/* Fresh from now: a lookup that took long (NSS timeouts) still
		 * serves the requests that waited for it. */
		l->id->made = clock_mono();
		l->id->next = c->cache;
		c->cache = l->id;
		free(l);
	}
	c->ready(c->arg);
}

struct ctl_idents *ctl_idents_new(struct event_base *base, void (*ready)(void *arg), void *arg,
				  char *err, size_t errlen)
{
	struct ctl_idents *c = calloc(1, sizeof(*c));

	if (!c || !(c->hub = calloc(1, sizeof(*c->hub)))) {
		free(c);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&c->hub->lock, NULL);
	c->hub->refs = 1;
	c->ready = ready;
	c->arg = arg;
	if (!(c->hub->wake = loop_wake_new(base, wake_cb, c, "control identity lookups", err,
					   errlen))) {
		ctl_idents_free(c);
		return NULL;
	}
	return c;
}

void ctl_idents_free(struct ctl_idents *c)
{
	struct loop_wake *w;

	if (!c)
		return;
	pthread_mutex_lock(&c->hub->lock);
	w = c->hub->wake;
	c->hub->wake = NULL;  /* threads still in NSS free their own work */
	pthread_mutex_unlock(&c->hub->lock);
	loop_wake_free(w);
	hub_unref(c->hub);
	while (c->cache) {
		struct ctl_ident *id = c->cache;

		c->cache = id->next;
		ident_free(id);
	}
	free(c);
}

static int start_lookup(struct ctl_idents *c, uid_t uid, const char *groups)
{
	struct lookup *l;
	pthread_attr_t attr;
	pthread_t t;
	int rc;

	for (size_t i = 0; i < c->n_flight; i++)
		if (c->flight[i].uid == uid && !strcmp(c->flight[i].groups, groups))
			return 0;  /* under way */
	if (c->n_flight == MAX_LOOKUPS)
		return -EAGAIN;
	if (!(l = calloc(1, sizeof(*l))) || !(l->id = calloc(1, sizeof(*l->id)))) {
		free(l);
		return -ENOMEM;
	}
	l->hub = c->hub;
	l->id->uid = uid;
	snprintf(l->id->groups, sizeof(l->id->groups), "%s", groups);
	pthread_mutex_lock(&c->hub->lock);
	c->hub->refs++;
	pthread_mutex_unlock(&c->hub->lock);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&t, &attr, lookup_thread, l);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		hub_unref(c->hub);
		ident_free(l->id);
		free(l);
		return -rc;
	}
	c->flight[c->n_flight].uid = uid;
	snprintf(c->flight[c->n_flight].groups, sizeof(c->flight[0].groups), "%s", groups);
	c->n_flight++;
	return 0;
}

int ctl_idents_get(struct ctl_idents *c, uid_t uid, const char *groups,
		   const struct ctl_ident **out)
{
	if (strlen(groups) >= GROUPS_LEN)
		return -ENAMETOOLONG;
	for (const struct ctl_ident *id = c->cache; id; id = id->next)
		if (id->uid == uid && !strcmp(id->groups, groups) &&
		    clock_mono() - id->made < (id->nss_err ? ERROR_TTL_S : CTL_IDENT_TTL_S)) {
			*out = id;
			return 1;
		}
	return start_lookup(c, uid, groups);
}

int ctl_ident_in_group(const struct ctl_ident *id, gid_t gid, const char *name)
{
	for (size_t i = 0; i < id->n_named; i++) {
		const struct named_group *ng = &id->named[i];

		if (strcmp(ng->name, name))
			continue;
		if (!ng->found)
			return -ENOENT;
		if (gid == ng->gid)
			return 1;
		for (size_t k = 0; k < id->n_gids; k++)
			if (id->gids[k] == ng->gid)
				return 1;
		return 0;
	}
	return -ENOENT;  /* not among the names it was made with */
}

int ctl_ident_in_groups(const struct ctl_ident *id, gid_t gid, const char *list)
{
	for (size_t i = 0; i < id->n_named; i++) {
		size_t len = strlen(id->named[i].name);

		for (const char *p = list; *p;) {
			size_t n = strcspn(p, ",");

			if (n == len && !strncmp(p, id->named[i].name, n) &&
			    ctl_ident_in_group(id, gid, id->named[i].name) == 1)
				return 1;
			p += n + (p[n] == ',');
		}
	}
	return 0;
}

int ctl_ident_error(const struct ctl_ident *id)
{
	return -id->nss_err;
}

int ctl_ident_user_in(const struct ctl_ident *id, const char *list)
{
	size_t len = strlen(id->user);

	if (!len)
		return 0;
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");

		if (n == len && !strncmp(p, id->user, n))
			return 1;
		p += n + (p[n] == ',');
	}
	return 0;
}
