-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 6: tenants (daemon/tenants/tenants.c). A tenant is a job's
-- isolation: an IB partition key on exactly the HCA ports of its hosts.
-- Its ports are resolved when hosts join (node descriptions), so the
-- partitions file can be rewritten without a sweep. Changes are audit
-- events (kind tenant_*, subject "tenant NAME", who in new_value).

CREATE TABLE tenants (
	name        TEXT PRIMARY KEY,          -- the job id, or any operator's name
	pkey        INTEGER NOT NULL UNIQUE CHECK (pkey BETWEEN 1 AND 32766),
	membership  TEXT NOT NULL CHECK (membership IN ('full', 'limited')),
	-- applying: written to the partitions file, not yet confirmed;
	-- active: confirmed; failed: could not be applied (error says why).
	state       TEXT NOT NULL CHECK (state IN ('applying', 'active', 'failed')),
	error       TEXT NOT NULL DEFAULT '',
	created     REAL NOT NULL,
	updated     REAL NOT NULL,
	created_by  INTEGER NOT NULL           -- uid
) WITHOUT ROWID;

CREATE TABLE tenant_ports (
	tenant      TEXT NOT NULL REFERENCES tenants(name) ON DELETE CASCADE,
	host        TEXT NOT NULL,
	port_guid   TEXT NOT NULL,             -- '0x' + 16 hex digits
	PRIMARY KEY (tenant, port_guid)
) WITHOUT ROWID;
CREATE INDEX tenant_ports_host ON tenant_ports(host);
