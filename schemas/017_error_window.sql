-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 17: when each port's error counters last moved
-- (issue 39), so that `loomctl health` lists the ports with errors in the
-- last telemetry.window_s, not only those whose counters moved in the last
-- read: err_last is the finish of the last read whose error deltas were not
-- 0, err_last_n that read's sum of them. NULL: no error seen since the row
-- was made.
ALTER TABLE port_counters ADD COLUMN err_last REAL;
ALTER TABLE port_counters ADD COLUMN err_last_n INTEGER;
