/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* web/loom.js: loom's web view (issue 20), the page's entry: the views
 * and the switch between them. No build step and nothing from the
 * internet: plain DOM and SVG in ES modules, one a view (fabric.js with
 * its panels.js and port.js, health.js, events.js, jobs.js, routing.js,
 * switches.js, isolation.js; find.js the header's search; isolated.js the
 * isolated set and its changes; util.js what they share). Every number comes
 * from loomd's /api/v1 (the same JSON as `loomctl --json`). */
"use strict";

import { state, $, setStatus, api, list, table } from "./util.js";
import { loadFabric } from "./fabric.js";
import { loadHealth } from "./health.js";
import { loadEvents } from "./events.js";
import { loadJobs } from "./jobs.js";
import { initFind } from "./find.js";
import { loadRouting } from "./routing.js";
import { loadSwitches } from "./switches.js";
import { loadIsolation } from "./isolation.js";

const views = {
	fabric: loadFabric,
	health: loadHealth,
	events: loadEvents,
	jobs: loadJobs,
	isolation: loadIsolation,
	/* what the checks after the sweeps found and is still there (issue 22) */
	issues: async () => {
		const r = await api("/api/v1/fabric/issues");
		const rows = list(r, "issues");
		$("issues-summary").textContent = rows.length ?
			(r.errors || 0) + " errors, " + (r.warnings || 0) + " warnings open" +
			" (loomctl fabric issues; docs/validate.md says what each code means)" :
			"No open issue: the last check of every subnet found nothing.";
		$("issues").dataset.count = rows.length;
		table("issues", rows, ["severity", "code", "subnet", "subject", "want", "got", "since"]);
	},
	tenants: async () => table("tenants", list(await api("/api/v1/tenants"), "tenants"),
				   ["name", "pkey", "vlan", "membership", "state", "n_hosts", "n_ports",
				    "n_eth_ports", "creator", "updated", "error"]),
	routing: loadRouting,
	switches: loadSwitches,
};

async function show() {
	const name = (location.hash || "#fabric").slice(1);
	const view = views[name] ? name : "fabric";
	for (const s of document.querySelectorAll(".view"))
		s.classList.toggle("active", s.id === "view-" + view);
	for (const a of document.querySelectorAll("nav a"))
		a.classList.toggle("active", a.dataset.view === view);
	if (!state.token) {
		setStatus("enter an API token (loomctl token hash NAME read)");
		document.body.dataset.loaded = "login";
		return;
	}
	setStatus("loading " + view + "\u2026");
	try {
		await views[view]();
		setStatus("");
		document.body.dataset.loaded = view;
		const after = state.afterFabric;
		if (view === "fabric" && after) {
			state.afterFabric = null;
			after();
		}
	} catch (e) {
		setStatus(e.message);
		document.body.dataset.loaded = "error";
	}
}

state.reshow = show;
window.addEventListener("hashchange", show);
window.addEventListener("DOMContentLoaded", () => {
	$("token").value = state.token;
	initFind();
	$("login").addEventListener("submit", ev => {
		ev.preventDefault();
		state.token = $("token").value.trim();
		sessionStorage.setItem("loom-token", state.token);
		show();
	});
	show();
	setInterval(() => { if (!document.hidden) show(); }, 30000);
});
