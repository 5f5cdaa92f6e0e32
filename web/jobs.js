/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* web/jobs.js: the Jobs view (issue 41): a job or tenant by name (what
 * `loomctl job NAME` answers, /api/v1/impact/NAME): its hosts and their
 * leaves, the paths its pairs take, the links they cross that are not
 * clean, worst first, with why; "show on the map" marks its hosts' boxes;
 * a link's row opens its switch panel. */
"use strict";

import { state, $, api, list, el, tableEl, onMap } from "./util.js";
import { highlight } from "./fabric.js";
import { openNode } from "./panels.js";

/* "name:port" of the answer -> a guid and port of the drawn fabric */
function resolve(end) {
	const m = /^(.*):(\d+)$/.exec(end || "");
	const f = state.fabric;
	if (!m || !f)
		return null;
	const g = f.byName.get(m[1]) || (f.nodes.has(m[1]) ? m[1] : null);
	return g ? { guid: g, port: +m[2] } : null;
}

export async function loadJobs() {
	const input = $("job-name");
	if (!input.dataset.init) {
		input.dataset.init = "1";
		$("job-form").addEventListener("submit", ev => {
			ev.preventDefault();
			state.jobQuery = input.value.trim();
			loadJobs().catch(e => { $("job-summary").textContent = e.message; });
		});
	}
	if (state.jobQuery)
		input.value = state.jobQuery;
	const name = input.value.trim();
	const box = $("job");
	if (!name) {
		box.replaceChildren();
		$("job-summary").textContent = "A job (tenant) by name: its hosts, its paths, the " +
			"links they cross worst first (loomctl job NAME).";
		return;
	}
	let j;
	try {
		j = await api("/api/v1/impact/" + encodeURIComponent(name));
	} catch (e) {
		box.replaceChildren();
		$("job-summary").textContent = e.message;
		return;
	}
	box.replaceChildren();
	box.dataset.job = name;
	const hosts = list(j.hosts);
	const p = j.paths || {};
	$("job-summary").textContent = "Job " + (j.job || name) + " on " + j.subnet + ": " +
		hosts.length + " hosts, " + (p.pairs !== undefined ? p.pairs + " pairs, " +
		p.delivered + " delivered, " : "") + (j.bad_links || 0) + " links not clean" +
		(list(j.unknown_hosts).length ? "; unknown hosts: " + list(j.unknown_hosts).join(", ") : "");
	const show = el("button", { id: "job-map", type: "button" }, "Show its hosts on the map");
	show.addEventListener("click", () => onMap(() => highlight(
		hosts.map(h => state.fabric.byName.get(h.node)).filter(x => x))));
	box.appendChild(show);
	const worst = list(j.worst).map(w => ({
		from: w.from, to: w.to, state: w.state + (w.degraded ? ", degraded" : ""),
		pairs: w.pairs, errors: w.errors,
		"xmit_wait/s": Math.round(w.xmit_wait_per_s || 0),
		alarms: list(w.alarms).join(", "),
		why: list(w.why).map(x => typeof x === "string" ? x : JSON.stringify(x)).join("; "),
		congestion: w.congestion ? (w.congestion.is_root ? "root" : "behind " +
					    w.congestion.root) : "",
		"other jobs": list(w.jobs).join(", ") }));
	box.appendChild(el("h3", {}, "Links its pairs cross, worst first: " + worst.length));
	box.appendChild(tableEl("job-worst", worst, null, {
		click: r => {
			const e = resolve(r.from) || resolve(r.to);
			if (e)
				onMap(() => { highlight([e.guid]); openNode(e.guid, e.port); });
		},
		attrs: r => ({ "data-from": r.from, "data-to": r.to }) }));
	box.appendChild(el("h3", {}, "Hosts: " + hosts.length));
	box.appendChild(tableEl("job-hosts", hosts, ["host", "node", "port", "switch", "switch_port"]));
}
