/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/fabric/hostmap.c: see hostmap.h. */
#include "autoconf.h"
#include "lib/fabric/hostmap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/ibtypes.h"
#include "lib/util/log.h"

/* One line (a '#' starts a comment): 0 (kind HOSTMAP_NONE for a blank
 * one), or -EINVAL with *why saying what a line must be. */
static int parse_line(const char *line, struct hostmap_line *out, const char **why)
{
	/* one byte more than a name: a longer word is seen, never cut in two */
	char buf[512], h[HOSTMAP_NAME_LEN + 1], a[HOSTMAP_NAME_LEN + 1], b[HOSTMAP_NAME_LEN + 1];
	char extra[2];
	int k;

	memset(out, 0, sizeof(*out));
	snprintf(buf, sizeof(buf), "%s", line);
	buf[strcspn(buf, "#\n")] = '\0';
	k = sscanf(buf, "%64s %64s %64s %1s", h, a, b, extra);
	if (k <= 0)
		return 0;   /* kind 0: HOSTMAP_NONE */
	if (k == 1 || k == 4) {
		*why = "expected HOST PORT_GUID or HOST SWITCH PORT";
		return -EINVAL;
	}
	if (strlen(h) >= HOSTMAP_NAME_LEN || strlen(a) >= HOSTMAP_NAME_LEN ||
	    (k == 3 && strlen(b) >= HOSTMAP_NAME_LEN)) {
		*why = "a host, switch or port name is at most 63 bytes";
		return -EINVAL;
	}
	memcpy(out->host, h, strlen(h) + 1);
	if (k == 2) {
		if (strncmp(a, "0x", 2) || strlen(a) != 18 ||
		    strspn(a + 2, "0123456789abcdefABCDEF") != 16 || ibt_guid_parse(a, &out->guid)) {
			*why = "a port GUID is 0x and 16 hex digits";
			return -EINVAL;
		}
		out->kind = HOSTMAP_IB;
		return 0;
	}
	out->kind = HOSTMAP_ETH;
	snprintf(out->sw, sizeof(out->sw), "%s", a);
	snprintf(out->port, sizeof(out->port), "%s", b);
	return 0;
}

int hostmap_desc_host(const regex_t *re, const char *desc, char *host, size_t len)
{
	regmatch_t g[2];
	size_t n;

	if (regexec(re, desc, 2, g, 0) || g[1].rm_so < 0 ||
	    (n = (size_t)(g[1].rm_eo - g[1].rm_so)) == 0 || n >= len)
		return 0;
	memcpy(host, desc + g[1].rm_so, n);
	host[n] = '\0';
	return 1;
}

static int by_guid(const void *a, const void *b)
{
	const struct hostmap_port *x = a, *y = b;

	return (x->guid > y->guid) - (x->guid < y->guid);
}

static int by_host(const void *a, const void *b)
{
	return strcmp(a, b);
}

int hostmap_read(const char *path, struct hostmap_line **lines, size_t *n, char *err,
		 size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[512];
	unsigned long no = 0;
	size_t cap = 0;

	*lines = NULL;
	*n = 0;
	if (!f)
		return err_fmt(err, errlen, -errno, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		struct hostmap_line l;
		const char *why;

		/* a longer line's tail would be read as a line of its own */
		int whole = strchr(line, '\n') || feof(f);

		no++;
		if (!whole)
			why = "longer than 511 bytes";
		if (!whole || parse_line(line, &l, &why) < 0) {
			fclose(f);
			free(*lines);
			*lines = NULL;
			*n = 0;
			return err_at(err, errlen, -EINVAL, path, no, "%s", why);
		}
		if (l.kind == HOSTMAP_NONE)
			continue;
		l.line = no;
		if (*n == cap) {
			void *p = realloc(*lines, (cap = cap * 2 + 16) * sizeof(**lines));

			if (!p) {
				fclose(f);
				free(*lines);
				*lines = NULL;
				*n = 0;
				return err_fmt(err, errlen, -ENOMEM, "out of memory");
			}
			*lines = p;
		}
		(*lines)[(*n)++] = l;
	}
	fclose(f);
	return 0;
}

static int map_read(struct hostmap *hm, const char *path, char *err, size_t errlen)
{
	struct hostmap_line *l;
	size_t n;
	int rc = hostmap_read(path, &l, &n, err, errlen);

	if (rc < 0)
		return rc;
	if (!(hm->hosts = calloc(n ? n : 1, sizeof(*hm->hosts))) ||
	    !(hm->ports = calloc(n ? n : 1, sizeof(*hm->ports)))) {
		free(l);
		return err_fmt(err, errlen, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		memcpy(hm->hosts[hm->n_hosts++], l[i].host, HOSTMAP_NAME_LEN);
		if (l[i].kind != HOSTMAP_IB)
			continue;
		hm->ports[hm->n].guid = l[i].guid;
		memcpy(hm->ports[hm->n].host, l[i].host, HOSTMAP_NAME_LEN);
		hm->n++;
	}
	free(l);
	if (hm->n)   /* an empty map has no arrays */
		qsort(hm->ports, hm->n, sizeof(*hm->ports), by_guid);
	if (hm->n_hosts)
		qsort(hm->hosts, hm->n_hosts, sizeof(*hm->hosts), by_host);
	for (size_t i = 1; i < hm->n; i++)
		if (hm->ports[i].guid == hm->ports[i - 1].guid &&
		    strcmp(hm->ports[i].host, hm->ports[i - 1].host)) {
			char g[20];

			return err_fmt(err, errlen, -EINVAL, "%s: port %s is given to two hosts, "
				       "%s and %s", path, ibt_guid_str(hm->ports[i].guid, g, sizeof(g)),
				       hm->ports[i - 1].host, hm->ports[i].host);
		}
	return 0;
}

int hostmap_load(struct hostmap *hm, const char *pattern, const char *map, char *err,
		 size_t errlen)
{
	int rc;

	memset(hm, 0, sizeof(*hm));
	if ((rc = regcomp(&hm->re, pattern, REG_EXTENDED)) != 0) {
		char why[128];

		regerror(rc, &hm->re, why, sizeof(why));
		return err_fmt(err, errlen, -EINVAL, "host pattern \"%s\": %s", pattern, why);
	}
	if (hm->re.re_nsub < 1) {
		regfree(&hm->re);
		return err_fmt(err, errlen, -EINVAL, "host pattern \"%s\" needs a group, ( ), "
			       "around the host name", pattern);
	}
	if (map && map[0] && (rc = map_read(hm, map, err, errlen)) < 0) {
		hostmap_clear(hm);
		return rc;
	}
	return 0;
}

void hostmap_clear(struct hostmap *hm)
{
	regfree(&hm->re);
	free(hm->ports);
	free(hm->hosts);
	memset(hm, 0, sizeof(*hm));
}

int hostmap_host(const struct hostmap *hm, uint64_t port_guid, const char *desc, char *host,
		 size_t len)
{
	struct hostmap_port key = { .guid = port_guid }, *hit;

	if (hm->n && (hit = bsearch(&key, hm->ports, hm->n, sizeof(key), by_guid))) {
		snprintf(host, len, "%s", hit->host);
		return 1;
	}
	if (!hostmap_desc_host(&hm->re, desc, host, len))
		return 0;
	/* a host the map names has the map's ports only */
	return !(hm->n_hosts && bsearch(host, hm->hosts, hm->n_hosts, sizeof(*hm->hosts), by_host));
}

int hostmap_identity_parse(const char *s, int *identity)
{
	if (!strcmp(s, "map"))
		*identity = HOSTMAP_ID_MAP;
	else if (!strcmp(s, "description"))
		*identity = HOSTMAP_ID_DESCRIPTION;
	else
		return -EINVAL;
	return 0;
}

const char *hostmap_identity_name(int identity)
{
	return identity == HOSTMAP_ID_DESCRIPTION ? "description" : "map";
}

int hostmap_host_as(const struct hostmap *hm, int identity, uint64_t port_guid,
		    const char *desc, char *host, size_t len, char *claim, size_t claimlen)
{
	struct hostmap_port key = { .guid = port_guid }, *hit;

	if (claimlen && !hostmap_desc_host(&hm->re, desc, claim, claimlen))
		claim[0] = '\0';
	if (hm->n && (hit = bsearch(&key, hm->ports, hm->n, sizeof(key), by_guid))) {
		snprintf(host, len, "%s", hit->host);
		return 2;
	}
	if (identity == HOSTMAP_ID_MAP)
		return 0;
	return hostmap_host(hm, port_guid, desc, host, len);
}

int hostmap_port_host(const struct hostmap *hm, const struct fab_node *ca,
		      const struct fab_port *port, char *host, size_t len)
{
	return hostmap_host(hm, port->guid, ca->desc, host, len);
}
