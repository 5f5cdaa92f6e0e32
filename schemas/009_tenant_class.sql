-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 9: a tenant's traffic class (loom.yaml ib_qos.classes),
-- '' for none. Its partition carries the class's SL (partition flag sl=N),
-- resolved when the partitions file is written, so a changed class SL in
-- loom.yaml follows at the next change or start.
ALTER TABLE tenants ADD COLUMN class TEXT NOT NULL DEFAULT '';
