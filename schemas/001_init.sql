-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 1: subnets, sweeps, the current fabric of each subnet
-- (nodes, ports, links) and the history of changes (events).
-- GUIDs are stored as text, '0x' + 16 lower-case hex digits, so that they
-- sort, compare and print as operators write them. Times are unix seconds.

CREATE TABLE subnets (
	id          INTEGER PRIMARY KEY,
	name        TEXT NOT NULL UNIQUE,      -- loom's name (config)
	ca          TEXT NOT NULL DEFAULT '',  -- local HCA it is swept from
	port        INTEGER NOT NULL DEFAULT 0,
	created     REAL NOT NULL
);

CREATE TABLE sweeps (
	id          INTEGER PRIMARY KEY,
	subnet_id   INTEGER NOT NULL REFERENCES subnets(id) ON DELETE CASCADE,
	started     REAL NOT NULL,
	finished    REAL NOT NULL,
	status      TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
	error       TEXT,
	nodes       INTEGER NOT NULL DEFAULT 0,
	ports       INTEGER NOT NULL DEFAULT 0,
	links       INTEGER NOT NULL DEFAULT 0,
	events      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sweeps_subnet ON sweeps(subnet_id, id);

CREATE TABLE nodes (
	subnet_id   INTEGER NOT NULL REFERENCES subnets(id) ON DELETE CASCADE,
	guid        TEXT NOT NULL,
	type        TEXT NOT NULL CHECK (type IN ('ca', 'switch', 'router', 'unknown')),
	sysimg_guid TEXT NOT NULL,
	vendor_id   INTEGER NOT NULL,
	device_id   INTEGER NOT NULL,
	revision    INTEGER NOT NULL,
	description TEXT NOT NULL,
	nports      INTEGER NOT NULL,
	first_seen  REAL NOT NULL,
	last_seen   REAL NOT NULL,
	PRIMARY KEY (subnet_id, guid)
) WITHOUT ROWID;
CREATE INDEX nodes_desc ON nodes(description);

CREATE TABLE ports (
	subnet_id       INTEGER NOT NULL,
	node_guid       TEXT NOT NULL,
	num             INTEGER NOT NULL,
	guid            TEXT NOT NULL,
	lid             INTEGER NOT NULL,
	lmc             INTEGER NOT NULL,
	state           INTEGER NOT NULL,      -- PortInfo:PortState
	phys_state      INTEGER NOT NULL,      -- PortInfo:PortPhysicalState
	width_active    INTEGER NOT NULL,      -- IBT_WIDTH_* bits (lib/fabric/ibtypes.h)
	width_enabled   INTEGER NOT NULL,
	width_supported INTEGER NOT NULL,
	speed_active    INTEGER NOT NULL,      -- IBT_SPEED_* bits
	speed_enabled   INTEGER NOT NULL,
	speed_supported INTEGER NOT NULL,
	mtu             INTEGER NOT NULL,      -- enum 1..5
	vls             INTEGER NOT NULL,
	peer_guid       TEXT,                  -- node GUID at the other end
	peer_port       INTEGER,
	PRIMARY KEY (subnet_id, node_guid, num),
	FOREIGN KEY (subnet_id, node_guid) REFERENCES nodes(subnet_id, guid) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX ports_guid ON ports(guid);

-- One row per link, from the end with the smaller (guid, port).
CREATE TABLE links (
	subnet_id   INTEGER NOT NULL,
	a_guid      TEXT NOT NULL,
	a_port      INTEGER NOT NULL,
	b_guid      TEXT NOT NULL,
	b_port      INTEGER NOT NULL,
	width       INTEGER NOT NULL,
	speed       INTEGER NOT NULL,
	degraded    INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (subnet_id, a_guid, a_port),
	FOREIGN KEY (subnet_id, a_guid, a_port) REFERENCES ports(subnet_id, node_guid, num) ON DELETE CASCADE,
	FOREIGN KEY (subnet_id, b_guid, b_port) REFERENCES ports(subnet_id, node_guid, num) ON DELETE CASCADE
) WITHOUT ROWID;
-- Deleting a port looks up the links naming it at either end.
CREATE INDEX links_b ON links(subnet_id, b_guid, b_port);

CREATE TABLE events (
	id          INTEGER PRIMARY KEY,
	time        REAL NOT NULL,
	subnet_id   INTEGER REFERENCES subnets(id) ON DELETE CASCADE,
	sweep_id    INTEGER REFERENCES sweeps(id) ON DELETE SET NULL,
	severity    TEXT NOT NULL CHECK (severity IN ('info', 'notice', 'warning', 'error')),
	kind        TEXT NOT NULL,
	subject     TEXT NOT NULL,
	old_value   TEXT NOT NULL DEFAULT '',
	new_value   TEXT NOT NULL DEFAULT ''
);
CREATE INDEX events_time ON events(time);
