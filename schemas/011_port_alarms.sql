-- loom schema version 11: the alarms that the port counters raised (issue
-- 19; lib/telemetry/port_alarms.h): one row per raised alarm of a port, kept
-- until it clears. Raising and clearing are also events (kinds link_errors,
-- link_congested, link_flapped, counters_unreadable, and the same with
-- _cleared), so the history is in the events table and this one is small.
-- And the counters loomd cleared after a sample (telemetry.clear_counters:
-- PortCountersSet at three quarters of their range), so that the next read
-- counts them from zero, exactly.

ALTER TABLE port_counters ADD COLUMN cleared TEXT;  -- JSON [name]; NULL: none

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
