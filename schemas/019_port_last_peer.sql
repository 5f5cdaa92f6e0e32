-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 19: the last peer each port was cabled to (issue 39,
-- "a cut cable must be visible in /metrics"). A cut cable leaves its port
-- down with no peer (peer_guid NULL): these columns keep whom it faced, so
-- that /metrics' link series of that port keep their remote_* labels and
-- turn from Active to Down: one series is one cable, before and after the
-- cut. They follow peer_guid while the port has a peer, keep the last one
-- while it has none, and are cleared when the port is disabled
-- (PortPhysicalState 3: how an operator retires a cable) or when the port
-- leaves the table with its node. last_peer_desc is the peer node's
-- description then (the peer may be gone from the fabric: a host whose one
-- cable was cut).
ALTER TABLE ports ADD COLUMN last_peer_guid TEXT;
ALTER TABLE ports ADD COLUMN last_peer_port INTEGER;
ALTER TABLE ports ADD COLUMN last_peer_desc TEXT;
UPDATE ports SET last_peer_guid = peer_guid, last_peer_port = peer_port,
	last_peer_desc = (SELECT n.description FROM nodes n
			  WHERE n.subnet_id = ports.subnet_id AND n.guid = ports.peer_guid)
	WHERE peer_guid IS NOT NULL;
