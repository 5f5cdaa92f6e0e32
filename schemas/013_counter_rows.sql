-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 13: port_counters with each port's counters packed
-- (issue 19's benchmark). A read of the 11664-host tree writes 70k rows
-- every interval: as four JSON texts (counters, bits, deltas, rates) they
-- were 2.5 kB a port and writing them was most of a read's time. Now one
-- BLOB, `sample`, holds the last sample and what each counter did since the
-- one before (lib/telemetry/counter_row.h: about 60 bytes); the rates are
-- computed from it and interval_s when asked; and four plain columns hold
-- what `loomctl health` and `loomctl top` sort and filter on.
--
-- The rows of schema 12 are not carried over: they are the last sample
-- only, and the first read after the upgrade takes every port's sample
-- again (its deltas are "first", as after a restart with an empty
-- database). The alarms (port_alarms) stay.

DROP TABLE port_counters;
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
	interval_s  REAL,                      -- between the samples the deltas compare
	sample      BLOB,                      -- counter_row.h; NULL: never read
	cleared     INTEGER NOT NULL DEFAULT 0, -- bit per enum pma_counter: loomd cleared
	                                       -- it after this sample (the next counts from 0)
	errors      INTEGER,                   -- sum of the error counters' deltas
	xmit_wait_per_s REAL,                  -- PortXmitWait ticks per second (exact deltas)
	xmit_data_per_s REAL,                  -- PortXmitData 4-octet words per second
	data_per_s  REAL,                      -- PortXmitData + PortRcvData, words per second
	PRIMARY KEY (subnet_id, guid, port)
);
