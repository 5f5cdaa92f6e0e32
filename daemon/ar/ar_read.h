/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ar/ar_read.h: probe every switch of a live subnet for NVIDIA adaptive
 * routing (ARInfo, vendor SMP attribute 0xFF20, lib/ar/ar_mad.h), in a
 * short-lived child like the sweep's walk (daemon/ib/walker.h says why a
 * process): `loomd --read-ar ...` walks the subnet, sends an ARInfo Get to
 * each switch by directed route (many in flight, each with the configured
 * timeout and retries: a switch that never answers costs its timeout once
 * per try, not once per switch of the fabric), and writes one JSON line per
 * switch (lib/ar/ar_status.h's switch object) and a last "done" line to its
 * stdout for loomd. It only reads: no SubnSet is ever sent. */
#ifndef LOOMD_AR_READ_H
#define LOOMD_AR_READ_H

#include <stddef.h>

#include <jansson.h>

#include "daemon/ib/discovery_ib.h"

/* The probe, in a child. 0 with *switches (an array of switch objects) and
 * *probe ({"started","finished","switches","smps","timeout_ms","retries",
 * "in_flight"}: unix seconds, counts); -errno with err. Blocking: call it
 * from a worker thread. */
int ar_read_run(const struct disc_ib_params *p, json_t **probe, json_t **switches,
		char *err, size_t errlen);

/* The stream of such a child (this one's and daemon/ar/ar_write.c's): {"switch":
 * {...}} lines, then one {"done": {...}}; what names the child in the
 * error when it was cut short. 0 with *done and *switches (an array), or
 * -EPROTO / -ENOMEM with err. */
int ar_read_parse_stream(const char *buf, size_t len, const char *what, json_t **done,
			 json_t **switches, char *err, size_t errlen);

/* The child: `loomd --read-ar SUBNET CA PORT TIMEOUT_MS RETRIES MAX_SMPS`
 * (argv[0] is "--read-ar"). Exit status as walker_main's. */
int ar_read_main(int argc, char **argv);

#endif
