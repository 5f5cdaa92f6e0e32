-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 8: adaptive routing capability of each switch
-- (issue 7), as the last `loomctl ar status` probe found it: a directed-route
-- SubnGet of NVIDIA's vendor attribute AdaptiveRoutingInfo (0xFF20) to every
-- switch (daemon/ar/ar_read.c). A switch that does not support it stays on
-- static routing; a change of capability is an event (ar_supported /
-- ar_unsupported). One ar_probes row per subnet: its newest probe.

CREATE TABLE ar_probes (
	subnet_id   INTEGER PRIMARY KEY REFERENCES subnets(id) ON DELETE CASCADE,
	started     REAL NOT NULL,
	finished    REAL NOT NULL,
	switches    INTEGER NOT NULL,
	smps        INTEGER NOT NULL,          -- ARInfo Gets sent, retries included
	timeout_ms  INTEGER NOT NULL,          -- per try
	retries     INTEGER NOT NULL,
	in_flight   INTEGER NOT NULL           -- most Gets outstanding at once
);

CREATE TABLE ar_switches (
	subnet_id   INTEGER NOT NULL REFERENCES subnets(id) ON DELETE CASCADE,
	guid        TEXT NOT NULL,             -- node GUID
	description TEXT NOT NULL,
	lid         INTEGER NOT NULL,          -- its LID when probed (0: none yet)
	supported   INTEGER NOT NULL CHECK (supported IN (0, 1)),
	enabled     INTEGER CHECK (enabled IS NULL OR enabled IN (0, 1)),  -- NULL: unknown
	groups_used INTEGER,                   -- NULL: unknown
	group_cap   INTEGER,                   -- NULL: unknown
	reason      TEXT NOT NULL,             -- why (not) supported, as the probe found
	mad_status  INTEGER,                   -- the answer's MAD status; NULL: no answer
	caps        TEXT,                      -- the decoded ARInfo as JSON; NULL: none
	probed      REAL NOT NULL,
	PRIMARY KEY (subnet_id, guid)
) WITHOUT ROWID;
