/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* web/isolation.js: the Isolation view (issue 42): what `loomctl link
 * isolated` shows (/api/v1/isolation/links): the mode, the set's version
 * against the one OpenSM last routed with, and each cable isolation holds
 * (taken out of the routes, or its host drained) with its state, who and
 * which rules, since when, the probation left, what the routes lost, the
 * jobs that crossed it and why; Restore for an admin token (isolated.js).
 * A row opens the switch panel of its end on the map. */
"use strict";

import { state, $, api, list, nm, el, tableEl, onMap, when } from "./util.js";
import { loadIsolated, restoreButton, mayChange, left } from "./isolated.js";
import { openNode } from "./panels.js";

/* GUID -> name: the map's nodes, else asked once. */
async function names() {
	if (state.fabric)
		return state.fabric.nodes;
	if (!state.isoNames)
		state.isoNames = new Map(list(await api("/api/v1/nodes").catch(() => []), "nodes")
					 .map(n => [n.guid, n]));
	return state.isoNames;
}

export async function loadIsolation() {
	const r = await loadIsolated();
	const box = $("isolation");
	box.replaceChildren();
	if (!r) {
		$("isolation-summary").textContent =
			"This loomd has no isolation (/api/v1/isolation/links: 404).";
		return;
	}
	const rows = list(r, "links");
	const behind = r.applied_version < r.version;
	const summary = $("isolation-summary");
	summary.textContent = "Mode " + r.mode + "; " + rows.length + " cable(s) isolated; the set " +
		"at version " + r.version + ", OpenSM " + (r.applied_version ?
			"routed last with version " + r.applied_version + " (" + r.applied_links +
			" links left out)" : "has not reported a run with it since loomd started") +
		(behind ? ": not applied yet" : "") + ".";
	summary.classList.toggle("worse", behind && r.applied_version > 0);
	summary.dataset.version = r.version;
	const ns = await names();
	const name = (g, p) => (ns.get(g) ? nm(ns.get(g)) : g) + "[" + p + "]";
	const shown = rows.map(x => ({
		cable: name(x.guid, x.port) + " \u2194 " + name(x.peer_guid, x.peer_port),
		kind: x.kind, state: x.state, by: x.by, rules: x.rules, since: when(x.since),
		"probation left": x.probation_left_s === null ? (x.state === "held" ?
			"held: an operator must restore it" : "until restored") :
			left(x.probation_left_s), returns: x.returns, loss: x.loss, jobs: x.jobs,
		host: x.host, reason: x.reason, evidence: x.evidence, _x: x }));
	const t = tableEl("isolation-links", shown, ["cable", "kind", "state", "by", "rules", "since",
		"probation left", "returns", "loss", "jobs", "host", "reason", "evidence"],
		{ click: s => onMap(() => openNode(s._x.guid, s._x.port)),
		  attrs: s => ({ "data-port": s._x.guid + ":" + s._x.port, "data-state": s.state,
				 class: "iso-" + s.state }) });
	const out = el("span", { class: "iso-out", role: "status" });
	if (mayChange() && rows.length) {
		t.rows[0].appendChild(el("th", {}, ""));
		shown.forEach((s, i) => {
			const td = el("td");
			td.appendChild(restoreButton(s._x, out, () => state.reshow()));
			t.rows[i + 1].appendChild(td);
		});
	}
	box.append(t, out);
	if (!rows.length)
		box.append(el("p", {}, "Nothing isolated."));
}
