/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/slurm/slurm.c: see slurm.h. */
#include "autoconf.h"
#include "daemon/slurm/slurm.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/slurm/config_slurm.h"
#include "daemon/slurm/slurm_impl.h"
#include "daemon/slurm/slurm_scontrol.h"
#include "daemon/core/ctl.h"
#include "daemon/core/file_atomic.h"
#include "daemon/core/store.h"
#include "daemon/core/work.h"
#include "daemon/ib/swept_fabs.h"
#include "lib/fabric/fabric.h"
#include "lib/fabric/hostmap.h"
#include "lib/slurm/slurm_topo.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"
#include "lib/util/proto.h"

#define SLURM_MAX_WAITING 8

static void settings_of(const struct slurm_conf *c, const struct hostmap_rule *hosts,
			const char *db_path, struct slurm_settings *s)
{
	snprintf(s->file, sizeof(s->file), "%s", c->slurm_topology_file);
	s->format = c->slurm_topology_format;
	s->reconfigure = c->slurm_reconfigure;
	snprintf(s->subnet, sizeof(s->subnet), "%s", c->slurm_subnet);
	snprintf(s->scontrol, sizeof(s->scontrol), "%s", c->slurm_scontrol);
	snprintf(s->host_pattern, sizeof(s->host_pattern), "%s", hosts->pattern);
	snprintf(s->host_map, sizeof(s->host_map), "%s", hosts->map);
	snprintf(s->db_path, sizeof(s->db_path), "%s", db_path);
}

/* One job: the file kept (req NULL) or slurm-topology's answer. */
struct sjob {
	struct slurm_mod *m;
	struct ctl_req *req;
	char subnet[LOOM_NAME_LEN];
	struct fab *fab;               /* held */
	struct nodename_map *names;    /* held: the switch names the job uses */
	int format;
	int reconfigure;               /* slurm.reconfigure, and the gate lets it */
	struct {                       /* the keys the worker reads */
		char file[PATH_MAX], scontrol[PATH_MAX], db_path[PATH_MAX];
		char host_pattern[HOSTMAP_PATTERN_LEN];
		char host_map[PATH_MAX];
	} conf;
	/* the module's, read-only while the job runs (one job at a time) */
	const struct slurm_topo *prev;
	const char *prev_body, *refused_body, *last_error, *last_bad;
	/* results */
	char bad[1024];                /* the hosts left out as names, "" none */
	struct slurm_topo topo;
	int built;
	char *body;
	json_t *result;
	int wrote, refused, adopted, same;
	char err[1024];
};

/* ---- the worker ---------------------------------------------------------------------- */

/* `prog reconfigure`: 0, or -1 with why (scontrol's words). */
static int run_scontrol(const char *prog, char *why, size_t len)
{
	static const char *const args[] = { "reconfigure", NULL };
	char out[512];

	return slurm_scontrol_run(prog, args, SLURM_SCONTROL_TIMEOUT_MS, NULL, out, sizeof(out),
				  why, len) < 0 ? -1 : 0;
}

/* The lines of text that are not loom's comments. */
static char *slurm_lines(const char *text)
{
	size_t len = strlen(text), n = 0;
	char *out = malloc(len + 1);

	if (!out)
		return NULL;
	for (const char *p = text; *p;) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p + 1) : strlen(p);

		if (*p != '#') {
			memcpy(out + n, p, l);
			n += l;
		}
		p += l;
	}
	out[n] = '\0';
	return out;
}

static void record(struct sjob *j, const char *severity, const char *kind, const char *what)
{
	char err[256];
	struct store *st = store_open(j->conf.db_path, err, sizeof(err));
	int64_t sid;

	if (!st) {
		log_warn("slurm: the event %s could not be recorded: %s", kind, err);
		return;
	}
	sid = store_subnet_id(st, j->subnet);
	(void)store_record_event(st, clock_wall(), sid > 0 ? sid : 0, severity, kind,
				 j->conf.file, NULL, what);
	store_close(st);
}

/* The file kept: written when what Slurm reads changed, scontrol after. */
static int keep_file(struct sjob *j, const char *header)
{
	const char *path = j->conf.file;
	char what[2048] = "", why[1024] = "", *old, *all = NULL;
	int had_old;

	if (!j->prev_body) {
		/* loomd's first: the file as it is may already say it all */
		if ((old = file_read_text(path, why, sizeof(why)))) {
			char *lines = slurm_lines(old);

			j->adopted = lines && !strcmp(lines, j->body);
			free(lines);
			free(old);
			if (j->adopted)
				return 0;
		}
	} else if (!strcmp(j->prev_body, j->body)) {
		j->same = 1;
		return 0;
	}
	if (j->refused_body && !strcmp(j->refused_body, j->body)) {
		j->same = 1;   /* refused as it is: not again until the fabric moves */
		return 0;
	}
	if (j->prev_body)
		slurm_topo_diff(j->prev, &j->topo, what, sizeof(what));
	if (!what[0])
		snprintf(what, sizeof(what), "written: %zu nodes under %zu leaf switches, %zu levels",
			 j->topo.n_nodes, j->topo.n_leaves, j->topo.levels);
	old = file_read_text(path, why, sizeof(why));
	if (!old && errno != ENOENT) {
		snprintf(j->err, sizeof(j->err), "slurm.topology_file: %s", why);
		return -EIO;
	}
	had_old = old != NULL;
	if (asprintf(&all, "%s%s", header, j->body) < 0) {
		free(old);
		snprintf(j->err, sizeof(j->err), "out of memory");
		return -ENOMEM;
	}
	if (file_write_atomic(path, all, why, sizeof(why)) < 0) {
		free(old);
		free(all);
		snprintf(j->err, sizeof(j->err), "slurm.topology_file: %s; the previous file stays",
			 why);
		return -EIO;
	}
	free(all);
	j->wrote = 1;
	if (j->reconfigure && run_scontrol(j->conf.scontrol, why, sizeof(why)) < 0) {
		char back[512] = "", undo[600];

		j->refused = 1;
		if (had_old ? file_write_atomic(path, old, back, sizeof(back)) < 0 :
		    unlink(path) < 0 && errno != ENOENT)
			snprintf(undo, sizeof(undo), "; and the previous file could not be put back: %s",
				 back[0] ? back : strerror(errno));
		else
			snprintf(undo, sizeof(undo), "%s", had_old ? "; the previous file is back" :
				 "; the new file is removed");
		/* scontrol's words first: the change may be long */
		snprintf(j->err, sizeof(j->err), "Slurm refused the new topology: %s%s (the change: %s)",
			 why, undo, what);
		free(old);
		record(j, "warning", "slurm_topology_refused", j->err);
		return -EINVAL;
	}
	free(old);
	record(j, "info", "slurm_topology", what);
	return 0;
}

/* Hosts whose names Slurm cannot take are left out of the file (the others
 * are still written): said in the log and an event when they change. */
static void say_bad_names(struct sjob *j)
{
	const struct slurm_topo *t = &j->topo;
	FILE *f = fmemopen(j->bad, sizeof(j->bad) - 1, "w");

	if (!f)
		return;
	for (size_t i = 0; i < t->bad_name_ports && i < SLURM_UNMAPPED_SHOWN; i++)
		fprintf(f, "%s%s", i ? ", " : "", t->bad_names[i]);
	if (t->bad_name_ports > SLURM_UNMAPPED_SHOWN)
		fprintf(f, " and %zu more", t->bad_name_ports - SLURM_UNMAPPED_SHOWN);
	fclose(f);
	if (!j->bad[0] || !strcmp(j->bad, j->last_bad))
		return;
	log_warn("slurm: %zu CA port%s left out of %s, not Slurm node names: %s",
		 t->bad_name_ports, t->bad_name_ports == 1 ? "" : "s", j->conf.file, j->bad);
	record(j, "warning", "slurm_topology_bad_names", j->bad);
}

static int job_run(void *arg, char *err, size_t errlen)
{
	struct sjob *j = arg;
	struct hostmap hm;
	char *header = NULL;
	int rc;

	if ((rc = hostmap_load(&hm, j->conf.host_pattern, j->conf.host_map, j->err,
			       sizeof(j->err))) < 0)
		goto out;
	rc = slurm_topo_build(j->fab, &hm, j->names, &j->topo, j->err, sizeof(j->err));
	hostmap_clear(&hm);
	if (rc < 0)
		goto out;
	j->built = 1;
	if (!j->req)
		say_bad_names(j);
	if (!(j->body = slurm_topo_text(&j->topo, j->format)) ||
	    !(header = slurm_topo_header(&j->topo, j->format, j->subnet))) {
		rc = -ENOMEM;
		snprintf(j->err, sizeof(j->err), "out of memory");
		goto out;
	}
	if (j->req) {
		if (!(j->result = slurm_topo_json(&j->topo, j->format))) {
			rc = -ENOMEM;
			snprintf(j->err, sizeof(j->err), "out of memory");
			goto out;
		}
		json_object_set_new(j->result, "subnet", json_string(j->subnet));
		json_object_set_new(j->result, "header", json_string(header));
		json_object_set_new(j->result, "text", json_string(j->body));
	} else {
		rc = keep_file(j, header);
	}
out:
	free(header);
	if (rc < 0 && !j->req && !j->refused && strcmp(j->err, j->last_error))
		record(j, "warning", "slurm_topology_error", j->err);
	snprintf(err, errlen, "%s", j->err);
	return rc;
}

/* ---- the loop -------------------------------------------------------------------------- */

/* The subnet whose fabric Slurm gets: `want`, else slurm.subnet, else the
 * only one swept. NULL with why. */
static const struct swept_fab *chosen(struct slurm_mod *m, const char *want, char *why,
				      size_t len)
{
	int i = swept_fabs_choose(&m->fabs, want, m->set.subnet,
				  "slurm.subnet (or --subnet) to the one Slurm's nodes are on", why,
				  len);

	return i < 0 ? NULL : &m->fabs.s[i];
}

static void keep(struct slurm_mod *m);

static void job_done(void *arg, int rc, const char *err)
{
	struct sjob *j = arg;
	struct slurm_mod *m = j->m;

	if (j->req) {
		if (rc == 0) {
			ctl_reply_ok(j->req, j->result);
			j->result = NULL;
		} else {
			ctl_reply_errno(j->req, rc, NULL, PROTO_ERR_FAILED, err);
		}
		return;
	}
	m->keeping = 0;
	if (rc == -ECANCELED)
		return;
	if (j->built)
		snprintf(m->last_bad, sizeof(m->last_bad), "%s", j->bad);
	if (m->reset) {
		/* compared whole, from the file, with the new keys */
		m->reset = 0;
		slurm_topo_clear(&m->prev);
		free(m->prev_body);
		free(m->refused_body);
		m->prev_body = m->refused_body = NULL;
		m->last_error[0] = '\0';
		m->again = 1;
	} else if (rc < 0) {
		if (strcmp(m->last_error, j->err))
			log_warn("slurm: %s", j->err);
		snprintf(m->last_error, sizeof(m->last_error), "%s", j->err);
		if (j->refused) {
			free(m->refused_body);
			m->refused_body = j->body;
			j->body = NULL;
		}
	} else if (j->built && !j->same) {
		if (j->wrote)
			log_notice("slurm: %s rewritten", m->set.file);
		slurm_topo_clear(&m->prev);
		m->prev = j->topo;
		memset(&j->topo, 0, sizeof(j->topo));
		free(m->prev_body);
		m->prev_body = j->body;
		j->body = NULL;
		free(m->refused_body);
		m->refused_body = NULL;
		m->last_error[0] = '\0';
	} else if (rc == 0) {
		m->last_error[0] = '\0';
	}
	if (m->again) {
		m->again = 0;
		keep(m);
	}
}

static void job_free(void *arg)
{
	struct sjob *j = arg;

	fab_free(j->fab);
	nodename_map_free(j->names);
	slurm_topo_clear(&j->topo);
	free(j->body);
	json_decref(j->result);
	free(j);
}

static const struct work_ops job_ops = { .run = job_run, .done = job_done, .free = job_free };

static struct sjob *sjob_new(struct slurm_mod *m, struct ctl_req *req, const struct swept_fab *s,
			     int format)
{
	struct sjob *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->m = m;
	j->req = req;
	j->format = format;
	snprintf(j->conf.file, sizeof(j->conf.file), "%s", m->set.file);
	snprintf(j->conf.scontrol, sizeof(j->conf.scontrol), "%s", m->set.scontrol);
	snprintf(j->conf.db_path, sizeof(j->conf.db_path), "%s", m->set.db_path);
	snprintf(j->conf.host_pattern, sizeof(j->conf.host_pattern), "%s",
		 m->set.host_pattern);
	snprintf(j->conf.host_map, sizeof(j->conf.host_map), "%s", m->set.host_map);
	snprintf(j->subnet, sizeof(j->subnet), "%s", s->name);
	j->fab = fab_hold(s->last);
	j->names = nodename_map_hold(m->names);
	j->prev = &m->prev;
	j->prev_body = m->prev_body;
	j->refused_body = m->refused_body;
	j->last_error = m->last_error;
	j->last_bad = m->last_bad;
	return j;
}

static void keep(struct slurm_mod *m)
{
	char why[512];
	const struct swept_fab *s;
	struct sjob *j;
	int rc;

	if (!m->set.file[0])
		return;
	if (m->keeping) {
		m->again = 1;
		return;
	}
	if (!(s = chosen(m, NULL, why, sizeof(why)))) {
		if (strcmp(m->last_error, why))
			log_warn("slurm: %s is not kept: %s", m->set.file, why);
		snprintf(m->last_error, sizeof(m->last_error), "%s", why);
		return;
	}
	if (!(j = sjob_new(m, NULL, s, m->set.format)))
		return;
	/* Under ha every loomd keeps its own node's file (a backup slurmctld
	 * there reads its own); one, the leader, tells Slurm. */
	j->reconfigure = m->set.reconfigure &&
			 ctl_gate_check(m->ctl, "scontrol reconfigure", why, sizeof(why)) == 0;
	if ((rc = work_submit(m->work, &job_ops, j)) < 0) {
		log_warn("slurm: cannot start the topology job: %s", strerror(-rc));
		job_free(j);
		return;
	}
	m->keeping = 1;
}

void slurm_on_swept(void *arg, const char *subnet, struct fab *fab)
{
	struct slurm_mod *m = arg;

	if (swept_fabs_keep(&m->fabs, subnet, fab) >= 0)
		keep(m);
}

static void cmd_topology(struct ctl_req *req, json_t *args, void *arg)
{
	struct slurm_mod *m = arg;
	char subnet[LOOM_NAME_LEN] = "", fmt[16] = "", why[512];
	int format = m->set.format, rc;
	const struct swept_fab *s;
	struct sjob *j;

	if (ctl_arg_string(req, args, "subnet", subnet, sizeof(subnet), 0) < 0 ||
	    ctl_arg_string(req, args, "format", fmt, sizeof(fmt), 0) < 0)
		return;
	if (fmt[0] && slurm_topo_format_parse(fmt, &format) < 0) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "format \"%s\": tree or block", fmt);
		return;
	}
	if (!(s = chosen(m, subnet, why, sizeof(why)))) {
		ctl_reply_err(req, PROTO_ERR_NOTFOUND, "%s", why);
		return;
	}
	if (work_waiting(m->work) >= SLURM_MAX_WAITING) {
		ctl_reply_err(req, PROTO_ERR_BUSY, "%u topology requests are waiting; try again later",
			      work_waiting(m->work));
		return;
	}
	if (!(j = sjob_new(m, req, s, format))) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "out of memory");
		return;
	}
	if ((rc = work_submit(m->work, &job_ops, j)) < 0) {
		job_free(j);
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "cannot start: %s", strerror(-rc));
	}
}

/* ---- the module ------------------------------------------------------------------------- */

struct slurm_mod *slurm_new(struct event_base *base, const struct slurm_conf *conf,
			    const struct hostmap_rule *hosts, const char *db_path, char *err,
			    size_t errlen)
{
	struct slurm_mod *m = calloc(1, sizeof(*m));

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->base = base;
	settings_of(conf, hosts, db_path, &m->set);
	if (!(m->work = work_queue_new(base, "slurm topology", 1, WORK_FIFO, err, errlen))) {
		free(m);
		return NULL;
	}
	if (slurm_drains_start(m, err, errlen) < 0) {
		work_queue_free(m->work);
		free(m);
		return NULL;
	}
	return m;
}

void slurm_free(struct slurm_mod *m)
{
	if (!m)
		return;
	slurm_drains_stop(m);
	work_queue_free(m->work);
	swept_fabs_clear(&m->fabs);
	slurm_topo_clear(&m->prev);
	free(m->prev_body);
	free(m->refused_body);
	nodename_map_free(m->names);
	free(m);
}

void slurm_set_names(struct slurm_mod *m, struct nodename_map *names)
{
	nodename_map_free(m->names);
	m->names = nodename_map_hold(names);
	keep(m);     /* the file again: its switch names may have changed */
}

void slurm_reconfigure(struct slurm_mod *m, const struct slurm_conf *conf,
		       const struct hostmap_rule *hosts)
{
	struct slurm_settings now;
	int changed;

	settings_of(conf, hosts, m->set.db_path, &now);
	changed = strcmp(m->set.file, now.file) || m->set.format != now.format ||
		  strcmp(m->set.host_pattern, now.host_pattern) ||
		  strcmp(m->set.host_map, now.host_map) || strcmp(m->set.subnet, now.subnet);
	m->set = now;
	if (!changed)
		return;
	if (m->keeping) {
		m->reset = 1;   /* the job under way reads the state: after it */
		return;
	}
	/* another file, format or host rule: compared whole, from the file */
	slurm_topo_clear(&m->prev);
	free(m->prev_body);
	free(m->refused_body);
	m->prev_body = m->refused_body = NULL;
	m->last_error[0] = '\0';
	keep(m);
}

int slurm_register(struct slurm_mod *m, struct ctl *ctl)
{
	m->ctl = ctl;
	return ctl_handle(ctl, "slurm-topology", cmd_topology, m) < 0 ? -1 : 0;
}
