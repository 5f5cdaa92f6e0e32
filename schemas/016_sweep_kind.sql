-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 16: what kind of sweep a sweep row is (issue 23,
-- discovery that follows the fabric): 'full', the whole subnet walked, or
-- 'incremental', the switches OpenSM reported a change on walked again
-- with their neighbours, merged into the last fabric. Both record the same
-- rows and events; the periodic full sweep stays the safety net.
ALTER TABLE sweeps ADD COLUMN kind TEXT NOT NULL DEFAULT 'full'
	CHECK (kind IN ('full', 'incremental'));
