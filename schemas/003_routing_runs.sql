-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 3: the routing runs that OpenSM made with loom's
-- engines (libloomosm.so reports each one to loomd, daemon/routing/osm_report.c),
-- for `loomctl route runs`. OpenSM's other reports (SUBNET UP, traps, LFT
-- changes, SM state) go to the events table as kinds osm_*.
--
-- An OpenSM instance is known by its SM port GUID; subnet_id is the loom
-- subnet whose swept ports hold that GUID when the run is recorded (NULL if
-- loomd has not swept it).

CREATE TABLE routing_runs (
	id          INTEGER PRIMARY KEY,
	time        REAL NOT NULL,             -- when the run started (unix seconds)
	received    REAL NOT NULL,             -- when loomd got the report
	subnet_id   INTEGER REFERENCES subnets(id) ON DELETE SET NULL,
	sm_guid     TEXT NOT NULL,             -- OpenSM's port GUID, '0x' + 16 hex digits
	sm_pid      INTEGER NOT NULL,
	engine      TEXT NOT NULL,             -- routing_engine name: loom, loom-ftree, ...
	routed_by   TEXT,                      -- the lib engine that made the tables (loom's choice)
	note        TEXT NOT NULL DEFAULT '',
	result      TEXT NOT NULL CHECK (result IN ('ok', 'failed')),
	reason      TEXT,                      -- why it failed (OpenSM then used its next engine)
	duration_ms REAL NOT NULL,
	vls         INTEGER NOT NULL DEFAULT 1,
	switches    INTEGER NOT NULL DEFAULT 0,
	ca_ports    INTEGER NOT NULL DEFAULT 0,
	entries_routed      INTEGER NOT NULL DEFAULT 0,
	entries_unreachable INTEGER NOT NULL DEFAULT 0,
	metrics     TEXT                       -- JSON: lib/route/route_live.h's metrics object, NULL if none
);
CREATE INDEX routing_runs_time ON routing_runs(time);
