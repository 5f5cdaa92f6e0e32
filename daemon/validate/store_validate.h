/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/validate/store_validate.h: the open findings of a subnet's
 * validation (schema 015): those of the new report that were not open are
 * opened (event validation_issue, error or warning), those open that the
 * report no longer has are cleared (event validation_issue_cleared), the
 * others keep their `since` and take the report's want/got; one
 * transaction. A finding's identity is (code, subject): report.h. */
#ifndef LOOMD_STORE_VALIDATE_H
#define LOOMD_STORE_VALIDATE_H

#include <stddef.h>

struct store;
struct val_report;

struct store_validate_result {
	size_t opened, cleared, open;
};

/* 0 or -errno (logged). The subnet must have been swept (it has an id). */
int store_validate_record(struct store *st, const char *subnet, double now,
			  const struct val_report *r, struct store_validate_result *res);

#endif
