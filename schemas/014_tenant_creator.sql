-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 14: who created a tenant, as the audit log and the
-- tenant events name it: "uid 1000" over the unix socket, "token slurm"
-- (or the principal of a TLS client certificate) over the HTTP API, where
-- created_by, the peer's uid, is -1. Tenants created before this schema
-- get "uid N" from created_by when it is a uid, '' otherwise (their
-- tenant_created event still names who).
ALTER TABLE tenants ADD COLUMN creator TEXT NOT NULL DEFAULT '';
UPDATE tenants SET creator = 'uid ' || created_by WHERE created_by >= 0;
