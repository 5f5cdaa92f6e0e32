/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/pkey_read.h: the partition key tables of every channel adapter
 * port of a live subnet and of the switch ports facing them, read with
 * SMPs (PKeyTable) by directed route in a short-lived `loomd --read-pkeys`
 * child (walker.h says why a process): what the tenant module checks a
 * job's isolation against. */
#ifndef LOOMD_PKEY_READ_H
#define LOOMD_PKEY_READ_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "daemon/ib/discovery_ib.h"

/* Walk the subnet and read the tables. 0 with a new object in *ports:
 * {"0x<port guid>": [pkey, ...]} (the table's non-zero entries, the
 * membership bit included: 0x9001 is full member of 0x1001) and, for each
 * CA port but loomd's own, {"0x<port guid>/sw": [...]}: the table of the
 * switch port it is cabled to. -errno with err. Blocking: call it from a
 * worker thread. */
int pkey_read_run(const struct disc_ib_params *p, json_t **ports, char *err, size_t errlen);
/* pkey_read_run over fab, just swept through p's local port, handed to the
 * child on its stdin (walker_run_fabric): no second walk (validation's
 * read after each sweep). fab NULL: as pkey_read_run. */
struct fab;
int pkey_read_run_fab(const struct disc_ib_params *p, const struct fab *fab, json_t **ports,
		      char *err, size_t errlen);

/* The child's answer on `out` for fab, just swept through p's local port:
 * a text stream, "LOOMPKEY2", one line per port ("0x<guid>[/sw] 0x<pkey>
 * ..."), "END". 0, or -errno with err. */
int pkey_read_tables(const struct disc_ib_params *p, const struct fab *fab, FILE *out,
		     char *err, size_t errlen);
/* The parent's reading of that stream (a string, which it cuts up): 0 with
 * *ports as pkey_read_run gives it, or -EPROTO with err and *ports NULL. */
int pkey_read_parse(char *text, json_t **ports, char *err, size_t errlen);
/* The child: `loomd --read-pkeys SUBNET CA PORT TIMEOUT_MS RETRIES MAX_SMPS`
 * (argv[0] is "--read-pkeys"). Exit status as walker_main's. */
int pkey_read_main(int argc, char **argv);

#endif
