/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/config_discovery.c: loom.yaml's `discovery:` section, how and
 * which InfiniBand subnets loomd sweeps (daemon/ib/sweep.c):
 *
 *   discovery:
 *     interval: 300       # seconds between sweeps; 0 = on demand only
 *     timeout_ms: 200     # per SMP
 *     retries: 3
 *     max_smps: 64        # SMPs in flight per subnet
 *     walker: loom        # who walks a full sweep: loom's own walk (walk_dr.c)
 *                         # or libibnetdisc
 *     m_key_file: /etc/loom/m_key  # the M_Key loom's SMPs carry (OpenSM's
 *                         # m_key); a root-only file, read with the file
 *     subnets:            # none: every local HCA port that is found
 *       - { name: fabric0, ca: mlx5_0, port: 1 }
 */
#include "autoconf.h"
#include "daemon/ib/config_discovery.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/core/config_parse.h"
#include "daemon/ib/discovery_ib.h"

#define CFG_SECTION_TYPE struct discovery_conf

/* The keys of one discovery.subnets entry, in print order. */
static const struct cfg_key subnet_keys[] = {
	{ "name", CFG_STRING, offsetof(struct loom_subnet_conf, name),
	  sizeof(((struct loom_subnet_conf *)0)->name), 0, 0, 0, 0, NULL, NULL, NULL },
	{ "ca", CFG_STRING, offsetof(struct loom_subnet_conf, ca),
	  sizeof(((struct loom_subnet_conf *)0)->ca), 0, 0, 0, 0, NULL, NULL, NULL },
	{ "port", CFG_INT, offsetof(struct loom_subnet_conf, port), sizeof(int), 1, 254, 0, 1,
	  NULL, NULL, NULL },
};
#define N_SUBNET_KEYS (sizeof(subnet_keys) / sizeof(subnet_keys[0]))
enum { SUBNET_NAME, SUBNET_CA, SUBNET_PORT };

/* Check one subnet after its keys are read: required keys, the default
 * name, and clashes with the subnets before it. */
static int finish_subnet(struct parse *p, struct discovery_conf *c, const yaml_node_t *item,
			 int idx, const yaml_node_t *const *seen)
{
	struct loom_subnet_conf *sc = &c->subnets[idx];
	char key[96];

	if (!seen[SUBNET_CA]) {
		snprintf(key, sizeof(key), "discovery.subnets[%d].ca", idx);
		return cfg_fail(p, cfg_line(item), key, "required key missing");
	}
	if (!sc->ca[0]) {
		snprintf(key, sizeof(key), "discovery.subnets[%d].ca", idx);
		return cfg_fail(p, cfg_line(seen[SUBNET_CA]), key, "must not be empty");
	}
	snprintf(key, sizeof(key), "discovery.subnets[%d].name", idx);
	if (!sc->name[0]) {
		/* The same default as the sweeper gives an autodetected port,
		 * so configuring a port explicitly keeps its history. */
		char name[sizeof(sc->name)] = "";  /* not straight into sc: gcc fears overlap;
						 * zeroed, so equal configs memcmp equal */
		int n = snprintf(name, sizeof(name), "%s/%d", sc->ca, sc->port);

		memcpy(sc->name, name, sizeof(name));
		if (n < 0 || (size_t)n >= sizeof(sc->name))
			return cfg_fail(p, cfg_line(item), key,
					  "the default name \"<ca>/<port>\" would be longer than "
					  "%zu bytes; set a shorter name", sizeof(sc->name) - 1);
	}
	/* The store's name for the fabric of the Ethernet switches (schema 005). */
	if (strcmp(sc->name, "ethernet") == 0)
		return cfg_fail(p, cfg_line(seen[SUBNET_NAME] ? seen[SUBNET_NAME] : item), key,
				"\"ethernet\" is the name of the Ethernet switches' fabric; "
				"choose another");
	for (int j = 0; j < idx; j++) {
		const struct loom_subnet_conf *o = &c->subnets[j];
		unsigned long line = cfg_line(seen[SUBNET_NAME] ? seen[SUBNET_NAME] : item);

		if (strcmp(o->name, sc->name) == 0)
			return cfg_fail(p, line, key,
					  "duplicate subnet name \"%s\" (also discovery.subnets[%d])",
					  sc->name, j);
		/* Two sweepers on one local port would race for the same MAD
		 * agent and record the same fabric twice under two names. */
		if (strcmp(o->ca, sc->ca) == 0 && o->port == sc->port) {
			snprintf(key, sizeof(key), "discovery.subnets[%d]", idx);
			return cfg_fail(p, cfg_line(item), key,
					  "%s port %d is already discovery.subnets[%d] (\"%s\")",
					  sc->ca, sc->port, j, o->name);
		}
	}
	return 0;
}

static int parse_subnet(struct parse *p, struct discovery_conf *c, const yaml_node_t *item,
			int idx)
{
	const yaml_node_t *seen[N_SUBNET_KEYS] = { NULL };
	struct loom_subnet_conf *sc = &c->subnets[idx];
	char where[64];
	int rc;

	snprintf(where, sizeof(where), "discovery.subnets[%d]", idx);
	if ((rc = cfg_expect(p, item, where, YAML_MAPPING_NODE)) < 0)
		return rc;
	memset(sc, 0, sizeof(*sc));
	sc->port = 1;
	if ((rc = cfg_parse_table(p, item, where, subnet_keys, N_SUBNET_KEYS, sc, seen)) < 0)
		return rc;
	return finish_subnet(p, c, item, idx, seen);
}

static int parse_subnets(struct parse *p, const yaml_node_t *v, const char *key,
			void *sec)
{
	struct discovery_conf *c = sec;
	int n = 0, rc;

	c->n_subnets = 0;
	memset(c->subnets, 0, sizeof(c->subnets));
	if (cfg_is_null(v))
		return 0;
	if ((rc = cfg_expect(p, v, key, YAML_SEQUENCE_NODE)) < 0)
		return rc;
	for (yaml_node_item_t *it = v->data.sequence.items.start;
	     it < v->data.sequence.items.top; it++) {
		const yaml_node_t *item = yaml_document_get_node(p->doc, *it);

		if (n == LOOM_MAX_SUBNETS) {
			char where[64];

			snprintf(where, sizeof(where), "%s[%d]", key, n);
			return cfg_fail(p, cfg_line(item), where,
					  "too many subnets (at most %d)", LOOM_MAX_SUBNETS);
		}
		if ((rc = parse_subnet(p, c, item, n)) < 0)
			return rc;
		n++;
	}
	c->n_subnets = n;
	return 0;
}

static void print_subnets(FILE *out, const void *sec)
{
	const struct discovery_conf *c = sec;

	if (c->n_subnets <= 0) {
		fputs(" []\n", out);
		return;
	}
	fputc('\n', out);
	for (int i = 0; i < c->n_subnets && i < LOOM_MAX_SUBNETS; i++)
		for (size_t k = 0; k < N_SUBNET_KEYS; k++) {
			fprintf(out, "    %s %s: ", k == 0 ? "-" : " ", subnet_keys[k].name);
			cfg_print_value(out, &subnet_keys[k], &c->subnets[i]);
			fputc('\n', out);
		}
}

static const struct cfg_key discovery_keys[] = {
	CFG_KEY_INT("interval", sweep_interval, 5, 86400, 1, 300),
	CFG_KEY_INT("timeout_ms", mad_timeout_ms, 1, 60000, 0, 200),
	CFG_KEY_INT("retries", mad_retries, 0, 20, 0, 3),
	CFG_KEY_INT("max_smps", max_smps, 1, 1024, 0, 64),
	CFG_KEY_STR("walker", CFG_STRING, walker, "loom"),
	CFG_KEY_BOOL("follow", discovery_follow, 1),
	CFG_KEY_STR("m_key_file", CFG_OPT_PATH, m_key_file, NULL),
	CFG_KEY_CUSTOM("subnets", parse_subnets, print_subnets),
};

/* The M_Key of path (discovery.m_key_file) into *key: the file's first
 * line, hex (0x...) or decimal, nonzero. The file is a secret, as
 * ha.password_file and http.tokens_file are: a regular file of root's or
 * loomd's own uid that group and others cannot read. 0 or -errno with why;
 * why never holds the key. */
static int read_m_key(const char *path, uint64_t *key, char *why, size_t whylen)
{
	char line[128], *end;
	struct stat st;
	ssize_t n;
	int fd, rc = -EPERM;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		rc = -errno;
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return rc;
	}
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s: not a regular file: refused", path);
	} else if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(why, whylen, "%s: owned by uid %u, not root nor loomd's uid %u: refused "
			 "(the M_Key gives rights on every port)", path, (unsigned)st.st_uid,
			 (unsigned)geteuid());
	} else if (st.st_mode & (S_IRGRP | S_IWGRP | S_IROTH | S_IWOTH)) {
		snprintf(why, whylen, "%s: mode %04o lets group or others read or write it: "
			 "refused (chmod 600 it)", path, (unsigned)(st.st_mode & 07777));
	} else if ((n = read(fd, line, sizeof(line) - 1)) < 0) {
		rc = -errno;
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
	} else {
		line[n] = '\0';
		line[strcspn(line, "\r\n")] = '\0';
		errno = 0;
		*key = strtoull(line, &end, 0);
		rc = -EINVAL;
		if (!line[0] || line[0] == '-' || line[0] == '+' || errno || *end)
			snprintf(why, whylen, "%s: its first line is not a 64-bit M_Key "
				 "(hex 0x... or decimal)", path);
		else if (*key == 0)
			snprintf(why, whylen, "%s: an M_Key of 0 is no key: leave "
				 "discovery.m_key_file out instead", path);
		else
			rc = 0;
	}
	explicit_bzero(line, sizeof(line));
	close(fd);
	return rc;
}

/* Read discovery.m_key_file when the file is loaded (and reloaded: a new
 * key takes effect with the next reload, like every other key). */
static int check_discovery(struct parse *p, void *sec)
{
	struct discovery_conf *c = sec;
	char why[PATH_MAX + 160];

	if (strcmp(c->walker, "loom") == 0)
		c->walker_id = DISC_IB_WALKER_LOOM;
	else if (strcmp(c->walker, "ibnetdisc") == 0)
		c->walker_id = DISC_IB_WALKER_IBNETDISC;
	else
		return cfg_fail(p, cfg_key_line(p, "discovery", "walker"), "discovery.walker",
				"\"%s\": must be loom or ibnetdisc", c->walker);
	c->m_key = 0;
	if (!c->m_key_file[0])
		return 0;
	if (read_m_key(c->m_key_file, &c->m_key, why, sizeof(why)) < 0)
		return cfg_fail(p, cfg_key_line(p, "discovery", "m_key_file"),
				"discovery.m_key_file", "%s", why);
	return 0;
}

const struct discovery_conf *discovery_conf_get(const struct loom_config *c)
{
	return config_section_get(c, &sweep_config);
}

const struct config_section sweep_config = {
	.name = "discovery", .size = sizeof(struct discovery_conf), .keys = discovery_keys,
	.n_keys = sizeof(discovery_keys) / sizeof(discovery_keys[0]),
	.check = check_discovery,
};
