-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 12: the Ethernet switches' counters (issue 19, RoCE),
-- as the last read through each switch's plugin found them
-- (daemon/telemetry/switch_counters.c; the plugin ABI's counters_read).
-- Small and overwritten, like port_counters: one row per switch, one per
-- port, each with its last sample and what its counters did since the one
-- before (lib/telemetry/counter_delta.h).

CREATE TABLE switch_counter_reads (
	switch      TEXT PRIMARY KEY,          -- loom.yaml's name
	plugin      TEXT NOT NULL,
	started     REAL NOT NULL,
	finished    REAL NOT NULL,
	answered    INTEGER NOT NULL CHECK (answered IN (0, 1)),  -- the switch gave counters
	reason      TEXT NOT NULL,             -- why not ('' when it did)
	ports       INTEGER NOT NULL,          -- ports it reported counters of
	port_errors INTEGER NOT NULL           -- ports it reported as unreadable
);

CREATE TABLE switch_port_counters (
	switch      TEXT NOT NULL,
	port        TEXT NOT NULL,             -- the switch's port name
	read        REAL NOT NULL,             -- the read that wrote this row (its finish)
	answered    INTEGER NOT NULL CHECK (answered IN (0, 1)),  -- at that read
	reason      TEXT NOT NULL,             -- why not answered ('' when it was)
	sampled     REAL,                      -- when counters were read: older than read
	                                       -- when the port (or switch) stopped answering
	counters    TEXT,                      -- JSON {name: value}: "in_octets",
	                                       -- "pfc_rx_pause.p3", "queue_drops.q3"
	bits        TEXT,                      -- JSON {name: width}
	gauges      TEXT,                      -- JSON {name: level}: "pfcwd_stormed.q3"
	interval_s  REAL,                      -- between the samples the deltas compare
	deltas      TEXT,                      -- JSON {name: {"state": s, "delta": n}}
	rates       TEXT,                      -- JSON {name: per second}: exact deltas only
	PRIMARY KEY (switch, port)
);  -- with rowids: its rows (kB of JSON) would overflow a WITHOUT ROWID table's cells
