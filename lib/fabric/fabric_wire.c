/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/fabric/fabric_wire.c: see fabric_wire.h. Layout:
 *   header   magic "LOOMFAB1", sizeof(struct fab_port), number of nodes,
 *            subnet name (FAB_NAME_LEN bytes)
 *   per node type, guid, sysimg_guid, vendor_id, device_id, revision,
 *            desc (FAB_DESC_LEN + 1 bytes), nports, then nports + 1
 *            struct fab_port as they are in memory
 *   dups     only when the fabric has duplicate GUIDs (fab->dups): magic
 *            "LOOMDUP1", their number, then each struct wire_dup; a fabric
 *            without duplicates is written as it always was
 *   sms      only when the sweep read PortInfo keys and SMInfo (fab->sm_read):
 *            magic "LOOMSMS1", sm_read and the number of SMs (uint64_t
 *            each), then each struct fab_sm as it is in memory
 *   smps     only when the walk counted something (fab->smps, issue 44):
 *            magic "LOOMSMP1", then sent, retries, lost (uint64_t each,
 *            FAB_COUNT_UNKNOWN for what it did not count); a fabric
 *            without counts (a copy handed to a child) is written as it
 *            always was
 *   trailer  magic "LOOMEND1" (a stream cut short is caught here) */
#include "autoconf.h"
#include "lib/fabric/fabric_wire.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

static const char head_magic[8] = "LOOMFAB1";
static const char tail_magic[8] = "LOOMEND1";
static const char dup_magic[8] = "LOOMDUP1";
static const char sms_magic[8] = "LOOMSMS1";
static const char smp_magic[8] = "LOOMSMP1";

static int smps_known(const struct fab_smps *c)
{
	return c->sent != FAB_COUNT_UNKNOWN || c->retries != FAB_COUNT_UNKNOWN ||
	       c->lost != FAB_COUNT_UNKNOWN;
}

struct wire_node {
	int32_t type;
	uint32_t vendor_id;
	uint64_t guid;
	uint64_t sysimg_guid;
	uint32_t revision;
	uint16_t device_id;
	uint8_t nports;
	uint8_t pad;
	char desc[FAB_DESC_LEN + 1];
};

struct wire_dup {
	uint64_t guid;
	uint8_t is_port;
	uint8_t pad[7];
	char first[FAB_DUP_LEN];
	char second[FAB_DUP_LEN];
};

struct wire_head {
	char magic[8];
	uint32_t port_size;
	uint32_t node_size;
	uint64_t n_nodes;
	char subnet[FAB_NAME_LEN];
};

int fab_wire_write(const struct fab *fab, FILE *out)
{
	struct wire_head h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, head_magic, sizeof(h.magic));
	h.port_size = sizeof(struct fab_port);
	h.node_size = sizeof(struct wire_node);
	h.n_nodes = fab->n_nodes;
	memcpy(h.subnet, fab->subnet, sizeof(h.subnet));
	if (fwrite(&h, sizeof(h), 1, out) != 1)
		return -EIO;
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct fab_node *n = fab->nodes[i];
		struct wire_node w;

		memset(&w, 0, sizeof(w));
		w.type = n->type;
		w.vendor_id = n->vendor_id;
		w.guid = n->guid;
		w.sysimg_guid = n->sysimg_guid;
		w.revision = n->revision;
		w.device_id = n->device_id;
		w.nports = n->nports;
		memcpy(w.desc, n->desc, sizeof(w.desc));
		if (fwrite(&w, sizeof(w), 1, out) != 1 ||
		    fwrite(n->ports, sizeof(*n->ports), (size_t)n->nports + 1, out) !=
		    (size_t)n->nports + 1)
			return -EIO;
	}
	if (fab->n_dups) {
		uint64_t n = fab->n_dups;

		if (fwrite(dup_magic, sizeof(dup_magic), 1, out) != 1 ||
		    fwrite(&n, sizeof(n), 1, out) != 1)
			return -EIO;
		for (size_t i = 0; i < fab->n_dups; i++) {
			const struct fab_dup *d = &fab->dups[i];
			struct wire_dup w;

			memset(&w, 0, sizeof(w));
			w.guid = d->guid;
			w.is_port = d->is_port;
			memcpy(w.first, d->first, sizeof(w.first));
			memcpy(w.second, d->second, sizeof(w.second));
			if (fwrite(&w, sizeof(w), 1, out) != 1)
				return -EIO;
		}
	}
	if (fab->sm_read) {
		uint64_t h2[2] = { (uint64_t)fab->sm_read, fab->n_sms };

		if (fwrite(sms_magic, sizeof(sms_magic), 1, out) != 1 ||
		    fwrite(h2, sizeof(h2), 1, out) != 1 ||
		    (fab->n_sms && fwrite(fab->sms, sizeof(*fab->sms), fab->n_sms, out) != fab->n_sms))
			return -EIO;
	}
	if (smps_known(&fab->smps)) {
		uint64_t c[3] = { fab->smps.sent, fab->smps.retries, fab->smps.lost };

		if (fwrite(smp_magic, sizeof(smp_magic), 1, out) != 1 ||
		    fwrite(c, sizeof(c), 1, out) != 1)
			return -EIO;
	}
	if (fwrite(tail_magic, sizeof(tail_magic), 1, out) != 1 || fflush(out) != 0)
		return -EIO;
	return 0;
}

/* A cursor over the input that refuses to run past its end. */
struct cursor {
	const unsigned char *p;
	size_t left;
};

static const void *take(struct cursor *c, size_t n)
{
	const void *at = c->p;

	if (c->left < n)
		return NULL;
	c->p += n;
	c->left -= n;
	return at;
}

struct fab *fab_wire_read(const void *buf, size_t len, char *err, size_t errlen)
{
	return fab_wire_read_prefix(buf, len, NULL, err, errlen);
}

struct fab *fab_wire_read_prefix(const void *buf, size_t len, size_t *used, char *err,
				 size_t errlen)
{
	struct cursor c = { buf, len };
	struct wire_head h;
	const void *at;
	struct fab *fab = NULL;

	if (!(at = take(&c, sizeof(h)))) {
		snprintf(err, errlen, "fabric stream too short (%zu bytes)", len);
		return NULL;
	}
	memcpy(&h, at, sizeof(h));
	if (memcmp(h.magic, head_magic, sizeof(h.magic)) != 0 ||
	    h.port_size != sizeof(struct fab_port) || h.node_size != sizeof(struct wire_node)) {
		snprintf(err, errlen, "not a fabric stream of this build");
		return NULL;
	}
	h.subnet[sizeof(h.subnet) - 1] = '\0';
	if (!(fab = fab_new(h.subnet))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (uint64_t i = 0; i < h.n_nodes; i++) {
		struct wire_node w;
		struct fab_node *n;

		if (!(at = take(&c, sizeof(w))))
			goto short_stream;
		memcpy(&w, at, sizeof(w));
		if (!(n = fab_add_node(fab, w.type, w.guid, w.nports))) {
			snprintf(err, errlen, "node 0x%016llx: %s", (unsigned long long)w.guid,
				 errno == EEXIST ? "found twice" : strerror(errno));
			goto fail;
		}
		n->sysimg_guid = w.sysimg_guid;
		n->vendor_id = w.vendor_id;
		n->device_id = w.device_id;
		n->revision = w.revision;
		memcpy(n->desc, w.desc, sizeof(n->desc));
		n->desc[FAB_DESC_LEN] = '\0';
		if (!(at = take(&c, sizeof(*n->ports) * ((size_t)w.nports + 1))))
			goto short_stream;
		memcpy(n->ports, at, sizeof(*n->ports) * ((size_t)w.nports + 1));
		for (unsigned p = 0; p <= w.nports; p++)
			n->ports[p].num = (uint8_t)p;  /* the index is the truth */
	}
	if (c.left >= sizeof(dup_magic) && !memcmp(c.p, dup_magic, sizeof(dup_magic))) {
		uint64_t n_dups;

		take(&c, sizeof(dup_magic));
		if (!(at = take(&c, sizeof(n_dups))))
			goto short_stream;
		memcpy(&n_dups, at, sizeof(n_dups));
		if (n_dups > c.left / sizeof(struct wire_dup))
			goto short_stream;
		for (uint64_t i = 0; i < n_dups; i++) {
			struct wire_dup w;

			memcpy(&w, take(&c, sizeof(w)), sizeof(w));
			w.first[sizeof(w.first) - 1] = '\0';
			w.second[sizeof(w.second) - 1] = '\0';
			if (fab_add_dup(fab, w.guid, w.is_port, w.first, w.second) < 0) {
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
		}
	}
	if (c.left >= sizeof(sms_magic) && !memcmp(c.p, sms_magic, sizeof(sms_magic))) {
		uint64_t h2[2];

		take(&c, sizeof(sms_magic));
		if (!(at = take(&c, sizeof(h2))))
			goto short_stream;
		memcpy(h2, at, sizeof(h2));
		if (h2[1] > FAB_SM_MAX || h2[0] > FAB_SM_COPIED) {
			snprintf(err, errlen, "fabric stream: %llu subnet managers (at most %d)",
				 (unsigned long long)h2[1], FAB_SM_MAX);
			goto fail;
		}
		fab->sm_read = (int)h2[0];
		for (uint64_t i = 0; i < h2[1]; i++) {
			struct fab_sm sm;

			if (!(at = take(&c, sizeof(sm))))
				goto short_stream;
			memcpy(&sm, at, sizeof(sm));
			if (fab_add_sm(fab, &sm) < 0) {
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
		}
	}
	if (c.left >= sizeof(smp_magic) && !memcmp(c.p, smp_magic, sizeof(smp_magic))) {
		uint64_t n[3];

		take(&c, sizeof(smp_magic));
		if (!(at = take(&c, sizeof(n))))
			goto short_stream;
		memcpy(n, at, sizeof(n));
		fab->smps.sent = n[0];
		fab->smps.retries = n[1];
		fab->smps.lost = n[2];
	}
	if (!(at = take(&c, sizeof(tail_magic))) || memcmp(at, tail_magic, sizeof(tail_magic)))
		goto short_stream;
	if (c.left && !used) {
		snprintf(err, errlen, "%zu stray bytes after the fabric stream", c.left);
		goto fail;
	}
	if (used)
		*used = len - c.left;
	fab_sort(fab);
	if (fab_check(fab, err, errlen) < 0)
		goto fail;
	return fab;
short_stream:
	snprintf(err, errlen, "fabric stream cut short (%zu bytes)", len);
fail:
	fab_free(fab);
	return NULL;
}
