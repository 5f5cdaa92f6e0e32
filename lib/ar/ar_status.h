/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/ar/ar_status.h: the adaptive-routing capability of switches (issue 7),
 * as `loomctl ar status` shows it: what one ARInfo probe (NVIDIA vendor SMP
 * attribute 0xFF20, lib/ar/ar_mad.h) says about a switch, and the stored
 * result of the newest probe of a subnet (schema 8). Shared by loomd (its
 * `loomd --read-ar` child builds the per-switch objects, its `ar-status`
 * command answers from the store) and loomctl --db.
 *
 * switch: {"guid":"0x...","desc":"...","lid":N,"supported":true|false,
 *          "enabled":true|false|null,"groups_used":N|null,"group_cap":N|null,
 *          "reason":"...","mad_status":N|null,"caps":{...ARInfo fields...}|null}
 * null is "the probe could not tell": a switch that never answered may or
 * may not have AR enabled by someone else; loom says so instead of guessing.
 * status (ar_db_status): {"subnet":"...","probe":{"time":"<ISO>","ts":T,
 *          "duration_ms":N,"switches":N,"smps":N,"timeout_ms":N,"retries":N,
 *          "in_flight":N},"supported":N,"unsupported":N,"switches":[switch...]} */
#ifndef LOOM_AR_STATUS_H
#define LOOM_AR_STATUS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/ar/ar_mad.h"

/* What came back for one switch's ARInfo Get. */
struct ar_status_probe {
	uint64_t guid;
	const char *desc;
	unsigned lid;
	int answered;          /* a GetResp arrived (else: no answer to any try) */
	unsigned mad_status;   /* its MAD status, the D bit of a directed-route SMP cleared */
	const uint8_t *data;   /* its AR_MAD_DATA_LEN-byte data field (answered, status 0) */
	unsigned tries;        /* Gets sent */
	unsigned timeout_ms;   /* per try */
	unsigned local_timeouts; /* tries the local MAD layer reported timed out
				  * (ibsim does so at once for what it drops) */
};

/* The switch object for one probe (shape above): supported when ARInfo was
 * answered with status 0 and a group capacity; the reason otherwise (no
 * answer; "status 0x...: unsupported method/attribute"; another error
 * status, capability unknown; group_cap 0). NULL only when out of memory. */
json_t *ar_status_switch(const struct ar_status_probe *p);

/* Every field of a decoded ARInfo as a JSON object (names as ar_mad.h). */
json_t *ar_status_caps(const struct ar_mad_info *in);

#endif
