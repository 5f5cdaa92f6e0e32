/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/schema.h: the SQL migrations compiled in from schemas/ (see
 * schemas/embed.sh). Versions are consecutive from 1; migration N brings a
 * database from user_version N-1 to N. Used by store.c only. */
#ifndef LOOMD_SCHEMA_H
#define LOOMD_SCHEMA_H

struct schema_migration {
	int version;
	const char *name;
	const char *sql;
};

extern const struct schema_migration schema_migrations[];
extern const int schema_n_migrations;

#endif
