/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/keys.h: the management keys the sweep read (issue 43),
 * judged against NVIDIA's InfiniBand security guidelines ("enable
 * InfiniBand keys for every class in use": an M_Key on every port, with
 * protection). Ports judged: every CA port that is linked (INIT or
 * better) and every switch's port 0 (a switch has one M_Key). Report, do
 * not set: the fixes are OpenSM's options.
 *   m-key-unset        M_Key 0 and protect bits 0: anyone may set the port
 *   m-key-unprotected  an M_Key, but protect bits 0: any SubnGet reads it
 * (A port with protect bits 1..3 answers a Get without the key with M_Key
 * 0: that is a hidden key, not a missing one.) The SM_Key is not judged:
 * an SM answers SMInfo with SM_Key 0 to a requester that is not an
 * authenticated SM (IBA 14.4.1), loom is none, so loom cannot see it.
 *
 * Not one finding per port: when most judged ports share a fault, one
 * finding for the subnet (subject "subnet NAME"), with the count and a few
 * ports in `got`; per-port findings only for a minority that differs from
 * the rest (a mixed fabric), at most KEYS_MINORITY_MAX of them. */
#ifndef LOOM_VALIDATE_KEYS_H
#define LOOM_VALIDATE_KEYS_H

#include "lib/fabric/fabric.h"
#include "lib/fabric/nodename.h"
#include "lib/validate/report.h"

enum keys_mode {
	KEYS_OFF,          /* no finding */
	KEYS_REPORT,       /* findings are warnings */
	KEYS_REQUIRED,     /* findings are errors */
};

#define KEYS_MINORITY_MAX 64

/* Add the findings to *r: 0, or -ENOMEM. A fabric without read keys
 * (fab->sm_read FAB_SM_NOT_READ) gets none. */
int keys_check(const struct fab *fab, enum keys_mode mode, const struct nodename_map *names,
	       struct val_report *r);

/* "off", "report", "required"; -1 for another word */
int keys_mode_of(const char *s);
const char *keys_mode_name(enum keys_mode m);

#endif
