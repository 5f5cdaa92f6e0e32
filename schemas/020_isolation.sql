-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 20: links taken out of the routes, and hosts drained,
-- by loom's isolation (issue 42; daemon/isolation/, docs/isolation.md).
-- One row per cable, keyed by its lower end (node GUID, port) as
-- lib/fabric's links order their ends; a host's cable is kind 'host' and
-- is never out of the routes: its host is drained in Slurm instead.
-- state: isolated (out of the routes, comes back after its probation),
-- held (came back isolation.max_returns times: stays until an operator
-- restores it), drained (a host's cable: its host drained).
-- The set of isolated cables is also the file libloomosm reads
-- (isolation.file), whose version is isolation_meta's.
CREATE TABLE isolated_links (
	subnet_id   INTEGER NOT NULL REFERENCES subnets(id) ON DELETE CASCADE,
	guid        TEXT NOT NULL,             -- the lower end
	port        INTEGER NOT NULL,
	peer_guid   TEXT NOT NULL,
	peer_port   INTEGER NOT NULL,
	a_ca        INTEGER NOT NULL DEFAULT 0, -- the lower end is a CA
	b_ca        INTEGER NOT NULL DEFAULT 0, -- the other end is
	kind        TEXT NOT NULL CHECK (kind IN ('link', 'host')),
	state       TEXT NOT NULL CHECK (state IN ('isolated', 'held', 'drained')),
	by          TEXT NOT NULL,             -- 'loom', or the operator's principal
	rules       TEXT NOT NULL,             -- the rules that held: "errors,flaps"
	reason      TEXT NOT NULL,             -- the operator's reason, or the rules' evidence
	evidence    TEXT NOT NULL DEFAULT '',
	loss        TEXT NOT NULL DEFAULT '',  -- what the routes lost, as computed before
	jobs        TEXT NOT NULL DEFAULT '',  -- the jobs that crossed it then
	host        TEXT NOT NULL DEFAULT '',  -- kind host: the Slurm node
	since       REAL NOT NULL,
	clean_since REAL NOT NULL,             -- the last time its rules held
	probation_s REAL NOT NULL,
	returns     INTEGER NOT NULL DEFAULT 0, -- times it came back before this isolation
	PRIMARY KEY (subnet_id, guid, port)
) WITHOUT ROWID;

-- How often each cable came back: the next isolation's probation is
-- longer (isolation.backoff), and after max_returns it stays out. An
-- operator's restore forgets it.
CREATE TABLE isolation_returns (
	subnet_id   INTEGER NOT NULL REFERENCES subnets(id) ON DELETE CASCADE,
	guid        TEXT NOT NULL,
	port        INTEGER NOT NULL,
	returns     INTEGER NOT NULL,
	last        REAL NOT NULL,
	PRIMARY KEY (subnet_id, guid, port)
) WITHOUT ROWID;

-- The version of the isolated set, as the file carries it: key 'version'.
CREATE TABLE isolation_meta (
	key         TEXT PRIMARY KEY,
	value       INTEGER NOT NULL
);
INSERT INTO isolation_meta (key, value) VALUES ('version', 0);
