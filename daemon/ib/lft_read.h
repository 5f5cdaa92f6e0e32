/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/lft_read.h: read every switch's linear forwarding table back from a
 * live subnet with SMPs, in a short-lived child process like the sweep's
 * walk (daemon/ib/walker.h says why a process): `loomd --read-lfts ...` walks
 * the subnet, then asks each switch for SwitchInfo and its LFT blocks up to
 * LinearFDBTop, by directed route (so a switch is reached even when the
 * tables that would route to its LID are the broken ones), and writes the
 * fabric and the tables to its stdout for loomd. */
#ifndef LOOMD_LFT_READ_H
#define LOOMD_LFT_READ_H

#include <stddef.h>
#include <stdio.h>

#include "daemon/ib/discovery_ib.h"
#include "lib/route/route_live.h"

/* Walk the subnet and read its tables, in a child. 0 with the fabric (as a
 * sweep finds it) in *fab and the tables (sorted) in *read; -errno with err.
 * Blocking: call it from a worker thread. */
int lft_read_run(const struct disc_ib_params *p, struct fab **fab, struct rl_read **read,
		 char *err, size_t errlen);

/* Read the tables of every switch of fab, which was just swept through the
 * local port of p, and with sl2vl the SL-to-VL tables of the switch port
 * pairs a path can use (route check's credit loops per VL; many times the
 * LFTs' SMPs: AR programming, which needs none, goes without). 0 and
 * *read, or -errno with err. (The child's work.) */
int lft_read_tables(const struct disc_ib_params *p, const struct fab *fab, int sl2vl,
		    struct rl_read **read, char *err, size_t errlen);

/* The child's answer on `out`: the fabric and the tables lft_read_tables
 * read, as one binary stream (a header, fab_wire_write's bytes, each table,
 * a trailer). 0, or -errno with err. */
int lft_read_answer(const struct disc_ib_params *p, const struct fab *fab, FILE *out,
		    char *err, size_t errlen);
/* The parent's reading of that stream (len bytes): 0 with a new fabric and
 * new tables (sorted), or -EPROTO / -ENOMEM with err and both NULL. */
int lft_read_parse(const char *buf, size_t len, struct fab **fab, struct rl_read **read,
		   char *err, size_t errlen);
/* The child: `loomd --read-lfts SUBNET CA PORT TIMEOUT_MS RETRIES MAX_SMPS`
 * (argv[0] is "--read-lfts"). Exit status as walker_main's. */
int lft_read_main(int argc, char **argv);

#endif
