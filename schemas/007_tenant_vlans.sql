-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 7: tenants on RoCE too. A job's hosts may have HCA
-- ports on InfiniBand (isolated by a PKey, schema 6) and ports on managed
-- Ethernet switches (isolated by an access VLAN on each switch port that
-- LLDP shows facing one of them), or both: the PKey becomes optional and
-- the VLAN is new. Rebuilt the way SQLite documents for changing a
-- column's constraints (store.c runs migrations with foreign keys off and
-- checks them before the commit).

CREATE TABLE tenants_v7 (
	name        TEXT PRIMARY KEY,
	pkey        INTEGER UNIQUE CHECK (pkey IS NULL OR pkey BETWEEN 1 AND 32766),
	vlan        INTEGER UNIQUE CHECK (vlan IS NULL OR vlan BETWEEN 1 AND 4094),
	membership  TEXT NOT NULL CHECK (membership IN ('full', 'limited')),
	state       TEXT NOT NULL CHECK (state IN ('applying', 'active', 'failed')),
	error       TEXT NOT NULL DEFAULT '',
	created     REAL NOT NULL,
	updated     REAL NOT NULL,
	created_by  INTEGER NOT NULL,
	CHECK (pkey IS NOT NULL OR vlan IS NOT NULL)
) WITHOUT ROWID;
INSERT INTO tenants_v7 (name, pkey, vlan, membership, state, error, created, updated,
			created_by)
	SELECT name, pkey, NULL, membership, state, error, created, updated, created_by
	FROM tenants;
DROP TABLE tenants;
ALTER TABLE tenants_v7 RENAME TO tenants;

-- The switch ports facing a tenant's hosts. An access port carries one
-- VLAN, so a port belongs to one tenant at most.
CREATE TABLE tenant_eth_ports (
	tenant      TEXT NOT NULL REFERENCES tenants(name) ON DELETE CASCADE,
	host        TEXT NOT NULL,
	switch      TEXT NOT NULL,             -- loom.yaml's name of the switch
	port        TEXT NOT NULL,             -- the switch's port name
	PRIMARY KEY (switch, port)
) WITHOUT ROWID;
CREATE INDEX tenant_eth_ports_tenant ON tenant_eth_ports(tenant);
