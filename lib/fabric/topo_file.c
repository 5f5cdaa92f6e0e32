/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/fabric/topo_file.c: ibsim net files and ibnetdiscover output -> struct fab.
 * Both readers collect nodes and cable declarations first and build links
 * only at the end, so that a cable may name a node declared further down. */
#include "autoconf.h"
#include "lib/fabric/topo_file.h"
#include "lib/util/log.h"
#include "lib/util/slurp.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_LEN 4096
#define MAX_PORTS 254            /* NodeInfo:NumPorts of a real node */

/* What ibsim reports (checked with smpquery portinfo against ibsim 0.10). */
#define SIM_CA_GUID0     0x100000ULL
#define SIM_SW_GUID0     0x200000ULL
#define SIM_RT_GUID0     0x0ULL        /* yes: the first router's GUID is 0 */
#define SIM_WIDTH_SUP    (IBT_WIDTH_1X | IBT_WIDTH_2X | IBT_WIDTH_4X | IBT_WIDTH_8X | IBT_WIDTH_12X)
#define SIM_WIDTH_EN     IBT_WIDTH_4X
#define SIM_SPEED_SUP    (IBT_SPEED_SDR | IBT_SPEED_DDR | IBT_SPEED_QDR)
#define SIM_SPEED_EN     IBT_SPEED_SDR
#define SIM_MTU          4        /* NeighborMTU 2048 on cabled ports */
#define SIM_MTU_PORT0    1        /* 256 on a switch's port 0 */
#define SIM_VLS          8        /* VLCap VL0-7 */
#define SIM_REVISION     0xa1

struct tnode {
	struct fab_node *fn;
	char name[FAB_DESC_LEN + 1];   /* net: the name (key); ibnd: the description */
	unsigned line;                 /* of the header */
	unsigned *pline;               /* per port: line that cabled it, 0 = none */
	unsigned char *pexplicit;      /* per port: declared on its own node's line */
};

struct tdecl {
	size_t a;                      /* tnode index */
	unsigned ap;
	size_t b;                      /* resolved peer tnode index */
	unsigned bp;
	char peer[FAB_DESC_LEN + 1];   /* net: peer name; ibnd: unused */
	uint64_t peer_guid;            /* ibnd: peer node GUID */
	unsigned w, s;                 /* net: enable masks; ibnd: active width/speed */
	unsigned line;
};

struct tkey {
	const char *name;
	uint64_t guid;
	size_t idx;
};

struct ibnd_attrs {
	uint32_t vendor;
	uint16_t device;
	uint64_t sysimg;
	uint64_t port_guid;   /* from switchguid=G(PORTGUID) */
	int have_sysimg, have_port_guid;
};

struct reader {
	const char *file;
	struct fab *fab;
	struct tnode *nodes;
	size_t n_nodes, cap_nodes;
	struct tdecl *decls;
	size_t n_decls, cap_decls;
	struct tkey *by_key;           /* nodes sorted by name (net) or GUID (ibnd) */
	uint64_t next_ca, next_sw, next_rt;  /* net: GUIDs ibsim gives the next nodes */
	struct ibnd_attrs pending;     /* ibnd: key=value lines before a header */
	char *err;
	size_t errlen;
};

/* A bad line: "FILE:LINE: what" (lib/util/log.h's one form), rc. */
static int bad_line(struct reader *r, unsigned line, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int bad_line(struct reader *r, unsigned line, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rc = err_vat(r->err, r->errlen, rc, r->file, line, fmt, ap);
	va_end(ap);
	return rc;
}

/* ---- tokens -------------------------------------------------------------- */

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static int tok_uint(const char **pp, unsigned long max, unsigned *out)
{
	const char *p = skip_ws(*pp);
	char *end;
	unsigned long v;

	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	v = strtoul(p, &end, 10);
	if (errno || v > max)
		return -1;
	*out = (unsigned)v;
	*pp = end;
	return 0;
}

static int tok_quoted(const char **pp, char *buf, size_t len)
{
	const char *p = skip_ws(*pp), *q;

	if (*p != '"' || !(q = strchr(p + 1, '"')))
		return -1;
	if ((size_t)(q - p - 1) >= len)
		return -1;
	memcpy(buf, p + 1, (size_t)(q - p - 1));
	buf[q - p - 1] = '\0';
	*pp = q + 1;
	return 0;
}

/* "[N]" with no space inside, as both formats write it. */
static int tok_bracket(const char **pp, unsigned *out)
{
	const char *p = *pp;

	if (*p != '[')
		return -1;
	p++;
	if (!isdigit((unsigned char)*p) || tok_uint(&p, 255, out) < 0 || *p != ']')
		return -1;
	*pp = p + 1;
	return 0;
}

static int tok_paren_hex(const char **pp, uint64_t *out)
{
	const char *p = *pp, *q;
	char hex[24];

	if (*p != '(' || !(q = strchr(p, ')')) || (size_t)(q - p - 1) >= sizeof(hex))
		return -1;
	memcpy(hex, p + 1, (size_t)(q - p - 1));
	hex[q - p - 1] = '\0';
	if (ibt_guid_parse(hex, out) < 0)
		return -1;
	*pp = q + 1;
	return 0;
}

static int starts_word(const char *p, const char *word)
{
	size_t n = strlen(word);

	return !strncmp(p, word, n) && (p[n] == ' ' || p[n] == '\t');
}

/* ---- collecting ------------------------------------------------------------ */

static struct tnode *add_tnode(struct reader *r, int type, uint64_t guid, unsigned nports,
			       const char *name, unsigned line)
{
	struct tnode *t;
	struct fab_node *fn;

	if (r->n_nodes == r->cap_nodes) {
		size_t cap = r->cap_nodes ? r->cap_nodes * 2 : 64;
		struct tnode *n = realloc(r->nodes, cap * sizeof(*n));

		if (!n)
			return NULL;
		r->nodes = n;
		r->cap_nodes = cap;
	}
	fn = fab_add_node(r->fab, type, guid, (uint8_t)nports);
	if (!fn)
		return NULL;
	t = &r->nodes[r->n_nodes];
	memset(t, 0, sizeof(*t));
	t->fn = fn;
	t->line = line;
	snprintf(t->name, sizeof(t->name), "%s", name);
	snprintf(fn->desc, sizeof(fn->desc), "%s", name);
	t->pline = calloc((size_t)nports + 1, sizeof(*t->pline));
	t->pexplicit = calloc((size_t)nports + 1, 1);
	if (!t->pline || !t->pexplicit) {
		free(t->pline);
		free(t->pexplicit);
		errno = ENOMEM;
		return NULL;
	}
	r->n_nodes++;
	return t;
}

static struct tdecl *add_decl(struct reader *r)
{
	if (r->n_decls == r->cap_decls) {
		size_t cap = r->cap_decls ? r->cap_decls * 2 : 256;
		struct tdecl *d = realloc(r->decls, cap * sizeof(*d));

		if (!d)
			return NULL;
		r->decls = d;
		r->cap_decls = cap;
	}
	memset(&r->decls[r->n_decls], 0, sizeof(*r->decls));
	return &r->decls[r->n_decls++];
}

/* Every port of a switch exists (unlisted ones are down, as ibsim and real
 * switches report them); a CA's ports appear only when cabled. */
static void init_ports(struct fab_node *fn)
{
	for (unsigned p = 0; p <= fn->nports; p++) {
		struct fab_port *port = &fn->ports[p];

		if (fn->type != IBT_NODE_SWITCH)
			continue;
		port->present = 1;
		port->guid = fn->guid;
		port->state = p == 0 ? 4 : 1;
		port->phys_state = p == 0 ? 5 : 2;
		port->width_supported = SIM_WIDTH_SUP;
		port->width_enabled = port->width_active = SIM_WIDTH_EN;
		port->speed_supported = SIM_SPEED_SUP;
		port->speed_enabled = port->speed_active = SIM_SPEED_EN;
		port->mtu = p == 0 ? SIM_MTU_PORT0 : SIM_MTU;
		port->vls = SIM_VLS;
	}
}

/* ---- lines ------------------------------------------------------------------- */

typedef int (*line_fn)(struct reader *r, char *line, unsigned lineno);

static int each_line(struct reader *r, const char *text, size_t len, line_fn fn)
{
	char buf[LINE_MAX_LEN];
	size_t pos = 0;
	unsigned lineno = 0;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		int rc;

		lineno++;
		if (n >= sizeof(buf))
			return bad_line(r, lineno, -EINVAL, "line too long");
		memcpy(buf, text + pos, n);
		buf[n] = '\0';
		if (memchr(buf, '\0', n))
			return bad_line(r, lineno, -EINVAL, "NUL byte in text");
		while (n && (buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
			buf[--n] = '\0';
		if ((rc = fn(r, buf, lineno)) < 0)
			return rc;
		pos = nl ? (size_t)(nl - text) + 1 : len;
	}
	return 0;
}

/* ---- ibsim net files ------------------------------------------------------- */

/* The node kind that starts a header line, *p moved past its word; -1 if
 * none. ibsim net files also say "Hca"; ibnetdiscover says only "Ca". */
static int header_kind(const char **p, int hca_ok)
{
	static const struct {
		const char *word;
		int type;
		int net_only;
	} kinds[] = {
		{ "Switch", IBT_NODE_SWITCH, 0 }, { "Hca", IBT_NODE_CA, 1 },
		{ "Ca", IBT_NODE_CA, 0 }, { "Rt", IBT_NODE_ROUTER, 0 },
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if ((hca_ok || !kinds[i].net_only) && starts_word(*p, kinds[i].word)) {
			*p += strlen(kinds[i].word);
			return kinds[i].type;
		}
	}
	return -1;
}

static int net_header(struct reader *r, const char *p, unsigned lineno)
{
	char name[FAB_DESC_LEN + 1], desc[FAB_DESC_LEN + 1] = "";
	struct tnode *t;
	unsigned nports;
	int type;
	uint64_t guid;

	if ((type = header_kind(&p, 1)) < 0)
		return bad_line(r, lineno, -EINVAL, "bad line (want `Switch|Hca|Rt N \"name\"` "
				"or `[port] \"peer\"[port]`)");
	if (tok_uint(&p, MAX_PORTS, &nports) < 0 || nports == 0)
		return bad_line(r, lineno, -EINVAL, "bad header: number of ports must be 1..%d",
				MAX_PORTS);
	if (tok_quoted(&p, name, sizeof(name)) < 0 || !name[0])
		return bad_line(r, lineno, -EINVAL, "bad header: want a quoted name of 1..%d characters",
				FAB_DESC_LEN);
	p = skip_ws(p);
	if (*p && *p != '#')
		return bad_line(r, lineno, -EINVAL, "bad header: unexpected \"%s\"", p);
	/* ibsim takes the node description from a `# "desc"` trailer. */
	if (*p == '#') {
		p++;
		if (*skip_ws(p) == '"' && tok_quoted(&p, desc, sizeof(desc)) < 0)
			return bad_line(r, lineno, -EINVAL, "bad header: description longer than %d "
					"characters or unterminated", FAB_DESC_LEN);
	}
	for (size_t i = 0; i < r->n_nodes; i++)
		if (!strcmp(r->nodes[i].name, name))
			return bad_line(r, lineno, -EEXIST, "duplicate node \"%s\" (first on line %u)",
					name, r->nodes[i].line);
	/* ibsim leaves room for the port GUIDs of CAs and routers; routers count
	 * from 0 on their own. */
	if (type == IBT_NODE_SWITCH) {
		guid = r->next_sw++;
	} else if (type == IBT_NODE_ROUTER) {
		guid = r->next_rt;
		r->next_rt += nports + 1;
	} else {
		guid = r->next_ca;
		r->next_ca += nports + 1;
	}
	if (!(t = add_tnode(r, type, guid, nports, name, lineno)))
		return bad_line(r, lineno, -errno, "node \"%s\": %s", name, strerror(errno));
	if (desc[0])
		snprintf(t->fn->desc, sizeof(t->fn->desc), "%s", desc);
	return 0;
}

static int net_line(struct reader *r, char *line, unsigned lineno)
{
	const char *p = skip_ws(line);
	struct tdecl *d;
	unsigned port;

	if (!*p || *p == '#')
		return 0;
	if (*p != '[')
		return net_header(r, p, lineno);
	if (!r->n_nodes)
		return bad_line(r, lineno, -EINVAL, "cable before any node header");
	if (tok_bracket(&p, &port) < 0)
		return bad_line(r, lineno, -EINVAL, "bad port number");
	if (!(d = add_decl(r)))
		return bad_line(r, lineno, -ENOMEM, "%s", strerror(ENOMEM));
	d->a = r->n_nodes - 1;
	d->ap = port;
	d->line = lineno;
	d->w = SIM_WIDTH_EN;
	d->s = SIM_SPEED_EN;
	if (tok_quoted(&p, d->peer, sizeof(d->peer)) < 0 || tok_bracket(&p, &d->bp) < 0)
		return bad_line(r, lineno, -EINVAL, "bad cable (want `[port] \"peer\"[port]`)");
	if (*p == '(') {   /* an optional (GUID) as ibnetdiscover writes it: unused */
		uint64_t ignored;

		if (tok_paren_hex(&p, &ignored) < 0)
			return bad_line(r, lineno, -EINVAL, "bad (GUID) after the peer port");
	}
	for (;;) {
		unsigned v;

		p = skip_ws(p);
		if (!*p || *p == '#')
			break;
		if (!strncmp(p, "w=", 2)) {
			p += 2;
			if (tok_uint(&p, SIM_WIDTH_SUP, &v) < 0 || !(v & SIM_WIDTH_SUP))
				return bad_line(r, lineno, -EINVAL, "bad width mask w=");
			d->w = v;
		} else if (!strncmp(p, "s=", 2)) {
			p += 2;
			if (tok_uint(&p, SIM_SPEED_SUP, &v) < 0 || !v)
				return bad_line(r, lineno, -EINVAL, "bad speed mask s= (1..7)");
			d->s = v;
		} else {
			return bad_line(r, lineno, -EINVAL, "unknown option \"%s\"", p);
		}
		if (*p && *p != ' ' && *p != '\t')
			return bad_line(r, lineno, -EINVAL, "bad option value");
	}
	return 0;
}

static int cmp_by_name(const void *a, const void *b)
{
	return strcmp(((const struct tkey *)a)->name, ((const struct tkey *)b)->name);
}

static int make_keys(struct reader *r, int (*cmp)(const void *, const void *))
{
	if (!(r->by_key = malloc((r->n_nodes + 1) * sizeof(*r->by_key))))
		return bad_line(r, 0, -ENOMEM, "%s", strerror(ENOMEM));
	for (size_t i = 0; i < r->n_nodes; i++) {
		r->by_key[i].name = r->nodes[i].name;
		r->by_key[i].guid = r->nodes[i].fn->guid;
		r->by_key[i].idx = i;
	}
	qsort(r->by_key, r->n_nodes, sizeof(*r->by_key), cmp);
	return 0;
}

static int find_name(const struct reader *r, const char *name, size_t *idx)
{
	size_t lo = 0, hi = r->n_nodes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, r->by_key[mid].name);

		if (!c) {
			*idx = r->by_key[mid].idx;
			return 0;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

static int net_resolve(struct reader *r)
{
	int rc = make_keys(r, cmp_by_name);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < r->n_decls; i++) {
		struct tdecl *d = &r->decls[i];

		if (find_name(r, d->peer, &d->b) < 0)
			return bad_line(r, d->line, -ENOENT, "unknown peer \"%s\"", d->peer);
	}
	return 0;
}

/* ---- ibnetdiscover output ---------------------------------------------------- */

static int ibnd_guid_name(const char **pp, uint64_t *guid)
{
	char name[40];

	if (tok_quoted(pp, name, sizeof(name)) < 0 || strlen(name) < 3 || name[1] != '-' ||
	    !strchr("SHR", name[0]) || ibt_guid_parse(name + 2, guid) < 0)
		return -1;
	return 0;
}

/* "4xSDR", "1xQDR", "4xFDR10" at the end of a port line. */
static int ibnd_rate(struct reader *r, const char *p, unsigned lineno, unsigned *w, unsigned *s)
{
	const char *last = p, *q;
	unsigned lanes;

	for (q = p; *q; q++)
		if ((q[0] == ' ' || q[0] == '\t') && q[1] && q[1] != ' ' && q[1] != '\t')
			last = q + 1;
	if (tok_uint(&last, 12, &lanes) < 0 || *last != 'x')
		return bad_line(r, lineno, -EINVAL, "no width and speed (like 4xSDR) at the end");
	switch (lanes) {
	case 1: *w = IBT_WIDTH_1X; break;
	case 2: *w = IBT_WIDTH_2X; break;
	case 4: *w = IBT_WIDTH_4X; break;
	case 8: *w = IBT_WIDTH_8X; break;
	case 12: *w = IBT_WIDTH_12X; break;
	default: return bad_line(r, lineno, -EINVAL, "unknown width %ux", lanes);
	}
	*s = ibt_speed_parse(last + 1);
	if (!*s || strchr(last + 1, ','))
		return bad_line(r, lineno, -EINVAL, "unknown speed \"%s\"", last + 1);
	return 0;
}

static int ibnd_header(struct reader *r, const char *p, unsigned lineno)
{
	struct ibnd_attrs *at = &r->pending;
	char desc[FAB_DESC_LEN + 1] = "";
	unsigned nports, lid = 0, lmc = 0;
	uint64_t guid;
	struct tnode *t;
	const char *q;
	int type;

	if ((type = header_kind(&p, 0)) < 0)
		return bad_line(r, lineno, -EINVAL, "bad line (want a Switch|Ca|Rt header, "
				"a port line or key=value)");
	if (tok_uint(&p, MAX_PORTS, &nports) < 0 || nports == 0)
		return bad_line(r, lineno, -EINVAL, "bad header: number of ports must be 1..%d",
				MAX_PORTS);
	if (ibnd_guid_name(&p, &guid) < 0)
		return bad_line(r, lineno, -EINVAL, "bad header: want \"S-<guid>\" or \"H-<guid>\"");
	p = skip_ws(p);
	if (*p == '#') {
		p++;
		if (tok_quoted(&p, desc, sizeof(desc)) < 0)
			return bad_line(r, lineno, -EINVAL, "bad header: want # \"description\"");
	}
	if ((q = strstr(p, " lid ")) && sscanf(q, " lid %u lmc %u", &lid, &lmc) < 1)
		return bad_line(r, lineno, -EINVAL, "bad header: bad lid");
	if (lid > 0xffff || lmc > 7)
		return bad_line(r, lineno, -EINVAL, "bad header: lid or lmc out of range");
	if (!(t = add_tnode(r, type, guid, nports, desc, lineno))) {
		int e = errno;

		for (size_t i = 0; e == EEXIST && i < r->n_nodes; i++)
			if (r->nodes[i].fn->guid == guid)
				return bad_line(r, lineno, -EEXIST,
						"duplicate node 0x%016llx (first on line %u)",
						(unsigned long long)guid, r->nodes[i].line);
		return bad_line(r, lineno, -e, "%s", strerror(e));
	}
	t->fn->sysimg_guid = at->have_sysimg ? at->sysimg : guid;
	t->fn->vendor_id = at->vendor;
	t->fn->device_id = at->device;
	init_ports(t->fn);
	if (type == IBT_NODE_SWITCH)
		for (unsigned i = 0; i <= nports; i++) {
			t->fn->ports[i].lid = (uint16_t)lid;
			t->fn->ports[i].lmc = (uint8_t)lmc;
			t->fn->ports[i].guid = at->have_port_guid ? at->port_guid : guid;
		}
	memset(at, 0, sizeof(*at));
	return 0;
}

static int ibnd_port(struct reader *r, const char *p, unsigned lineno)
{
	struct tnode *t = r->n_nodes ? &r->nodes[r->n_nodes - 1] : NULL;
	uint64_t port_guid = 0, ignored;
	unsigned port, lid = 0, lmc = 0;
	struct tdecl *d;
	const char *hash;

	if (!t)
		return bad_line(r, lineno, -EINVAL, "port line before any node header");
	if (tok_bracket(&p, &port) < 0)
		return bad_line(r, lineno, -EINVAL, "bad port number");
	if (*p == '(' && tok_paren_hex(&p, &port_guid) < 0)
		return bad_line(r, lineno, -EINVAL, "bad (port GUID)");
	if (!(d = add_decl(r)))
		return bad_line(r, lineno, -ENOMEM, "%s", strerror(ENOMEM));
	d->a = r->n_nodes - 1;
	d->ap = port;
	d->line = lineno;
	p = skip_ws(p);
	if (ibnd_guid_name(&p, &d->peer_guid) < 0 || tok_bracket(&p, &d->bp) < 0)
		return bad_line(r, lineno, -EINVAL, "bad port line (want \"S-<guid>\"[port])");
	if (*p == '(' && tok_paren_hex(&p, &ignored) < 0)
		return bad_line(r, lineno, -EINVAL, "bad (peer port GUID)");
	if (!(hash = strchr(p, '#')))
		return bad_line(r, lineno, -EINVAL, "bad port line: no # comment with the rate");
	if (ibnd_rate(r, hash + 1, lineno, &d->w, &d->s) < 0)
		return -EINVAL;
	if (port == 0 || port > t->fn->nports)
		return bad_line(r, lineno, -EINVAL, "port %u of \"%s\" does not exist (%u ports)",
				port, t->name, t->fn->nports);
	if (t->fn->type != IBT_NODE_SWITCH) {
		struct fab_port *fp = &t->fn->ports[port];

		if (sscanf(skip_ws(hash + 1), "lid %u lmc %u", &lid, &lmc) != 2 ||
		    lid > 0xffff || lmc > 7)
			return bad_line(r, lineno, -EINVAL, "bad port line: want # lid L lmc M");
		fp->lid = (uint16_t)lid;
		fp->lmc = (uint8_t)lmc;
		fp->guid = port_guid ? port_guid : t->fn->guid + port;
	}
	return 0;
}

static int ibnd_line(struct reader *r, char *line, unsigned lineno)
{
	struct ibnd_attrs *at = &r->pending;
	const char *p = skip_ws(line);
	uint64_t v;
	char *end;

	if (!*p || *p == '#')
		return 0;
	if (*p == '[')
		return ibnd_port(r, p, lineno);
	if (isalpha((unsigned char)*p) && (end = strchr(p, '=')) && !strchr(p, ' ') &&
	    !strchr(p, '\t')) {
		const char *val = end + 1;

		errno = 0;
		v = strtoull(val, &end, 16);
		if (errno || end == val || (*end && *end != '('))
			return bad_line(r, lineno, -EINVAL, "bad value in \"%s\"", p);
		if (!strncmp(p, "vendid=", 7)) {
			at->vendor = (uint32_t)v;
		} else if (!strncmp(p, "devid=", 6)) {
			at->device = (uint16_t)v;
		} else if (!strncmp(p, "sysimgguid=", 11)) {
			at->sysimg = v;
			at->have_sysimg = 1;
		} else if (!strncmp(p, "switchguid=", 11) || !strncmp(p, "caguid=", 7) ||
			   !strncmp(p, "rtguid=", 7)) {
			const char *q = end;

			if (*q == '(') {
				if (tok_paren_hex(&q, &at->port_guid) < 0)
					return bad_line(r, lineno, -EINVAL, "bad (port GUID) in \"%s\"", p);
				at->have_port_guid = 1;
			}
		}
		return 0;   /* other keys carry nothing loom keeps */
	}
	return ibnd_header(r, p, lineno);
}

static int cmp_by_guid(const void *a, const void *b)
{
	uint64_t ga = ((const struct tkey *)a)->guid, gb = ((const struct tkey *)b)->guid;

	return ga < gb ? -1 : ga > gb;
}

static int ibnd_resolve(struct reader *r)
{
	int rc = make_keys(r, cmp_by_guid);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < r->n_decls; i++) {
		struct tdecl *d = &r->decls[i];
		size_t lo = 0, hi = r->n_nodes;
		int found = 0;

		while (lo < hi && !found) {
			size_t mid = lo + (hi - lo) / 2;
			uint64_t g = r->by_key[mid].guid;

			if (g == d->peer_guid) {
				d->b = r->by_key[mid].idx;
				found = 1;
			} else if (d->peer_guid < g) {
				hi = mid;
			} else {
				lo = mid + 1;
			}
		}
		if (!found)
			return bad_line(r, d->line, -ENOENT, "unknown peer 0x%016llx",
					(unsigned long long)d->peer_guid);
	}
	return 0;
}

/* ---- links ------------------------------------------------------------------ */

/* Cable end (a, ap) to (b, bp). own: the line is a's own declaration (its
 * width/speed win over what was copied from the other end). */
static int set_end(struct reader *r, const struct tdecl *d, int own)
{
	struct tnode *a = &r->nodes[own ? d->a : d->b], *b = &r->nodes[own ? d->b : d->a];
	unsigned ap = own ? d->ap : d->bp, bp = own ? d->bp : d->ap;
	struct fab_port *port = &a->fn->ports[ap];

	if (a->pline[ap]) {
		if (port->peer_guid != b->fn->guid || port->peer_port != bp) {
			const struct tnode *other = NULL;

			for (size_t i = 0; i < r->n_nodes; i++)
				if (r->nodes[i].fn->guid == port->peer_guid)
					other = &r->nodes[i];
			return bad_line(r, d->line, -EINVAL,
					"port %u of \"%s\" cabled to \"%s\"[%u], but line %u cables it "
					"to \"%s\"[%u]", ap, a->name, b->name, bp, a->pline[ap],
					other ? other->name : "?", port->peer_port);
		}
		if (own && a->pexplicit[ap])
			return bad_line(r, d->line, -EINVAL, "port %u of \"%s\" cabled twice "
					"(also on line %u)", ap, a->name, a->pline[ap]);
		if (!own || a->pexplicit[ap])
			return 0;
	}
	a->pline[ap] = d->line;
	a->pexplicit[ap] |= (unsigned char)own;
	port->present = 1;
	port->has_peer = 1;
	port->peer_guid = b->fn->guid;
	port->peer_port = (uint8_t)bp;
	port->state = 4;
	port->phys_state = 5;
	port->width_enabled = (uint8_t)d->w;
	port->speed_enabled = (uint16_t)d->s;
	if (a->fn->type != IBT_NODE_SWITCH && !port->guid)
		port->guid = a->fn->guid + ap;
	return 0;
}

static int apply_decls(struct reader *r)
{
	for (size_t i = 0; i < r->n_decls; i++) {
		const struct tdecl *d = &r->decls[i];
		const struct tnode *a = &r->nodes[d->a], *b = &r->nodes[d->b];
		int rc;

		if (d->ap == 0 || d->ap > a->fn->nports)
			return bad_line(r, d->line, -EINVAL, "port %u of \"%s\" does not exist (%u ports)",
					d->ap, a->name, a->fn->nports);
		if (d->bp == 0 || d->bp > b->fn->nports)
			return bad_line(r, d->line, -EINVAL, "port %u of \"%s\" does not exist (%u ports)",
					d->bp, b->name, b->fn->nports);
		if (d->a == d->b && d->ap == d->bp)
			return bad_line(r, d->line, -EINVAL, "port %u of \"%s\" cabled to itself",
					d->ap, a->name);
		if ((rc = set_end(r, d, 1)) < 0 || (rc = set_end(r, d, 0)) < 0)
			return rc;
	}
	return 0;
}

/* ibsim brings a link up at the best width and speed both ends enable, and
 * refuses (panics) when they have none in common. */
static int net_finish(struct reader *r)
{
	for (size_t i = 0; i < r->n_nodes; i++) {
		struct fab_node *fn = r->nodes[i].fn;

		fn->sysimg_guid = fn->guid;
		fn->revision = SIM_REVISION;
		for (unsigned p = 1; p <= fn->nports; p++) {
			struct fab_port *port = &fn->ports[p];
			const struct fab_node *pn;
			const struct fab_port *peer;
			unsigned w, s;

			if (!port->has_peer || !(peer = fab_peer(r->fab, port, &pn)))
				continue;
			w = ibt_width_best(port->width_enabled & peer->width_enabled);
			s = ibt_speed_best(port->speed_enabled & peer->speed_enabled);
			if (!w || !s)
				return bad_line(r, r->nodes[i].pline[p], -EINVAL,
						"port %u of \"%s\": the two ends enable no common %s",
						p, r->nodes[i].name, w ? "speed" : "width");
			port->width_active = (uint8_t)w;
			port->speed_active = (uint16_t)s;
			port->width_supported = SIM_WIDTH_SUP;
			port->speed_supported = SIM_SPEED_SUP;
			port->mtu = SIM_MTU;
			port->vls = SIM_VLS;
		}
	}
	return 0;
}

/* ibnetdiscover shows only the active rate: enabled and supported are unknown
 * and set to it (so nothing looks degraded that the file does not say is). */
static void ibnd_finish(struct reader *r)
{
	for (size_t i = 0; i < r->n_nodes; i++) {
		struct fab_node *fn = r->nodes[i].fn;

		for (unsigned p = 1; p <= fn->nports; p++) {
			struct fab_port *port = &fn->ports[p];

			if (!port->has_peer)
				continue;
			port->width_active = port->width_supported = port->width_enabled;
			port->speed_active = port->speed_supported = port->speed_enabled;
			if (fn->type == IBT_NODE_SWITCH)
				port->lid = fn->ports[0].lid;
		}
	}
}

/* ---- entry points --------------------------------------------------------- */

/* ibnetdiscover output starts (after comments) with key=value lines, or with a
 * header whose name is "S-<16 hex digits>" (or H-, R-): no net file name. */
static int looks_ibnd(const char *text, size_t len)
{
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - text) - pos : len - pos;
		const char *p = text + pos;

		while (n && (*p == ' ' || *p == '\t' || *p == '\r')) {
			p++;
			n--;
		}
		if (n && *p != '#') {
			const char *q = memchr(p, '"', n);

			if (memchr(p, '=', n) && !memchr(p, ' ', n) && !memchr(p, '\t', n))
				return 1;
			size_t k = 3;

			if (!q || (size_t)(q - p) + 20 > n || !strchr("SHR", q[1]) || q[2] != '-')
				return 0;
			while (k < 19 && isxdigit((unsigned char)q[k]))
				k++;
			return k == 19 && q[19] == '"';
		}
		pos += (nl ? (size_t)(nl - (text + pos)) + 1 : len - pos);
	}
	return 0;
}

struct fab *topo_file_parse(const char *name, const char *text, size_t len,
			    const char *subnet, char *err, size_t errlen)
{
	struct reader r = { .file = name ? name : "-", .err = err, .errlen = errlen };
	int ibnd = looks_ibnd(text, len);
	int rc;

	if (errlen)
		err[0] = '\0';
	if (!(r.fab = fab_new(subnet))) {
		bad_line(&r, 0, -ENOMEM, "%s", strerror(ENOMEM));
		return NULL;
	}
	if (ibnd) {
		rc = each_line(&r, text, len, ibnd_line);
	} else {
		r.next_ca = SIM_CA_GUID0;
		r.next_sw = SIM_SW_GUID0;
		r.next_rt = SIM_RT_GUID0;
		rc = each_line(&r, text, len, net_line);
		for (size_t i = 0; rc == 0 && i < r.n_nodes; i++)
			init_ports(r.nodes[i].fn);
	}
	if (rc == 0 && !r.n_nodes)
		rc = bad_line(&r, 0, -EINVAL, "no nodes");
	if (rc == 0)
		rc = ibnd ? ibnd_resolve(&r) : net_resolve(&r);
	if (rc == 0)
		rc = apply_decls(&r);
	if (rc == 0) {
		if (ibnd)
			ibnd_finish(&r);
		else
			rc = net_finish(&r);
	}
	if (rc == 0) {
		char msg[256];

		fab_sort(r.fab);
		if (fab_check(r.fab, msg, sizeof(msg)) < 0)
			rc = bad_line(&r, 0, -EINVAL, "%s", msg);
	}
	for (size_t i = 0; i < r.n_nodes; i++) {
		free(r.nodes[i].pline);
		free(r.nodes[i].pexplicit);
	}
	free(r.nodes);
	free(r.decls);
	free(r.by_key);
	if (rc < 0) {
		fab_free(r.fab);
		return NULL;
	}
	return r.fab;
}

struct fab *topo_file_read(const char *path, const char *subnet, char *err, size_t errlen)
{
	size_t len;
	char *buf = slurp_file(path, &len, err, errlen);
	struct fab *fab;

	if (!buf)
		return NULL;
	fab = topo_file_parse(path, buf, len, subnet, err, errlen);
	free(buf);
	return fab;
}
