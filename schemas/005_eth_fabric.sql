-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 5: the Ethernet switches of schema 4 as a fabric of
-- the same kind of nodes, ports and links as an InfiniBand subnet.
--
-- The fabric is a row of subnets with kind 'eth', named "ethernet"; its
-- events (node_appeared, link_up, port_state, ...) are recorded against it
-- with the same kinds as an IB sweep's. Its nodes, ports and links are not
-- copied: they are the views below over eth_switches/eth_ports, so they are
-- exactly what the switches' last reads found.

ALTER TABLE subnets ADD COLUMN kind TEXT NOT NULL DEFAULT 'ib'
	CHECK (kind IN ('ib', 'eth'));
INSERT INTO subnets (name, kind, created) VALUES ('ethernet', 'eth', unixepoch('now'));

-- One row per link: a port of a managed switch that is up and has an LLDP
-- neighbour. The far end is a managed switch when the neighbour's system
-- name is one's hostname (or loom.yaml name); its port is the one whose
-- name or alias is the neighbour's port id. Else the far end is an
-- unmanaged node named by the neighbour (system name, or chassis id).
-- A link between two managed switches that see each other is listed once,
-- from the end with the smaller (switch, port).
CREATE VIEW eth_link_ends AS
SELECT p.switch AS a_node, p.name AS a_port, p.speed_mbps AS a_speed,
       m.name AS b_switch,
       COALESCE(m.name, CASE WHEN p.peer_name <> '' THEN p.peer_name ELSE p.peer_chassis END)
		AS b_node,
       COALESCE(mp.name, p.peer_port) AS b_port, mp.speed_mbps AS b_speed,
       p.peer_chassis AS b_chassis,
       (mp.name IS NOT NULL AND mp.oper_up AND mp.peer_name <> '' AND
        (mp.peer_name = a.hostname OR mp.peer_name = a.name) AND
        (mp.peer_port = p.name OR (p.alias <> '' AND mp.peer_port = p.alias))) AS mutual
FROM eth_ports p
JOIN eth_switches a ON a.name = p.switch
LEFT JOIN eth_switches m ON m.name = (SELECT s.name FROM eth_switches s
	WHERE p.peer_name <> '' AND (s.hostname = p.peer_name OR s.name = p.peer_name)
	ORDER BY s.name LIMIT 1)
LEFT JOIN eth_ports mp ON mp.switch = m.name AND
	(mp.name = p.peer_port OR (mp.alias <> '' AND mp.alias = p.peer_port))
WHERE p.oper_up AND (p.peer_name <> '' OR p.peer_chassis <> '');

CREATE VIEW eth_links AS
SELECT * FROM eth_link_ends
WHERE NOT mutual OR a_node < b_node OR (a_node = b_node AND a_port < b_port);

-- Managed switches (once a read reached them) and the nodes only LLDP sees.
CREATE VIEW eth_nodes AS
SELECT name, 'switch' AS type, mac, model, os_version,
       (SELECT count(*) FROM eth_ports WHERE switch = eth_switches.name) AS nports,
       first_seen, last_seen
FROM eth_switches WHERE last_seen > 0
UNION ALL
SELECT b_node, 'host', max(b_chassis), '', '', count(DISTINCT b_port), NULL,
       max(s.last_seen)
FROM eth_links JOIN eth_switches s ON s.name = eth_links.a_node
WHERE b_switch IS NULL GROUP BY b_node;
