/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/rails.h: a rail-optimized fabric keeps its rails apart
 * (issue 43): in a SuperPOD-style cluster HCA i of every host is cabled to
 * rail i, and every leaf switch carries one rail only (what `ibdiagnet
 * --rail_validation` checks). A pure function of a fabric graph.
 *
 * An HCA port's rail is known, as the site says (validation.rails):
 *   device   from its node description's device index: the last word
 *            after the host name, its trailing number ("dgx-01 mlx5_3"
 *            is rail 3: rdma-ndd's "%h %d"); a description of one word
 *            has no rail
 *   port     from its port number: port p is rail p-1 (multi-port HCAs
 *            with one port a rail, as loom-fabgen's `--rails`)
 *   pattern  a POSIX extended regular expression over the description
 *            with one capture group: the captured text is the rail
 * An HCA port whose rail is not known, or that is not cabled to a switch,
 * is not judged. A leaf's rail is the one most of its HCA ports are on;
 * each HCA port of another rail is a `rail-stray` finding naming it, its
 * rail, the leaf (and port) and the leaf's rail; a leaf where two rails
 * have the most ports is one `rail-tie` finding (codes: report.h). Cost:
 * one pass over the HCA ports and a sort by leaf. */
#ifndef LOOM_VALIDATE_RAILS_H
#define LOOM_VALIDATE_RAILS_H

#include <stddef.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/nodename.h"
#include "lib/validate/report.h"

enum rails_from {
	RAILS_OFF = 0,
	RAILS_DEVICE,
	RAILS_PORT,
	RAILS_PATTERN,
};

/* "off", "device", "port", "pattern"; -1 for another word. */
int rails_from_parse(const char *s);
const char *rails_from_name(enum rails_from f);

/* 0 when pattern compiles as a POSIX extended regular expression with
 * exactly one capture group; -EINVAL with why in err. */
int rails_pattern_check(const char *pattern, char *err, size_t errlen);

/* The findings of a fabric whose HCAs' rails come from `from` (pattern:
 * for RAILS_PATTERN) added to *r; names: the site's node-name-map (NULL:
 * none), how findings name nodes. 0, -EINVAL (a bad pattern, with err),
 * -ENOMEM. RAILS_OFF: 0, nothing added. */
int rails_check(const struct fab *fab, enum rails_from from, const char *pattern,
		const struct nodename_map *names, struct val_report *r, char *err, size_t errlen);

#endif
