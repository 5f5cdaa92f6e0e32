/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* web/loom.js: loom's web view (issue 20). No build step and nothing from
 * the internet: plain DOM and SVG. Every number comes from loomd's
 * /api/v1 (the same JSON as `loomctl --json`), asked with the operator's
 * token (kept in this tab's sessionStorage only).
 *
 * The fabric is drawn by levels: channel adapters at the bottom, each
 * switch one level above its nearest adapter (leaves, spines, cores of a
 * fat tree; any other topology the same way). Large fabrics are
 * aggregated so that the page stays usable at 10k+ hosts: hosts are counted
 * on their switch instead of drawn when there are more than MAX_HOSTS, and
 * a level with more than MAX_PER_LEVEL switches is drawn as MAX_PER_LEVEL
 * groups of consecutive switches (by name), links between groups as one
 * bundle (wider with more links) with its count and its worst state. */
"use strict";

const MAX_HOSTS = 64;
const MAX_PER_LEVEL = 16;
const SVG = "http://www.w3.org/2000/svg";

const state = { token: sessionStorage.getItem("loom-token") || "", fabric: null };

function $(id) { return document.getElementById(id); }

function setStatus(text) { $("status").textContent = text; }

async function api(path) {
	const headers = { "Accept": "application/json" };
	if (state.token)
		headers["Authorization"] = "Bearer " + state.token;
	const r = await fetch(path, { headers });
	const text = await r.text();
	let body = null;
	try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
	if (!r.ok) {
		const msg = body && body.error ? body.error.message : text.trim();
		const e = new Error(path + ": " + r.status + (msg ? " " + msg : ""));
		e.status = r.status;
		e.retryAfter = parseInt(r.headers.get("Retry-After") || "0", 10);
		throw e;
	}
	return body;
}

/* A list answer: the array itself, or the first array in the object. */
function list(x, key) {
	if (Array.isArray(x))
		return x;
	if (x && key && Array.isArray(x[key]))
		return x[key];
	for (const v of Object.values(x || {}))
		if (Array.isArray(v))
			return v;
	return [];
}

// A node's display name: the site's (names.node_name_map, the API's "name"),
// else its description.
function nm(n) {
	return n.name || n.desc;
}

function el(tag, attrs, text) {
	const e = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4))
					  : document.createElement(tag);
	for (const [k, v] of Object.entries(attrs || {}))
		e.setAttribute(k, v);
	if (text !== undefined)
		e.textContent = text;
	return e;
}

/* rows as a table; cols: the keys shown (null: the first row's). */
function table(id, rows, cols) {
	const t = $(id);
	cols = cols || Object.keys(rows[0] || {});
	t.replaceChildren();
	const head = el("tr");
	for (const c of cols)
		head.appendChild(el("th", {}, c));
	t.appendChild(head);
	for (const r of rows) {
		const tr = el("tr");
		for (const c of cols) {
			const v = r[c];
			tr.appendChild(el("td", {}, v === null || v === undefined ? "" :
					  typeof v === "object" ? JSON.stringify(v) : String(v)));
		}
		t.appendChild(tr);
	}
	t.dataset.rows = rows.length;
}

/* ---- the fabric ------------------------------------------------------------- */

function portKey(guid, port) { return guid + ":" + port; }

/* Levels: adapters 0, a switch 1 + the level of its nearest adapter. */
function levels(nodes, adj) {
	const level = new Map();
	let frontier = nodes.filter(n => n.type !== "switch").map(n => n.guid);
	for (const g of frontier)
		level.set(g, 0);
	for (let l = 1; frontier.length; l++) {
		const next = [];
		for (const g of frontier)
			for (const p of adj.get(g) || [])
				if (!level.has(p)) {
					level.set(p, l);
					next.push(p);
				}
		frontier = next;
	}
	let top = 0;
	for (const v of level.values())
		top = Math.max(top, v);
	for (const n of nodes)
		if (!level.has(n.guid))
			level.set(n.guid, n.type === "switch" ? top + 1 : 0);
	return level;
}

function linkState(l, health) {
	if (l.down)
		return "down";
	const ends = [portKey(l.a.guid, l.a.port), portKey(l.b.guid, l.b.port)];
	if (ends.some(k => health.errors.has(k)))
		return "errors";
	if (ends.some(k => health.congested.has(k)))
		return "congested";
	if (l.degraded)
		return "degraded";
	return "up";
}
const WORST = ["up", "degraded", "congested", "errors", "down"];

/* Links that went down (link_down events of the last day not followed by
 * link_up for the same ports) and are still not there: drawn as down. The
 * subject is "0xGUID[PORT] (DESC) <-> 0xGUID[PORT] (DESC)". */
function downLinks(events, links) {
	const re = /^(0x[0-9a-f]+)\[(\d+)\] \((.*)\) <-> (0x[0-9a-f]+)\[(\d+)\] \((.*)\)$/;
	const last = new Map();
	for (const e of events)    /* newest first: the first of a subject is its last */
		if ((e.kind === "link_down" || e.kind === "link_up") && !last.has(e.subject))
			last.set(e.subject, e);
	const present = new Set(links.flatMap(l => [portKey(l.a.guid, l.a.port),
						    portKey(l.b.guid, l.b.port)]));
	const down = [];
	for (const e of last.values()) {
		const m = e.kind === "link_down" && re.exec(e.subject || "");
		if (!m || present.has(portKey(m[1], +m[2])))
			continue;
		down.push({ a: { guid: m[1], port: +m[2], desc: m[3] },
			    b: { guid: m[4], port: +m[5], desc: m[6] }, down: true,
			    width: "", speed: "", degraded: false, since: e.time });
	}
	return down;
}

function healthSets(h) {
	const s = { errors: new Set(), congested: new Set() };
	for (const p of list(h && h.errors))
		s.errors.add(portKey(p.guid, p.port));
	for (const p of list(h && h.congestion))
		s.congested.add(portKey(p.guid, p.port));
	return s;
}

/* What is drawn: boxes (a switch, a group of switches or a host) and
 * lines (a link or a bundle), from the nodes, links and health. */
function layout(nodes, links, health) {
	const adj = new Map();
	for (const l of links) {
		if (!adj.has(l.a.guid)) adj.set(l.a.guid, []);
		if (!adj.has(l.b.guid)) adj.set(l.b.guid, []);
		adj.get(l.a.guid).push(l.b.guid);
		adj.get(l.b.guid).push(l.a.guid);
	}
	const level = levels(nodes, adj);
	const hosts = nodes.filter(n => n.type !== "switch");
	const drawHosts = hosts.length <= MAX_HOSTS;
	const byLevel = new Map();
	for (const n of nodes) {
		if (n.type !== "switch" && !drawHosts)
			continue;
		const l = level.get(n.guid);
		if (!byLevel.has(l)) byLevel.set(l, []);
		byLevel.get(l).push(n);
	}
	const box = new Map();      /* node guid -> its box */
	const boxes = [];
	for (const [l, ns] of byLevel) {
		ns.sort((x, y) => nm(x).localeCompare(nm(y), undefined, { numeric: true }));
		const per = Math.ceil(ns.length / MAX_PER_LEVEL);
		for (let i = 0; i < ns.length; i += per) {
			const members = ns.slice(i, i + per);
			const b = { level: l, members, hosts: 0, id: "b" + boxes.length,
				    label: members.length === 1 ? nm(members[0]) :
					   nm(members[0]) + " .. " + nm(members[members.length - 1]) };
			boxes.push(b);
			for (const m of members)
				box.set(m.guid, b);
		}
	}
	const lines = new Map();
	for (const l of links) {
		const ba = box.get(l.a.guid), bb = box.get(l.b.guid);
		if (!ba || !bb) {
			/* a host not drawn: counted on its switch */
			const sw = ba || bb;
			if (sw)
				sw.hosts++;
			continue;
		}
		if (ba === bb)
			continue;
		const key = ba.id < bb.id ? ba.id + "-" + bb.id : bb.id + "-" + ba.id;
		if (!lines.has(key))
			lines.set(key, { a: ba, b: bb, links: [], state: "up" });
		const line = lines.get(key);
		const st = linkState(l, health);
		line.links.push(l);
		if (WORST.indexOf(st) > WORST.indexOf(line.state))
			line.state = st;
	}
	return { boxes, lines: [...lines.values()], level };
}

function drawFabric(f) {
	const svg = $("fabric");
	svg.replaceChildren();
	const W = Math.max(svg.clientWidth || 1000, 400), H = Math.max(svg.clientHeight || 600, 300);
	const levelsUsed = [...new Set(f.boxes.map(b => b.level))].sort((a, b) => b - a);
	const rowH = H / (levelsUsed.length + 1);
	for (const [i, l] of levelsUsed.entries()) {
		const row = f.boxes.filter(b => b.level === l);
		row.forEach((b, j) => {
			b.x = (j + 0.5) * W / row.length;
			b.y = (i + 0.75) * rowH;
		});
	}
	svg.setAttribute("viewBox", "0 0 " + W + " " + H);
	for (const line of f.lines) {
		const e = el("svg:line", { x1: line.a.x, y1: line.a.y, x2: line.b.x, y2: line.b.y,
					   class: "link " + line.state, "data-links": line.links.length,
					   "data-state": line.state });
		if (line.links.length > 1)
			e.style.strokeWidth = (1.5 + Math.log2(line.links.length)).toFixed(1);
		e.addEventListener("click", () => showLinks(line));
		svg.appendChild(e);
	}
	for (const b of f.boxes) {
		const g = el("svg:g", { class: "node" + (b.members.length > 1 ? " group" : ""),
				       "data-members": b.members.length,
				       "data-type": b.members[0].type,
				       transform: "translate(" + b.x + "," + b.y + ")" });
		const row = f.boxes.filter(x => x.level === b.level).length;
		const w = Math.min(b.members.length > 1 ? 60 : 48, 0.9 * W / row);
		g.appendChild(el("svg:rect", { x: -w / 2, y: -9, width: w, height: 18, rx: 3 }));
		g.appendChild(el("svg:text", { "text-anchor": "middle", y: 4 },
				 b.members.length > 1 ? b.members.length +
					(b.members[0].type === "switch" ? " sw" : " hosts") :
				 nm(b.members[0]).slice(0, Math.max(2, Math.floor(w / 6)))));
		g.appendChild(el("svg:title", {}, b.label + (b.hosts ? " (" + b.hosts + " hosts)" : "")));
		g.addEventListener("click", () => showBox(b));
		svg.appendChild(g);
	}
	const sw = f.boxes.reduce((n, b) => n + (b.members[0].type === "switch" ? b.members.length : 0), 0);
	const nlinks = f.links;      /* every link, drawn in a bundle or counted on a switch */
	const bad = f.lines.filter(l => l.state !== "up").length;
	const down = f.lines.filter(l => l.state === "down").length;
	$("fabric-summary").textContent = sw + " switches, " + f.hosts + " hosts, " + nlinks +
		" links, drawn as " + f.lines.length + " lines (" + bad + " not clean, " + down +
		" down)";
	svg.dataset.switches = sw;
	svg.dataset.links = nlinks;
	svg.dataset.down = f.down;
	svg.dataset.downLines = down;
}

function showLinks(line) {
	const d = $("detail");
	d.replaceChildren(el("h3", {}, line.a.label + " \u2194 " + line.b.label + ": " +
			     line.links.length + " link(s), " + line.state));
	const rows = line.links.slice(0, 200).map(l => ({
		a: nm(l.a) + "[" + l.a.port + "]", b: nm(l.b) + "[" + l.b.port + "]",
		width: l.width, speed: l.speed, degraded: l.degraded }));
	const t = el("table", { id: "detail-links" });
	d.appendChild(t);
	table("detail-links", rows, ["a", "b", "width", "speed", "degraded"]);
}

async function showBox(b) {
	const d = $("detail");
	d.replaceChildren(el("h3", {}, b.label + (b.hosts ? " (" + b.hosts + " hosts)" : "")));
	const n = b.members[0];
	if (b.members.length > 1) {
		d.appendChild(el("p", {}, b.members.map(m => nm(m)).join(", ")));
		return;
	}
	try {
		const c = await api("/api/v1/counters?node=" + encodeURIComponent(n.guid));
		const rows = list(c, "ports").map(p => ({ port: p.port, state: p.state || "",
			errors: p.errors, xmit_wait_per_s: p.xmit_wait_per_s,
			data_per_s: p.data_per_s }));
		const t = el("table", { id: "detail-ports" });
		d.appendChild(t);
		table("detail-ports", rows, ["port", "state", "errors", "xmit_wait_per_s", "data_per_s"]);
		const ev = list(await api("/api/v1/events?since=" + dayAgo()), "events")
			.filter(e => (e.subject || "").includes(nm(n)) ||
				     (e.subject || "").includes(n.guid)).slice(0, 20);
		const te = el("table", { id: "detail-events" });
		d.appendChild(te);
		table("detail-events", ev, ["time", "severity", "kind", "subject", "old", "new"]);
	} catch (e) {
		d.appendChild(el("p", {}, String(e.message)));
	}
}

async function loadFabric() {
	const [nodes, links, health, events] = await Promise.all([
		api("/api/v1/nodes"), api("/api/v1/links"),
		api("/api/v1/health").catch(() => null),
		api("/api/v1/events?since=" + dayAgo()).catch(() => [])]);
	/* InfiniBand here; the Ethernet switches have their own view */
	const ns = list(nodes, "nodes").filter(n => n.fabric !== "eth");
	const all = list(links, "links").filter(l => l.fabric !== "eth");
	/* links lists the cables down now with state "down" (issue 41) */
	const ls = all.filter(l => l.state !== "down");
	const down = all.filter(l => l.state === "down")
		.map(l => Object.assign({}, l, { down: true, since: l.down_since }))
		.concat(downLinks(list(events, "events"), all));
	const f = layout(ns, ls.concat(down), healthSets(health));
	f.down = down.length;
	f.links = ls.length;
	f.hosts = ns.filter(n => n.type !== "switch").length;
	state.fabric = f;
	drawFabric(f);
}

/* ---- routing runs with their quality ------------------------------------------ */

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

function fmt(v, fixed) {
	if (v === null || v === undefined)
		return "";
	if (typeof v === "boolean")
		return v ? "yes" : "no";
	return fixed !== undefined && typeof v === "number" ? v.toFixed(fixed) : String(v);
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
async function loadRouting() {
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

/* ---- RoCE switches: policy state and drift per port ------------------------------ */

const QOS_STATE = {
	"in policy": "in sync", "drifted": "drifted", "partial": "failed push (partial)",
	"unreachable": "unreachable", "": "not read yet",
};

/* The port a drifted key is about: a segment of the key (PORT_QOS_MAP|Ethernet4,
 * QUEUE|Ethernet0|3) or the field (CABLE_LENGTH|AZURE's Ethernet0) that is one
 * of the switch's ports; null: switch-wide (WRED_PROFILE, DSCP_TO_TC_MAP). */
function keyPort(k, ports) {
	for (const seg of String(k.key).split(/[|:/]/))
		if (ports.has(seg))
			return seg;
	return ports.has(k.field) ? k.field : null;
}

async function loadSwitches() {
	const since = Math.floor(Date.now() / 1000) - 7 * 86400;
	const [sws, events] = await Promise.all([
		api("/api/v1/switches"),
		/* the applies of the last week only, newest first */
		api("/api/v1/events?kind=qos_applied&since=" + since).catch(() => [])]);
	const switches = list(sws, "switches");
	/* The live read (qos-status asks every switch): a read token may run it
	 * once every 10 s; sooner, the stored state is shown and it is asked
	 * again when the API says. */
	let live = null, liveNote = "";
	try {
		live = await api("/api/v1/qos/status");
	} catch (e) {
		liveNote = e.message;
		if (e.status === 429) {
			liveNote = "live read in " + e.retryAfter + " s (rate limited)";
			clearTimeout(state.switchesRetry);
			state.switchesRetry = setTimeout(() => {
				if ((location.hash || "").slice(1) === "switches")
					show();
			}, (e.retryAfter || 10) * 1000 + 200);
		}
	}
	const byName = new Map(list(live, "switches").map(s => [s.name, s]));
	const lastApplied = new Map();
	for (const e of list(events, "events"))   /* newest first */
		if (e.kind === "qos_applied" && (e.subject || "").startsWith("switch ") &&
		    !lastApplied.has(e.subject.slice(7)))
			lastApplied.set(e.subject.slice(7), e);
	const details = await Promise.all(switches.map(s =>
		api("/api/v1/switches/" + encodeURIComponent(s.name)).catch(() => s)));
	const box = $("switches");
	box.replaceChildren();
	box.dataset.live = live ? "1" : "0";
	$("switches-note").textContent = live ?
		live.in_policy + " of " + live.switches_total + " switches in sync (read now)" :
		"stored states: " + liveNote;
	for (const d of details) {
		const now = byName.get(d.name);
		const st = now ? now.state : d.qos_state;
		const applied = lastApplied.get(d.name);
		/* the last push landed partly and the switch is not in policy since */
		const failedPush = st === "partial" || (applied && /^partial/.test(applied.new || "") &&
							 st !== "in policy");
		const sec = el("section", { class: "switch", "data-name": d.name,
					    "data-state": st || "", "data-failed-push": failedPush ? 1 : 0 });
		sec.appendChild(el("h3", {}, d.name + " \u2014 " + (QOS_STATE[st] || st) +
				   (failedPush && st !== "partial" ? ", last push failed" : "")));
		sec.classList.add("state-" + (st || "unknown").replace(/ /g, "-"));
		const facts = [
			["plugin", d.plugin], ["model", d.model], ["address", d.address],
			["ports up", d.ports_up + " of " + d.ports],
			["last read", d.last_seen || "never"],
			["policy applied", applied ? applied.time + " (" + (applied.new.length > 90 ?
				applied.new.slice(0, 90) + "\u2026" : applied.new) + ")" :
				"no apply in the last 7 days"],
			["error", (now && now.error) || d.qos_error]];
		const dl = el("dl", { class: "facts" });
		for (const [k, v] of facts)
			if (v) {
				const div = el("div");
				div.appendChild(el("dt", {}, k));
				div.appendChild(el("dd", { title: k === "policy applied" && applied ?
							   applied.new : "" }, String(v)));
				dl.appendChild(div);
			}
		sec.appendChild(dl);
		const ports = new Map(list(d.port_list).map(p => [p.name, p]));
		const drift = new Map();     /* port name or "" (switch-wide) -> keys */
		for (const k of list(now && st === "drifted" ? now.keys : [])) {
			const p = keyPort(k, ports) || "";
			if (!drift.has(p))
				drift.set(p, []);
			drift.get(p).push(k);
		}
		/* the ports folded unless one drifted: many switches stay readable */
		const fold = el("details");
		const nDrifted = [...drift.keys()].length;
		if (nDrifted)
			fold.setAttribute("open", "");
		fold.appendChild(el("summary", {}, ports.size + " ports" +
				    (nDrifted ? ", " + nDrifted + " with drift" : "")));
		const t = el("table", { class: "ports" });
		const head = el("tr");
		for (const c of ["port", "alias", "oper", "neighbour", "drift (actual \u2192 policy)"])
			head.appendChild(el("th", {}, c));
		t.appendChild(head);
		const rows = [...ports.keys()];
		if (drift.has(""))
			rows.push("");
		for (const name of rows) {
			const p = ports.get(name) || {};
			const keys = drift.get(name) || [];
			const tr = el("tr", { "data-port": name || "switch-wide",
					      "data-drift": keys.map(k => k.key + " " + k.field).join(";") });
			if (keys.length)
				tr.classList.add("drifted");
			tr.appendChild(el("td", {}, name || "(switch-wide)"));
			tr.appendChild(el("td", {}, p.alias || ""));
			tr.appendChild(el("td", {}, name ? (p.oper_up ? "up" : "down") : ""));
			tr.appendChild(el("td", {}, p.peer_name ? p.peer_name + " " + p.peer_port : ""));
			const td = el("td");
			for (const k of keys)
				td.appendChild(el("div", { class: "drift" }, k.key + " " + k.field + ": " +
						   (k.before || "(none)") + " \u2192 " + (k.after || "(none)")));
			tr.appendChild(td);
			t.appendChild(tr);
		}
		fold.appendChild(t);
		sec.appendChild(fold);
		box.appendChild(sec);
	}
	box.dataset.switches = details.length;
	if (!details.length)
		box.appendChild(el("p", {}, "No RoCE switch in loom.yaml (switches:)."));
}

/* ---- the other views -------------------------------------------------------- */

function dayAgo() { return Math.floor(Date.now() / 1000) - 86400; }

const views = {
	fabric: loadFabric,
	/* the last day's events, newest first (at most 500) */
	events: async () => table("events",
				  list(await api("/api/v1/events?since=" + dayAgo()), "events")
					.slice(0, 500),
				  ["time", "severity", "kind", "subnet", "subject", "old", "new"]),
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
	} catch (e) {
		setStatus(e.message);
		document.body.dataset.loaded = "error";
	}
}

window.addEventListener("hashchange", show);
window.addEventListener("DOMContentLoaded", () => {
	$("token").value = state.token;
	$("login").addEventListener("submit", ev => {
		ev.preventDefault();
		state.token = $("token").value.trim();
		sessionStorage.setItem("loom-token", state.token);
		show();
	});
	show();
	setInterval(() => { if (!document.hidden) show(); }, 30000);
});
