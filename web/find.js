/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* web/find.js: Find (issue 41), the header's search box: a node's name,
 * GUID or LID, a host, a port ("leaf-3:17"), a job or a tenant. Typing
 * asks /api/v1/find (debounced, the best first); Enter or a click opens
 * the first (or the clicked) answer: a switch's panel, a host's leaf panel
 * with its cable marked, a port's switch panel, the job view; and marks
 * its box on the map. A loomd without /find (404): the page looks in the
 * fabric it has drawn and in the tenants. */
"use strict";

import { state, $, api, list, nm, el, onMap } from "./util.js";
import { highlight } from "./fabric.js";
import { openNode } from "./panels.js";

const LIMIT = 10;
let timer = null, seq = 0;

/* The page's own search: the drawn fabric's nodes and the tenants. */
async function findHere(q) {
	const f = state.fabric;
	const out = [];
	if (!f)
		return out;
	const ql = q.toLowerCase(), hex = ql.replace(/^0x/, "");
	const m = /^(.+):(\d+)$/.exec(q);
	if (m && f.byName.has(m[1])) {
		const g = f.byName.get(m[1]), n = f.nodes.get(g);
		out.push({ kind: "port", name: nm(n), guid: g, port: +m[2], lid: n.lid,
			   matched: "port" });
	}
	const scored = [];
	for (const n of f.nodes.values()) {
		const name = nm(n).toLowerCase();
		let score = -1, matched = "";
		if (name === ql || (n.desc || "").toLowerCase() === ql)
			[score, matched] = [0, "name"];
		else if (hex.length >= 4 && n.guid.toLowerCase().replace(/^0x/, "").includes(hex))
			[score, matched] = [1, "guid"];
		else if (/^\d+$/.test(q) && String(n.lid) === q)
			[score, matched] = [1, "lid"];
		else if (name.startsWith(ql))
			[score, matched] = [2, "name"];
		else if (name.includes(ql))
			[score, matched] = [3, "name"];
		if (score >= 0)
			scored.push([score, nm(n), { kind: n.type === "switch" ? "switch" : "host",
						     name: nm(n), guid: n.guid, lid: n.lid, matched }]);
	}
	scored.sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1], undefined, { numeric: true }));
	out.push(...scored.slice(0, LIMIT).map(x => x[2]));
	if (!state.tenantNames)
		state.tenantNames = list(await api("/api/v1/tenants").catch(() => []), "tenants")
			.map(t => t.name);
	for (const t of state.tenantNames)
		if (t.toLowerCase().includes(ql))
			out.push({ kind: "tenant", name: t, matched: "name" });
	return out.slice(0, LIMIT);
}

async function find(q) {
	try {
		return list(await api("/api/v1/find?q=" + encodeURIComponent(q) + "&limit=" + LIMIT),
			    "results");
	} catch (e) {
		if (e.status !== 404 && e.status !== 400)
			throw e;
		return findHere(q);
	}
}

function label(r) {
	return r.kind + " " + r.name + (r.port ? ":" + r.port : "") +
		(r.guid ? " " + r.guid : "") + (r.lid ? " lid " + r.lid : "") +
		(r.leaf ? " on " + (r.leaf.name || r.leaf.guid) + ":" + r.leaf.port : "") +
		(r.matched ? " (" + r.matched + ")" : "");
}

function suggest(rs) {
	const ul = $("find-suggest");
	ul.replaceChildren();
	rs.forEach((r, i) => {
		const li = el("li", { "data-kind": r.kind, "data-guid": r.guid || "",
				      "data-i": i }, label(r));
		li.addEventListener("mousedown", ev => {
			ev.preventDefault();
			open(r);
		});
		ul.appendChild(li);
	});
	ul.hidden = !rs.length;
	ul.dataset.count = rs.length;
}

/* Open what was found, and mark it on the map. */
export function open(r) {
	$("find-suggest").hidden = true;
	if (r.kind === "job" || r.kind === "tenant") {
		state.jobQuery = r.name;
		if (location.hash === "#jobs" && state.reshow)
			state.reshow();
		else
			location.hash = "#jobs";
		return;
	}
	onMap(() => {
		highlight([r.guid]);
		if (r.kind === "host" || r.kind === "ca") {
			if (r.leaf)
				return openNode(r.leaf.guid, r.leaf.port);
			return openNode(r.guid, r.port);
		}
		openNode(r.guid, r.port);
	});
}

export function initFind() {
	const box = $("find");
	let hide = null;   /* the list's hiding after a blur */
	box.addEventListener("input", () => {
		clearTimeout(timer);
		clearTimeout(hide);
		const q = box.value.trim();
		if (!q) {
			suggest([]);
			return;
		}
		timer = setTimeout(async () => {
			const mine = ++seq;
			const rs = await find(q).catch(e => {
				$("status").textContent = e.message;
				return [];
			});
			if (mine === seq)
				suggest(rs);
		}, 150);
	});
	$("find-form").addEventListener("submit", async ev => {
		ev.preventDefault();
		const q = box.value.trim();
		if (!q)
			return;
		clearTimeout(timer);
		seq++;
		const rs = await find(q).catch(() => []);
		if (rs.length)
			open(rs[0]);
		else
			$("status").textContent = "nothing found for " + q;
	});
	/* leaving the box hides the list (after a click on it had its
	 * mousedown), unless the box is back in use by then */
	box.addEventListener("blur", () => {
		hide = setTimeout(() => { $("find-suggest").hidden = true; }, 200);
	});
	box.addEventListener("focus", () => clearTimeout(hide));
}
