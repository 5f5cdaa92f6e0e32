/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* web/health.js: the Health view (issue 41): what `loomctl health` shows
 * (/api/v1/health): the open alarms, the worst links by errors and by
 * congestion, the congestion roots with the hosts behind them, stale ports,
 * the RoCE switches' alarms and PFC storms. A row naming a port opens its
 * switch panel on the map (a host's: its leaf's, the cable marked). */
"use strict";

import { state, $, api, list, el, tableEl, onMap, when } from "./util.js";
import { highlight } from "./fabric.js";
import { openNode } from "./panels.js";

function at(r) { return (r.node || r.guid) + "[" + r.port + "]"; }

/* each section: its key in /health, title, and the row as shown */
const SECTIONS = [
	["alarms", "Alarms", r => ({ kind: r.kind, port: at(r), peer: r.peer, since: when(r.since),
				     last: when(r.last), why: r.why })],
	["errors", "Worst links by errors", r => ({ port: at(r), peer: r.peer, errors: r.errors,
		moved: Object.entries(r.moved || {}).map(([k, v]) => k + " +" + v).join(", "),
		"last error": when(r.last_error) })],
	["congestion", "Worst links by congestion", r => ({ port: at(r), peer: r.peer,
		"xmit_wait/s": Math.round(r.xmit_wait_per_s || 0),
		"MB/s": r.xmit_mb_s === null ? "" : (r.xmit_mb_s || 0).toFixed(1) })],
	["stale", "Stale ports", r => ({ port: at(r), peer: r.peer, reason: r.reason,
					 sampled: when(r.sampled) })],
	["switch_alarms", "RoCE switch alarms", r => ({ kind: r.kind, switch: r.switch,
		port: r.port, peer: r.peer, since: when(r.since), why: r.why })],
];

/* the congestion roots (lib/telemetry/congestion.c's congestion_roots())
 * and the hosts whose routes pass them */
function trees(h) {
	const rows = [];
	for (const t of list(h.congestion_trees))
		for (const r of list(t.roots))
			rows.push({ subnet: t.subnet, root: r.node + "[" + r.port + "]", peer: r.peer,
				    "n hosts": r.n_hosts, hosts: list(r.hosts).slice(0, 20).join(", ") +
				    (r.n_hosts > 20 ? ", \u2026" : ""),
				    victims: list(r.victims).join(", "), _guid: r.guid, _port: r.port });
	return rows;
}

function section(box, key, title, rows, cols) {
	box.appendChild(el("h3", {}, title + ": " + rows.length));
	if (!rows.length)
		return;
	box.appendChild(tableEl("health-" + key, rows, cols, {
		click: r => r._guid ? onMap(() => {
			highlight([r._guid]);
			openNode(r._guid, r._port);
		}) : null,
		attrs: r => ({ "data-guid": r._guid || "", "data-port": r._port || "" }) }));
}

export async function loadHealth() {
	const h = await api("/api/v1/health");
	const box = $("health");
	box.replaceChildren();
	const reads = list(h.reads).map(r => r.subnet + ": " + r.answered + " of " + r.ports +
					 " ports answered at " + when(r.finished));
	$("health-summary").textContent = reads.length ? "Last counter read: " + reads.join("; ") :
		"No counter read yet.";
	for (const [key, title, shape] of SECTIONS) {
		const rows = list(h[key]).map(r => Object.assign(shape(r),
			{ _guid: r.guid, _port: r.port }));
		section(box, key, title, rows, rows.length ? Object.keys(rows[0])
			.filter(k => !k.startsWith("_")) : []);
		if (key === "congestion") {
			const t = trees(h);
			section(box, "roots", "Congestion roots (hosts behind them)", t,
				["subnet", "root", "peer", "n hosts", "hosts", "victims"]);
		}
	}
	const storms = list(h.pause_trees);
	section(box, "storms", "RoCE PFC storms", storms,
		storms.length ? Object.keys(storms[0]) : []);
	state.health = h;
}
