-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 10: the port counters (issue 19), as the last counters
-- read of a subnet found them (daemon/telemetry/counters_read.c: the PMA's
-- PortCounters and PortCountersExtended of every cabled port). Small and
-- overwritten: one counter_reads row per subnet, one port_counters row per
-- port, each holding the last sample and what the counters did since the one
-- before (lib/telemetry/counter_delta.h). Long history is not SQLite's.

CREATE TABLE counter_reads (
	subnet_id   INTEGER PRIMARY KEY REFERENCES subnets(id) ON DELETE CASCADE,
	started     REAL NOT NULL,
	finished    REAL NOT NULL,
	ports       INTEGER NOT NULL,          -- cabled ports asked
	answered    INTEGER NOT NULL,          -- of which answered
	mads        INTEGER NOT NULL,          -- PMA Gets sent, retries included
	timeout_ms  INTEGER NOT NULL,
	retries     INTEGER NOT NULL,
	in_flight   INTEGER NOT NULL           -- most Gets outstanding at once
);

CREATE TABLE port_counters (
	subnet_id   INTEGER NOT NULL REFERENCES subnets(id) ON DELETE CASCADE,
	guid        TEXT NOT NULL,             -- node GUID
	port        INTEGER NOT NULL,
	description TEXT NOT NULL,
	type        TEXT NOT NULL,             -- 'switch' or 'CA'
	lid         INTEGER NOT NULL,          -- the PMA's LID when read
	read        REAL NOT NULL,             -- the read that wrote this row (its finish)
	answered    INTEGER NOT NULL CHECK (answered IN (0, 1)),  -- at that read
	reason      TEXT NOT NULL,             -- why not answered ('' when it was)
	sampled     REAL,                      -- when counters were read: older than read
	                                       -- when the port stopped answering (stale)
	counters    TEXT,                      -- JSON {name: value}; NULL: never read
	bits        TEXT,                      -- JSON {name: width read with}
	interval_s  REAL,                      -- between the samples the deltas compare
	deltas      TEXT,                      -- JSON {name: {"state": s, "delta": n}}
	rates       TEXT,                      -- JSON {name: per second}: exact deltas only
	PRIMARY KEY (subnet_id, guid, port)
) WITHOUT ROWID;
