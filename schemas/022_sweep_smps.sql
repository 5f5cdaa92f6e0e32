-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 22 (issue 44): the SMPs a sweep's walk sent, how
-- many of them were retries (a try after a request's first went
-- unanswered), and how many requests were lost (every try unanswered). A
-- fabric that drops SMPs (a bad cable on VL15, an overloaded switch CPU)
-- shows here first. NULL is "not known": a sweep recorded before this
-- schema, a failed sweep, or libibnetdisc's walk (discovery.walker:
-- ibnetdisc, and an incremental sweep's walks of the changed switches),
-- which counts its SMPs (smps) but neither retries nor losses.
ALTER TABLE sweeps ADD COLUMN smps INTEGER;
ALTER TABLE sweeps ADD COLUMN smp_retries INTEGER;
ALTER TABLE sweeps ADD COLUMN smps_lost INTEGER;

-- The same counts summed per subnet, kept in each sweep's transaction (the
-- /metrics counters loom_sweep_smps_total, ...: a scrape reads one row a
-- subnet, never a year of sweeps). A sum stays NULL until a sweep counted
-- it. Sweeps recorded before this schema are not in it.
CREATE TABLE sweep_smp_totals (
	subnet_id   INTEGER PRIMARY KEY REFERENCES subnets(id) ON DELETE CASCADE,
	smps        INTEGER,
	smp_retries INTEGER,
	smps_lost   INTEGER
);
