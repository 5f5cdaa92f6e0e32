-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 4: the Ethernet switches loomd manages through their
-- plugins (loom.yaml switches:), as their last read found them: inventory,
-- ports with their LLDP neighbour, and the QoS state (daemon/qos/qos.c). Their
-- changes (a port going down or up, a new neighbour, a switch first seen)
-- are rows of events with subject "switch NAME" and no subnet.

CREATE TABLE eth_switches (
	name        TEXT PRIMARY KEY,          -- loom.yaml's name
	plugin      TEXT NOT NULL,
	address     TEXT NOT NULL,
	hostname    TEXT NOT NULL DEFAULT '',
	model       TEXT NOT NULL DEFAULT '',
	os_version  TEXT NOT NULL DEFAULT '',
	mac         TEXT NOT NULL DEFAULT '',
	qos_state   TEXT NOT NULL DEFAULT '',  -- in policy | drifted | unreachable | partial
	qos_error   TEXT NOT NULL DEFAULT '',
	first_seen  REAL NOT NULL,
	last_seen   REAL NOT NULL,             -- last read that reached it
	last_tried  REAL NOT NULL              -- last read, reached or not
) WITHOUT ROWID;

CREATE TABLE eth_ports (
	switch      TEXT NOT NULL REFERENCES eth_switches(name) ON DELETE CASCADE,
	name        TEXT NOT NULL,             -- the switch's port name
	alias       TEXT NOT NULL DEFAULT '',
	speed_mbps  INTEGER NOT NULL DEFAULT 0,
	mtu         INTEGER NOT NULL DEFAULT 0,
	admin_up    INTEGER NOT NULL DEFAULT 0,
	oper_up     INTEGER NOT NULL DEFAULT 0,
	peer_name   TEXT NOT NULL DEFAULT '',  -- LLDP: the neighbour's system name
	peer_port   TEXT NOT NULL DEFAULT '',  -- its port id
	peer_chassis TEXT NOT NULL DEFAULT '', -- its chassis id (usually a MAC)
	PRIMARY KEY (switch, name)
) WITHOUT ROWID;
