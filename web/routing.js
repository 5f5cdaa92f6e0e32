/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* web/routing.js: the routing view (issue 21): the runs OpenSM made with
 * loom's engine, each judged against the one before it, charted. */
"use strict";

import { $, api, list, el, table, fmt } from "./util.js";

/* What makes a run worse than the one before it on the same subnet (older,
 * by time): a failed run after a good one, or any of these metrics moving
 * the wrong way (lib/route/route_metrics.h; "up": more is worse). The
 * permutation and bisection metrics count only when both runs computed
 * them; random permutations by their mean worst load, and only when the
 * means are more than twice their combined standard error apart (closer is
 * one draw of luck, route_metrics.h). tests/integration/web_view.py applies
 * the same rules to the API's answer. */
const RUN_METRICS = [
	{ key: "unreachable", label: "unreachable pairs", up: true },
	{ key: "loops", label: "pairs in a loop", up: true },
	{ key: "max_hops", label: "longest path (hops)", up: true },
	{ key: "efi_max", label: "most paths on a link", up: true },
	{ key: "efi_mean", label: "mean paths per link", up: true, fixed: 2, info: true },
	{ key: "shift_max_load", label: "worst link load, shift permutations", up: true, need: "shifts" },
	{ key: "random_max_load", label: "worst link load, random permutations", up: true, need: "randoms", info: true },
	{ key: "random_mean_load", label: "mean worst link load, random permutations", up: true,
	  need: "randoms", fixed: 2, se: "random_mean_se" },
	{ key: "ebb", label: "effective bisection bandwidth", up: false, need: "bisections", fixed: 3 },
	{ key: "cdg_acyclic", label: "deadlock free (acyclic CDG)", bool: true },
];

function runWorse(run, prev) {
	if (!prev)
		return [];
	if (run.result !== "ok")
		return prev.result === "ok" ? ["result"] : [];
	const a = run.metrics, b = prev.metrics;
	if (!a || !b)
		return [];
	const worse = [];
	for (const m of RUN_METRICS) {
		if (m.info || !(m.key in a) || !(m.key in b))
			continue;
		if (m.need && !(a[m.need] > 0 && b[m.need] > 0))
			continue;
		const margin = m.se ? 2 * Math.hypot(a[m.se] || 0, b[m.se] || 0) : 0;
		if (m.bool ? (b[m.key] && !a[m.key]) :
		    m.up ? a[m.key] > b[m.key] + margin : a[m.key] < b[m.key] - margin)
			worse.push(m.key);
	}
	return worse;
}

/* runs: newest first, as route-runs answers. Each gets .worse. */
function judgeRuns(runs) {
	const prevOf = new Map();   /* subnet -> the older run seen last */
	for (let i = runs.length - 1; i >= 0; i--) {
		const r = runs[i], key = r.subnet || r.sm_guid;
		r.worse = runWorse(r, prevOf.get(key));
		prevOf.set(key, r);
	}
}

/* The newest run, big: what the fabric routes with now. */
function showLatestRun(r) {
	const box = $("routing-latest");
	box.replaceChildren();
	if (!r) {
		box.appendChild(el("p", {}, "No routing run recorded yet (OpenSM with loom's plugin " +
				     "reports each run: docs/web.md)."));
		delete box.dataset.run;
		return;
	}
	box.dataset.run = r.id;
	box.appendChild(el("h2", {}, "Latest run #" + r.id + ": " + r.engine +
			   (r.routed_by ? " (routed by " + r.routed_by + ")" : "") + ", " +
			   (r.result === "ok" ? "ok" : "failed: " + (r.reason || "")) +
			   (r.worse.length ? ", worse than the run before" : "")));
	box.classList.toggle("worse", r.worse.length > 0);
	const m = r.metrics || {};
	const items = [
		{ key: "time", label: "started", v: r.time },
		{ key: "subnet", label: "subnet", v: r.subnet },
		{ key: "duration_ms", label: "duration (ms)", v: r.duration_ms, fixed: 1 },
		{ key: "switches", label: "switches", v: r.switches },
		{ key: "ca_ports", label: "HCA ports", v: r.ca_ports },
		{ key: "delivered", label: "pairs delivered", v: "pairs" in m ? m.delivered + " of " + m.pairs : null },
		{ key: "entries_unreachable", label: "LFT entries unreachable", v: r.entries_unreachable },
	];
	for (const d of RUN_METRICS)
		if (d.key in m && !(d.need && !(m[d.need] > 0)))
			items.push({ key: d.key, label: d.label, v: m[d.key], fixed: d.fixed });
	const dl = el("dl", { class: "quality" });
	for (const it of items) {
		if (it.v === null || it.v === undefined)
			continue;
		const dd = el("dd", { "data-key": it.key }, fmt(it.v, it.fixed));
		if (r.worse.includes(it.key))
			dd.classList.add("worse");
		const div = el("div");
		div.appendChild(el("dt", {}, it.label));
		div.appendChild(dd);
		dl.appendChild(div);
	}
	box.appendChild(dl);
	if (!r.metrics)
		box.appendChild(el("p", {}, "This run has no metrics (the plugin did not send them)."));
}

/* Two small charts sharing the time axis: the worst link load of the shift
 * permutations (or the most paths on a link when none were computed) and
 * the duration, the newest CHART_RUNS runs, worse runs marked. */
const CHART_RUNS = 60;
function drawRunChart(runs) {
	const svg = $("routing-chart");
	svg.replaceChildren();
	const shown = runs.slice(0, CHART_RUNS).reverse();    /* oldest first */
	const quality = r => {
		const m = r.metrics || {};
		return m.shifts > 0 ? m.shift_max_load : m.efi_max;
	};
	const series = [
		{ name: "quality", label: "worst link load (lower is better)", y: 0, v: quality },
		{ name: "duration", label: "duration ms", y: 1, v: r => r.duration_ms },
	];
	const W = 640, H = 90, L = 46, gap = 22;
	svg.setAttribute("viewBox", "0 0 " + W + " " + (2 * (H + gap)));
	svg.dataset.points = shown.length;
	const x = i => L + (shown.length > 1 ? i * (W - L - 10) / (shown.length - 1) : (W - L) / 2);
	for (const s of series) {
		const top = s.y * (H + gap) + gap, vals = shown.map(s.v);
		const ok = vals.filter(v => typeof v === "number");
		const max = ok.length ? Math.max(...ok) : 1, min = ok.length ? Math.min(0, ...ok) : 0;
		const y = v => top + H - (max > min ? (v - min) / (max - min) : 0.5) * H;
		svg.appendChild(el("svg:text", { x: 2, y: top - 6, class: "axis" }, s.label));
		svg.appendChild(el("svg:text", { x: 2, y: top + 10, class: "axis" }, fmt(max, max % 1 ? 1 : undefined)));
		svg.appendChild(el("svg:line", { x1: L, y1: top + H, x2: W - 5, y2: top + H, class: "axis" }));
		const pts = [];
		shown.forEach((r, i) => {
			if (typeof vals[i] === "number")
				pts.push(x(i).toFixed(1) + "," + y(vals[i]).toFixed(1));
		});
		svg.appendChild(el("svg:polyline", { points: pts.join(" "), class: "series " + s.name }));
		shown.forEach((r, i) => {
			if (typeof vals[i] !== "number")
				return;
			const c = el("svg:circle", { cx: x(i).toFixed(1), cy: y(vals[i]).toFixed(1), r: 3.5,
						     class: "point " + s.name + (r.worse.length ? " worse" : ""),
						     "data-id": r.id });
			c.appendChild(el("svg:title", {}, "run #" + r.id + " " + r.time + ": " + s.label +
					 " " + fmt(vals[i]) + (r.worse.length ? "; worse: " +
					 r.worse.join(", ") : "")));
			svg.appendChild(c);
		});
	}
}

/* The newest runs shown (the API pages the list); the oldest of them is
 * compared with nothing. */
const RUNS_SHOWN = 200;
export async function loadRouting() {
	const runs = list(await api("/api/v1/routing/runs?limit=" + RUNS_SHOWN), "runs");
	judgeRuns(runs);
	showLatestRun(runs[0]);
	drawRunChart(runs);
	const rows = runs.map(r => {
		const m = r.metrics || {};
		return { id: r.id, time: r.time, subnet: r.subnet, engine: r.engine,
			 routed_by: r.routed_by, result: r.result, duration_ms: r.duration_ms,
			 unreachable: m.unreachable, max_hops: m.max_hops, efi_max: m.efi_max,
			 shift_max_load: m.shifts > 0 ? m.shift_max_load : null,
			 ebb: m.bisections > 0 ? m.ebb.toFixed(3) : null,
			 worse: r.worse.join(", "), note: r.note };
	});
	table("routing", rows, ["id", "time", "subnet", "engine", "routed_by", "result",
				"duration_ms", "unreachable", "max_hops", "efi_max",
				"shift_max_load", "ebb", "worse", "note"]);
	const trs = $("routing").querySelectorAll("tr");
	runs.forEach((r, i) => {
		trs[i + 1].dataset.id = r.id;
		trs[i + 1].dataset.worse = r.worse.join(",");
		trs[i + 1].classList.toggle("worse", r.worse.length > 0);
	});
}
