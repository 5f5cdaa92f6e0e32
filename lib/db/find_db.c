/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/find_db.c: see find_db.h. Each reading of what was typed (text,
 * GUID, LID, NAME:PORT, host, tenant) adds its hits with a score; they are
 * sorted, the same thing found twice kept once at its best, and the leaf
 * of the first few looked up. */
#include "autoconf.h"
#include "lib/db/find_db.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/db/db_row.h"
#include "lib/db/names_db.h"
#include "lib/fabric/hostmap.h"
#include "lib/fabric/ibtypes.h"

#define Q_MAX 256

enum { EXACT, PREFIX, SUBSTRING, NO_MATCH };

#define LID_LATER (-2)   /* a node's: its first port with one, for the hits answered */

struct hit {
	int score, rank;
	char kind[8], name[160], guid[24], subnet[64], matched[12];
	int port, lid;     /* -1: none */
};

struct finder {
	sqlite3 *db;
	const char *q;
	char like[2 * Q_MAX + 3];   /* %q% with LIKE's specials escaped */
	int exact_guid;             /* a GUID search has all 16 digits */
	struct hostmap *hm;         /* while hosts() runs */
	struct hit *v;              /* the best cap (the limit) so far */
	size_t n, cap, worst;
	char *err;
	size_t errlen;
};

static const char *const kinds[] = { "host", "switch", "ca", "router", "port", "job",
				     "tenant" };

static int rank_of(const char *kind)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i], kind))
			return (int)i;
	return (int)(sizeof(kinds) / sizeof(kinds[0]));
}

/* How text matches q, case apart. */
static int score(const char *text, const char *q)
{
	size_t n = strlen(q);

	if (!text)
		return NO_MATCH;
	if (!strcasecmp(text, q))
		return EXACT;
	if (!strncasecmp(text, q, n))
		return PREFIX;
	return strcasestr(text, q) ? SUBSTRING : NO_MATCH;
}

static int hit_cmp(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;
	int r;

	if (x->score != y->score)
		return x->score - y->score;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if ((r = strcmp(x->name, y->name)))
		return r;
	if ((r = strcmp(x->subnet, y->subnet)))
		return r;
	return x->port - y->port;
}

static int same(const struct hit *x, const struct hit *y)
{
	return !strcmp(x->kind, y->kind) && !strcmp(x->name, y->name) &&
	       !strcmp(x->guid, y->guid) && x->port == y->port && !strcmp(x->subnet, y->subnet);
}

/* The worst of the hits kept (f->n > 0). */
static void find_worst(struct finder *f)
{
	f->worst = 0;
	for (size_t i = 1; i < f->n; i++)
		if (hit_cmp(&f->v[i], &f->v[f->worst]) > 0)
			f->worst = i;
}

/* Keep the hit when it is among the best f->cap so far (the same thing
 * found again keeps its best): a query that matches every node costs no
 * sort of them all. */
static int add(struct finder *f, int sc, const char *kind, const char *name, const char *guid,
	       int port, int lid, const char *subnet, const char *matched)
{
	struct hit c;
	int rank = rank_of(kind);

	if (sc == NO_MATCH)
		return 0;
	if (f->n == f->cap && (sc > f->v[f->worst].score ||
			       (sc == f->v[f->worst].score && rank > f->v[f->worst].rank)))
		return 0;
	memset(&c, 0, sizeof(c));
	c.score = sc;
	c.rank = rank;
	snprintf(c.kind, sizeof(c.kind), "%s", kind);
	snprintf(c.name, sizeof(c.name), "%s", name ? name : "");
	snprintf(c.guid, sizeof(c.guid), "%s", guid ? guid : "");
	snprintf(c.subnet, sizeof(c.subnet), "%s", subnet ? subnet : "");
	snprintf(c.matched, sizeof(c.matched), "%s", matched);
	c.port = port;
	c.lid = lid;
	for (size_t i = 0; i < f->n; i++)
		if (same(&f->v[i], &c)) {
			if (hit_cmp(&c, &f->v[i]) < 0) {
				f->v[i] = c;
				find_worst(f);
			}
			return 0;
		}
	if (f->n < f->cap)
		f->v[f->n++] = c;
	else if (hit_cmp(&c, &f->v[f->worst]) < 0)
		f->v[f->worst] = c;
	else
		return 0;
	find_worst(f);
	return 0;
}

static const char *col(sqlite3_stmt *s, int c)
{
	const char *v = (const char *)sqlite3_column_text(s, c);

	return v ? v : "";
}

static int col_int(sqlite3_stmt *s, int c)
{
	return sqlite3_column_type(s, c) == SQLITE_NULL ? -1 : sqlite3_column_int(s, c);
}

/* Run sql (binds: ?1 text a, ?2 text b, ?3 int n) and hand each row to fn. */
static int each(struct finder *f, const char *sql, const char *a, const char *b, long n,
		int (*fn)(struct finder *f, sqlite3_stmt *s))
{
	sqlite3_stmt *s;
	int rc = dbq_prepare(f->db, sql, &s, f->err, f->errlen);

	if (rc < 0)
		return rc;
	if (a)
		sqlite3_bind_text(s, 1, a, -1, SQLITE_STATIC);
	if (b)
		sqlite3_bind_text(s, 2, b, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, n);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		if ((rc = fn(f, s)) < 0) {
			sqlite3_finalize(s);
			return rc;
		}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE || rc == 0 ? 0 : dbq_db_fail(f->db, f->err, f->errlen, "find");
}

/* A node's row: subnet, guid, type, display name, description, (its LID:
 * looked up for the hits answered only, lid_of), has a site name. */
#define NODE_SEL \
	"SELECT s.name, n.guid, n.type, coalesce(nn.name, n.description), n.description, " \
	"NULL, nn.name IS NOT NULL " \
	"FROM nodes n JOIN subnets s ON s.id = n.subnet_id " \
	"LEFT JOIN node_names nn ON nn.guid = n.guid "

static int node_text(struct finder *f, sqlite3_stmt *s)
{
	int by_name = sqlite3_column_int(s, 6) ? score(col(s, 3), f->q) : NO_MATCH;
	int by_desc = score(col(s, 4), f->q);
	int best = by_name <= by_desc ? by_name : by_desc;

	return add(f, best, col(s, 2), col(s, 3), col(s, 1), -1, LID_LATER, col(s, 0),
		   by_name <= by_desc ? "name" : "description");
}

static int node_guid(struct finder *f, sqlite3_stmt *s)
{
	return add(f, f->exact_guid ? EXACT : PREFIX, col(s, 2),
		   col(s, 3), col(s, 1), -1, LID_LATER, col(s, 0), "node_guid");
}

/* A port's row: subnet, node guid, type, display name, num, lid. */
#define PORT_SEL \
	"SELECT s.name, p.node_guid, n.type, " NAMES_DB_NAME("n.guid", "n.description") \
	", p.num, p.lid FROM ports p JOIN nodes n ON n.subnet_id = p.subnet_id AND " \
	"n.guid = p.node_guid JOIN subnets s ON s.id = p.subnet_id "

/* A port of a switch is the switch; a CA's port is "NAME:PORT". */
static int add_port(struct finder *f, sqlite3_stmt *s, int sc, const char *matched)
{
	char name[200];

	if (!strcmp(col(s, 2), "switch"))
		return add(f, sc, "switch", col(s, 3), col(s, 1), -1, col_int(s, 5), col(s, 0),
			   matched);
	snprintf(name, sizeof(name), "%s:%d", col(s, 3), sqlite3_column_int(s, 4));
	return add(f, sc, "port", name, col(s, 1), sqlite3_column_int(s, 4), col_int(s, 5),
		   col(s, 0), matched);
}

static int port_guid(struct finder *f, sqlite3_stmt *s)
{
	return add_port(f, s, f->exact_guid ? EXACT : PREFIX, "port_guid");
}

static int port_lid(struct finder *f, sqlite3_stmt *s)
{
	return add_port(f, s, EXACT, "lid");
}

static int port_named(struct finder *f, sqlite3_stmt *s)
{
	char name[200];

	snprintf(name, sizeof(name), "%s:%d", col(s, 3), sqlite3_column_int(s, 4));
	return add(f, EXACT, "port", name, col(s, 1), sqlite3_column_int(s, 4), col_int(s, 5),
		   col(s, 0), "port");
}

static int tenant(struct finder *f, sqlite3_stmt *s)
{
	const char *name = col(s, 0);
	size_t d = strspn(name, "0123456789");
	int job = d > 0 && (!name[d] || (name[d] == '_' && name[d + 1] &&
					 !name[d + 1 + strspn(name + d + 1, "0123456789")]));

	return add(f, score(name, f->q), job ? "job" : "tenant", name, NULL, -1, -1, NULL,
		   job ? "job" : "tenant");
}

/* Hosts: the CA ports whose description holds q (a host the pattern names
 * is a part of it), and those the map gives a host holding q. */
static int host_port(struct finder *f, sqlite3_stmt *s)
{
	char host[HOSTMAP_NAME_LEN];
	uint64_t guid;

	if (ibt_guid_parse(col(s, 6), &guid) < 0 ||
	    !hostmap_host(f->hm, guid, col(s, 7), host, sizeof(host)))
		return 0;
	return add(f, score(host, f->q), "host", host, col(s, 1), sqlite3_column_int(s, 4),
		   col_int(s, 5), col(s, 0), "host");
}

#define HOST_SEL \
	"SELECT s.name, p.node_guid, n.type, n.description, p.num, p.lid, p.guid, " \
	"n.description FROM ports p JOIN nodes n ON n.subnet_id = p.subnet_id AND " \
	"n.guid = p.node_guid JOIN subnets s ON s.id = p.subnet_id WHERE n.type = 'ca' AND " \
	"p.num > 0 AND "

static int hosts(struct finder *f, const char *pattern, const char *map)
{
	struct hostmap hm;
	int rc = hostmap_load(&hm, pattern ? pattern : HOSTMAP_DEFAULT_PATTERN, map, f->err,
			      f->errlen);

	if (rc < 0)
		return rc;
	f->hm = &hm;
	rc = each(f, HOST_SEL "n.description LIKE ?1 ESCAPE '\\' ORDER BY p.node_guid, p.num",
		  f->like, NULL, 0, host_port);
	for (size_t i = 0; rc == 0 && i < hm.n; i++) {
		char g[24];

		if (!strcasestr(hm.ports[i].host, f->q))
			continue;
		ibt_guid_str(hm.ports[i].guid, g, sizeof(g));
		rc = each(f, HOST_SEL "p.guid = ?2", NULL, g, 0, host_port);
	}
	hostmap_clear(&hm);
	f->hm = NULL;
	return rc;
}

/* The switch port that the first cable of a CA's port `port` (-1: any)
 * reaches: {"guid", "name", "port"}, or null. */
static json_t *leaf_of(struct finder *f, const struct hit *h)
{
	sqlite3_stmt *s;
	json_t *o = json_null();

	if (dbq_prepare(f->db, "SELECT p.peer_guid, " NAMES_DB_NAME("q.guid", "q.description")
			", p.peer_port FROM ports p JOIN subnets s ON s.id = p.subnet_id "
			"JOIN nodes n ON n.subnet_id = p.subnet_id AND n.guid = p.node_guid "
			"JOIN nodes q ON q.subnet_id = p.subnet_id AND q.guid = p.peer_guid "
			"WHERE s.name = ?1 AND p.node_guid = ?2 AND n.type <> 'switch' AND "
			"q.type = 'switch' AND (?3 < 0 OR p.num = ?3) ORDER BY p.num LIMIT 1",
			&s, NULL, 0) < 0)
		return o;
	sqlite3_bind_text(s, 1, h->subnet, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, h->guid, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 3, h->port);
	if (sqlite3_step(s) == SQLITE_ROW)
		o = json_pack("{s:s, s:s, s:i}", "guid", col(s, 0), "name", col(s, 1), "port",
			      sqlite3_column_int(s, 2));
	sqlite3_finalize(s);
	return o ? o : json_null();
}

/* A node's LID: its lowest-numbered port's that has one (-1: none). */
static int lid_of(struct finder *f, const struct hit *h)
{
	sqlite3_stmt *s;
	int lid = -1;

	if (dbq_prepare(f->db, "SELECT p.lid FROM ports p JOIN subnets s ON s.id = p.subnet_id "
			"WHERE s.name = ?1 AND p.node_guid = ?2 AND p.lid <> 0 ORDER BY p.num "
			"LIMIT 1", &s, NULL, 0) < 0)
		return -1;
	sqlite3_bind_text(s, 1, h->subnet, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, h->guid, -1, SQLITE_STATIC);
	if (sqlite3_step(s) == SQLITE_ROW)
		lid = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return lid;
}

static json_t *hit_json(struct finder *f, struct hit *h)
{
	if (h->lid == LID_LATER)
		h->lid = lid_of(f, h);
	int node = h->guid[0] != '\0';

	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:s, s:o}", "kind", h->kind, "name",
			 h->name, "guid", node ? json_string(h->guid) : json_null(), "port",
			 h->port >= 0 ? json_integer(h->port) : json_null(), "lid",
			 h->lid > 0 ? json_integer(h->lid) : json_null(), "subnet",
			 node ? json_string(h->subnet) : json_null(), "matched", h->matched,
			 "leaf", node ? leaf_of(f, h) : json_null());
}

/* q as hex digits (0x apart, lower case) into out: 1 when it is. */
static int as_hex(const char *q, char *out, size_t len)
{
	size_t n = 0;

	if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
		q += 2;
	for (; *q && n + 1 < len; q++, n++) {
		if (!isxdigit((unsigned char)*q))
			return 0;
		out[n] = (char)tolower((unsigned char)*q);
	}
	out[n] = '\0';
	return n > 0 && !*q;
}

/* GUID prefixes: nodes and ports whose GUID starts with the digits. */
static int guids(struct finder *f, const char *hex)
{
	char lo[24], hi[24];
	int rc;

	snprintf(lo, sizeof(lo), "0x%s", hex);
	snprintf(hi, sizeof(hi), "0x%s~", hex);
	f->exact_guid = strlen(hex) == 16;
	rc = each(f, NODE_SEL "WHERE n.guid >= ?1 AND n.guid < ?2", lo, hi, 0, node_guid);
	if (rc == 0)
		rc = each(f, PORT_SEL "WHERE p.guid >= ?1 AND p.guid < ?2 AND "
			  "(n.type <> 'switch' OR p.num = 0) ORDER BY p.node_guid, p.num", lo, hi,
			  0, port_guid);
	return rc;
}

static int each_port(struct finder *f, const char *node, const char *lo, const char *hi,
		     long port)
{
	sqlite3_stmt *s;
	/* the nodes first (13k rows at 11664 hosts), then their port by key */
	int rc = dbq_prepare(f->db, "SELECT s.name, n.guid, n.type, "
			     NAMES_DB_NAME("n.guid", "n.description") ", p.num, p.lid "
			     "FROM nodes n LEFT JOIN node_names nn ON nn.guid = n.guid "
			     "CROSS JOIN ports p ON p.subnet_id = n.subnet_id AND "
			     "p.node_guid = n.guid AND p.num = ?3 "
			     "JOIN subnets s ON s.id = n.subnet_id "
			     "WHERE n.description = ?1 COLLATE NOCASE OR "
			     "nn.name = ?1 COLLATE NOCASE OR (n.guid >= ?2 AND n.guid < ?4)",
			     &s, f->err, f->errlen);

	if (rc < 0)
		return rc;
	sqlite3_bind_text(s, 1, node, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, lo, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, port);
	sqlite3_bind_text(s, 4, hi, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		if ((rc = port_named(f, s)) < 0)
			break;
	sqlite3_finalize(s);
	return rc == SQLITE_DONE || rc == 0 ? 0 : rc < 0 ? rc :
	       dbq_db_fail(f->db, f->err, f->errlen, "find");
}

/* NAME:PORT or GUID:PORT. */
static int named_port(struct finder *f, const char *q)
{
	const char *colon = strrchr(q, ':');
	char node[Q_MAX + 1], hex[24], lo[24] = "", hi[24] = "";
	long port;
	char *end;

	if (!colon || colon == q || !colon[1])
		return 0;
	port = strtol(colon + 1, &end, 10);
	if (*end || port < 0 || port > 255)
		return 0;
	snprintf(node, sizeof(node), "%.*s", (int)(colon - q), q);
	if (as_hex(node, hex, sizeof(hex)) && strlen(hex) >= 6 && strlen(hex) <= 16) {
		snprintf(lo, sizeof(lo), "0x%s", hex);
		snprintf(hi, sizeof(hi), "0x%s~", hex);
	}
	return each_port(f, node, lo, hi, port);
}

int find_db(sqlite3 *db, const char *q, long limit, const char *pattern, const char *map,
	    json_t **out, char *err, size_t errlen)
{
	struct finder f = { .db = db, .q = q, .err = err, .errlen = errlen };
	char hex[Q_MAX + 1];
	size_t qlen = q ? strlen(q) : 0, off = 0;
	int rc = 0;

	if (qlen == 0 || qlen > Q_MAX)
		return dbq_fail(err, errlen, -EINVAL, "\"q\": give 1 to %d bytes to find", Q_MAX);
	if (limit < 0 || limit > FIND_DB_LIMIT_MAX)
		return dbq_fail(err, errlen, -EINVAL, "\"limit\": at most %d", FIND_DB_LIMIT_MAX);
	if (limit == 0)
		limit = FIND_DB_LIMIT;
	f.cap = (size_t)limit;
	if (!(f.v = calloc(f.cap, sizeof(*f.v))))
		return dbq_fail(err, errlen, -ENOMEM, "out of memory");
	f.like[off++] = '%';
	for (const char *p = q; *p; p++) {
		if (*p == '%' || *p == '_' || *p == '\\')
			f.like[off++] = '\\';
		f.like[off++] = *p;
	}
	f.like[off++] = '%';
	f.like[off] = '\0';
	/* text: names and descriptions, hosts, tenants and jobs */
	rc = each(&f, NODE_SEL "WHERE n.description LIKE ?1 ESCAPE '\\' OR nn.name LIKE ?1 "
		  "ESCAPE '\\'", f.like, NULL, 0, node_text);
	if (rc == 0)
		rc = hosts(&f, pattern, map);
	if (rc == 0)
		rc = each(&f, "SELECT name FROM tenants WHERE name LIKE ?1 ESCAPE '\\'", f.like,
			  NULL, 0, tenant);
	if (rc == 0)
		rc = named_port(&f, q);
	/* numbers: a LID (decimal up to 49151, or 0x and 1-4 hex digits), a
	 * GUID's first 6 to 16 hex digits */
	if (rc == 0 && as_hex(q, hex, sizeof(hex))) {
		int is_0x = q[0] == '0' && (q[1] == 'x' || q[1] == 'X');
		long lid = -1;

		if (is_0x && strlen(hex) <= 4)
			lid = strtol(hex, NULL, 16);
		else if (!is_0x && strspn(q, "0123456789") == qlen && qlen <= 5)
			lid = strtol(q, NULL, 10);
		if (lid > 0 && lid < 0xc000)
			rc = each(&f, PORT_SEL "WHERE p.lid <> 0 AND ?3 >= p.lid AND "
				  "?3 < p.lid + (1 << p.lmc) ORDER BY p.node_guid, p.num", NULL, NULL,
				  lid, port_lid);
		if (rc == 0 && strlen(hex) >= 6 && strlen(hex) <= 16)
			rc = guids(&f, hex);
	}
	if (rc < 0) {
		free(f.v);
		return rc;
	}
	qsort(f.v, f.n, sizeof(*f.v), hit_cmp);
	*out = json_array();
	for (size_t i = 0; *out && i < f.n; i++)
		json_array_append_new(*out, hit_json(&f, &f.v[i]));
	free(f.v);
	return *out ? 0 : dbq_fail(err, errlen, -ENOMEM, "out of memory");
}
