/* daemon/tenants.c: tenant isolation on InfiniBand. A tenant (a job) is a
 * partition key on exactly the HCA ports of its hosts.
 *
 * One change at a time, in this order:
 *  1. (loop) the hosts resolve to port GUIDs through the stored fabric's node
 *     descriptions; an unknown host changes nothing. The tenant is written to
 *     the store as "applying", with an audit event naming the uid.
 *  2. (worker thread) loom's partitions file (the operator's partitions, then
 *     every tenant's) is rewritten, OpenSM is sent SIGHUP (it re-reads the
 *     file on the heavy sweep that follows), and the PKey tables of every CA
 *     port of every swept subnet are read back (`loomd --read-pkeys`) until
 *     the tenant's key is on each of its ports and on no other port (or, for
 *     a delete, on none), or the timeout passes.
 *  3. (loop) confirmed: "active", the answer is success. Not confirmed: the
 *     change is rolled back (store and file, OpenSM signalled again) and the
 *     answer is the error, naming the ports that were wrong.
 * A request that finds the tenant already as asked answers at once, so a
 * retried Slurm prolog or epilog is harmless. */
#include "autoconf.h"
#include "tenants.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <sqlite3.h>

#include "config.h"
#include "ctl.h"
#include "hostlist.h"
#include "log.h"
#include "partitions.h"
#include "pkey_read.h"
#include "proto.h"
#include "store.h"
#include "store_tenants.h"

enum top_kind { TOP_CREATE, TOP_ADD, TOP_REMOVE, TOP_DELETE, TOP_VERIFY };
static const char *const top_names[] = { "create", "add-hosts", "remove-hosts", "delete",
					 "verify" };

/* One change, from request to answer. */
struct top {
	struct top *next;
	struct tenants_mod *m;
	struct ctl_req *req;
	enum top_kind kind;
	char name[LOOM_NAME_LEN];
	int uid;
	json_t *prev;          /* the tenant before (NULL: none), for the rollback */
	/* for the worker */
	char *file_text;       /* the partitions file to write (NULL: verify only) */
	unsigned pkey;
	json_t *members;       /* {"0x<guid>": true}: must hold the key; others must not */
	int limited;
	struct disc_ib_params *subnets;
	char (*subnet_names)[LOOM_NAME_LEN];
	char (*subnet_cas)[LOOM_NAME_LEN];
	size_t n_subnets;
	int once;              /* verify: one read, no waiting (the tenant was active) */
	int osm_pid;           /* OpenSM to signal, or 0 and osm_why says why none */
	char osm_why[512];
	/* the worker's result */
	pthread_t thread;
	int rc;
	char err[1024];
	double took;
};

struct tenants_mod {
	struct event_base *base;
	struct store *store;
	struct loom_config *conf;
	struct top *queue;      /* waiting; the head runs when `running` */
	int running;
	int pipe_fd[2];
	struct event *pipe_ev;
};

static double now_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void top_free(struct top *t)
{
	if (!t)
		return;
	json_decref(t->prev);
	json_decref(t->members);
	free(t->file_text);
	free(t->subnets);
	free(t->subnet_names);
	free(t->subnet_cas);
	free(t);
}

/* ---- the partitions file and OpenSM ------------------------------------------ */

static char *read_file(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	char buf[4096];
	size_t n;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (!(mem = open_memstream(&text, &len))) {
		fclose(f);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, mem);
	fclose(f);
	fclose(mem);
	return text;
}

/* The file's text from the store's tenants. NULL with err. */
static char *file_text(struct tenants_mod *m, char *err, size_t errlen)
{
	json_t *list = NULL, *t;
	struct part_tenant *pt = NULL;
	uint64_t **guids = NULL;
	char *static_text = NULL, *text = NULL;
	size_t i, n = 0;

	if (m->conf->tenant_static_partitions[0] &&
	    !(static_text = read_file(m->conf->tenant_static_partitions, err, errlen)))
		return NULL;
	if (store_tenant_list(m->store, &list) < 0) {
		snprintf(err, errlen, "cannot read the tenants from the database");
		goto out;
	}
	n = json_array_size(list);
	pt = calloc(n + 1, sizeof(*pt));
	guids = calloc(n + 1, sizeof(*guids));
	if (!pt || !guids)
		goto nomem;
	json_array_foreach(list, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		json_t *full = NULL, *ports, *p;
		size_t k;

		if (store_tenant_get(m->store, name, &full) < 0) {
			snprintf(err, errlen, "cannot read tenant %s from the database", name);
			goto out;
		}
		ports = json_object_get(full, "ports");
		guids[i] = calloc(json_array_size(ports) + 1, sizeof(**guids));
		if (!guids[i]) {
			json_decref(full);
			goto nomem;
		}
		json_array_foreach(ports, k, p)
			guids[i][k] = strtoull(json_string_value(json_object_get(p, "guid")), NULL, 16);
		pt[i] = (struct part_tenant){
			.name = name, .pkey = (unsigned)json_integer_value(json_object_get(t, "pkey")),
			.limited = !strcmp(json_string_value(json_object_get(t, "membership")),
					   "limited"),
			.guids = guids[i], .n_guids = json_array_size(ports),
		};
		json_decref(full);
	}
	if (!(text = part_file_new(static_text, pt, n)))
		goto nomem;
	goto out;
nomem:
	snprintf(err, errlen, "out of memory");
out:
	for (i = 0; guids && i < n; i++)
		free(guids[i]);
	free(guids);
	free(pt);
	json_decref(list);
	free(static_text);
	return text;
}

/* Write `text` to `path` whole or not at all (temporary file, fsync, rename). */
static int write_file(const char *path, const char *text, char *err, size_t errlen)
{
	char tmp[PATH_MAX + 16];
	size_t len = strlen(text);
	int fd, rc = 0;

	snprintf(tmp, sizeof(tmp), "%s.loomtmp", path);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		snprintf(err, errlen, "%.900s: %s", tmp, strerror(errno));
		return -errno;
	}
	if (write(fd, text, len) != (ssize_t)len || fsync(fd) < 0)
		rc = -errno ? -errno : -EIO;
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

/* Is `pid` an OpenSM (not a process that reused the pid of one)? */
static int is_opensm(int pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (!(f = fopen(path, "r")))
		return 0;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strncmp(comm, "opensm", 6);
}

/* OpenSM's pid: its pid file, else the one libloomosm.so last reported;
 * only a live process called opensm. */
static int opensm_pid(struct tenants_mod *m, const char *pid_file, char *err, size_t errlen)
{
	int pid = 0;

	if (pid_file[0]) {
		FILE *f = fopen(pid_file, "r");

		if (!f || fscanf(f, "%d", &pid) != 1 || pid <= 1) {
			snprintf(err, errlen, "OpenSM's pid file %s: %s", pid_file,
				 f ? "no pid in it" : strerror(errno));
			if (f)
				fclose(f);
			return -ESRCH;
		}
		fclose(f);
		if (!is_opensm(pid)) {
			snprintf(err, errlen, "OpenSM's pid file %s: pid %d is not a running opensm",
				 pid_file, pid);
			return -ESRCH;
		}
		return pid;
	}
	if (m && store_last_sm_pid(m->store, &pid) == 0 && pid > 1 && is_opensm(pid))
		return pid;
	snprintf(err, errlen, "no OpenSM to signal: set tenants.opensm_pid_file, or load "
		 "libloomosm.so into OpenSM (event_plugin_name loomosm)");
	return -ESRCH;
}

/* ---- the worker --------------------------------------------------------------- */

/* Is the key (15 bits, any membership) in a port's table? Its entry, or 0. */
static unsigned entry_of(const json_t *keys, unsigned pkey)
{
	size_t i;
	json_t *k;

	json_array_foreach(keys, i, k)
		if (((unsigned)json_integer_value(k) & 0x7fff) == pkey)
			return (unsigned)json_integer_value(k);
	return 0;
}

/* Compare one read of every subnet with what the tenant wants; 0 when it
 * holds, else -EAGAIN and err names the ports that are wrong. */
static int judge(const struct top *t, json_t *const *reads, char *err, size_t errlen)
{
	unsigned want = t->limited ? t->pkey : t->pkey | 0x8000;
	size_t missing = 0, extra = 0, wrong = 0, unseen = 0;
	char first[160] = "";
	const char *guid;
	json_t *v;

	for (size_t s = 0; s < t->n_subnets; s++)
		json_object_foreach(reads[s], guid, v) {
			unsigned e = entry_of(v, t->pkey);
			int member = t->members && json_object_get(t->members, guid);

			if (member && !e)
				missing++;
			else if (member && e != want)
				wrong++;
			else if (!member && e)
				extra++;
			else
				continue;
			if (!first[0])
				snprintf(first, sizeof(first), "%s %s 0x%04x", guid,
					 member ? "lacks" : "holds", want);
		}
	json_object_foreach(t->members, guid, v) {
		size_t s;

		for (s = 0; s < t->n_subnets && !json_object_get(reads[s], guid); s++)
			;
		if (s == t->n_subnets && !unseen++ && !first[0])
			snprintf(first, sizeof(first), "%s was not found in any subnet", guid);
	}
	if (!missing && !extra && !wrong && !unseen)
		return 0;
	snprintf(err, errlen, "PKey 0x%04x: %zu member port%s without it, %zu with the wrong "
		 "membership, %zu other port%s with it, %zu member port%s not found (first: %s)",
		 t->pkey, missing, missing == 1 ? "" : "s", wrong, extra, extra == 1 ? "" : "s",
		 unseen, unseen == 1 ? "" : "s", first);
	return -EAGAIN;
}

static void *top_thread(void *arg)
{
	struct top *t = arg;
	struct tenants_mod *m = t->m;
	double start = now_wall(), deadline = start + m->conf->tenant_timeout_s;
	json_t **reads = calloc(t->n_subnets + 1, sizeof(*reads));
	char why[1024] = "";
	char byte = 1;
	int signalled = 0;

	t->rc = 0;
	if (!reads) {
		t->rc = -ENOMEM;
		snprintf(t->err, sizeof(t->err), "out of memory");
		goto done;
	}
	if (t->file_text) {
		if ((t->rc = write_file(m->conf->tenant_partitions_file, t->file_text, t->err,
					sizeof(t->err))) < 0)
			goto done;
		if (t->osm_pid > 0 && kill(t->osm_pid, SIGHUP) == 0)
			signalled = 1;
		else if (t->osm_pid > 0)
			snprintf(why, sizeof(why), "cannot signal OpenSM (pid %d): %s", t->osm_pid,
				 strerror(errno));
		else
			snprintf(why, sizeof(why), "%s", t->osm_why);
	}
	for (;;) {
		int read_ok = 1;

		for (size_t s = 0; s < t->n_subnets; s++) {
			json_decref(reads[s]);
			reads[s] = NULL;
			if (pkey_read_run(&t->subnets[s], &reads[s], t->err, sizeof(t->err)) < 0) {
				read_ok = 0;
				break;
			}
		}
		if (read_ok && (t->rc = judge(t, reads, t->err, sizeof(t->err))) == 0)
			break;
		if (!read_ok)
			t->rc = -EIO;
		if (now_wall() >= deadline || t->once)
			break;
		usleep(500000);
	}
	if (t->rc < 0 && t->file_text && !signalled && why[0]) {
		size_t l = strlen(t->err);

		snprintf(t->err + l, sizeof(t->err) - l, "; %s", why);
	}
done:
	for (size_t s = 0; reads && s < t->n_subnets; s++)
		json_decref(reads[s]);
	free(reads);
	t->took = now_wall() - start;
	if (write(m->pipe_fd[1], &byte, 1) != 1)
		log_err("tenants: cannot wake the event loop: %s", strerror(errno));
	return NULL;
}

/* ---- the loop ------------------------------------------------------------------- */

static void start_next(struct tenants_mod *m);

/* The IB subnets to read (every swept one), with the configured MAD limits. */
static int fill_subnets(struct tenants_mod *m, struct top *t)
{
	sqlite3 *db = store_db(m->store);
	sqlite3_stmt *s;
	size_t cap = 8;

	t->subnets = calloc(cap, sizeof(*t->subnets));
	t->subnet_names = calloc(cap, sizeof(*t->subnet_names));
	t->subnet_cas = calloc(cap, sizeof(*t->subnet_cas));
	if (!t->subnets || !t->subnet_names || !t->subnet_cas ||
	    sqlite3_prepare_v2(db, "SELECT name, ca, port FROM subnets WHERE kind = 'ib' AND id IN "
			       "(SELECT subnet_id FROM sweeps WHERE status = 'ok') ORDER BY name",
			       -1, &s, NULL) != SQLITE_OK)
		return -ENOMEM;
	while (sqlite3_step(s) == SQLITE_ROW && t->n_subnets < cap) {
		size_t i = t->n_subnets++;

		snprintf(t->subnet_names[i], LOOM_NAME_LEN, "%s", sqlite3_column_text(s, 0));
		snprintf(t->subnet_cas[i], LOOM_NAME_LEN, "%s", sqlite3_column_text(s, 1));
		t->subnets[i] = (struct disc_ib_params){
			.subnet = t->subnet_names[i], .ca = t->subnet_cas[i],
			.port = sqlite3_column_int(s, 2), .timeout_ms = m->conf->mad_timeout_ms,
			.retries = m->conf->mad_retries, .max_smps = m->conf->max_smps,
		};
	}
	sqlite3_finalize(s);
	return t->n_subnets ? 0 : -ENOENT;
}

/* The tenant as stored now: its key, membership and member ports. */
static int load_want(struct tenants_mod *m, struct top *t)
{
	json_t *cur = NULL, *p;
	size_t i;
	int rc = store_tenant_get(m->store, t->name, &cur);

	t->members = json_object();
	if (rc == -ENOENT) /* deleted: the key must be on no port */
		return 0;
	if (rc < 0)
		return rc;
	t->once = t->kind == TOP_VERIFY && t->req &&
		  !strcmp(json_string_value(json_object_get(cur, "state")), "active");
	t->pkey = (unsigned)json_integer_value(json_object_get(cur, "pkey"));
	t->limited = !strcmp(json_string_value(json_object_get(cur, "membership")), "limited");
	json_array_foreach(json_object_get(cur, "ports"), i, p)
		json_object_set_new(t->members, json_string_value(json_object_get(p, "guid")),
				    json_true());
	json_decref(cur);
	return 0;
}

static void reply_tenant(struct tenants_mod *m, struct top *t, const char *note)
{
	json_t *cur = NULL;

	if (!t->req)
		return;
	if (store_tenant_get(m->store, t->name, &cur) < 0)
		cur = json_pack("{s:s, s:s}", "name", t->name, "state", "deleted");
	if (note)
		json_object_set_new(cur, "note", json_string(note));
	json_object_set_new(cur, "took_s", json_real(t->took));
	ctl_reply_ok(t->req, cur);
}

/* Put the tenant back as it was before `t` (the store; the file follows
 * from it), after a change that could not be confirmed. */
static void roll_back(struct tenants_mod *m, struct top *t)
{
	double now = now_wall();
	char err[512] = "";
	char *text;

	if (t->kind == TOP_VERIFY)
		return;
	if (!t->prev) {
		store_tenant_delete(m->store, now, t->name, t->uid);
	} else {
		const char *membership = json_string_value(json_object_get(t->prev, "membership"));

		store_tenant_put(m->store, now, t->name,
				 (unsigned)json_integer_value(json_object_get(t->prev, "pkey")),
				 membership && !strcmp(membership, "limited"),
				 json_object_get(t->prev, "ports"), t->uid, "tenant_rolled_back",
				 "rolled back");
		store_tenant_set_state(m->store, now, t->name,
				       json_string_value(json_object_get(t->prev, "state")), "");
	}
	if ((text = file_text(m, err, sizeof(err))) &&
	    write_file(m->conf->tenant_partitions_file, text, err, sizeof(err)) == 0) {
		int pid = opensm_pid(m, m->conf->tenant_opensm_pid_file, err, sizeof(err));

		if (pid > 0)
			kill(pid, SIGHUP);
	} else {
		log_err("tenant %s: the rollback could not rewrite the partitions file: %s",
			t->name, err);
	}
	free(text);
}

static void finish(struct tenants_mod *m, struct top *t)
{
	double now = now_wall();

	if (t->rc == 0) {
		if (t->kind != TOP_DELETE)
			store_tenant_set_state(m->store, now, t->name, "active", "");
		log_notice("tenant %s: %s confirmed on the fabric in %.1f s", t->name,
			   top_names[t->kind], t->took);
		reply_tenant(m, t, NULL);
		return;
	}
	log_warn("tenant %s: %s not confirmed after %.1f s: %s", t->name, top_names[t->kind],
		 t->took, t->err);
	if (!t->req) { /* loomd's own check at start: nothing to undo, nobody to tell */
		store_tenant_set_state(m->store, now, t->name, "failed", t->err);
		return;
	}
	if (t->kind == TOP_DELETE) {
		/* The tenant is out of the file already; a retried delete checks again. */
		ctl_reply_err(t->req, PROTO_ERR_FAILED, "tenant %s: deleted, but its key is still "
			      "on the fabric: %s", t->name, t->err);
		return;
	}
	if (t->kind == TOP_VERIFY) {
		store_tenant_set_state(m->store, now, t->name, "failed", t->err);
		ctl_reply_err(t->req, PROTO_ERR_FAILED, "tenant %s: %s", t->name, t->err);
		return;
	}
	roll_back(m, t);
	ctl_reply_err(t->req, PROTO_ERR_FAILED, "tenant %s: %s not confirmed within %d s, rolled "
		      "back: %s", t->name, top_names[t->kind], m->conf->tenant_timeout_s, t->err);
}

static void start_next(struct tenants_mod *m)
{
	struct top *t;
	char err[1024] = "";
	int rc;

	while (!m->running && (t = m->queue)) {
		rc = fill_subnets(m, t);
		if (rc == 0)
			rc = load_want(m, t);
		if (rc == 0 && t->kind != TOP_VERIFY && !(t->file_text = file_text(m, err,
										    sizeof(err))))
			rc = -EIO;
		if (rc == 0 && t->file_text)
			t->osm_pid = opensm_pid(m, m->conf->tenant_opensm_pid_file, t->osm_why,
						sizeof(t->osm_why));
		if (rc == 0 && pthread_create(&t->thread, NULL, top_thread, t) == 0) {
			m->running = 1;
			return;
		}
		m->queue = t->next;
		if (rc == -ENOENT)
			snprintf(err, sizeof(err), "no InfiniBand subnet has been swept: run "
				 "loomctl discover first");
		else if (!err[0])
			snprintf(err, sizeof(err), "%s", strerror(rc < 0 ? -rc : EAGAIN));
		t->rc = rc < 0 ? rc : -EAGAIN;
		snprintf(t->err, sizeof(t->err), "%s", err);
		if (!t->req) {
			log_warn("tenant %s: cannot check it: %s", t->name, err);
			top_free(t);
			continue;
		}
		finish(m, t);
		top_free(t);
	}
}

static void pipe_cb(evutil_socket_t fd, short what, void *arg)
{
	struct tenants_mod *m = arg;
	struct top *t = m->queue;
	char buf[16];

	(void)what;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	if (!m->running || !t)
		return;
	pthread_join(t->thread, NULL);
	m->running = 0;
	m->queue = t->next;
	finish(m, t);
	top_free(t);
	start_next(m);
}

static void enqueue(struct tenants_mod *m, struct top *t)
{
	struct top **pp = &m->queue;

	while (*pp)
		pp = &(*pp)->next;
	*pp = t;
	start_next(m);
}

/* ---- requests ----------------------------------------------------------------- */

static int valid_name(const char *name)
{
	if (!name[0] || strlen(name) >= LOOM_NAME_LEN)
		return 0;
	for (const char *c = name; *c; c++)
		if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') &&
		    !(*c >= '0' && *c <= '9') && !strchr("_.-", *c))
			return 0;
	return 1;
}

/* The HCA ports of `list`'s hosts: [{"host", "guid"}]. NULL with err when a
 * host is unknown (all unknown ones named) or the list is malformed. */
static json_t *resolve(struct tenants_mod *m, const char *list, char *err, size_t errlen)
{
	struct hostlist hl;
	json_t *map = NULL, *ports;
	char unknown[512] = "";
	size_t n_unknown = 0, off = 0;

	if (hostlist_expand(list, &hl, err, errlen) < 0)
		return NULL;
	if (store_tenant_host_ports(m->store, &map) < 0) {
		hostlist_clear(&hl);
		snprintf(err, errlen, "cannot read the hosts from the database");
		return NULL;
	}
	ports = json_array();
	for (size_t i = 0; i < hl.n; i++) {
		json_t *g = json_object_get(map, hl.names[i]), *v;
		size_t k;

		if (!g) {
			if (off < sizeof(unknown))
				off += (size_t)snprintf(unknown + off, sizeof(unknown) - off, "%s%s",
							n_unknown ? ", " : "", hl.names[i]);
			n_unknown++;
			continue;
		}
		json_array_foreach(g, k, v)
			json_array_append_new(ports, json_pack("{s:s, s:O}", "host", hl.names[i],
							       "guid", v));
	}
	hostlist_clear(&hl);
	json_decref(map);
	if (n_unknown) {
		snprintf(err, errlen, "%zu unknown host%s (no HCA port with that node description "
			 "in the swept fabric): %s", n_unknown, n_unknown == 1 ? "" : "s", unknown);
		json_decref(ports);
		return NULL;
	}
	return ports;
}

/* The set of "guid" values of ports ([{"host", "guid"}]), as an object. */
static json_t *guid_set(const json_t *ports)
{
	json_t *set = json_object(), *p;
	size_t i;

	json_array_foreach(ports, i, p)
		json_object_set_new(set, json_string_value(json_object_get(p, "guid")), json_true());
	return set;
}

static int same_ports(const json_t *a, const json_t *b)
{
	json_t *sa = guid_set(a), *sb = guid_set(b);
	int same = json_equal(sa, sb);

	json_decref(sa);
	json_decref(sb);
	return same;
}

/* The lowest free key of the pool, or the asked one if free; 0 with err. */
static unsigned choose_pkey(struct tenants_mod *m, int asked, char *err, size_t errlen)
{
	uint8_t used[4096], fixed[4096];
	char *text = NULL;

	if (store_tenant_pkeys(m->store, used) < 0) {
		snprintf(err, errlen, "cannot read the tenants' keys from the database");
		return 0;
	}
	memset(fixed, 0, sizeof(fixed));
	if (m->conf->tenant_static_partitions[0]) {
		if (!(text = read_file(m->conf->tenant_static_partitions, err, errlen)))
			return 0;
		part_static_pkeys(text, fixed);
		free(text);
	}
	for (size_t i = 0; i < sizeof(used); i++)
		used[i] |= fixed[i];
	used[0x7fff / 8] |= 0x80; /* the default partition */
	if (asked) {
		unsigned k = (unsigned)asked & 0x7fff;

		if (k == 0 || k == 0x7fff || (used[k / 8] >> (k % 8) & 1)) {
			snprintf(err, errlen, "PKey 0x%04x is %s", k, k == 0 || k == 0x7fff ?
				 "reserved" : "in use (another tenant or the operator's partitions)");
			return 0;
		}
		return k;
	}
	for (int k = m->conf->tenant_pkey_min; k <= m->conf->tenant_pkey_max; k++)
		if (!(used[k / 8] >> (k % 8) & 1))
			return (unsigned)k;
	snprintf(err, errlen, "the PKey pool 0x%04x..0x%04x is exhausted", m->conf->tenant_pkey_min,
		 m->conf->tenant_pkey_max);
	return 0;
}

static struct top *top_new(struct tenants_mod *m, struct ctl_req *req, enum top_kind kind,
			   const char *name)
{
	struct top *t = calloc(1, sizeof(*t));

	if (!t) {
		ctl_reply_err(req, PROTO_ERR_FAILED, "out of memory");
		return NULL;
	}
	t->m = m;
	t->req = req;
	t->kind = kind;
	t->uid = ctl_req_uid(req);
	snprintf(t->name, sizeof(t->name), "%s", name);
	return t;
}

/* The "name" argument, checked; NULL when the request was answered. */
static const char *arg_name(struct ctl_req *req, json_t *args)
{
	const char *name = json_string_value(json_object_get(args, "name"));

	if (!name || !valid_name(name)) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "tenant name \"%s\": 1 to %d characters of "
			      "A-Z a-z 0-9 _ . -", name ? name : "", LOOM_NAME_LEN - 1);
		return NULL;
	}
	return name;
}

static void cmd_create(struct ctl_req *req, json_t *args, void *arg)
{
	struct tenants_mod *m = arg;
	const char *name = arg_name(req, args);
	const char *hosts = json_string_value(json_object_get(args, "hosts"));
	int asked = (int)json_integer_value(json_object_get(args, "pkey"));
	int limited = json_is_true(json_object_get(args, "limited"));
	json_t *ports, *prev = NULL;
	char err[1024] = "", what[256];
	unsigned pkey;
	struct top *t;

	if (!name)
		return;
	if (!hosts) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "tenant create: hosts missing");
		return;
	}
	if (!(ports = resolve(m, hosts, err, sizeof(err)))) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "tenant %s: %s; nothing changed", name, err);
		return;
	}
	if (store_tenant_get(m->store, name, &prev) == 0) {
		const char *mem = json_string_value(json_object_get(prev, "membership"));
		unsigned had = (unsigned)json_integer_value(json_object_get(prev, "pkey"));

		if (!same_ports(ports, json_object_get(prev, "ports")) ||
		    (asked && ((unsigned)asked & 0x7fff) != had) ||
		    strcmp(mem, limited ? "limited" : "full")) {
			ctl_reply_err(req, PROTO_ERR_BADREQ, "tenant %s exists with other hosts, "
				      "key or membership (PKey 0x%04x); use tenant add-hosts / "
				      "remove-hosts, or delete it first", name, had);
			json_decref(ports);
			json_decref(prev);
			return;
		}
		json_decref(ports);
		json_decref(prev);
		/* Asked again as it is (a retried prolog): confirm it on the fabric. */
		if ((t = top_new(m, req, TOP_VERIFY, name)))
			enqueue(m, t);
		return;
	}
	if (!(pkey = choose_pkey(m, asked, err, sizeof(err)))) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "tenant %s: %s; nothing changed", name, err);
		json_decref(ports);
		return;
	}
	snprintf(what, sizeof(what), "created: PKey 0x%04x %s, hosts %s, %zu ports", pkey,
		 limited ? "limited" : "full", hosts, json_array_size(ports));
	if (store_tenant_put(m->store, now_wall(), name, pkey, limited, ports,
			     ctl_req_uid(req), "tenant_created", what) < 0) {
		ctl_reply_err(req, PROTO_ERR_FAILED, "tenant %s: cannot write it to the database",
			      name);
		json_decref(ports);
		return;
	}
	json_decref(ports);
	log_notice("tenant %s: %s (uid %d)", name, what, ctl_req_uid(req));
	if ((t = top_new(m, req, TOP_CREATE, name)))
		enqueue(m, t);
}

/* add-hosts and remove-hosts: the new member set, then as create. */
static void change_hosts(struct ctl_req *req, json_t *args, struct tenants_mod *m, int add)
{
	const char *name = arg_name(req, args);
	const char *hosts = json_string_value(json_object_get(args, "hosts"));
	json_t *ports, *prev = NULL, *next, *p, *drop;
	char err[1024] = "", what[256];
	size_t i;
	struct top *t;

	if (!name)
		return;
	if (!hosts || !(ports = resolve(m, hosts, err, sizeof(err)))) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "tenant %s: %s; nothing changed", name,
			      hosts ? err : "hosts missing");
		return;
	}
	if (store_tenant_get(m->store, name, &prev) < 0) {
		ctl_reply_err(req, PROTO_ERR_NOTFOUND, "no tenant %s", name);
		json_decref(ports);
		return;
	}
	next = json_array();
	drop = add ? json_object() : guid_set(ports);
	json_array_foreach(json_object_get(prev, "ports"), i, p)
		if (!json_object_get(drop, json_string_value(json_object_get(p, "guid"))))
			json_array_append(next, p);
	if (add)
		json_array_extend(next, ports);
	json_decref(drop);
	if (same_ports(next, json_object_get(prev, "ports")) || !json_array_size(next)) {
		int empty = !json_array_size(next);

		json_decref(next);
		json_decref(ports);
		json_decref(prev);
		if (empty) {
			ctl_reply_err(req, PROTO_ERR_BADREQ, "tenant %s: that would leave it no "
				      "hosts; delete it instead", name);
			return;
		}
		if ((t = top_new(m, req, TOP_VERIFY, name)))
			enqueue(m, t);
		return;
	}
	snprintf(what, sizeof(what), "%s hosts %s: %zu ports now", add ? "added" : "removed",
		 hosts, json_array_size(next));
	if (store_tenant_put(m->store, now_wall(), name,
			     (unsigned)json_integer_value(json_object_get(prev, "pkey")),
			     !strcmp(json_string_value(json_object_get(prev, "membership")), "limited"),
			     next, ctl_req_uid(req), "tenant_changed", what) < 0) {
		ctl_reply_err(req, PROTO_ERR_FAILED, "tenant %s: cannot write it to the database",
			      name);
		json_decref(next);
		json_decref(ports);
		json_decref(prev);
		return;
	}
	json_decref(next);
	json_decref(ports);
	if (!(t = top_new(m, req, add ? TOP_ADD : TOP_REMOVE, name))) {
		json_decref(prev);
		return;
	}
	t->prev = prev;
	enqueue(m, t);
}

static void cmd_add(struct ctl_req *req, json_t *args, void *arg)
{
	change_hosts(req, args, arg, 1);
}

static void cmd_remove(struct ctl_req *req, json_t *args, void *arg)
{
	change_hosts(req, args, arg, 0);
}

static void cmd_delete(struct ctl_req *req, json_t *args, void *arg)
{
	struct tenants_mod *m = arg;
	const char *name = arg_name(req, args);
	json_t *prev = NULL;
	struct top *t;

	if (!name)
		return;
	if (store_tenant_get(m->store, name, &prev) == -ENOENT) {
		/* An epilog for a job that has no tenant (or a retried one). */
		ctl_reply_ok(req, json_pack("{s:s, s:s, s:s}", "name", name, "state", "deleted",
					    "note", "no such tenant: nothing to do"));
		return;
	}
	json_decref(prev);
	if (store_tenant_delete(m->store, now_wall(), name, ctl_req_uid(req)) < 0) {
		ctl_reply_err(req, PROTO_ERR_FAILED, "tenant %s: cannot delete it from the database",
			      name);
		return;
	}
	log_notice("tenant %s: deleted (uid %d)", name, ctl_req_uid(req));
	if ((t = top_new(m, req, TOP_DELETE, name)))
		enqueue(m, t);
}

static void cmd_verify(struct ctl_req *req, json_t *args, void *arg)
{
	struct tenants_mod *m = arg;
	const char *name = arg_name(req, args);
	json_t *cur = NULL;
	struct top *t;

	if (!name)
		return;
	if (store_tenant_get(m->store, name, &cur) < 0) {
		ctl_reply_err(req, PROTO_ERR_NOTFOUND, "no tenant %s", name);
		return;
	}
	json_decref(cur);
	if ((t = top_new(m, req, TOP_VERIFY, name)))
		enqueue(m, t);
}

static void cmd_show(struct ctl_req *req, json_t *args, void *arg)
{
	struct tenants_mod *m = arg;
	const char *name = arg_name(req, args);
	json_t *cur = NULL;
	int rc;

	if (!name)
		return;
	if ((rc = store_tenant_get(m->store, name, &cur)) < 0)
		ctl_reply_err(req, rc == -ENOENT ? PROTO_ERR_NOTFOUND : PROTO_ERR_FAILED,
			      rc == -ENOENT ? "no tenant %s" : "tenant %s: cannot read it", name);
	else
		ctl_reply_ok(req, cur);
}

static void cmd_list(struct ctl_req *req, json_t *args, void *arg)
{
	struct tenants_mod *m = arg;
	json_t *list = NULL;

	(void)args;
	if (store_tenant_list(m->store, &list) < 0)
		ctl_reply_err(req, PROTO_ERR_FAILED, "cannot read the tenants");
	else
		ctl_reply_ok(req, list);
}

/* ---- the module ------------------------------------------------------------------ */

int tenants_reconfigure(struct tenants_mod *m, const struct loom_config *conf)
{
	struct loom_config *c = malloc(sizeof(*c));

	if (!c)
		return -ENOMEM;
	memcpy(c, conf, sizeof(*c));
	/* A running change keeps the configuration it started with: the
	 * worker reads m->conf, so it is swapped only between changes. */
	if (m->running) {
		free(c);
		log_notice("tenants: a change is running; the new tenants: settings apply to the "
			   "next one after a reload");
		return 0;
	}
	free(m->conf);
	m->conf = c;
	return 0;
}

struct tenants_mod *tenants_new(struct event_base *base, const struct loom_config *conf,
				struct store *store, char *err, size_t errlen)
{
	struct tenants_mod *m = calloc(1, sizeof(*m));

	if (!m || !(m->conf = malloc(sizeof(*m->conf)))) {
		free(m);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memcpy(m->conf, conf, sizeof(*m->conf));
	m->base = base;
	m->store = store;
	m->pipe_fd[0] = m->pipe_fd[1] = -1;
	if (pipe2(m->pipe_fd, O_CLOEXEC | O_NONBLOCK) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		tenants_free(m);
		return NULL;
	}
	m->pipe_ev = event_new(base, m->pipe_fd[0], EV_READ | EV_PERSIST, pipe_cb, m);
	if (!m->pipe_ev || event_add(m->pipe_ev, NULL) < 0) {
		snprintf(err, errlen, "cannot set up tenant events");
		tenants_free(m);
		return NULL;
	}
	return m;
}

void tenants_free(struct tenants_mod *m)
{
	struct top *t;

	if (!m)
		return;
	if (m->running && m->queue)
		pthread_join(m->queue->thread, NULL);
	while ((t = m->queue)) {
		m->queue = t->next;
		if (t->req)
			ctl_reply_err(t->req, PROTO_ERR_FAILED, "loomd is stopping");
		top_free(t);
	}
	if (m->pipe_ev)
		event_free(m->pipe_ev);
	if (m->pipe_fd[0] >= 0)
		close(m->pipe_fd[0]);
	if (m->pipe_fd[1] >= 0)
		close(m->pipe_fd[1]);
	free(m->conf);
	free(m);
}

int tenants_resume(struct tenants_mod *m)
{
	char err[1024] = "", *text, *had;
	json_t *list = NULL, *x;
	size_t i;

	/* A crash between the database and the file: the database wins. */
	if (!(text = file_text(m, err, sizeof(err)))) {
		log_err("tenants: %s", err);
		return -EIO;
	}
	had = read_file(m->conf->tenant_partitions_file, err, sizeof(err));
	if (store_tenant_list(m->store, &list) < 0) {
		free(had);
		free(text);
		return -EIO;
	}
	/* No tenant and no file: tenants are not used here; write nothing. */
	if ((had || json_array_size(list)) && (!had || strcmp(had, text))) {
		if (write_file(m->conf->tenant_partitions_file, text, err, sizeof(err)) < 0) {
			log_err("tenants: %s", err);
		} else {
			int pid = opensm_pid(m, m->conf->tenant_opensm_pid_file, err, sizeof(err));

			log_notice("tenants: %s rewritten from the database%s",
				   m->conf->tenant_partitions_file,
				   pid > 0 && kill(pid, SIGHUP) == 0 ? ", OpenSM signalled" : "");
		}
	}
	free(had);
	free(text);
	/* Changes a stop interrupted are checked on the fabric now. */
	json_array_foreach(list, i, x) {
		struct top *t;

		if (strcmp(json_string_value(json_object_get(x, "state")), "applying") ||
		    !(t = calloc(1, sizeof(*t))))
			continue;
		t->m = m;
		t->kind = TOP_VERIFY;
		snprintf(t->name, sizeof(t->name), "%s",
			 json_string_value(json_object_get(x, "name")));
		log_notice("tenant %s: was being applied when loomd stopped; checking it", t->name);
		enqueue(m, t);
	}
	json_decref(list);
	return 0;
}

int tenants_register(struct tenants_mod *m, struct ctl *ctl)
{
	static const struct {
		const char *cmd;
		enum ctl_access access;
		ctl_handler_fn fn;
	} cmds[] = {
		{ "tenant-create", CTL_WRITE, cmd_create },
		{ "tenant-add-hosts", CTL_WRITE, cmd_add },
		{ "tenant-remove-hosts", CTL_WRITE, cmd_remove },
		{ "tenant-delete", CTL_WRITE, cmd_delete },
		{ "tenant-verify", CTL_READ, cmd_verify },
		{ "tenant-show", CTL_READ, cmd_show },
		{ "tenant-list", CTL_READ, cmd_list },
	};
	int rc;

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if ((rc = ctl_register(ctl, cmds[i].cmd, cmds[i].access, cmds[i].fn, m)) < 0)
			return rc;
	return 0;
}
