/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/dr_route.h: directed routes from the local HCA port to every switch
 * of a freshly swept subnet, for the child processes that read tables back
 * with SMPs (lft_read.c, pkey_read.c). Directed routes reach a switch even
 * when the forwarding tables that would route to its LID are wrong. */
#ifndef LOOMD_DR_ROUTE_H
#define LOOMD_DR_ROUTE_H

#include <stddef.h>

#include <infiniband/mad.h>

#include "daemon/ib/discovery_ib.h"
#include "lib/fabric/fabric.h"

struct dr_route {
	const struct fab_node *n;  /* a switch */
	ib_dr_path_t path;         /* path.p[1] is the local port, then one port per switch */
};

struct dr_routes {
	const struct fab_node *local;  /* the local node (a CA, or a switch's port 0) */
	unsigned local_port;
	struct dr_route *r;            /* breadth first from the local port */
	size_t n;
};

/* The routes through `fab`, which was just swept through the local port of
 * p. 0, or -errno with err (also when a switch cannot be reached). */
int dr_routes_build(const struct disc_ib_params *p, const struct fab *fab,
		    struct dr_routes *out, char *err, size_t errlen);
void dr_routes_clear(struct dr_routes *d);

/* For every port of switch d->r[i] that is cabled to a CA port other than
 * the local one, fn(ctx, &d->r[i], port, the CA, its port): stops at the
 * first return < 0 and returns it, else 0. Ports whose CA would be past
 * the longest directed route are left out. */
typedef int (*dr_ca_port_fn)(void *ctx, const struct dr_route *r, unsigned port,
			     const struct fab_node *ca, const struct fab_port *far);
int dr_ca_ports(const struct fab *fab, const struct dr_routes *d, size_t i, dr_ca_port_fn fn,
		void *ctx);

/* A directed-route SMP (class 0x81) of `method` for attr/am along path,
 * with TID tid and the 64-byte data field `data` (NULL: zeros), built in
 * buf (blen bytes, umad_size() + IB_MAD_SIZE, cleared here) for
 * umad_send(): its length, or -EINVAL. */
int dr_smp_build(uint8_t *buf, size_t blen, int method, uint16_t attr, uint32_t am,
		 const ib_dr_path_t *path, uint32_t tid, const uint8_t *data);

/* p's local port opened for SMPs of our own (umad, not libibmad's rpc),
 * with an agent registered for directed-route SMPs: 0 with *fd and *agent,
 * or -errno with err (*fd / *agent -1 for what was not opened). */
int dr_umad_open(const struct disc_ib_params *p, int *fd, int *agent, char *err,
		 size_t errlen);
/* Undo dr_umad_open (either may be -1). */
void dr_umad_close(int fd, int agent);

/* A mad_window.h window's tries and size from p: its timeout_ms (else
 * 200, discovery.timeout_ms's default), retries, max_smps (at least 1) and
 * M_Key; fd and agent are left as they are. */
struct mad_window_params;
void dr_window_params(const struct disc_ib_params *p, struct mad_window_params *wp);

/* An SMP port for p's local port with p's timeout, retries and M_Key
 * (smp_mkey_set: every SMP sent through it carries p->m_key); NULL with
 * err. Close it with mad_rpc_close_port(). */
struct ibmad_port *dr_open_port(const struct disc_ib_params *p, char *err, size_t errlen);

#endif
