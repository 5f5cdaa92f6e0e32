-- SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
-- loom schema version 18: the site's node names (issue 39): the lines of
-- names.node_name_map (the OpenSM / infiniband-diags node-name-map), as
-- loomd last loaded it; loomd rewrites the table whole at start and on each
-- reload. Queries name a node coalesce(node_names.name, nodes.description),
-- so that loomd, the REST API and `loomctl --db` name nodes alike, and a
-- reload renames them everywhere at once (names are resolved when read,
-- never copied into other rows; nodes.description stays the raw
-- NodeDescription). `loomctl --db --node-name-map FILE` shadows it with a
-- TEMP table of the same name.
CREATE TABLE node_names (
	guid TEXT PRIMARY KEY,       -- node GUID, '0x' + 16 lower-case hex digits
	name TEXT NOT NULL
) WITHOUT ROWID;
