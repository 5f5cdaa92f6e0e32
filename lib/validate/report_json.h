/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/report_json.h: a validation report as JSON, the one form
 * loomd answers and loomctl prints (issue 22):
 *   {"errors": N, "warnings": N, "cables": N, "cables_ok": N,
 *    "plan_nodes": N, "nodes_matched": N, "nodes": N, "links": N,
 *    "findings": [{"code", "severity", "subject", "want", "got",
 *                  "line" (only from a plan's CSV), "what"}]}
 * findings in the report's order (val_report_sort() first for people). */
#ifndef LOOM_VALIDATE_REPORT_JSON_H
#define LOOM_VALIDATE_REPORT_JSON_H

#include <jansson.h>

#include "lib/validate/report.h"

/* NULL: out of memory. */
json_t *val_report_json(const struct val_report *r);
/* The findings of such a JSON list added to r (another's report, to be
 * settled with one's own): 0, -EINVAL for a finding of an unknown code or
 * without a subject (nothing added), -ENOMEM. */
int val_report_add_json(struct val_report *r, const json_t *findings);

#endif
