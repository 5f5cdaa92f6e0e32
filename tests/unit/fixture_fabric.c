/* tests/unit/fixture_fabric.c: see fixture_fabric.h. */
#include "autoconf.h"
#include "fixture_fabric.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fab_node *fixture_node(struct fab *f, int type, uint64_t guid, unsigned nports,
			      const char *desc, uint16_t lid)
{
	struct fab_node *n = fab_add_node(f, type, guid, (uint8_t)nports);

	ck_assert_ptr_nonnull(n);
	snprintf(n->desc, sizeof(n->desc), "%s", desc);
	n->sysimg_guid = guid;
	n->vendor_id = 0x02c9;
	n->device_id = 0xcb20;
	n->revision = 0xa0;
	for (unsigned p = type == IBT_NODE_SWITCH ? 0 : 1; p <= nports; p++) {
		struct fab_port *port = &n->ports[p];
		int mgmt = type == IBT_NODE_SWITCH && p == 0;

		port->present = 1;
		port->guid = guid + p;
		port->lid = lid;
		port->state = mgmt ? 4 : 1;        /* active : down */
		port->phys_state = mgmt ? 5 : 2;   /* linkup : polling */
		port->width_supported = port->width_enabled = IBT_WIDTH_1X | IBT_WIDTH_4X;
		port->speed_supported = port->speed_enabled = IBT_SPEED_SDR | IBT_SPEED_QDR;
		port->mtu = 5;
		port->vls = 4;
	}
	return n;
}

static void set_up(struct fab_port *p, uint64_t peer, unsigned peer_port)
{
	p->state = 4;
	p->phys_state = 5;
	p->width_active = IBT_WIDTH_4X;
	p->speed_active = IBT_SPEED_QDR;
	p->has_peer = 1;
	p->peer_guid = peer;
	p->peer_port = (uint8_t)peer_port;
}

static void set_down(struct fab_port *p)
{
	p->state = 1;
	p->phys_state = 2;
	p->width_active = 0;
	p->speed_active = 0;
	p->has_peer = 0;
	p->peer_guid = 0;
	p->peer_port = 0;
}

void fixture_link(struct fab *f, uint64_t a, unsigned ap, uint64_t b, unsigned bp)
{
	ck_assert_ptr_nonnull(fab_find(f, a));
	ck_assert_ptr_nonnull(fab_find(f, b));
	set_up(&fab_find(f, a)->ports[ap], b, bp);
	set_up(&fab_find(f, b)->ports[bp], a, ap);
}

void fixture_unlink(struct fab *f, uint64_t a, unsigned ap)
{
	struct fab_port *p = &fab_find(f, a)->ports[ap];
	struct fab_node *peer = fab_find(f, p->peer_guid);

	if (peer && p->has_peer)
		set_down(&peer->ports[p->peer_port]);
	set_down(p);
}

const char *fixture_path(const char *name)
{
	static char path[4096];
	const char *top = getenv("top_srcdir");

	if (top && *top) {
		snprintf(path, sizeof(path), "%s/tests/fabrics/%s", top, name);
	} else {
		const char *slash = strrchr(__FILE__, '/');
		int dirlen = slash ? (int)(slash - __FILE__) : 1;

		snprintf(path, sizeof(path), "%.*s/../fabrics/%s", dirlen,
			 slash ? __FILE__ : ".", name);
	}
	return path;
}
