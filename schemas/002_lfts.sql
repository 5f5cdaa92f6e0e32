-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 2: the linear forwarding tables read back from the
-- switches with SMPs (`loomctl route check` / `route trace`), so that what
-- is programmed can be judged again later (--cached) or without the daemon
-- (--db). One lft_reads row per read of a subnet; one lfts row per switch.

CREATE TABLE lft_reads (
	id          INTEGER PRIMARY KEY,
	subnet_id   INTEGER NOT NULL REFERENCES subnets(id) ON DELETE CASCADE,
	sweep_id    INTEGER REFERENCES sweeps(id) ON DELETE SET NULL,  -- the walk it came with
	started     REAL NOT NULL,
	finished    REAL NOT NULL,
	switches    INTEGER NOT NULL,
	smps        INTEGER NOT NULL           -- SMPs it took (SwitchInfo + LFT blocks)
);
CREATE INDEX lft_reads_subnet ON lft_reads(subnet_id, id);

CREATE TABLE lfts (
	read_id     INTEGER NOT NULL REFERENCES lft_reads(id) ON DELETE CASCADE,
	switch_guid TEXT NOT NULL,             -- node GUID
	lid         INTEGER NOT NULL,          -- the switch's LID when it was read
	top         INTEGER NOT NULL,          -- SwitchInfo:LinearFDBTop
	lft         BLOB NOT NULL,             -- byte i: output port of LID i, 0..top
	PRIMARY KEY (read_id, switch_guid)
) WITHOUT ROWID;
