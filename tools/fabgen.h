/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tools/fabgen.h: the fabric graph shared by loom-fabgen's topology builders,
 * its link damage (cuts, slow links) and its ibsim net-file writer. */
#ifndef LOOM_FABGEN_H
#define LOOM_FABGEN_H

#include <stdint.h>
#include <stdio.h>

/* ibsim refuses a switch header above 255 ports; 254 leaves port numbers
 * one byte wide with room to spare, as real switches do. */
#define FG_MAX_SWITCH_PORTS 254
/* ibsim keeps node ids in 65 bytes and node descriptions in 64. */
#define FG_NAME_LEN 48

/* ibsim's built-in limits (ibsim 0.10): beyond them it needs -N/-S/-P/-L. */
#define FG_IBSIM_NODES 2048
#define FG_IBSIM_SWITCHES 256
#define FG_IBSIM_PORTS 13312
#define FG_IBSIM_LIDS 30720

enum fg_node_type { FG_HCA, FG_SWITCH };

struct fg_port {
	int link;		/* index into fg_fabric.links, -1 if unconnected */
};

struct fg_node {
	char name[FG_NAME_LEN];
	enum fg_node_type type;
	int nports;
	int plane;		/* rail plane of a switch; -1 for hosts */
	struct fg_port *ports;	/* [1..nports]; [0] unused */
};

struct fg_link {
	int a, pa;		/* node and port at one end */
	int b, pb;		/* node and port at the other end */
	int plane;		/* plane (rail) the link belongs to */
	unsigned cut : 1;	/* removed by --cut: written on neither end */
	unsigned slow : 1;	/* narrowed to 1x by --slow */
};

struct fg_fabric {
	struct fg_node *nodes;
	int nnodes, cap_nodes;
	struct fg_link *links;
	int nlinks, cap_links;
	int planes;		/* rails; 1 for tori and dragonflies */
	char kind[96];		/* human description for the header */
};

/* Counts of what the written file holds (cut links excluded). */
struct fg_counts {
	long hosts, switches, nodes;
	long links, host_links, switch_links;
	long cut, slow;
	long ibsim_ports;	/* switch ports count port 0 too */
	long lids;		/* one per switch, one per HCA port */
};

/* fabgen_graph.c */
void fg_init(struct fg_fabric *f);
void fg_free(struct fg_fabric *f);
/* Add a node; returns its index or -errno. The name is printf-formatted. */
int fg_add_node(struct fg_fabric *f, enum fg_node_type type, int nports,
		int plane, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Cable port pa of node a to port pb of node b; 0 or -errno (-EINVAL when
 * a port is out of range or already cabled). */
int fg_connect(struct fg_fabric *f, int a, int pa, int b, int pb);
int fg_is_switch_link(const struct fg_fabric *f, const struct fg_link *l);
void fg_count(const struct fg_fabric *f, int plane, struct fg_counts *c);
/* ibsim flags needed beyond its defaults, "" when none; 0 or -ENOSPC. */
int fg_ibsim_flags(const struct fg_counts *c, char *buf, size_t len);
/* Write the net file (nodes in creation order, hosts first). 0 or -errno. */
int fg_write(const struct fg_fabric *f, FILE *out);

/* fabgen_damage.c */
struct fg_rng {
	uint64_t state;
};
void fg_rng_seed(struct fg_rng *r, uint64_t seed);
uint64_t fg_rng_next(struct fg_rng *r);
uint64_t fg_rng_below(struct fg_rng *r, uint64_t n);
/* Cut n random switch-to-switch links without splitting any plane. 0,
 * -ENOSPC when fewer than n links can go, or -ENOMEM. */
int fg_cut_links(struct fg_fabric *f, int n, struct fg_rng *r);
/* Mark n random remaining switch-to-switch links 1x. 0, -ENOSPC or -ENOMEM. */
int fg_slow_links(struct fg_fabric *f, int n, struct fg_rng *r);

/* The topology builders; parameters are validated by the caller. */
struct fg_fattree_opts {
	int levels, radix, hosts, rails;
};
int fg_build_fattree(struct fg_fabric *f, const struct fg_fattree_opts *o);

struct fg_torus_opts {
	int ndims, dims[3], hosts_per_switch;
};
int fg_build_torus(struct fg_fabric *f, const struct fg_torus_opts *o);

struct fg_dragonfly_opts {
	int groups, routers, hosts_per_router, global;
};
int fg_build_dragonfly(struct fg_fabric *f, const struct fg_dragonfly_opts *o);

/* Width of zero-padded host numbers: at least 4 digits ("host-0042"). */
int fg_host_digits(long hosts);

#endif
