-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 11: the alarms that the port counters raised (issue
-- 19; lib/telemetry/port_alarms.h): one row per raised alarm of a port, kept
-- until it clears. Raising and clearing are also events (kinds link_errors,
-- link_congested, link_flapped, counters_unreadable, and the same with
-- _cleared), so the history is in the events table and this one is small.
-- And port_counters again, with the counters loomd cleared after a sample
-- (telemetry.clear_counters: PortCountersSet at three quarters of their
-- range), so that the next read counts them from zero, exactly; and as a
-- table with rowids: its rows (about 2 kB of JSON) are larger than a
-- WITHOUT ROWID table keeps in its b-tree pages (about 1 kB with 4 kB
-- pages), and every row of every read spilled to overflow pages.

CREATE TABLE port_counters_11 (
	subnet_id   INTEGER NOT NULL REFERENCES subnets(id) ON DELETE CASCADE,
	guid        TEXT NOT NULL,
	port        INTEGER NOT NULL,
	description TEXT NOT NULL,
	type        TEXT NOT NULL,
	lid         INTEGER NOT NULL,
	read        REAL NOT NULL,
	answered    INTEGER NOT NULL CHECK (answered IN (0, 1)),
	reason      TEXT NOT NULL,
	sampled     REAL,
	counters    TEXT,
	bits        TEXT,
	interval_s  REAL,
	deltas      TEXT,
	rates       TEXT,
	cleared     TEXT,                      -- JSON [name] cleared after this sample; NULL: none
	PRIMARY KEY (subnet_id, guid, port)
);
INSERT INTO port_counters_11 (subnet_id, guid, port, description, type, lid, read, answered,
	reason, sampled, counters, bits, interval_s, deltas, rates)
SELECT subnet_id, guid, port, description, type, lid, read, answered, reason, sampled,
	counters, bits, interval_s, deltas, rates FROM port_counters;
DROP TABLE port_counters;
ALTER TABLE port_counters_11 RENAME TO port_counters;

CREATE TABLE port_alarms (
	subnet_id   INTEGER NOT NULL REFERENCES subnets(id) ON DELETE CASCADE,
	guid        TEXT NOT NULL,             -- node GUID
	port        INTEGER NOT NULL,
	kind        TEXT NOT NULL,             -- link_errors, link_congested, ...
	since       REAL NOT NULL,             -- the read that raised it
	last        REAL NOT NULL,             -- the last read where it held
	calm        INTEGER NOT NULL DEFAULT 0, -- reads in a row without it since then
	why         TEXT NOT NULL,             -- what the last read where it held saw
	PRIMARY KEY (subnet_id, guid, port, kind)
) WITHOUT ROWID;

-- The same for the Ethernet switches' ports (schema 12's counters; the
-- alarms of lib/telemetry/eth_alarms.h: pfc_storm, ecn_marking, ...).
CREATE TABLE switch_port_alarms (
	switch      TEXT NOT NULL,             -- loom.yaml's name
	port        TEXT NOT NULL,             -- the switch's port name
	kind        TEXT NOT NULL,
	since       REAL NOT NULL,
	last        REAL NOT NULL,
	calm        INTEGER NOT NULL DEFAULT 0,
	why         TEXT NOT NULL,
	PRIMARY KEY (switch, port, kind)
) WITHOUT ROWID;
