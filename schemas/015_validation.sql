-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 15: the open findings of fabric validation (issue 22;
-- lib/validate/report.h): one row per (subnet, code, subject) that the last
-- validation of the subnet found, kept until a validation no longer finds
-- it. Opening and clearing are also events (kind validation_issue and
-- validation_issue_cleared, subject "code subject"), so the history is in
-- the events table and this one holds only what is wrong now.
CREATE TABLE validation_issues (
	subnet_id   INTEGER NOT NULL REFERENCES subnets(id) ON DELETE CASCADE,
	code        TEXT NOT NULL,             -- missing, swapped, dup-node-guid, ...
	subject     TEXT NOT NULL,             -- the cable(s), port or node, by name
	severity    TEXT NOT NULL CHECK (severity IN ('error', 'warning')),
	want        TEXT NOT NULL,             -- what the plan or the rule wants ('' none)
	got         TEXT NOT NULL,             -- what the fabric has ('' none)
	line        INTEGER NOT NULL,          -- the plan's line (0: none)
	since       REAL NOT NULL,             -- the validation that first found it
	last        REAL NOT NULL,             -- the last validation that found it
	PRIMARY KEY (subnet_id, code, subject)
) WITHOUT ROWID;
