-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 21 (20 is issue 42's isolation): the history of the
-- forwarding tables, for the job post-mortem (`loomctl job JOB --from T1
-- --to T2`, lib/db/lft_history.h, lib/db/job_history_db.h). lft_reads
-- keeps the last few full reads; lft_versions keeps every read whose
-- tables differ from the previous one, each holding only the switches
-- whose table changed, over the version before it (prev_id), back to one
-- whose prev_id is NULL (a full copy). A switch's row is its whole table
-- (full = 1), or only the entries that changed (full = 0: a patch of
-- 3-byte entries, the LID little-endian then the port, over its table in
-- the versions before), or lft NULL: the switch was gone. A version is in force from its
-- `time` until the next one's. Pruned with events.keep_days
-- (daemon/events/events_prune.c): the version in force at the cutoff is
-- made full, the older ones go.
--
-- tenant_ends: the hosts of a tenant (a job) that was deleted, kept (as
-- events are) so that an ended job can still be looked back at.

CREATE TABLE lft_versions (
	id          INTEGER PRIMARY KEY,
	subnet_id   INTEGER NOT NULL REFERENCES subnets(id) ON DELETE CASCADE,
	prev_id     INTEGER REFERENCES lft_versions(id) ON DELETE SET NULL,  -- NULL: full
	time        REAL NOT NULL,             -- the read that found it (started)
	last_seen   REAL NOT NULL,             -- the last read that found it unchanged
	last_read   INTEGER NOT NULL,          -- that read's lft_reads id (compared with next)
	switches    INTEGER NOT NULL,          -- switches in the read
	changed     INTEGER NOT NULL           -- lft_version_tables rows it holds
);
CREATE INDEX lft_versions_subnet ON lft_versions(subnet_id, time);

CREATE TABLE lft_version_tables (
	version_id  INTEGER NOT NULL REFERENCES lft_versions(id) ON DELETE CASCADE,
	switch_guid TEXT NOT NULL,
	lid         INTEGER NOT NULL,
	top         INTEGER NOT NULL,
	full        INTEGER NOT NULL,          -- 1: lft is the table; 0: a patch
	lft         BLOB,                      -- NULL: the switch is no longer there
	PRIMARY KEY (version_id, switch_guid)
) WITHOUT ROWID;

CREATE TABLE tenant_ends (
	tenant      TEXT NOT NULL,
	created     REAL NOT NULL,
	ended       REAL NOT NULL,
	host        TEXT NOT NULL,
	port_guid   TEXT NOT NULL,
	PRIMARY KEY (tenant, ended, port_guid)
) WITHOUT ROWID;
CREATE INDEX tenant_ends_ended ON tenant_ends(ended);

CREATE TRIGGER tenant_ends_keep BEFORE DELETE ON tenants BEGIN
	INSERT OR IGNORE INTO tenant_ends (tenant, created, ended, host, port_guid)
		SELECT OLD.name, OLD.created, (julianday('now') - 2440587.5) * 86400.0, host,
		       port_guid FROM tenant_ports WHERE tenant = OLD.name;
END;
