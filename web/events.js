/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* web/events.js: the Events view (issue 41): newest first, filtered by
 * time (since), kind (asked of /api/v1/events), severity and node (a name
 * or GUID in the subject, here). loomd already coalesces storms
 * (docs/events.md: port_states, link_flap...); rows of one kind and
 * subject that still follow each other are shown as one row with their
 * count and time span. At most 2000 rows. */
"use strict";

import { $, api, list, el, table } from "./util.js";

const SPANS = [["1 hour", 3600], ["1 day", 86400], ["7 days", 7 * 86400], ["30 days", 30 * 86400]];
const MAX_ROWS = 2000;
let inited = false, kinds = new Set(), timer = null;

function option(sel, value, text) {
	const o = el("option", { value }, text);
	sel.appendChild(o);
	return o;
}

function initFilters(reload) {
	if (inited)
		return;
	inited = true;
	const since = $("ev-since");
	for (const [t, s] of SPANS)
		option(since, s, t).selected = s === 86400;
	for (const id of ["ev-since", "ev-kind", "ev-severity"])
		$(id).addEventListener("change", reload);
	$("ev-node").addEventListener("input", () => {
		clearTimeout(timer);
		timer = setTimeout(reload, 200);
	});
}

/* consecutive rows of one kind and subject: one row, counted */
function fold(evs) {
	const out = [];
	for (const e of evs) {
		const last = out[out.length - 1];
		if (last && last.kind === e.kind && last.subject === e.subject &&
		    last.severity === e.severity) {
			last.count++;
			last.first = e.time;
			continue;
		}
		out.push(Object.assign({}, e, { count: 1, first: e.time }));
	}
	return out.map(e => Object.assign(e, { time: e.count > 1 ? e.first + " .. " + e.time : e.time,
					       count: e.count > 1 ? "\u00d7" + e.count : "" }));
}

export async function loadEvents() {
	initFilters(loadEvents);
	const since = Math.floor(Date.now() / 1000) - +$("ev-since").value;
	const kind = $("ev-kind").value;
	const sev = $("ev-severity").value;
	const node = $("ev-node").value.trim().toLowerCase();
	const evs = list(await api("/api/v1/events?since=" + since +
				   (kind ? "&kind=" + encodeURIComponent(kind) : "")), "events");
	/* the kinds and severities seen, for the menus */
	const ksel = $("ev-kind"), ssel = $("ev-severity");
	const sevs = new Set([...ssel.options].map(o => o.value));
	for (const e of evs) {
		if (!kinds.has(e.kind)) {
			kinds.add(e.kind);
			option(ksel, e.kind, e.kind);
		}
		if (!sevs.has(e.severity)) {
			sevs.add(e.severity);
			option(ssel, e.severity, e.severity);
		}
	}
	const shown = evs.filter(e => (!sev || e.severity === sev) &&
				 (!node || (e.subject || "").toLowerCase().includes(node) ||
				  String(e.old || "").toLowerCase().includes(node)));
	const rows = fold(shown).slice(0, MAX_ROWS);
	$("events-summary").textContent = shown.length + " of " + evs.length + " events" +
		(rows.length < shown.length ? " (the newest " + MAX_ROWS + " rows)" : "") +
		", " + rows.length + " rows (repeats of a kind and subject folded)";
	table("events", rows, ["time", "count", "severity", "kind", "subnet", "subject", "old", "new"]);
	$("events").dataset.events = shown.length;
}
