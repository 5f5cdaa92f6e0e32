/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/discovery_ib.h: sweep one InfiniBand subnet from a local HCA port
 * with SMPs (libibnetdisc's walk or loom's, walk_dr.h), into a fabric graph. Blocking; safe to call from
 * several threads at once for different local ports. */
#ifndef LOOMD_DISCOVERY_IB_H
#define LOOMD_DISCOVERY_IB_H

#include <stddef.h>
#include <stdint.h>

#include "lib/fabric/fabric.h"

struct disc_ib_params {
	const char *subnet;  /* name given to the resulting fabric */
	const char *ca;      /* local HCA name; NULL or "" = the first one */
	int port;            /* local port; 0 = the first active one */
	int timeout_ms;      /* per MAD */
	int retries;
	int max_smps;        /* MADs in flight */
	int read_sms;        /* also SMInfo from every IsSM port (sm_read.h) */
	int walker;          /* DISC_IB_WALKER_*: who walks a full sweep */
	uint64_t m_key;      /* the M_Key every SMP carries (discovery.m_key_file); 0:
			      * none. A secret: handed to a child on an inherited
			      * pipe, never on its command line (walker.h) */
};

/* discovery.walker: loom's own walk (walk_dr.h; the default, 0), which
 * falls back to libibnetdisc on a duplicate GUID, or libibnetdisc's
 * ibnd_discover_fabric. */
enum { DISC_IB_WALKER_LOOM, DISC_IB_WALKER_IBNETDISC };

/* Set in a walk child's environment (tests, bench): the walk's counts and
 * time are logged (stderr) whatever the walker, not only when SMPs were
 * retried or lost. */
#define DISC_IB_WALK_STATS_ENV "LOOMD_WALK_STATS"

/* What an error where SMPs got no answer adds: a port protected by an
 * M_Key (IBA 14.2.4: protect bits 2 or 3) does not answer an SMP without
 * its key, so say which key was used. */
#define DISC_IB_MKEY_HINT(p) ((p)->m_key ? \
	"; loom's SMPs carry the M_Key of discovery.m_key_file: is it the subnet " \
	"manager's?" : \
	"; loom's SMPs carry no M_Key: if the subnet manager protects the ports with " \
	"one (OpenSM m_key, m_key_protection_level 2), set discovery.m_key_file")

/* Sweep the whole subnet. Returns the complete fabric (sorted by GUID), or
 * NULL with err set: a sweep that fails half way returns nothing partial. */
struct fab *disc_ib_sweep(const struct disc_ib_params *p, char *err, size_t errlen);

/* Every node libibnetdisc found in ib (a whole walk or a partial one)
 * added to fab as disc_ib_sweep maps it: ports' states, widths, speeds,
 * LIDs, and the peers ib knows. 0, or -EPROTO / -errno with err. */
struct ibnd_fabric;
int disc_ib_map(struct ibnd_fabric *ib, struct fab *fab, char *err, size_t errlen);
/* 0 when p's local port exists and has a link, else -ENODEV / -ENOLINK
 * with err. */
int disc_ib_check_local_port(const struct disc_ib_params *p, char *err, size_t errlen);

struct disc_ib_local_port {
	char ca[64];
	int port;
	int state;           /* PortInfo:PortState */
};

/* The local HCA ports, for "sweep every local port". Fills up to max entries
 * and returns how many there are, or -errno. Only InfiniBand link layer ports
 * are listed. */
int disc_ib_local_ports(struct disc_ib_local_port *out, int max);

#endif
